// @needs build
/**
 * A DATA_DIR the process cannot write stops the start with one line naming the directory, the user the process runs
 * as and the setting, instead of SQLite's "unable to open database file".
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAIN } from '../support/gateway-process';

jest.setTimeout(90_000);

test('a DATA_DIR the process cannot write: one line naming the directory, its user and the setting', async () => {
  const root = mkdtempSync(join(tmpdir(), 'start-failures-'));
  const dataDir = join(root, 'data');
  mkdirSync(dataDir, { mode: 0o700 });
  // root writes whatever the mode says: then the program runs as nobody, and the directory stays root's
  const asRoot = process.getuid?.() === 0;
  if (asRoot) chmodSync(root, 0o755);
  chmodSync(dataDir, asRoot ? 0o755 : 0o500);
  try {
    const { NODE_ENV: _jest, ...userEnv } = process.env;
    const out = spawnSync(process.execPath, [MAIN], {
      encoding: 'utf8',
      timeout: 60_000,
      cwd: tmpdir(),
      ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
      env: { ...userEnv, PORT: '0', DNS_PORT: '0', DNS_API_PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    });
    expect(out.status).toBe(1);
    expect(out.stderr.trim().split('\n')).toEqual([expect.stringContaining(`cannot start: DATA_DIR ${dataDir}:`)]);
    expect(out.stderr).toMatch(/this process's user, \S+ \(uid \d+\), cannot write the directory \(EACCES\)/);
    expect(out.stderr).toContain('set DATA_DIR (--data-dir) to a directory it can write');
    expect(out.stderr).not.toContain('unable to open database file');
  } finally {
    chmodSync(dataDir, 0o700);
    rmSync(root, { recursive: true, force: true });
  }
});
