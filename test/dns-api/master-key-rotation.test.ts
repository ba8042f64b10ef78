// @needs build
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../gateway/host/paths';
import { GENERATED_TOKEN_FILE } from '../../subgraphs/dns-tool/token-file';
import {
  dnskeysAt,
  gatewayStarted,
  launchGateway,
  MAIN,
  stopGateway,
  toolLogin,
  type GatewayProcess,
} from '../support/gateway-process';
import { TEST_ADMIN_PASSWORD } from '../support/system';
import { call, login } from './api';

/**
 * `npm run master-key -- rotate` (the built script): every secret of the store re-sealed under a new master key, so
 * the server started with the new key serves the same signed zone, signs logins with the same token key and accepts
 * the same tool token; with the old key it is refused. A second run changes nothing; a bad new key is refused naming
 * its setting. Real processes on a SQLite DATA_DIR.
 */
const SCRIPT = join(PROJECT_ROOT, 'dist', 'scripts', 'master-key.js');
const ZONE = 'rotate.test';
const OLD = randomBytes(32).toString('base64');
const NEW = randomBytes(32).toString('hex');
jest.setTimeout(120_000);

const dataDir = mkdtempSync(join(tmpdir(), 'master-key-rotation-'));
const running: GatewayProcess[] = [];

async function start(masterKey: string): Promise<GatewayProcess> {
  const p = await launchGateway({ DATA_DIR: dataDir, MASTER_KEY: masterKey });
  running.push(p);
  return p;
}

function rotate(env: Record<string, string>, args: string[] = []): { status: number | null; out: string } {
  const { NODE_ENV: _jest, ...userEnv } = process.env;
  const run = spawnSync(process.execPath, [SCRIPT, 'rotate', ...args], {
    env: { ...userEnv, DATA_DIR: dataDir, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: run.status, out: run.stdout + run.stderr };
}

beforeAll(() => {
  for (const file of [MAIN, SCRIPT])
    if (!existsSync(file)) throw new Error(`${file} is missing: run npm run build (npm test does it)`);
});
afterAll(async () => {
  for (const p of running) await stopGateway(p);
  rmSync(dataDir, { recursive: true, force: true });
});

test('rotate: the server on the new key serves the same signed zone, tokens and tool token; the old key is refused', async () => {
  const before = await gatewayStarted(await start(OLD));
  const api = `${before.base}/api/v1`;
  const admin = await login(api, 'admin', TEST_ADMIN_PASSWORD);
  expect((await call(api, 'POST', '/zones', { token: admin, body: { name: ZONE } })).status).toBe(201);
  expect((await call(api, 'POST', `/zones/${ZONE}/dnssec`, { token: admin, body: { enable: true } })).status).toBe(200);
  const keys = await dnskeysAt(before, ZONE);
  expect(keys).toHaveLength(2);
  const jwks = await (await fetch(`${api}/.well-known/jwks.json`)).json();
  const token = readFileSync(join(dataDir, GENERATED_TOKEN_FILE), 'utf8').trim();
  expect(await stopGateway(before)).toBe(0);

  const done = rotate({ MASTER_KEY: OLD, NEW_MASTER_KEY: NEW });
  expect(done).toMatchObject({ status: 0 });
  expect(done.out).toMatch(/re-sealed under the new master key: \d+ secrets and DNSSEC keys, 1 token signing keys/);
  expect(done.out).not.toContain(NEW);
  // again: nothing left to re-seal, and still fine
  expect(rotate({ MASTER_KEY: OLD, NEW_MASTER_KEY: NEW })).toMatchObject({ status: 0 });

  const old = await start(OLD);
  expect(await old.exited).toBe(1);
  expect(old.output()).toContain('cannot start: MASTER_KEY / MASTER_KEY_FILE: the key in MASTER_KEY does not open');

  const after = await gatewayStarted(await start(NEW));
  expect(await dnskeysAt(after, ZONE)).toEqual(keys);
  expect(await (await fetch(`${after.base}/api/v1/.well-known/jwks.json`)).json()).toEqual(jwks);
  expect(await login(`${after.base}/api/v1`, 'admin', TEST_ADMIN_PASSWORD)).toMatch(/\S/);
  expect(await toolLogin(after, token)).toMatch(/\S/);
  expect(await stopGateway(after)).toBe(0);
});

test.each([
  [
    'NEW_MASTER_KEY too short',
    { NEW_MASTER_KEY: randomBytes(16).toString('base64') },
    [],
    /NEW_MASTER_KEY: is 16 bytes/,
  ],
  ['no new key', {}, [], /give the new key: NEW_MASTER_KEY or --new-key-file/],
  ['the same key', { NEW_MASTER_KEY: NEW }, [], /the new master key is the one in use/],
  ['an unreadable --new-key-file', {}, ['--new-key-file', '/nonexistent/key'], /--new-key-file \/nonexistent\/key/],
])('rotate with %s: exit 1 naming the setting, nothing changed', (_, env, args, message) => {
  const file = join(dataDir, 'zones.sqlite');
  const before = existsSync(file) ? readFileSync(file) : undefined;
  const run = rotate({ MASTER_KEY: NEW, ...env }, args);
  expect(run.status).toBe(1);
  expect(run.out).toMatch(message);
  if (before) expect(readFileSync(file)).toEqual(before);
});

test('rotate from the data directory’s own key: the file then holds the new key', () => {
  const dir = mkdtempSync(join(tmpdir(), 'master-key-own-'));
  try {
    const own = randomBytes(32);
    writeFileSync(join(dir, 'dnssec-master.key'), `${own.toString('base64')}\n`, { mode: 0o600 });
    const next = randomBytes(32);
    const { NODE_ENV: _jest, ...userEnv } = process.env;
    const run = spawnSync(process.execPath, [SCRIPT, 'rotate'], {
      env: { ...userEnv, DATA_DIR: dir, NEW_MASTER_KEY: next.toString('base64') },
      encoding: 'utf8',
    });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('dnssec-master.key holds the new key');
    expect(readFileSync(join(dir, 'dnssec-master.key'), 'utf8').trim()).toBe(next.toString('base64'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
