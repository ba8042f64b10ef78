// @needs bind
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { openSqliteStore } from '../../dns/store';
import { dateSerial } from '../../dns/store/serial-policy';
import { exportZoneFile, importZoneFile } from '../../dns/zonefile/zone-files';
import { requireTool } from '../support/dns-peers';

/** A BIND zone moves into the store and back out unchanged; BIND's named-checkzone accepts what we write. */
const run = promisify(execFile);
const TEXT = readFileSync(join(__dirname, 'fixtures', 'compare.zone'), 'utf8');

test('import → export → named-checkzone OK → import again gives the same zone', async () => {
  requireTool('named-checkzone');
  const store = await openSqliteStore({ file: ':memory:' });
  try {
    const zone = await importZoneFile(store, 'compare.test', TEXT);
    expect(zone).toMatchObject({
      adminEmail: 'hostmaster@compare.test',
      primaryNs: 'ns1.compare.test',
      refresh: 10800,
      retry: 3600,
      expire: 604800,
      minimum: 300,
      defaultTtl: 3600,
      serial: 2026112201,
    });
    const exported = await exportZoneFile(store, 'compare.test');
    const file = join(mkdtempSync(join(tmpdir(), 'export-')), 'compare.zone');
    writeFileSync(file, exported);
    const check = await run('named-checkzone', ['compare.test', file]);
    expect(check.stdout).toMatch(/OK/);
    // BIND's own canonical dump of the original and of our export list the same records, the SOA (serial kept) too
    const dump = async (path: string) =>
      (await run('named-checkzone', ['-q', '-D', '-o', '-', 'compare.test', path])).stdout
        .split('\n')
        .filter((l) => l)
        .map((l) => l.replace(/\s+/g, ' '))
        .sort();
    const original = join(mkdtempSync(join(tmpdir(), 'orig-')), 'compare.zone');
    writeFileSync(original, TEXT);
    const theirs = await dump(original);
    expect(theirs.length).toBeGreaterThan(25);
    expect(await dump(file)).toEqual(theirs);
    const again = await openSqliteStore({ file: ':memory:' });
    await importZoneFile(again, 'compare.test', exported);
    const strip = (rs: Array<{ name: string; type: string; ttl: number; value: string }>) =>
      rs.map(({ name, type, ttl, value }) => ({ name, type, ttl, value }));
    expect(strip(await again.listRecords('compare.test'))).toEqual(strip(await store.listRecords('compare.test')));
    await again.close();
  } finally {
    await store.close();
  }
});

test('a zone file without an SOA is refused', async () => {
  const store = await openSqliteStore({ file: ':memory:' });
  await expect(importZoneFile(store, 'x.test', '$ORIGIN x.test.\n$TTL 60\nwww IN A 192.0.2.1\n')).rejects.toThrow(
    /has no SOA record/,
  );
  expect(await store.listZones()).toEqual([]);
  await store.close();
});

/** BIND's canonical dump of a master file (named-checkzone -D): records as lines, names lower-cased, sorted. */
async function namedDump(zone: string, text: string): Promise<string[]> {
  const file = join(mkdtempSync(join(tmpdir(), 'named-dump-')), 'zone.db');
  writeFileSync(file, text);
  return (await run('named-checkzone', ['-q', '-D', '-o', '-', zone, file])).stdout
    .split('\n')
    .filter((l) => l && !/\sSOA\s/.test(l))
    .map((l) => l.replace(/\s+/g, ' ').trim())
    .map((l) => {
      const [name, ttl, klass, type, ...value] = l.split(' ');
      const v = value.join(' ');
      return `${name?.toLowerCase()} ${ttl} ${klass} ${type} ${/^(CNAME|NS|MX|PTR|SRV|DNAME)$/.test(type ?? '') ? v.toLowerCase() : v}`;
    })
    .sort();
}

/** Our store's records in the same form. */
async function storeDump(store: Awaited<ReturnType<typeof openSqliteStore>>, zone: string): Promise<string[]> {
  return (await store.listRecords(zone)).map((r) => `${r.name.toLowerCase()}. ${r.ttl} IN ${r.type} ${r.value}`).sort();
}

const QUIRKS = `$ORIGIN quirks.test.
$TTL 300
@ IN SOA ns1.quirks.test. hostmaster.quirks.test. ( 2020010105 3600 600 86400 60 )
@ IN NS ns1.quirks.test.
ns1 IN A 192.0.2.1
; the same record twice, and again in other letter case: one record (RFC 2181 §5)
www IN A 192.0.2.4
www IN A 192.0.2.4
WWW IN A 192.0.2.4
alias IN CNAME WWW
alias IN CNAME www.quirks.test.
; escapes of plain characters: the characters themselves
\\065bc IN A 192.0.2.3
x\\-y IN A 192.0.2.6
cn IN CNAME \\087ww
txt IN TXT "say \\"hi\\" \\065\\066" \\067
mx IN MX 10 \\109ail.quirks.test.
`;

test('what BIND loads, we load the same way: duplicates dropped, case-only duplicates one, plain escapes read', async () => {
  requireTool('named-checkzone');
  const store = await openSqliteStore({ file: ':memory:' });
  try {
    const zone = await importZoneFile(store, 'quirks.test', QUIRKS);
    expect(zone.serial).toBe(2020010105);
    const mine = await storeDump(store, 'quirks.test');
    expect(mine).toEqual(await namedDump('quirks.test', QUIRKS));
    expect(mine.filter((l) => l.startsWith('www.'))).toHaveLength(1);
    expect(mine).toContain('abc.quirks.test. 300 IN A 192.0.2.3');
  } finally {
    await store.close();
  }
});

test('an imported zone keeps its serial; the next change raises it to max(serial + 1, YYYYMMDD00)', async () => {
  for (const [serial, expected] of [
    [2020010105, (now: Date) => dateSerial(now)],
    [4000000000, () => 4000000001],
  ] as const) {
    const store = await openSqliteStore({ file: ':memory:' });
    try {
      const text = QUIRKS.replace('2020010105', String(serial));
      expect((await importZoneFile(store, 'quirks.test', text)).serial).toBe(serial);
      const out = await store.change('quirks.test', [
        { op: 'add', record: { name: 'new.quirks.test', type: 'A', ttl: 300, value: '192.0.2.50' } },
      ]);
      expect(out.zone.serial).toBe(expected(new Date()));
    } finally {
      await store.close();
    }
  }
});

test('a master file BIND loads but we cannot (an escaped dot in a name): an error naming the line and the problem', async () => {
  requireTool('named-checkzone');
  const text = `${QUIRKS}a\\.b IN A 192.0.2.7\n`;
  expect((await namedDump('quirks.test', text)).some((l) => l.startsWith('a\\.b.'))).toBe(true);
  const store = await openSqliteStore({ file: ':memory:' });
  try {
    await expect(importZoneFile(store, 'quirks.test', text)).rejects.toThrow(
      /^line 18: .*a\\\\\.b.*the escape "\\\." stands for a "\." inside a label/,
    );
    expect(await store.listZones()).toEqual([]);
  } finally {
    await store.close();
  }
});

test('names keep the letter case BIND gives them: owners as first written, names in values as written', async () => {
  requireTool('named-checkzone');
  const text = readFileSync(join(__dirname, 'fixtures', 'case.zone'), 'utf8');
  const file = join(mkdtempSync(join(tmpdir(), 'case-')), 'case.zone');
  writeFileSync(file, text);
  // BIND's canonical dump, case kept (no lower-casing here, unlike namedDump)
  const theirs = (await run('named-checkzone', ['-q', '-D', '-o', '-', 'case.test', file])).stdout
    .split('\n')
    .filter((l) => l && !/\sSOA\s/.test(l))
    .map((l) => l.replace(/\s+/g, ' ').trim())
    .sort();
  const store = await openSqliteStore({ file: ':memory:' });
  try {
    await importZoneFile(store, 'case.test', text);
    const records = await store.listRecords('case.test');
    const mine = records
      .map((r) => `${r.givenName ?? r.name}. ${r.ttl} IN ${r.type} ${r.givenValue ?? r.value}`)
      .sort();
    expect(mine).toEqual(theirs);
    expect(mine).toContain('WwW.case.test. 300 IN A 192.0.2.4');
    // the model form (lookups, the REST API) stays lower case
    const names = records.filter((r) => ['CNAME', 'NS', 'MX', 'PTR', 'SRV'].includes(r.type));
    expect(names.every((r) => r.name === r.name.toLowerCase() && r.value === r.value.toLowerCase())).toBe(true);
    expect(records.filter((r) => r.name === 'www.case.test')).toHaveLength(2);
  } finally {
    await store.close();
  }
});
