// @needs bind
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { openSqliteStore } from '../../dns/store';
import { exportZoneFile, importZoneFile } from '../../dns/zone-files';
import { requireTool } from '../helpers/dns-peers';

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
