import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import type { RecordData } from '../model';
import { parseSoa } from '../records';
import { labelArb, recordArb, recordOfTypeArb, ttlArb, zoneArb } from '../records/testing/arbitraries';
import { openSqliteStore, type ZoneStore } from '../store';
import {
  canonicalKey,
  compareNames,
  compareRecords,
  exportZoneFile,
  formatZoneFile,
  formatZoneFilePart,
  importZoneFile,
  ZoneChangedError,
  ZoneFileCursorError,
  ZoneFilePages,
} from '.';

/**
 * Master files a page at a time (docs/dns-api.md#whole-zone-reads): the pages joined are the file written at once,
 * byte for byte; each page holds whole names and about `limit` records; a change after the first page is refused.
 */
const ZONE = 'example.com';
const FIXTURE = readFileSync(join(__dirname, 'fixtures', 'example.zone'), 'utf8');

/** Names whose byte order and canonical order differ (`h1-x` before `h1.`, `a.h9` after `h10`, …), a few each. */
function extraLines(n: number): string[] {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const host = `h${i}`;
    lines.push(`${host} 300 IN A 10.0.${i >> 8}.${i & 255}`);
    if (i % 3 === 0) lines.push(`${host}-x IN TXT "t${i}"`, `${host}-x IN TXT "u${i}"`);
    if (i % 5 === 0) lines.push(`a.${host} 60 IN AAAA 2001:db8::${i.toString(16)}`, `b.a.${host} IN MX 10 mail`);
    if (i % 7 === 0) lines.push(`*.w${i} IN CNAME ${host}`, `_sip._tcp.${host} IN SRV 0 5 5060 ${host}`);
  }
  return lines;
}

let store: ZoneStore;
let eachRecordCalls: number;

beforeEach(async () => {
  store = await openSqliteStore({ file: ':memory:' });
  await importZoneFile(store, ZONE, `${FIXTURE}\n${extraLines(1_200).join('\n')}\n`);
  eachRecordCalls = 0;
  const eachRecord = store.eachRecord.bind(store);
  store.eachRecord = async (zone, visit) => {
    eachRecordCalls++;
    return eachRecord(zone, visit);
  };
});
afterEach(async () => store.close());

async function allPages(pages: ZoneFilePages, limit: number): Promise<string[]> {
  const texts: string[] = [];
  for (let cursor: string | null = null, n = 0; ; n++) {
    if (n > 10_000) throw new Error('the pages did not end');
    const page = await pages.page(ZONE, cursor, limit);
    texts.push(page.text);
    cursor = page.nextCursor;
    if (cursor === null) return texts;
  }
}

/** Record lines of a page: neither a directive nor the SOA. */
const recordLines = (text: string) => text.split('\n').filter((l) => l && !l.startsWith('$') && !l.includes('\tSOA\t'));

test('the pages joined are the master file written at once, byte for byte, at any page size', async () => {
  const whole = await exportZoneFile(store, ZONE);
  expect(recordLines(whole).length).toBeGreaterThan(2_500);
  const pages = new ZoneFilePages(store);
  for (const limit of [1, 7, 500, 10_000]) {
    const texts = await allPages(pages, limit);
    expect(texts.join('') === whole).toBe(true);
    if (limit === 500) expect(texts.length).toBeGreaterThanOrEqual(6);
  }
});

test('a page holds whole names: at most `limit` records, or one name’s records when that name has more', async () => {
  const pages = new ZoneFilePages(store);
  const texts = await allPages(pages, 2);
  for (const text of texts) {
    const lines = recordLines(text);
    // a blank owner continues the name before it: at most one name starts in a page of more than 2 records
    const starts = lines.filter((l) => !l.startsWith('\t')).length;
    if (lines.length > 2) expect(starts).toBeLessThanOrEqual(1);
    // the page's first record names its owner (no name runs on from the page before)
    if (lines.length) expect(lines[0]?.startsWith('\t')).toBe(text.startsWith('$ORIGIN'));
  }
});

test('exports of one zone version read its names once; a new version reads them again', async () => {
  const pages = new ZoneFilePages(store);
  await Promise.all([allPages(pages, 1_000), allPages(pages, 1_000), allPages(pages, 300)]);
  expect(eachRecordCalls).toBe(1);
  await store.change(ZONE, [{ op: 'add', record: { name: `new.${ZONE}`, type: 'A', ttl: 300, value: '192.0.2.1' } }]);
  const texts = await allPages(pages, 1_000);
  expect(eachRecordCalls).toBe(2);
  expect(texts.join('') === (await exportZoneFile(store, ZONE))).toBe(true);
});

test('a page after the zone changed is refused, naming the serials; so is one after the zone was deleted', async () => {
  const pages = new ZoneFilePages(store);
  const first = await pages.page(ZONE, null, 100);
  const before = (await store.getZone(ZONE))?.serial ?? 0;
  await store.change(ZONE, [{ op: 'add', record: { name: `new.${ZONE}`, type: 'A', ttl: 300, value: '192.0.2.1' } }]);
  const after = (await store.getZone(ZONE))?.serial ?? 0;
  const next = pages.page(ZONE, first.nextCursor, 100);
  await expect(next).rejects.toBeInstanceOf(ZoneChangedError);
  await expect(next).rejects.toThrow(`zone ${ZONE} changed while it was exported (serial ${before}, now ${after})`);
  const again = await pages.page(ZONE, null, 100);
  await store.deleteZone(ZONE);
  await expect(pages.page(ZONE, again.nextCursor, 100)).rejects.toThrow(
    `zone ${ZONE} was deleted while it was exported`,
  );
});

test('a first page read while the zone changed is read again: its SOA serial is the one of its records', async () => {
  const pages = new ZoneFilePages(store);
  const listRecords = store.listRecords.bind(store);
  let changes = 0;
  store.listRecords = async (zone, filter) => {
    if (changes++ === 0)
      await store.change(ZONE, [{ op: 'add', record: { name: `a.${ZONE}`, type: 'A', ttl: 300, value: '192.0.2.9' } }]);
    return listRecords(zone, filter);
  };
  const page = await pages.page(ZONE, null, 100_000);
  expect(page.nextCursor).toBeNull();
  store.listRecords = listRecords;
  expect(page.text === (await exportZoneFile(store, ZONE))).toBe(true);
  expect(page.text).toMatch(/^a\t300\tIN\tA\t192\.0\.2\.9$/m);
});

test.each([
  ['not base64 JSON', 'bm90LWEtY3Vyc29y'],
  ['of another zone', Buffer.from(JSON.stringify(['other.test', 1, 'x', 1, 'h1.other.test'])).toString('base64url')],
  ['with a position of no name', null],
  ['with a name that is not the one at its position', null],
])('a cursor %s is refused', async (what, given) => {
  const pages = new ZoneFilePages(store);
  const first = await pages.page(ZONE, null, 10);
  const [zone, serial, updatedAt, position, last] = JSON.parse(
    Buffer.from(first.nextCursor ?? '', 'base64url').toString('utf8'),
  ) as [string, number, string, number, string];
  const tampered =
    what === 'with a position of no name'
      ? [zone, serial, updatedAt, 1_000_000, last]
      : [zone, serial, updatedAt, position + 1, last];
  const cursor = given ?? Buffer.from(JSON.stringify(tampered)).toString('base64url');
  await expect(pages.page(ZONE, cursor, 10)).rejects.toBeInstanceOf(ZoneFileCursorError);
});

test('a page stops between its steps once its signal fires, with its reason', async () => {
  const pages = new ZoneFilePages(store);
  const caller = new AbortController();
  const listRecords = store.listRecords.bind(store);
  store.listRecords = async (zone, filter) => {
    const records = await listRecords(zone, filter);
    caller.abort(new Error('nobody waits')); // the records are read: the writing is next
    return records;
  };
  await expect(pages.page(ZONE, null, 10_000, caller.signal)).rejects.toThrow('nobody waits');
});

test('an unknown zone is NOT_FOUND', async () => {
  await expect(new ZoneFilePages(store).page('nowhere.test', null, 10)).rejects.toMatchObject({ code: 'NOT_FOUND' });
});

test('property: the canonical key orders names as compareNames does', () => {
  const name = fc
    .array(fc.oneof(labelArb, fc.constantFrom('a', 'a-', 'a-b', '*', '_tcp', '0', 'z', 'xn--x')), {
      minLength: 0,
      maxLength: 4,
    })
    .map((labels) => [...labels, 'example', 'com'].join('.'));
  fc.assert(
    fc.property(name, name, (a, b) => {
      const byKey = canonicalKey(a) < canonicalKey(b) ? -1 : canonicalKey(a) > canonicalKey(b) ? 1 : 0;
      expect(byKey).toBe(Math.sign(compareNames(a, b)));
    }),
    { numRuns: 500 },
  );
});

test('property: parts of whole names, in name order, joined are formatZoneFile’s text', () => {
  const input = zoneArb.chain((origin) =>
    fc.record({
      origin: fc.constant(origin),
      soa: fc.option(
        fc.tuple(recordOfTypeArb('SOA', origin), ttlArb).map(([r, ttl]) => ({ ...parseSoa(r.value), ttl })),
        { nil: null },
      ),
      records: fc.array(recordArb(origin), { maxLength: 20 }),
      ttl: ttlArb,
      cuts: fc.array(fc.nat(20), { maxLength: 5 }),
    }),
  );
  fc.assert(
    fc.property(input, ({ origin, soa, records, ttl, cuts }) => {
      const names = [...new Set(records.map((r) => r.name))].sort(compareNames);
      const parts: RecordData[][] = [];
      let from = 0;
      for (const cut of [...new Set(cuts)].sort((a, b) => a - b).filter((c) => c > 0 && c < names.length)) {
        parts.push(records.filter((r) => names.slice(from, cut).includes(r.name)));
        from = cut;
      }
      parts.push(records.filter((r) => names.slice(from).includes(r.name)));
      const texts = parts.map((part, i) => {
        const previous = [...(parts[i - 1] ?? [])].sort(compareRecords).pop()?.name;
        return formatZoneFilePart({
          origin,
          ttl,
          records: part,
          ...(i === 0 ? { head: { soa } } : {}),
          ...(previous ? { previous } : {}),
        });
      });
      expect(texts.join('')).toBe(formatZoneFile({ origin, soa, records, ttl }));
    }),
    { numRuns: 100 },
  );
});
