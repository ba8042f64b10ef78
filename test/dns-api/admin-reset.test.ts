// @needs build postgres redis
/**
 * A locked-out operator sets the admin's password from the machine: `npm run dns-api-admin -- reset-password` (the
 * built command), the new password on standard input, on the store the server uses — SQLite in DATA_DIR or
 * PostgreSQL — with the server running. ADMIN_PASSWORD given once users exist is ignored, and the start says so.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../gateway/host/paths';
import { gatewayStarted, launchGateway, stopGateway, type GatewayProcess } from '../support/gateway-process';
import { testDatabase } from '../support/replica-cluster';

jest.setTimeout(180_000);

const COMMAND = join(PROJECT_ROOT, 'dist', 'scripts', 'dns-api-admin.js');
const FIRST = 'first admin password 7d1';
const NEW = 'reset admin password 93k';

/** The command as an operator runs it, the password on standard input and the store from the environment. */
function resetPassword(env: Record<string, string>, input: string, args: string[] = []) {
  const { NODE_ENV: _jest, ...userEnv } = process.env;
  return spawnSync(process.execPath, [COMMAND, 'reset-password', ...args], {
    encoding: 'utf8',
    input,
    timeout: 60_000,
    env: { ...userEnv, ...env },
  });
}

async function login(p: GatewayProcess, password: string): Promise<number> {
  const res = await fetch(`${p.base}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password }),
  });
  return res.status;
}

describe.each([['SQLite'], ['PostgreSQL']])('on %s', (kind) => {
  let store: Record<string, string>;
  let drop: () => Promise<void> = async () => {};
  let dataDir: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'admin-reset-'));
    store = { DATA_DIR: dataDir };
    if (kind === 'PostgreSQL') {
      const db = await testDatabase('admin_reset');
      drop = () => db.drop();
      store.DATABASE_URL = db.url;
    }
  });
  afterAll(async () => {
    await drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('ADMIN_PASSWORD on existing users is ignored, said in one line; the reset command sets the password', async () => {
    const first = await gatewayStarted(await launchGateway({ ...store, ADMIN_PASSWORD: FIRST }));
    await stopGateway(first);

    const p = await gatewayStarted(await launchGateway({ ...store, ADMIN_PASSWORD: NEW }));
    try {
      const ignored = p
        .output()
        .split('\n')
        .filter((l) => l.includes('ADMIN_PASSWORD is ignored'));
      expect(ignored).toHaveLength(1);
      expect(ignored[0]).toContain('npm run dns-api-admin -- reset-password');
      expect(p.output()).not.toContain(NEW); // never the password itself
      expect(await login(p, NEW)).toBe(401);
      expect(await login(p, FIRST)).toBe(200);

      // with the server running, on the store it uses
      const reset = resetPassword(store, `${NEW}\n`);
      expect(reset.stderr).toBe('');
      expect(reset.status).toBe(0);
      expect(reset.stdout).toContain('the password of admin is set');
      expect(reset.stdout + reset.stderr).not.toContain(NEW);
      expect(await login(p, NEW)).toBe(200);
      expect(await login(p, FIRST)).toBe(401);
    } finally {
      await stopGateway(p);
    }
  });

  test('a weak password or an unknown user is refused with one line, nothing changed', () => {
    const weak = resetPassword(store, 'password\n');
    expect(weak.status).toBe(1);
    expect(weak.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^dns-api-admin: .*common/)]);
    const unknown = resetPassword(store, `${NEW}\n`, ['nobody']);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr.trim()).toBe('dns-api-admin: no user nobody; the admins are: admin');
  });
});

test('a DATA_DIR with no store is named, not made into an empty one', () => {
  const empty = mkdtempSync(join(tmpdir(), 'admin-reset-'));
  try {
    const out = resetPassword({ DATA_DIR: empty }, `${NEW}\n`);
    expect(out.status).toBe(1);
    expect(out.stderr.trim()).toBe(
      `dns-api-admin: no DNS API store at ${join(empty, 'zones.sqlite')}: set DATA_DIR (--data-dir) to the server's ` +
        'data directory, or DATABASE_URL (--database-url) to its PostgreSQL store',
    );
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
});
