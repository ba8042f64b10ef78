// @needs build sqlite
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DnsClient } from '../../dns/client';
import { SCHEMA_VERSION } from '../../dns/store/migrations';
import { gatewayStarted, launchGateway, stopGateway, type GatewayProcess } from '../support/gateway-process';
import { TEST_ADMIN_PASSWORD } from '../support/system';

/**
 * What docs/operations.md says of backups and upgrades, done on the built program: an online backup of the SQLite
 * store with the sqlite3 shell (Debian's `sqlite3`, .ci/run installs it) while the gateway runs, restored into a new
 * DATA_DIR with the master key; without the key the copy refuses to start; a store newer than the code refuses to
 * start naming both versions and is left as it was.
 */
const dirs: string[] = [];
const tempDir = (name: string): string => {
  const dir = mkdtempSync(join(tmpdir(), `${name}-`));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const started: GatewayProcess[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map(stopGateway));
});
async function launch(env: Record<string, string | undefined>): Promise<GatewayProcess> {
  const p = await launchGateway(env);
  started.push(p);
  return p;
}

const aRecord = async (p: GatewayProcess, name: string): Promise<string[]> =>
  (await new DnsClient({ server: { host: '127.0.0.1', port: p.dnsPort } }).query(name, 'A')).answers.map(
    (r) => r.value,
  );

async function adminLogin(p: GatewayProcess): Promise<number> {
  const res = await fetch(`${p.base}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: TEST_ADMIN_PASSWORD }),
  });
  return res.status;
}

/** The sqlite3 shell, as the documentation runs it; a missing shell fails the test. */
function sqlite3(...args: string[]): string {
  const result = spawnSync('sqlite3', args, { encoding: 'utf8' });
  if (result.error) throw new Error(`sqlite3: ${result.error.message} (Debian's sqlite3 package)`);
  if (result.status !== 0) throw new Error(`sqlite3 ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

/** A store made by this build in its own DATA_DIR (the demo zone, the admin user), stopped again. */
async function madeStore(): Promise<string> {
  const dataDir = tempDir('store');
  const first = await gatewayStarted(await launch({ DATA_DIR: dataDir, SEED_DEMO: 'true' }));
  expect(await stopGateway(first)).toBe(0);
  return dataDir;
}

const schemaVersions = (file: string, table: string): number[] => {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(`SELECT version FROM ${table} ORDER BY version`).pluck().all() as number[];
  } finally {
    db.close();
  }
};

test('an online sqlite3 .backup with the master key beside it restores zones and users; without the key it refuses to start', async () => {
  const live = await gatewayStarted(await launch({ SEED_DEMO: 'true' }));
  expect(await aRecord(live, 'www.example.test')).toEqual(['192.0.2.10']);
  // while it runs: the store (the zones, the DNS API's users and keys, sealed secrets) and the master key
  const backup = tempDir('backup');
  sqlite3(join(live.dataDir, 'zones.sqlite'), `.backup '${join(backup, 'zones.sqlite')}'`);
  copyFileSync(join(live.dataDir, 'dnssec-master.key'), join(backup, 'dnssec-master.key'));
  expect(sqlite3(join(backup, 'zones.sqlite'), 'PRAGMA integrity_check;').trim()).toBe('ok');
  expect(await stopGateway(live)).toBe(0);

  const keyless = tempDir('restore-without-key');
  copyFileSync(join(backup, 'zones.sqlite'), join(keyless, 'zones.sqlite'));

  const restored = await gatewayStarted(await launch({ DATA_DIR: backup }), '/readyz');
  expect(await aRecord(restored, 'www.example.test')).toEqual(['192.0.2.10']);
  expect(await adminLogin(restored)).toBe(200);
  expect(await stopGateway(restored)).toBe(0);

  const refused = await launch({ DATA_DIR: keyless });
  expect(await refused.exited).toBe(1);
  expect(refused.output()).toMatch(/MASTER_KEY/);
}, 180_000);

test('a zone store newer than the code: the start is refused naming both versions, and the store is left as it was', async () => {
  const dataDir = await madeStore();
  const file = join(dataDir, 'zones.sqlite');
  sqlite3(
    file,
    `INSERT INTO schema_migrations (version, name, applied_at) VALUES (${SCHEMA_VERSION + 1}, 'from a newer release', '2030-01-01T00:00:00.000Z');`,
  );
  const before = sqlite3(file, '.dump');

  const older = await launch({ DATA_DIR: dataDir });
  expect(await older.exited).toBe(1);
  expect(older.output()).toContain(
    `cannot start: the database has schema version ${SCHEMA_VERSION + 1}, newer than this software knows (${SCHEMA_VERSION})`,
  );
  expect(sqlite3(file, '.dump')).toBe(before);
  expect(schemaVersions(file, 'schema_migrations').pop()).toBe(SCHEMA_VERSION + 1);
}, 120_000);

test("the DNS API's user tables newer than the code: refused the same way, naming both versions", async () => {
  const dataDir = await madeStore();
  const file = join(dataDir, 'zones.sqlite');
  const known = schemaVersions(file, 'api_schema_migrations').pop() ?? 0;
  sqlite3(file, `INSERT INTO api_schema_migrations (version, name, applied_at) VALUES (${known + 1}, 'future', 'x');`);
  const before = sqlite3(file, '.dump');

  const older = await launch({ DATA_DIR: dataDir });
  expect(await older.exited).toBe(1);
  expect(older.output()).toContain(
    `the user tables have schema version ${known + 1}, newer than this software knows (${known})`,
  );
  expect(sqlite3(file, '.dump')).toBe(before);
}, 120_000);
