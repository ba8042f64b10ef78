// @needs systemd build
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ENV_NAMES } from '../../gateway/host/config/schema';
import { loadConfig } from '../../gateway/host/config/load';
import { PROJECT_ROOT } from '../../gateway/host/paths';

/**
 * deploy/onegraph.service (docs/operations.md, "Running under systemd"): `systemd-analyze verify` finds nothing in it,
 * not even a warning (verify exits 0 on an unknown key or a bad value, only saying so), its sandbox keeps the exposure
 * `systemd-analyze security` rates at 2.0 or less, and what it names is the program's own. Each check is shown to
 * catch a broken copy. systemd-analyze is Debian's `systemd` package (.ci/run installs it); missing, this fails.
 */
const UNIT = join(PROJECT_ROOT, 'deploy', 'onegraph.service');
const INSTALLED = '/opt/onegraph';
const EXEC_START = `ExecStart=/usr/bin/node ${INSTALLED}/dist/gateway/main.js`;
const unitText = readFileSync(UNIT, 'utf8');

let dir: string;
beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'systemd-unit-'))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * `text` as onegraph.service with ExecStart's interpreter pointed at the node running this test: verify checks that
 * the command exists and is executable, and node is not at /usr/bin/node on every machine (the unit's own line is
 * checked as text below).
 */
function unitFile(text: string, name = 'onegraph.service'): string {
  const file = join(dir, name);
  writeFileSync(file, text.replace(/^ExecStart=\/usr\/bin\/node /m, `ExecStart=${process.execPath} `));
  return file;
}

function run(args: string[]): { status: number | null; output: string } {
  const result = spawnSync('systemd-analyze', args, { encoding: 'utf8' });
  if (result.error) throw new Error(`systemd-analyze: ${result.error.message} (Debian's systemd package)`);
  return { status: result.status, output: `${result.stdout}${result.stderr}`.trim() };
}

/** What `systemd-analyze verify` says of the unit: its exit status and every line it prints (clean: 0 and none). */
const verify = (file: string) => run(['verify', '--man=no', file]);
/** Exit 0 when the sandbox's exposure is at most 2.0 ("OK"). */
const exposureOk = (file: string) => run(['security', '--offline=yes', '--threshold=20', file]).status === 0;

test('systemd-analyze verify finds nothing in deploy/onegraph.service, not even a warning', () => {
  expect(verify(unitFile(unitText))).toEqual({ status: 0, output: '' });
});

test('verify catches a broken copy: an unknown key, a bad value, a missing program, no ExecStart', () => {
  const typo = verify(unitFile(unitText.replace('ProtectSystem=strict', 'ProtectSytem=strict')));
  expect(typo.output).toMatch(/Unknown key 'ProtectSytem'/);
  const badValue = verify(unitFile(unitText.replace('Restart=on-failure', 'Restart=sometimes')));
  expect(badValue.output).toMatch(/Failed to parse service restart specifier/);
  const missing = verify(unitFile(unitText.replace(/^ExecStart=\/usr\/bin\/node /m, 'ExecStart=/nonexistent/node ')));
  expect(missing.status).not.toBe(0);
  expect(missing.output).toMatch(/\/nonexistent\/node is not executable/);
  const noStart = verify(unitFile(unitText.replace(/^ExecStart=.*$/m, '')));
  expect(noStart.status).not.toBe(0);
  expect(noStart.output).toMatch(/no ExecStart=/);
});

test('the sandbox rates "OK" (exposure at most 2.0); the unit without it does not', () => {
  expect(exposureOk(unitFile(unitText))).toBe(true);
  const weak = unitText.replace(/^(Protect|Private|Restrict|SystemCall|CapabilityBoundingSet)\w*=.*$/gm, '');
  expect(exposureOk(unitFile(weak, 'weak.service'))).toBe(false);
});

test('it runs the built program from the installed tree, as the service user, with DATA_DIR in its state directory', () => {
  const lines = unitText.split('\n');
  expect(lines).toContain(EXEC_START);
  expect(existsSync(join(PROJECT_ROOT, EXEC_START.slice(EXEC_START.indexOf(INSTALLED) + INSTALLED.length + 1)))).toBe(
    true,
  );
  expect(lines).toEqual(
    expect.arrayContaining([
      'User=onegraph',
      'StateDirectory=onegraph',
      'Environment=DATA_DIR=/var/lib/onegraph',
      'EnvironmentFile=-/etc/onegraph/env',
      'Restart=on-failure',
      'KillSignal=SIGTERM',
      'AmbientCapabilities=CAP_NET_BIND_SERVICE',
      'NoNewPrivileges=yes',
      'ProtectSystem=strict',
      'ProtectHome=yes',
      'PrivateTmp=yes',
    ]),
  );
});

test('every setting the unit and its notes name is one the program reads', () => {
  const known = new Set([...Object.values(ENV_NAMES), 'CONFIG', 'NODE_ENV']);
  const set = [...unitText.matchAll(/^Environment=([A-Z_]+)=/gm)].map((m) => m[1]);
  const notes = unitText
    .split('\n')
    .filter((line) => line.startsWith('#'))
    .join('\n');
  const named = [...notes.matchAll(/\b([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[A-Z]{3,}(?==))\b/g)].map((m) => m[1]);
  expect(set.length).toBeGreaterThan(0);
  expect(named).toEqual(expect.arrayContaining(['DATA_DIR', 'DNS_PORT', 'MASTER_KEY_FILE']));
  for (const name of [...set, ...named]) expect({ name, known: known.has(name ?? '') }).toEqual({ name, known: true });
});

test('TimeoutStopSec leaves the program its shutdown grace and its own last-resort exit', () => {
  const stopSeconds = Number(/^TimeoutStopSec=(\d+)s$/m.exec(unitText)?.[1]);
  const graceMs = loadConfig({ env: {} }).shutdownGraceMs;
  // gateway/main.ts exits by itself 5 s after the grace, the workers' primary (gateway/host/cluster.ts) 10 s after
  expect(stopSeconds * 1000).toBeGreaterThan(graceMs + 10_000);
});
