/**
 * The zone store contract on SQLite (a temp file shared by the contract's stores), plus what only SQLite has:
 * the file, its pragmas and migrations, reopening, and openZoneStore's default.
 */
import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openZoneStore } from './index';
import { openSqliteStore } from './sqlite';
import { SETTINGS, describeZoneStoreContract, dnssecKey, expectStoreError } from './store.contract';
import type { ZoneStore } from './types';

const dir = mkdtempSync(join(tmpdir(), 'zone-store-sqlite-'));
const contractFile = join(dir, 'contract.sqlite');

describeZoneStoreContract(
  'sqlite',
  (options) =>
    openSqliteStore({ file: contractFile, now: options?.now, maxRecordsPerRrset: options?.maxRecordsPerRrset }),
  async () => {
    rmSync(dir, { recursive: true, force: true });
  },
);

describe('SQLite zone store specifics', () => {
  const stores: ZoneStore[] = [];
  const track = <T extends ZoneStore>(s: T) => (stores.push(s), s);
  let own: string;
  beforeAll(() => {
    own = mkdtempSync(join(tmpdir(), 'zone-store-sqlite-own-'));
  });
  afterAll(async () => {
    for (const s of stores) await s.close();
    rmSync(own, { recursive: true, force: true });
  });

  test('the file persists across close and reopen: zones, serials, records and ids', async () => {
    const file = join(own, 'persist.sqlite');
    const first = await openSqliteStore({ file });
    await first.createZone('persist.example', SETTINGS, [
      { name: 'www.persist.example', type: 'A', ttl: 300, value: '192.0.2.1' },
    ]);
    const changed = await first.change('persist.example', [
      { op: 'add', record: { name: 'persist.example', type: 'TXT', ttl: 60, value: '"kept"' } },
    ]);
    const zoneBefore = await first.getZone('persist.example');
    const recordsBefore = await first.listRecords('persist.example');
    await first.close();
    const second = track(await openSqliteStore({ file }));
    expect(await second.getZone('persist.example')).toEqual(zoneBefore);
    expect(zoneBefore?.serial).toBe(changed.zone.serial);
    expect(await second.listRecords('persist.example')).toEqual(recordsBefore);
    expect(recordsBefore).toHaveLength(2);
  });

  test('WAL journal, one schema_migrations row per version however often the file is opened', async () => {
    const file = join(own, 'migrations.sqlite');
    await (await openSqliteStore({ file })).close();
    await (await openSqliteStore({ file })).close();
    const s = track(await openSqliteStore({ file }));
    await s.createZone('m.example', SETTINGS);
    const db = new Database(file, { readonly: true });
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all()).toEqual([
        { version: 1, name: 'zones and records' },
        { version: 2, name: 'names as given' },
        { version: 3, name: 'dnssec keys' },
      ]);
      const indexes = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'records' AND sql IS NOT NULL")
        .all();
      expect(indexes).toEqual([{ name: 'records_zone_name_type' }]);
      expect(db.prepare("SELECT sql FROM sqlite_master WHERE name = 'records_zone_name_type'").pluck().get()).toMatch(
        /\(zone, name, type\)/,
      );
    } finally {
      db.close();
    }
  });

  test('foreign keys are enforced on the store connection (records and keys cannot outlive or precede their zone)', async () => {
    const file = join(own, 'fk.sqlite');
    const s = track(await openSqliteStore({ file }));
    await s.createZone('fk.example', SETTINGS, [{ name: 'a.fk.example', type: 'A', ttl: 1, value: '192.0.2.1' }]);
    await s.changeDnssecKeys('fk.example', { add: [dnssecKey('fk.example')] });
    await s.deleteZone('fk.example');
    const db = new Database(file, { readonly: true });
    try {
      expect(db.prepare('SELECT COUNT(*) FROM records').pluck().get()).toBe(0);
      expect(db.prepare('SELECT COUNT(*) FROM dnssec_keys').pluck().get()).toBe(0);
    } finally {
      db.close();
    }
  });

  test('a database written by a newer version is refused with UNAVAILABLE', async () => {
    const file = join(own, 'newer.sqlite');
    await (await openSqliteStore({ file })).close();
    const db = new Database(file);
    db.prepare(
      "INSERT INTO schema_migrations (version, name, applied_at) VALUES (99, 'future', '2030-01-01T00:00:00Z')",
    ).run();
    db.close();
    await expectStoreError(openSqliteStore({ file }), 'UNAVAILABLE', { message: /schema version 99/ });
  });

  test("':memory:' works and starts empty", async () => {
    const s = track(await openSqliteStore({ file: ':memory:' }));
    expect(await s.listZones()).toEqual([]);
    await s.createZone('mem.example', SETTINGS);
    expect((await s.listZones()).map((z) => z.name)).toEqual(['mem.example']);
  });

  test('openZoneStore without a database URL uses SQLite at <dataDir>/zones.sqlite, creating the directory', async () => {
    const dataDir = join(own, 'nested', 'data');
    expect(existsSync(dataDir)).toBe(false);
    const s = track(await openZoneStore({ dataDir, databaseUrl: '' }));
    expect(s.kind).toBe('sqlite');
    await s.createZone('dd.example', SETTINGS);
    expect(existsSync(join(dataDir, 'zones.sqlite'))).toBe(true);
  });
});
