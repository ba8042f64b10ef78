/**
 * The servers of the DNS benchmarks and how they are measured: our DNS engine (test/bench/dns-server.ts), BIND 9
 * `named` and Knot DNS `knotd` (test/bench/knot.ts) as child processes on 127.0.0.1, each on a free port, started and
 * stopped here; dnsperf runs against them, and CPU time and memory are read from /proc for the server's whole process
 * tree (our server may answer from several processes).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DnsClient, rcodeName, type DecodedResponse } from '../../dns/client';
import { BENCH_JS } from './common';
import type { TsigKey } from '../../dns/tsig/keyfile';
import { freePort } from './processes';

const CHILD = join(BENCH_JS, 'dns-server.js');

/**
 * The DNS client for a server of this benchmark on 127.0.0.1 (also used by the DNS API benchmark): queries over UDP,
 * UPDATEs signed with `key` (and their answers verified).
 */
export function dnsClient(port: number, options: { timeoutMs?: number; key?: TsigKey } = {}): DnsClient {
  return new DnsClient({ server: { host: '127.0.0.1', port }, timeoutMs: options.timeoutMs ?? 2000, key: options.key });
}

/** Asks the apex SOA every 10 ms until a NOERROR answer comes; resolves with the time it came (performance.now()). */
async function firstAnswer(port: number, zone: string, isAlive: () => boolean, timeoutMs = 120_000): Promise<number> {
  const client = dnsClient(port, { timeoutMs: 10 });
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (!isAlive()) throw new Error(`server on port ${port} exited before answering`);
    const asked = performance.now();
    try {
      if ((await client.query(zone, 'SOA')).rcode === 0) return performance.now();
    } catch {
      // no answer yet; a port not yet open fails at once: wait out the 10 ms rather than spin against the start-up
      await new Promise((r) => setTimeout(r, Math.max(0, 10 - (performance.now() - asked))));
    }
  }
  throw new Error(`no answer from port ${port} within ${timeoutMs} ms`);
}

// ---------------------------------------------------------------------------------------------------------------
// Servers
// ---------------------------------------------------------------------------------------------------------------

export interface Server {
  label: string;
  port: number;
  process: ChildProcess;
  /** performance.now() at spawn and at the first answer. */
  spawnedAt: number;
  answeredAt: number;
  /** What our child reported when listening (DnsEngine.start time, RSS before/after, RRSIGs of a signed zone). */
  info?: { startMs: number; rssBefore: number; rssAfter: number; signed?: number };
  stop(): Promise<void>;
}

function stopper(child: ChildProcess): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
    });
}

const alive = (child: ChildProcess) => () => child.exitCode === null && child.signalCode === null;

/** Runs the child in import-only mode: fills the SQLite store of `dataDir` from a master file. */
export async function importZone(
  dataDir: string,
  zone: string,
  file: string,
): Promise<{ ms: number; records: number }> {
  const child = spawn(process.execPath, [CHILD], {
    env: {
      ...process.env,
      BENCH_DNS_DATA: dataDir,
      BENCH_DNS_IMPORT: file,
      BENCH_DNS_ZONE: zone,
      BENCH_DNS_IMPORT_ONLY: '1',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`zone import exited with ${code}`);
  const line = out.split('\n').find((l) => l.includes('"imported"'));
  if (!line) throw new Error(`zone import printed nothing: ${out}`);
  return JSON.parse(line) as { ms: number; records: number };
}

export async function startOurs(dataDir: string, zone: string, env: Record<string, string> = {}): Promise<Server> {
  const port = await freePort();
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, [CHILD], {
    env: { ...process.env, BENCH_DNS_DATA: dataDir, BENCH_DNS_PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const server: Server = { label: 'ours', port, process: child, spawnedAt, answeredAt: 0, stop: stopper(child) };
  try {
    server.answeredAt = await firstAnswer(port, zone, alive(child));
    for (let i = 0; i < 100 && !out.includes('"listening"'); i++) await new Promise((r) => setTimeout(r, 10));
    const line = out.split('\n').find((l) => l.includes('"listening"'));
    if (line) server.info = JSON.parse(line) as Server['info'];
  } catch (err) {
    await server.stop();
    throw err;
  }
  return server;
}

/**
 * The floor of our UDP transport (test/bench/udp-floor-child.ts): our batched UDP answering every query REFUSED with
 * no DNS work, to set beside the servers' cost per query.
 */
export async function startUdpFloor(label: string): Promise<Server> {
  const port = await freePort();
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, [join(BENCH_JS, 'udp-floor-child.js')], {
    env: { ...process.env, BENCH_DNS_PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const server: Server = { label, port, process: child, spawnedAt, answeredAt: 0, stop: stopper(child) };
  const listening = await new Promise<boolean>((resolve) => {
    let out = '';
    const timer = setTimeout(() => resolve(false), 30_000);
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('"listening"')) {
        clearTimeout(timer);
        resolve(true);
      }
    });
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(false);
    });
  });
  if (!listening) {
    await server.stop();
    throw new Error(`${label}: the UDP floor child did not start`);
  }
  server.answeredAt = performance.now();
  return server;
}

export interface BindZone {
  name: string;
  file: string;
  options?: string;
}

export async function startBind(
  label: string,
  dir: string,
  zones: BindZone[],
  opts: { threads?: number; extra?: string } = {},
): Promise<Server> {
  const port = await freePort();
  const conf = join(dir, `named-${port}.conf`);
  writeFileSync(
    conf,
    `
options {
  directory "${dir}";
  listen-on port ${port} { 127.0.0.1; };
  listen-on-v6 { none; };
  pid-file none;
  recursion no;
  minimal-responses no-auth; // as our server answers: additional data, no NS in the authority section of positive answers
  dnssec-validation no;
  notify no;
};
${opts.extra ?? ''}
${zones.map((z) => `zone "${z.name}" { type primary; file "${z.file}"; ${z.options ?? ''} };`).join('\n')}
`,
  );
  const args = ['-g', '-c', conf, '-u', process.getuid?.() === 0 ? 'root' : String(process.getuid?.())];
  if (opts.threads) args.push('-n', String(opts.threads));
  return startReference(label, port, 'named', args, zones[0]?.name ?? '');
}

/**
 * A reference server (BIND's named, Knot's knotd) spawned in the foreground, its log (stderr) kept for the error; ready
 * once it answers `zone`'s SOA on `port`.
 */
export async function startReference(
  label: string,
  port: number,
  command: string,
  args: string[],
  zone: string,
): Promise<Server> {
  const spawnedAt = performance.now();
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr?.on('data', (d: Buffer) => {
    log = (log + d.toString()).slice(-4000);
  });
  const server: Server = { label, port, process: child, spawnedAt, answeredAt: 0, stop: stopper(child) };
  try {
    server.answeredAt = await firstAnswer(port, zone, alive(child));
  } catch (err) {
    await server.stop();
    throw new Error(`${label}: ${(err as Error).message}\n${log}`, { cause: err });
  }
  return server;
}

export async function withServer<T>(start: Promise<Server>, fn: (s: Server) => Promise<T>): Promise<T> {
  const server = await start;
  try {
    return await fn(server);
  } finally {
    await server.stop();
  }
}

/** The process and its descendants (our server may answer from several processes), by /proc's children lists. */
export function processTree(pid: number): number[] {
  const tree = [pid];
  for (let i = 0; i < tree.length && i < 1000; i++) {
    const task = `/proc/${tree[i]}/task`;
    let threads: string[];
    try {
      threads = readdirSync(task);
    } catch {
      continue; // gone meanwhile
    }
    for (const tid of threads) {
      try {
        const children = readFileSync(`${task}/${tid}/children`, 'utf8').trim();
        if (children) tree.push(...children.split(' ').map(Number));
      } catch {
        // the thread or process ended meanwhile
      }
    }
  }
  return tree;
}

/** VmRSS and VmHWM (peak) of a process and its descendants, in bytes (summed: each process's own memory). */
export function memoryOf(pid: number): { rss: number; peak: number; processes: number } {
  const total = { rss: 0, peak: 0, processes: 0 };
  for (const p of processTree(pid)) {
    const status = readFileSync(`/proc/${p}/status`, 'utf8');
    const kb = (field: string): number => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN) * 1024;
    total.rss += kb('VmRSS');
    total.peak += kb('VmHWM');
    total.processes++;
  }
  return total;
}

// ---------------------------------------------------------------------------------------------------------------
// Measurements
// ---------------------------------------------------------------------------------------------------------------

export interface PerfResult {
  qps: number;
  completed: number;
  lost: number;
  /** CPU time the server process spent (user + system, all threads) per query answered, in µs. */
  cpuPerQuery: number;
}

/** Clock ticks per second of /proc/<pid>/stat times. */
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** User + system CPU seconds so far of a process and its descendants (every thread). */
export function cpuSeconds(pid: number): number {
  let ticks = 0;
  for (const p of processTree(pid)) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15)
    } catch {
      // ended meanwhile
    }
  }
  return ticks / CLOCK_TICKS;
}

/** How dnsperf loads a server: client sockets (-c), outstanding queries (-q), threads (-T), the DO bit (-D). */
export interface Load {
  clients: number;
  outstanding: number;
  threads?: number;
  /** Sets the DNSSEC OK bit on every query (dnsperf -D, which implies EDNS). */
  dnssecOk?: boolean;
}

/** dnsperf against `server` for `seconds`, with the server's CPU time over the run. */
export async function measureQps(server: Server, file: string, seconds: number, load: Load): Promise<PerfResult> {
  const pid = server.process.pid as number;
  const before = cpuSeconds(pid);
  const run = await dnsperf(server.port, file, seconds, load);
  return { ...run, cpuPerQuery: ((cpuSeconds(pid) - before) * 1e6) / run.completed };
}

export function dnsperf(
  port: number,
  file: string,
  seconds: number,
  load: Load,
): Promise<Omit<PerfResult, 'cpuPerQuery'>> {
  const args = ['-s', '127.0.0.1', '-p', String(port), '-d', file, '-l', String(seconds), '-t', '2'];
  args.push('-c', String(load.clients), '-q', String(load.outstanding));
  if (load.threads) args.push('-T', String(load.threads));
  if (load.dnssecOk) args.push('-D');
  return new Promise((resolve, reject) => {
    const child = spawn('dnsperf', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), (seconds + 30) * 1000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      const num = (re: RegExp): number => Number(re.exec(out)?.[1] ?? NaN);
      const qps = num(/Queries per second:\s+([\d.]+)/);
      if (code !== 0 || !Number.isFinite(qps))
        return reject(new Error(`dnsperf exited with ${code}: ${out.slice(-1000)}`));
      resolve({ qps, completed: num(/Queries completed:\s+(\d+)/), lost: num(/Queries lost:\s+(\d+)/) });
    });
  });
}

/** Starts several servers at once; stops every one that started when one fails or `fn` is done. */
export async function withServers<T>(
  starts: Array<() => Promise<Server>>,
  fn: (s: Server[]) => Promise<T>,
): Promise<T> {
  const servers: Server[] = [];
  try {
    for (const start of starts) servers.push(await start());
    return await fn(servers);
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
}

/**
 * The same questions (`[what, name, type]`) asked of both servers must get the same rcode, AA flag and section
 * sizes: one line per question that does not (none: they answer alike).
 */
export async function compareAnswers(
  a: Server,
  b: Server,
  questions: ReadonlyArray<readonly [string, string, string]>,
): Promise<string[]> {
  const summary = (answer: DecodedResponse | null): string => {
    if (!answer) return 'no answer';
    const m = answer.message;
    return (
      `${rcodeName(answer.rcode)} aa=${m.flag_aa} an=${m.answers.length} ns=${m.authorities.length} ` +
      `ar=${m.additionals.length}`
    );
  };
  const ask = (server: Server, name: string, type: string) =>
    dnsClient(server.port)
      .query(name, type)
      .catch(() => null);
  const mismatches: string[] = [];
  for (const [what, name, type] of questions) {
    const [x, y] = await Promise.all([ask(a, name, type), ask(b, name, type)]);
    if (summary(x) !== summary(y))
      mismatches.push(`${what} ${name} ${type}: ${a.label} ${summary(x)}, ${b.label} ${summary(y)}`);
  }
  return mismatches;
}
