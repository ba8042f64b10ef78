// @needs build postgres redis
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DnsClient } from '../../dns/client';
import { gatewayStarted, launchGateway, stopGateway, type GatewayProcess } from '../support/gateway-process';
import { testDatabase } from '../support/replica-cluster';
import { TEST_ADMIN_PASSWORD } from '../support/system';

/**
 * docs/operations.md, "Backup and restore" on PostgreSQL: `pg_dump --format=custom` of the database while the gateway
 * runs, `pg_restore --no-owner` into an empty database, and a gateway given the same MASTER_KEY serves what the dump
 * holds (zones, the DNS API's users). pg_dump and pg_restore are Debian's postgresql-client (.ci/run installs it).
 */
const databases: Array<Awaited<ReturnType<typeof testDatabase>>> = [];
const dirs: string[] = [];
const started: GatewayProcess[] = [];
afterAll(async () => {
  await Promise.all(started.map(stopGateway));
  await Promise.all(databases.map((d) => d.drop()));
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
});

function tool(command: string, args: string[]): void {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  if (result.error) throw new Error(`${command}: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')}: ${result.stderr}`);
}

test('pg_dump of a running store, pg_restore into an empty database: the same zones and users under the same master key', async () => {
  const source = await testDatabase('pg_backup_source');
  const target = await testDatabase('pg_backup_target');
  databases.push(source, target);
  const live = await gatewayStarted(await launchGateway({ DATABASE_URL: source.url, SEED_DEMO: 'true' }));
  started.push(live);
  dirs.push(live.dataDir);
  const masterKey = readFileSync(join(live.dataDir, 'dnssec-master.key'), 'utf8').trim();

  const dump = join(mkdtempSync(join(tmpdir(), 'pg-dump-')), 'onegraph.dump');
  dirs.push(join(dump, '..'));
  tool('pg_dump', ['--format=custom', `--file=${dump}`, source.url]);
  expect(await stopGateway(live)).toBe(0);
  tool('pg_restore', ['--no-owner', `--dbname=${target.url}`, dump]);

  const restored = await gatewayStarted(
    await launchGateway({ DATABASE_URL: target.url, MASTER_KEY: masterKey, SEED_DEMO: 'false' }),
    '/readyz',
  );
  started.push(restored);
  dirs.push(restored.dataDir);
  const answer = await new DnsClient({ server: { host: '127.0.0.1', port: restored.dnsPort } }).query(
    'www.example.test',
    'A',
  );
  expect(answer.answers.map((r) => r.value)).toEqual(['192.0.2.10']);
  const login = await fetch(`${restored.base}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: TEST_ADMIN_PASSWORD }),
  });
  expect(login.status).toBe(200);
}, 180_000);
