// @needs build postgres bind
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { GENERATED_TOKEN_FILE } from '../../subgraphs/dns-tool/token-file';
import {
  dnskeysAt,
  gatewayStarted,
  launchGateway,
  MAIN,
  stopGateway,
  toolLogin,
  until,
  type GatewayProcess,
} from '../support/gateway-process';
import { TEST_ADMIN_PASSWORD } from '../support/system';
import { call, login } from './api';

/**
 * Replicas on one PostgreSQL database, each with its own DATA_DIR, share their secrets through the store, sealed
 * under the one MASTER_KEY they are given: the second replica serves the first one's signed zone and accepts its
 * DNS tool token at once, with nothing copied by hand; a replica given another master key (or none) refuses to start
 * with one line naming MASTER_KEY / MASTER_KEY_FILE, before it serves anything. Real processes (the built program).
 */
const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const DATABASE = `replica_secrets_${process.pid}_${randomBytes(3).toString('hex')}`;
const databaseUrl = (() => {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${DATABASE}`;
  return url.toString();
})();
const MASTER_KEY = randomBytes(32).toString('base64');
const ZONE = 'replicas.test';
const ZONE_FILE = [
  `$ORIGIN ${ZONE}.`,
  `@ 3600 IN SOA ns1.${ZONE}. hostmaster.${ZONE}. 2026010101 10800 3600 604800 3600`,
  `@ 3600 IN NS ns1.${ZONE}.`,
  'www 300 IN A 192.0.2.80',
  '',
].join('\n');
jest.setTimeout(120_000);

type Replica = GatewayProcess;
const replicas: Replica[] = [];
const dirs: string[] = [];

/** A replica on the shared database with a DATA_DIR of its own and MASTER_KEY unless `env` says otherwise. */
async function launch(env: Record<string, string | undefined>): Promise<Replica> {
  const replica = await launchGateway({ DATABASE_URL: databaseUrl, MASTER_KEY, ...env });
  replicas.push(replica);
  dirs.push(replica.dataDir);
  return replica;
}
const started = gatewayStarted;
const dnskeys = (replica: Replica) => dnskeysAt(replica, ZONE);

/** `dig +dnssec` for www's A record at the replica: the answer section's record types. */
async function digTypes(replica: Replica): Promise<string[]> {
  const { stdout } = await promisify(execFile)('dig', [
    '@127.0.0.1',
    '-p',
    String(replica.dnsPort),
    '+dnssec',
    '+norec',
    '+noall',
    '+answer',
    `www.${ZONE}`,
    'A',
  ]);
  return stdout
    .split('\n')
    .filter((l) => l.trim() && !l.startsWith(';'))
    .map((l) => l.split(/\s+/)[3] ?? '');
}

async function admin(query: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(query);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run npm run build (npm test does it)`);
  await admin(`CREATE DATABASE "${DATABASE}"`);
});

afterAll(async () => {
  for (const r of replicas) await stopGateway(r);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  await admin(`DROP DATABASE IF EXISTS "${DATABASE}" WITH (FORCE)`);
});

describe('replicas on one database with one MASTER_KEY', () => {
  let first: Replica;
  let token: string;
  let keys: string[];

  test('the first replica signs a zone and makes the DNS tool token, which it accepts', async () => {
    first = await started(await launch({}));
    const api = `${first.base}/api/v1`;
    const adminToken = await login(api, 'admin', TEST_ADMIN_PASSWORD);
    const created = await call(api, 'POST', '/zones', {
      token: adminToken,
      body: { name: ZONE, zone_file: ZONE_FILE },
    });
    expect(created.status).toBe(201);
    const signed = await call(api, 'POST', `/zones/${ZONE}/dnssec`, { token: adminToken, body: { enable: true } });
    expect(signed.status).toBe(200);
    keys = await dnskeys(first);
    expect(keys).toHaveLength(2);
    expect(await digTypes(first)).toEqual(expect.arrayContaining(['A', 'RRSIG']));
    token = readFileSync(join(first.dataDir, GENERATED_TOKEN_FILE), 'utf8').trim();
    expect(await toolLogin(first, token)).toMatch(/\S/);
  });

  test('a second replica with the same MASTER_KEY serves the signed zone and accepts the token at once', async () => {
    const second = await started(await launch({}));
    // Started means its zones are loaded: the same keys, and signed answers, with no file copied.
    expect(
      await until('DNSKEYs at the second replica', async () => {
        const seen = await dnskeys(second);
        return seen.length === keys.length ? seen : undefined;
      }),
    ).toEqual(keys);
    expect(await digTypes(second)).toEqual(expect.arrayContaining(['A', 'RRSIG']));
    const session = await toolLogin(second, token);
    expect(session).toMatch(/\S/);
    const listed = await fetch(`${second.base}/api.php?action=list_records&zone=${ZONE}`, {
      headers: { authorization: `Bearer ${session ?? ''}` },
    });
    expect(listed.status).toBe(200);
    // its own DATA_DIR holds the shared token for the README's example, and never the first one's master key file
    expect(readFileSync(join(second.dataDir, GENERATED_TOKEN_FILE), 'utf8').trim()).toBe(token);
    expect(existsSync(join(second.dataDir, 'dnssec-master.key'))).toBe(false);
  });

  test.each([
    ['another MASTER_KEY', { MASTER_KEY: randomBytes(32).toString('hex') }, 'the key in MASTER_KEY does not open'],
    ['no master key at all', { MASTER_KEY: undefined }, 'no MASTER_KEY was given, so this replica made its own in'],
  ])('a replica with %s exits non-zero with one line naming MASTER_KEY / MASTER_KEY_FILE', async (_, env, reason) => {
    const refused = await launch(env);
    const code = await refused.exited;
    expect(code).not.toBe(0);
    expect(code).not.toBeNull();
    const line = refused
      .output()
      .split('\n')
      .find((l) => l.includes('MASTER_KEY / MASTER_KEY_FILE'));
    expect(line).toContain(`cannot start: MASTER_KEY / MASTER_KEY_FILE: ${reason}`);
    expect(line).toContain('start every replica on this database with the same MASTER_KEY or MASTER_KEY_FILE');
    expect(refused.output()).not.toContain(MASTER_KEY);
    // it never listened: nothing was served
    await expect(fetch(`${refused.base}/healthz`)).rejects.toThrow();
  });
});
