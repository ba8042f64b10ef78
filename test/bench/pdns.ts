import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { freePort } from './processes';

/**
 * PowerDNS Authoritative 4 (Debian `pdns-server` + `pdns-backend-sqlite3`) as the reference of the DNS API benchmark:
 * its gsqlite3 backend in a temp dir (WAL and synchronous=NORMAL, as our SQLite store), its HTTP API on, DNS on
 * 127.0.0.1, each on a free port; in the foreground (no daemon, no guardian), stopped by `stop()`.
 */
export interface Pdns {
  /** Base URL of the HTTP API (`/api/v1/servers/localhost/...` below it). */
  url: string;
  apiKey: string;
  dnsPort: number;
  process: ChildProcess;
  /** The last 4 000 characters pdns_server wrote to stderr (its log). */
  log(): string;
  stop(): Promise<void>;
}

/** Where Debian puts the gsqlite3 schema (the first one that exists is used). */
const SCHEMAS = [
  '/usr/share/pdns-backend-sqlite3/schema/schema.sqlite3.sql',
  '/usr/share/doc/pdns-backend-sqlite3/schema.sqlite3.sql',
];

function requirePdns(): void {
  const found = spawnSync('sh', ['-c', 'command -v pdns_server'], { encoding: 'utf8' });
  if (found.status !== 0 || !found.stdout.trim())
    throw new Error('pdns_server is not installed: apt-get install -y pdns-server pdns-backend-sqlite3 (.ci/run does)');
  if (!SCHEMAS.some((s) => existsSync(s)))
    throw new Error(
      `the gsqlite3 schema is missing (${SCHEMAS.join(' or ')}): apt-get install -y pdns-backend-sqlite3`,
    );
}

export async function startPdns(): Promise<Pdns> {
  requirePdns();
  const dir = mkdtempSync(join(tmpdir(), 'bench-pdns-'));
  const db = join(dir, 'pdns.sqlite3');
  const schema = readFileSync(SCHEMAS.find((s) => existsSync(s)) as string, 'utf8');
  const sqlite = new Database(db);
  sqlite.exec(schema);
  sqlite.close();
  const [dnsPort, webPort] = [await freePort(), await freePort()];
  const apiKey = 'bench-api-key';
  writeFileSync(
    join(dir, 'pdns.conf'),
    [
      'launch=gsqlite3',
      `gsqlite3-database=${db}`,
      'gsqlite3-pragma-journal-mode=WAL',
      'gsqlite3-pragma-synchronous=1',
      'gsqlite3-dnssec=no',
      'local-address=127.0.0.1',
      `local-port=${dnsPort}`,
      'api=yes',
      `api-key=${apiKey}`,
      'webserver=yes',
      'webserver-address=127.0.0.1',
      `webserver-port=${webPort}`,
      'webserver-allow-from=127.0.0.0/8',
      'webserver-max-bodysize=256',
      'daemon=no',
      'guardian=no',
      `socket-dir=${dir}`,
      'disable-syslog=yes',
      'security-poll-suffix=',
      'loglevel=4',
      '',
    ].join('\n'),
  );
  const child = spawn('pdns_server', [`--config-dir=${dir}`], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr?.on('data', (d: Buffer) => {
    log = (log + d.toString()).slice(-4000);
  });
  const url = `http://127.0.0.1:${webPort}`;
  const stop = (): Promise<void> =>
    new Promise<void>((resolve) => {
      const done = (): void => {
        rmSync(dir, { recursive: true, force: true });
        resolve();
      };
      if (child.exitCode !== null || child.signalCode !== null) return done();
      child.once('exit', done);
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
    });
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`pdns_server exited with ${child.exitCode}:\n${log}`);
    }
    try {
      const res = await fetch(`${url}/api/v1/servers/localhost`, { headers: { 'x-api-key': apiKey } });
      await res.arrayBuffer();
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`pdns_server did not answer on ${url} within 30 s:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, apiKey, dnsPort, process: child, log: () => log, stop };
}
