import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { acceptsTcp as accepts, freePort } from '../bench/processes';
import { requireTool } from './dns-peers';

const run = promisify(execFile);

/**
 * An OpenLDAP slapd of a test's own (Debian's slapd package) on a free 127.0.0.1 port: a temporary slapd.conf with
 * the mdb backend and the core, cosine, inetorgperson and nis schemas, the entries loaded with slapadd before it
 * starts. A missing slapd fails the test (CI installs it), it never skips.
 */
export interface TestSlapd {
  readonly url: string;
  readonly port: number;
  readonly suffix: string;
  /** SIGSTOP (resolves once the process is stopped) / SIGCONT: a server that accepts connections, answers nothing. */
  pause(): Promise<void>;
  resume(): void;
  /** SIGTERM (SIGKILL after 5 s), waits until it is gone, removes its directory. */
  stop(): Promise<void>;
}

/** sbin is not on every PATH (CI's environment, a non-root shell): look there first. */
function sbinTool(name: string): string {
  const path = `/usr/sbin/${name}`;
  return existsSync(path) ? path : requireTool(name);
}

/** Starts slapd serving `suffix` with `ldif` (which must hold the suffix entry itself) and waits until it accepts. */
export async function startSlapd(ldif: string, suffix = 'dc=example,dc=test'): Promise<TestSlapd> {
  const slapd = sbinTool('slapd');
  const slapadd = sbinTool('slapadd');
  const dir = mkdtempSync(join(tmpdir(), 'slapd-'));
  mkdirSync(join(dir, 'db'));
  const conf = join(dir, 'slapd.conf');
  writeFileSync(
    conf,
    [
      ...['core', 'cosine', 'inetorgperson', 'nis'].map((s) => `include /etc/ldap/schema/${s}.schema`),
      'modulepath /usr/lib/ldap',
      'moduleload back_mdb',
      `pidfile ${join(dir, 'slapd.pid')}`,
      `argsfile ${join(dir, 'slapd.args')}`,
      'database mdb',
      'maxsize 10485760',
      `suffix "${suffix}"`,
      `rootdn "cn=admin,${suffix}"`,
      `rootpw admin-${Math.random().toString(36).slice(2)}`,
      `directory ${join(dir, 'db')}`,
      '',
    ].join('\n'),
  );
  writeFileSync(join(dir, 'data.ldif'), ldif);
  await run(slapadd, ['-f', conf, '-l', join(dir, 'data.ldif')], { timeout: 30_000 });

  const port = await freePort();
  // -d 0: stay in the foreground (a child this test can signal), with no debug output.
  const child: ChildProcess = spawn(slapd, ['-f', conf, '-h', `ldap://127.0.0.1:${port}/`, '-d', '0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr?.on('data', (d: Buffer) => {
    log += d.toString();
  });
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const running = (): boolean => child.exitCode === null && child.signalCode === null;
  const server: TestSlapd = {
    url: `ldap://127.0.0.1:${port}`,
    port,
    suffix,
    async pause() {
      if (!running() || child.pid === undefined) return;
      child.kill('SIGSTOP');
      // The signal lands asynchronously: wait until the kernel shows the process stopped (state T).
      const stat = `/proc/${child.pid}/stat`;
      const until = Date.now() + 5_000;
      while (!/^\d+ \(.*\) T/.test(readFileSync(stat, 'utf8'))) {
        if (Date.now() > until) throw new Error('slapd did not stop within 5 s of SIGSTOP');
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    resume: () => {
      if (running()) child.kill('SIGCONT');
    },
    async stop() {
      if (running()) {
        child.kill('SIGCONT');
        child.kill('SIGTERM');
        const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await gone;
        clearTimeout(kill);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  const until = Date.now() + 15_000;
  for (;;) {
    if (!running()) throw new Error(`slapd exited at once: ${log.slice(-2000)}`);
    if (await accepts(port)) return server;
    if (Date.now() > until) {
      await server.stop();
      throw new Error(`slapd did not accept connections on port ${port} within 15 s: ${log.slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
