// @needs bind
/**
 * Interop with a real peer: BIND's named-checkzone (Debian package bind9-utils) must accept what formatZoneFile
 * writes, and read it with the same meaning (its canonical dump parses back to the same records). A missing
 * binary is a failure, not a skip.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import fc from 'fast-check';
import type { RecordData } from '../model/model';
import { isInZone } from '../model/names';
import { parseSoa } from '../records';
import { recordArb, recordOfTypeArb, ttlArb, zoneArb } from '../records/testing/arbitraries';
import { compareRecords, formatZoneFile, parseZoneFile, type ParsedZone } from './index';

const FIXTURE = readFileSync(join(__dirname, 'fixtures', 'example.zone'), 'utf8');
const ORIGIN = 'example.com';

function checkzoneBinary(): string {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/bin', '/sbin'];
  const found = dirs.map((d) => join(d, 'named-checkzone')).find((p) => existsSync(p));
  if (!found) {
    throw new Error(
      'named-checkzone (BIND 9) is not installed: install bind9-utils (apt-get install -y bind9-utils) to run this interop test',
    );
  }
  return found;
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'checkzone-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

interface CheckResult {
  status: number | null;
  output: string;
  dump: string;
}

/** Runs named-checkzone on `text`; `relaxed` turns off the semantic checks (for generated zones). */
function checkzone(origin: string, text: string, relaxed = false): CheckResult {
  const bin = checkzoneBinary();
  const input = join(dir, 'in.zone');
  const dump = join(dir, 'dump.zone');
  writeFileSync(input, text);
  rmSync(dump, { force: true });
  const relax = relaxed
    ? [
        '-i',
        'none',
        '-k',
        'ignore',
        '-n',
        'ignore',
        '-m',
        'ignore',
        '-M',
        'ignore',
        '-S',
        'ignore',
        '-T',
        'ignore',
        '-W',
        'ignore',
      ]
    : [];
  const r = spawnSync(bin, [...relax, '-D', '-o', dump, origin, input], { encoding: 'utf8' });
  return {
    status: r.status,
    output: `${r.stdout}${r.stderr}`,
    dump: existsSync(dump) ? readFileSync(dump, 'utf8') : '',
  };
}

function expectSameZone(actual: ParsedZone, expected: ParsedZone): void {
  expect(actual.soa).toEqual(expected.soa);
  expect([...actual.records].sort(compareRecords)).toEqual([...expected.records].sort(compareRecords));
}

describe('named-checkzone', () => {
  test('accepts the fixture as written by hand (the fixture itself is valid BIND input)', () => {
    const r = checkzone(ORIGIN, FIXTURE);
    expect(r.output).toMatch(/\bOK\s*$/);
    expect(r.status).toBe(0);
  });

  test('accepts formatZoneFile output of the fixture and reads it with the same meaning', () => {
    const zone = parseZoneFile(FIXTURE, { origin: ORIGIN });
    const r = checkzone(ORIGIN, formatZoneFile({ origin: ORIGIN, ...zone }));
    expect(r.output).toMatch(/loaded serial 2024052101/);
    expect(r.output).toMatch(/\bOK\s*$/);
    expect(r.status).toBe(0);
    expectSameZone(parseZoneFile(r.dump, { origin: ORIGIN }), zone);
  });

  test('escapes in names mean what they mean to BIND (\\065 is "A"); one standing for a "." in a label is an error naming the line', () => {
    const text = [
      '$TTL 300',
      '@ IN SOA ns1 hostmaster 1 3600 600 86400 300',
      '@ IN NS ns1',
      'ns1 IN A 192.0.2.1',
      '\\065bc IN A 192.0.2.2',
      'w\\ww IN CNAME \\065bc',
      'mx IN MX 10 \\109ail.example.com.',
    ].join('\n');
    const r = checkzone(ORIGIN, `${text}\n`);
    expect(r.status).toBe(0);
    const ours = parseZoneFile(`${text}\n`, { origin: ORIGIN });
    expectSameZone(ours, parseZoneFile(r.dump, { origin: ORIGIN }));
    expect(ours.records.map((x) => x.givenName ?? x.name)).toContain('Abc.example.com');
    expect(ours.records.find((x) => x.type === 'MX')?.value).toBe('10 mail.example.com.');
    expect(() =>
      parseZoneFile(`${text}\nx IN TXT "fine"\na\\.b IN TXT "dot in a label"\n`, { origin: ORIGIN }),
    ).toThrow(/line 9.*the escape "\\\." stands for a "\." inside a label/s);
  });

  test('rejects a broken file (the check can fail)', () => {
    const r = checkzone(ORIGIN, '$TTL 1h\n@ IN SOA ns1 hostmaster 1 2 3 4 5\n@ IN NS ns1\nns1 IN A 300.0.0.1\n');
    expect(r.status).not.toBe(0);
    expect(r.output).not.toMatch(/\bOK\s*$/);
  });

  test('reads generated zones of every type exactly as we wrote them', () => {
    const zoneInput = zoneArb.chain((origin) =>
      fc.record({
        origin: fc.constant(origin),
        soa: fc.tuple(recordOfTypeArb('SOA', origin), ttlArb).map(([r, ttl]) => ({ ...parseSoa(r.value), ttl })),
        records: fc
          .array(recordArb(origin), { minLength: 5, maxLength: 25 })
          .map((rs) => asBindKeepsThem([{ name: origin, type: 'NS', ttl: 3600, value: 'ns.example.net.' }, ...rs])),
      }),
    );
    fc.assert(
      fc.property(zoneInput, (x) => {
        const text = formatZoneFile(x);
        const r = checkzone(x.origin, text, true);
        if (r.status !== 0) throw new Error(`named-checkzone refused:\n${r.output}\n--- input ---\n${text}`);
        expectSameZone(parseZoneFile(r.dump, { origin: x.origin }), { soa: x.soa, records: x.records });
      }),
      { numRuns: 12 },
    );
  });
});

/**
 * What BIND requires or does to a zone, applied to generated records so that its dump can be compared exactly:
 * no "CNAME and other data" (nor a CNAME at the apex, where the SOA is), one DNAME per name, no apex NS naming a server inside the
 * zone (it would need an address record), identical records merged, one TTL per RRset (the first one).
 */
function asBindKeepsThem(records: RecordData[]): RecordData[] {
  const apex = records[0]?.name;
  const cnameAt = new Map<string, RecordData>();
  for (const r of records) if (r.type === 'CNAME' && r.name !== apex && !cnameAt.has(r.name)) cnameAt.set(r.name, r);
  const seen = new Set<string>();
  const ttlOf = new Map<string, number>();
  const out: RecordData[] = [];
  for (const r of records) {
    if (r.type === 'CNAME' ? cnameAt.get(r.name) !== r : cnameAt.has(r.name)) continue;
    if (r.type === 'NS' && r.name === apex && isInZone(r.value.slice(0, -1), apex)) continue;
    if (r.type === 'DNAME' && out.some((o) => o.type === 'DNAME' && o.name === r.name)) continue;
    const rrset = `${r.name} ${r.type}`;
    if (seen.has(`${rrset} ${r.value}`)) continue;
    seen.add(`${rrset} ${r.value}`);
    if (!ttlOf.has(rrset)) ttlOf.set(rrset, r.ttl);
    out.push({ ...r, ttl: ttlOf.get(rrset) ?? r.ttl });
  }
  return out;
}
