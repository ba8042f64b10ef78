import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { freePort } from '../bench/processes';

const run = promisify(execFile);

/** Debian package of each peer tool, for the error that says how to get it. */
const PACKAGE_OF: Record<string, string> = {
  dig: 'bind9-dnsutils',
  nsupdate: 'bind9-dnsutils',
  delv: 'bind9-dnsutils',
  kdig: 'knot-dnsutils',
  named: 'bind9',
  'named-checkzone': 'bind9-utils',
  'dnssec-dsfromkey': 'bind9-utils',
  'dnssec-verify': 'bind9-utils',
  'dnssec-keygen': 'bind9-utils',
  'dnssec-signzone': 'bind9-utils',
  'ldns-verify-zone': 'ldnsutils',
  'ldns-key2ds': 'ldnsutils',
  kzonecheck: 'knot-dnssecutils',
  kzonesign: 'knot-dnssecutils',
  knotd: 'knot',
  knotc: 'knot',
  keymgr: 'knot',
  dnsperf: 'dnsperf',
};

/** Paths of the tools found so far: a lookup is a synchronous shell, and dig runs hundreds of times per file. */
const toolPaths = new Map<string, string>();

/** A real peer must be installed: a missing one fails the test (CI installs them), it never skips. */
export function requireTool(name: string): string {
  const known = toolPaths.get(name);
  if (known !== undefined) return known;
  const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  const path = found.stdout.trim();
  if (found.status !== 0 || !path) {
    throw new Error(`${name} is not installed: apt-get install -y ${PACKAGE_OF[name] ?? name} (.ci/run installs it)`);
  }
  toolPaths.set(name, path);
  return path;
}

export interface DigAnswer {
  status: string;
  flags: string[];
  answer: string[];
  authority: string[];
  additional: string[];
  raw: unknown;
}

// +time=5: an answer of many records on a loaded machine (CI runs test files side by side) may take seconds;
// +tries=2: a datagram lost on a loaded machine (seen once with four test processes on two cores) is asked again
const DIG_OPTIONS = ['+yaml', '+norec', '+time=5', '+tries=2'];

type DigDoc = Array<{ type: string; message?: { response_message_data?: Record<string, unknown> } }>;

/** Queries with BIND's dig and returns the sections as zone-file lines (normalised whitespace). */
export async function dig(server: { host: string; port: number }, args: string[]): Promise<DigAnswer> {
  requireTool('dig');
  const { stdout } = await run('dig', [...DIG_OPTIONS, `@${server.host}`, '-p', String(server.port), ...args], {
    timeout: 25_000,
  });
  const doc = parseYaml(stdout) as DigDoc;
  const response = doc.find((d) => d.type === 'MESSAGE')?.message?.response_message_data;
  // no answer at all is that, not an empty answer to compare
  if (!response)
    throw new Error(`dig ${args.join(' ')} @${server.host}:${server.port}: no answer\n${stdout.slice(0, 500)}`);
  return digAnswer(response, doc);
}

/**
 * Many questions in one dig run, each `[name, type, ...its own +options]` (dig applies options written after a
 * name to that question alone): the answers in order, as `dig` gives them one by one. Starting dig is most of the
 * time one query takes, so a test that asks hundreds of questions asks them this way.
 */
export async function digMany(server: { host: string; port: number }, queries: string[][]): Promise<DigAnswer[]> {
  requireTool('dig');
  for (const q of queries) {
    if (q.length < 2 || q[0]?.startsWith('+') || q[1]?.startsWith('+'))
      throw new Error(`digMany: a question is [name, type, ...options], got ${JSON.stringify(q)}`);
  }
  const { stdout } = await run(
    'dig',
    [...DIG_OPTIONS, `@${server.host}`, '-p', String(server.port), ...queries.flat()],
    {
      timeout: 25_000 + queries.length * 100, // room for a few lost datagrams (5 s each), and 0.1 s a question
      maxBuffer: 256 * 1024 * 1024,
    },
  );
  const doc = parseYaml(stdout) as DigDoc;
  const answers = doc.filter((d) => d.type === 'MESSAGE' && d.message?.response_message_data);
  if (answers.length !== queries.length || doc.length !== queries.length)
    throw new Error(
      `digMany @${server.host}:${server.port}: ${queries.length} questions, ${answers.length} answers of ${doc.length} messages\n${stdout.slice(0, 500)}`,
    );
  return answers.map((d) => digAnswer(d.message?.response_message_data as Record<string, unknown>, [d]));
}

function digAnswer(msg: Record<string, unknown>, raw: DigDoc): DigAnswer {
  const lines = (k: string): string[] =>
    ((msg[k] as string[] | undefined) ?? []).map((l) => l.replace(/\s+/g, ' ').trim());
  return {
    status: String(msg.status),
    flags: (typeof msg.flags === 'string' ? msg.flags : '').split(/\s+/).filter(Boolean),
    answer: lines('ANSWER_SECTION'),
    authority: lines('AUTHORITY_SECTION'),
    additional: lines('ADDITIONAL_SECTION'),
    raw,
  };
}

/** The serial of `zone`'s SOA as `server` answers it; null when it does not answer NOERROR with one. */
export async function soaSerial(server: { host: string; port: number }, zone: string): Promise<number | null> {
  const res = await dig(server, [zone, 'SOA']);
  const serial = res.status === 'NOERROR' ? /\sSOA\s+\S+\s+\S+\s+(\d+)/i.exec(res.answer[0] ?? '')?.[1] : undefined;
  return serial === undefined ? null : Number(serial);
}

/** A zone transfer with BIND's dig: the records as zone-file lines, whitespace normalised, lower case. */
export async function axfrLines(
  server: { host: string; port: number },
  zone: string,
  extra: string[] = [],
): Promise<string[]> {
  return transferLines(server, zone, 'AXFR', extra);
}

/** An IXFR from `serial` with BIND's dig (over TCP): the records in the order sent, as axfrLines gives them. */
export async function ixfrLines(
  server: { host: string; port: number },
  zone: string,
  serial: number,
): Promise<string[]> {
  return transferLines(server, zone, `IXFR=${serial}`, ['+tcp']);
}

async function transferLines(
  server: { host: string; port: number },
  zone: string,
  type: string,
  extra: string[],
): Promise<string[]> {
  requireTool('dig');
  const { stdout } = await run(
    'dig',
    ['+noall', '+answer', '+time=10', '+tries=2', ...extra, `@${server.host}`, '-p', String(server.port), zone, type],
    { timeout: 15_000 },
  );
  return stdout
    .split('\n')
    .map((l) => l.replace(/\s+/g, ' ').trim().toLowerCase())
    .filter((l) => l && !l.startsWith(';'));
}

export interface Named {
  host: string;
  port: number;
  dir: string;
  process: ChildProcess;
  /** What named has logged so far (stderr, `-g`). */
  log(): string;
  stop(): Promise<void>;
}

export interface NamedZone {
  name: string;
  /** Master file text. */
  text: string;
  /** named.conf statements inside the zone block, e.g. `allow-update { key k; };` or `type secondary; primaries …`. */
  options?: string;
}

/**
 * Starts BIND 9 named in the foreground on 127.0.0.1 with the given zones and waits until it answers. `options`:
 * statements for its options block; by default `minimal-responses no-auth`, which answers as our server does (no
 * NS RRset in the authority section of positive answers, the addresses of in-zone NS, MX and SRV targets in the
 * additional section).
 */
export async function startNamed(
  zones: NamedZone[],
  extra = '',
  options = 'minimal-responses no-auth;',
): Promise<Named> {
  requireTool('named');
  const dir = mkdtempSync(join(tmpdir(), 'named-'));
  const port = await freePort();
  const zoneBlocks = zones.map((z, i) => {
    const file = join(dir, `zone${i}.db`);
    writeFileSync(file, z.text);
    return `zone "${z.name}" { ${z.options ?? 'type primary;'} file "${file}"; };`;
  });
  writeFileSync(
    join(dir, 'named.conf'),
    `
options {
  directory "${dir}";
  listen-on port ${port} { 127.0.0.1; };
  listen-on-v6 { none; };
  pid-file "${join(dir, 'named.pid')}";
  recursion no;
  ${options}
  dnssec-validation no;
  notify no;
};
${extra}
${zoneBlocks.join('\n')}
`,
  );
  const { child, log: logOf } = spawnNamed(join(dir, 'named.conf'));
  const named: Named = {
    host: '127.0.0.1',
    port,
    dir,
    process: child,
    log: logOf,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
      }),
  };
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`named exited: ${logOf().slice(-2000)}`);
    if (logOf().includes('running')) return named;
    await new Promise((r) => setTimeout(r, 100));
  }
  await named.stop();
  throw new Error(`named did not start within 10 s: ${logOf().slice(-2000)}`);
}

/**
 * BIND 9 named in the foreground (one worker thread, as this user) with the configuration file `conf`; its log
 * (stderr) as it grows. `args`: more command-line options (e.g. `-4`).
 */
export function spawnNamed(conf: string, args: string[] = []): { child: ChildProcess; log: () => string } {
  const user = process.getuid?.() === 0 ? 'root' : String(process.getuid?.());
  const child = spawn('named', ['-g', ...args, '-c', conf, '-n', '1', '-u', user], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr?.on('data', (d: Buffer) => {
    log += d.toString();
  });
  return { child, log: () => log };
}
