/**
 * DNS API part of `npm run bench` (docs/development.md, "Benchmarks"): our `/api/v1` (the built gateway, its REST
 * API alone on DNS_API_PORT, SQLite store, embedded DNS server) against PowerDNS Authoritative 4's HTTP API (gsqlite3
 * backend) on this machine, in this run, with the same client and the same concurrency for both.
 *
 * - records added per second, one per request (ours: POST /zones/{zone}/records; PowerDNS: PATCH of one rrset);
 * - whole listings of a 10 000-record zone per second (ours: GET /zones/{zone}/records; PowerDNS: GET of the zone);
 * - visibility over DNS: after each write's response, is the record answered at once (a UDP probe, then `dig`)?
 *   The lag is the time from the response to the first answer that has it (0 when the first probe does);
 * - a batch of 1 000 creates: time and server memory (PowerDNS: one PATCH of 1 000 rrsets);
 * - a 100 000-record zone listed page by page (limit/cursor) to the end: total time; one whole listing of it on both.
 *
 * BENCH_SECONDS sets each timed run (default 5 s); BENCH_API_CONNECTIONS the concurrency (default 16 keep-alive
 * connections); BENCH_API_ROUNDS the runs per side (default 2, best counts); BENCH_API_BATCHES the batches of 1 000
 * (default 5); BENCH_API_PAGE the page size (default 1 000); BENCH_API_PARTS picks parts (writes, list, lag, batch,
 * paging; all by default); BENCH_CPU_PROF=<dir> runs our server with `--cpu-prof` into that directory (the profile is
 * written when it stops).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { requireTool } from '../support/dns-peers';
import { FIXED_ENV, GATEWAY, SECONDS, runWhenMain } from './common';
import { cpuSeconds, dnsClient } from './dns-servers';
import { startPdns, type Pdns } from './pdns';
import { freePort, startNode, type Child } from './processes';

const CONNECTIONS = Number(process.env.BENCH_API_CONNECTIONS ?? 16);
/** Timed runs per side, taken in turn (the best counts: load from outside this benchmark only ever lowers a run). */
const ROUNDS = Math.max(1, Number(process.env.BENCH_API_ROUNDS ?? 2));
const PARTS = new Set((process.env.BENCH_API_PARTS ?? 'writes,list,lag,batch,paging').split(',').map((p) => p.trim()));
const LIST_RECORDS = 10_000;
const LAG_WRITES = 50;
const BATCH_OPS = 1_000;
const BATCHES = Math.max(1, Number(process.env.BENCH_API_BATCHES ?? 5));
const PAGED_RECORDS = 100_000;
const PAGE = Number(process.env.BENCH_API_PAGE ?? 1_000);
const ADMIN_PASSWORD = 'bench-admin-password';
const TTL = 300;

const execFileP = promisify(execFile);

// ---------------------------------------------------------------------------------------------------------------
// HTTP: one keep-alive agent per side, CONNECTIONS sockets
// ---------------------------------------------------------------------------------------------------------------

/** An answer with another status than expected. */
class StatusError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

interface Reply {
  status: number;
  body: Buffer;
}

class Http {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });

  constructor(
    private readonly base: string,
    private readonly headers: Record<string, string>,
  ) {}

  send(method: string, path: string, body?: unknown): Promise<Reply> {
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const headers: Record<string, string> = { ...this.headers };
    if (payload !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(payload));
    }
    return new Promise((resolve, reject) => {
      const req = httpRequest(this.base + path, { method, agent: this.agent, headers, timeout: 300_000 }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer within 300 s`)));
      req.on('error', reject);
      req.end(payload);
    });
  }

  /** `send`, failing unless the status is `expected`. */
  async expect(expected: number, method: string, path: string, body?: unknown): Promise<Reply> {
    const reply = await this.send(method, path, body);
    if (reply.status !== expected)
      throw new StatusError(
        `${method} ${this.base}${path}: ${reply.status} (expected ${expected}): ${reply.body.toString().slice(0, 300)}`,
        reply.status,
      );
    return reply;
  }

  close(): void {
    this.agent.destroy();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The two sides behind one interface
// ---------------------------------------------------------------------------------------------------------------

const ipOf = (i: number): string => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
const hostOf = (i: number): string => `h${i}`;

/** Our extras: a zone imported from a master file, and one page of a listing. */
interface OursExtras {
  importZone(zone: string, zoneFile: string): Promise<void>;
  page(zone: string, limit: number, cursor: string | null): Promise<{ records: number; next: string | null }>;
}

interface Side {
  label: string;
  dnsPort: number;
  pid: number;
  createZone(zone: string): Promise<void>;
  /** Adds `h<i>.<zone> A ipOf(i)` in one request. */
  add(zone: string, i: number): Promise<void>;
  /** Adds `h<from>` … `h<from+count-1>` in as few requests as the API allows (`per` records per request at most). */
  bulk(zone: string, from: number, count: number, per: number): Promise<void>;
  /** The whole zone in one request (status checked); its size in bytes. */
  list(zone: string): Promise<number>;
  /** A records of the zone (parsed from a whole listing). */
  countA(zone: string): Promise<number>;
  /** Why the server last answered 500, from its log (PowerDNS: the exception of its last 'HTTP ISE' line). */
  lastError?(): string | undefined;
  stop(): Promise<void>;
}

async function startOurs(): Promise<Side & OursExtras> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-dns-api-'));
  const [dnsPort, apiPort] = [await freePort(), await freePort()];
  const profDir = process.env.BENCH_CPU_PROF;
  const child: Child = await startNode(
    GATEWAY,
    {
      ...FIXED_ENV,
      DATA_DIR: dataDir,
      DNS_PORT: String(dnsPort),
      DNS_API_PORT: String(apiPort),
      ADMIN_PASSWORD,
      SEED_DEMO: 'false',
      MAX_BODY_BYTES: String(64 * 1024 * 1024),
    },
    '/healthz',
    [],
    profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : [],
  );
  const base = `http://127.0.0.1:${apiPort}/api/v1`;
  let http: Http | undefined;
  const stop = async (): Promise<void> => {
    http?.close();
    await child.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const login = new Http(base, {});
    const reply = await login.expect(200, 'POST', '/auth/login', { username: 'admin', password: ADMIN_PASSWORD });
    login.close();
    const { token } = JSON.parse(reply.body.toString()) as { token: string };
    http = new Http(base, { authorization: `Bearer ${token}` });
  } catch (err) {
    await stop();
    throw err;
  }
  const api = http;
  const create = (i: number) => ({ operation: 'create', name: hostOf(i), type: 'A', value: ipOf(i), ttl: TTL });
  return {
    label: 'ours',
    dnsPort,
    pid: child.process.pid as number,
    async createZone(zone) {
      await api.expect(201, 'POST', '/zones', { name: zone });
    },
    async add(zone, i) {
      await api.expect(201, 'POST', `/zones/${zone}/records`, { name: hostOf(i), type: 'A', value: ipOf(i), ttl: TTL });
    },
    async bulk(zone, from, count, per) {
      for (let start = from; start < from + count; start += per) {
        const operations = [];
        for (let i = start; i < Math.min(from + count, start + per); i++) operations.push(create(i));
        await api.expect(200, 'POST', `/zones/${zone}/records/batch`, { operations });
      }
    },
    async list(zone) {
      return (await api.expect(200, 'GET', `/zones/${zone}/records`)).body.length;
    },
    async countA(zone) {
      const body = JSON.parse((await api.expect(200, 'GET', `/zones/${zone}/records`)).body.toString()) as {
        records: Array<{ type: string }>;
      };
      return body.records.filter((r) => r.type === 'A').length;
    },
    async importZone(zone, zoneFile) {
      await api.expect(201, 'POST', '/zones', { name: zone, zone_file: zoneFile });
    },
    async page(zone, limit, cursor) {
      const query = `limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const reply = await api.expect(200, 'GET', `/zones/${zone}/records?${query}`);
      const body = JSON.parse(reply.body.toString()) as { records: unknown[]; next_cursor: string | null };
      return { records: body.records.length, next: body.next_cursor };
    },
    stop,
  };
}

async function startPowerDns(): Promise<Side> {
  const pdns: Pdns = await startPdns();
  const api = new Http(`${pdns.url}/api/v1/servers/localhost`, { 'x-api-key': pdns.apiKey });
  const rrset = (zone: string, i: number) => ({
    name: `${hostOf(i)}.${zone}.`,
    type: 'A',
    ttl: TTL,
    changetype: 'REPLACE',
    records: [{ content: ipOf(i), disabled: false }],
  });
  return {
    label: 'PowerDNS',
    dnsPort: pdns.dnsPort,
    pid: pdns.process.pid as number,
    async createZone(zone) {
      await api.expect(201, 'POST', '/zones', { name: `${zone}.`, kind: 'Native', nameservers: [`ns1.${zone}.`] });
    },
    async add(zone, i) {
      await api.expect(204, 'PATCH', `/zones/${zone}.`, { rrsets: [rrset(zone, i)] });
    },
    async bulk(zone, from, count, per) {
      for (let start = from; start < from + count; start += per) {
        const rrsets = [];
        for (let i = start; i < Math.min(from + count, start + per); i++) rrsets.push(rrset(zone, i));
        await api.expect(204, 'PATCH', `/zones/${zone}.`, { rrsets });
      }
    },
    async list(zone) {
      return (await api.expect(200, 'GET', `/zones/${zone}.`)).body.length;
    },
    async countA(zone) {
      const body = JSON.parse((await api.expect(200, 'GET', `/zones/${zone}.`)).body.toString()) as {
        rrsets: Array<{ type: string; records: unknown[] }>;
      };
      return body.rrsets.filter((r) => r.type === 'A').reduce((n, r) => n + r.records.length, 0);
    },
    lastError() {
      const ise = pdns
        .log()
        .split('\n')
        .filter((l) => l.includes('HTTP ISE'))
        .pop();
      return ise?.replace(/^.*?Exception: /, '');
    },
    async stop() {
      api.close();
      await pdns.stop();
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Measurements
// ---------------------------------------------------------------------------------------------------------------

interface Rate {
  /** Calls that succeeded per second. */
  rate: number;
  /** CPU time the server process spent (user + system, every thread) per call that succeeded, in ms. */
  cpuMs: number;
  ok: number;
  /** Calls answered with another status (the first such answer kept, to be shown). */
  failed: number;
  firstFailure?: string;
}

/**
 * `connections` workers call `fn` with rising numbers for `seconds`: calls that succeeded per second. An answer with
 * another status counts as failed (PowerDNS answers 500 when its SQLite database is busy); anything else throws.
 */
async function rate(
  side: Side,
  seconds: number,
  first: number,
  fn: (i: number) => Promise<unknown>,
  connections = CONNECTIONS,
): Promise<Rate> {
  let next = first;
  const result: Rate = { rate: 0, cpuMs: 0, ok: 0, failed: 0 };
  const cpu0 = cpuSeconds(side.pid);
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < end) {
        try {
          await fn(next++);
          result.ok++;
        } catch (err) {
          if (!(err instanceof StatusError)) throw err;
          result.failed++;
          result.firstFailure ??= err.message;
        }
      }
    }),
  );
  result.rate = result.ok / ((performance.now() - t0) / 1000);
  result.cpuMs = ((cpuSeconds(side.pid) - cpu0) * 1000) / result.ok;
  return result;
}

/** The best of several runs (the most calls per second). */
const best = (runs: Rate[]): Rate => runs.reduce((a, b) => (b.rate > a.rate ? b : a));

/** A side's runs on one line: the best, every run, failures, server CPU per call (the lowest run). */
function rateLine(label: string, unit: string, runs: Rate[]): string {
  const top = best(runs);
  const cpu = Math.min(...runs.map((r) => r.cpuMs));
  const all = runs.length > 1 ? ` (${runs.map((r) => (r.rate < 100 ? f1(r.rate) : f0(r.rate))).join(', ')})` : '';
  const failed = runs.reduce((n, r) => n + r.failed, 0);
  const first = runs.find((r) => r.firstFailure)?.firstFailure;
  return (
    `${label} ${top.rate < 100 ? f1(top.rate) : f0(top.rate)} ${unit}${all}, server CPU ${cpu.toFixed(2)} ms each` +
    (failed ? `, ${failed} failed (first: ${first ?? ''})` : '')
  );
}

/** `ROUNDS` runs of `measure` on each side, in turn. */
/** ROUNDS measurements of each of the two sides, in turn (ours, theirs, ours, …). */
async function rounds(
  sides: readonly [Side, Side],
  measure: (side: Side, round: number) => Promise<Rate>,
): Promise<[Rate[], Rate[]]> {
  const runs: [Rate[], Rate[]] = [[], []];
  for (let round = 0; round < ROUNDS; round++) {
    runs[0].push(await measure(sides[0], round));
    runs[1].push(await measure(sides[1], round));
  }
  return runs;
}

/** VmRSS and VmHWM (peak) of a process, in bytes. */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string): number => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

/** Resets a process's peak RSS (VmHWM) to its current RSS, so the next peak is the next operation's. */
function resetPeak(pid: number): void {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    // not allowed here: the peak then covers the process's whole life (said in the output)
  }
}

const f0 = (n: number): string => n.toFixed(0);
const f1 = (n: number): string => n.toFixed(1);
const mb = (bytes: number): string => `${(bytes / 1048576).toFixed(1)} MB`;
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (i: number): number => s[i] ?? NaN;
  return s.length % 2 ? at((s.length - 1) / 2) : (at(s.length / 2 - 1) + at(s.length / 2)) / 2;
};
const verdict = (ratio: number, goal: number): string => `(goal ≥ ${goal}: ${ratio >= goal ? 'met' : 'NOT met'})`;

async function writes(ours: Side, pdns: Side): Promise<string[]> {
  const zone = 'writes.bench';
  const sides = [ours, pdns] as const;
  for (const side of sides) {
    await side.createZone(zone);
    await rate(side, 1, 9_000_000, (i) => side.add(zone, i)); // warm-up: JIT, connections, caches
  }
  // every run adds new names: run r of n connections from r * 1 000 000, of one connection from 500 000 on
  const many = await rounds(sides, (side, r) => rate(side, SECONDS, r * 1_000_000, (i) => side.add(zone, i)));
  const one = await rounds(sides, (side, r) =>
    rate(side, SECONDS, r * 1_000_000 + 500_000, (i) => side.add(zone, i), 1),
  );
  const counts = await Promise.all(sides.map((side) => side.countA(zone)));
  const ratio = (runs: [Rate[], Rate[]]): number => best(runs[0]).rate / best(runs[1]).rate;
  const cpuRatio = (runs: [Rate[], Rate[]]): number =>
    Math.min(...runs[1].map((r) => r.cpuMs)) / Math.min(...runs[0].map((r) => r.cpuMs));
  return [
    `DNS API: records added one per request (ours POST /zones/{zone}/records, PowerDNS PATCH of one rrset), ` +
      `${ROUNDS} run${ROUNDS > 1 ? 's' : ''} of ${SECONDS} s per side in turn after a 1 s warm-up, best run; only 201/204 answers count:`,
    rateLine(`  ${CONNECTIONS} connections: ours    `, 'records/s', many[0]),
    rateLine(`  ${CONNECTIONS} connections: PowerDNS`, 'records/s', many[1]),
    rateLine('  1 connection:   ours    ', 'records/s', one[0]),
    rateLine('  1 connection:   PowerDNS', 'records/s', one[1]),
    `  ratio ours/PowerDNS: ${ratio(many).toFixed(3)} with ${CONNECTIONS} connections ${verdict(ratio(many), 2)}, ` +
      `${ratio(one).toFixed(3)} with 1 ${verdict(ratio(one), 2)}; server CPU per record PowerDNS/ours ` +
      `${cpuRatio(many).toFixed(3)} and ${cpuRatio(one).toFixed(3)}; A records after: ours ${counts[0]}, PowerDNS ${counts[1]}`,
    ...sides.flatMap((side) => {
      const why = [...(many[sides.indexOf(side)] ?? []), ...(one[sides.indexOf(side)] ?? [])].some((r) => r.failed)
        ? side.lastError?.()
        : undefined;
      return why ? [`  ${side.label}'s log on its failures: ${why}`] : [];
    }),
  ];
}

async function listing(ours: Side, pdns: Side): Promise<string[]> {
  const zone = 'list.bench';
  const sides = [ours, pdns] as const;
  const single: number[] = [];
  const bytes: number[] = [];
  for (const side of sides) {
    await side.createZone(zone);
    await side.bulk(zone, 0, LIST_RECORDS, side === ours ? BATCH_OPS : LIST_RECORDS);
    const count = await side.countA(zone);
    if (count !== LIST_RECORDS)
      throw new Error(`${side.label}: the listing holds ${count} A records, not ${LIST_RECORDS}`);
    const t0 = performance.now();
    bytes.push(await side.list(zone));
    single.push(performance.now() - t0);
    await rate(side, 1, 0, () => side.list(zone)); // warm-up
  }
  const runs = await rounds(sides, (side) => rate(side, SECONDS, 0, () => side.list(zone)));
  const ratio = best(runs[0]).rate / best(runs[1]).rate;
  const kb = (i: number): string => `${((bytes[i] ?? NaN) / 1024).toFixed(0)} KB`;
  return [
    `DNS API: whole listing of a ${LIST_RECORDS}-record zone (A records, one per name; ours GET /zones/{zone}/records, ` +
      `PowerDNS GET of the zone), ${CONNECTIONS} connections, ${ROUNDS} run${ROUNDS > 1 ? 's' : ''} of ${SECONDS} s per side in turn:`,
    rateLine('  ours    ', `listings/s of ${kb(0)} (one alone ${f0(single[0] ?? NaN)} ms)`, runs[0]),
    rateLine('  PowerDNS', `listings/s of ${kb(1)} (one alone ${f0(single[1] ?? NaN)} ms)`, runs[1]),
    `  ratio ours/PowerDNS ${ratio.toFixed(3)} ${verdict(ratio, 1)}`,
  ];
}

/** Does an A query for `name` get `ip` back? */
async function answers(port: number, name: string, ip: string): Promise<boolean> {
  const reply = await dnsClient(port, { timeoutMs: 1000 })
    .query(name, 'A')
    .catch(() => null); // no answer within 1 s
  if (!reply || reply.rcode !== 0) return false;
  return reply.answers.some((a) => a.type === 'A' && a.value === ip);
}

async function visibility(ours: Side, pdns: Side): Promise<string[]> {
  const zone = 'lag.bench';
  const run = async (side: Side) => {
    await side.createZone(zone);
    let probeOk = 0;
    let digOk = 0;
    const lags: number[] = [];
    for (let i = 0; i < LAG_WRITES; i++) {
      const name = `${hostOf(i)}.${zone}`;
      // asked first, so a cached negative answer would have to be dropped by the write
      if (await answers(side.dnsPort, name, ipOf(i))) throw new Error(`${side.label}: ${name} answered early`);
      await side.add(zone, i);
      const responded = performance.now();
      const first = await answers(side.dnsPort, name, ipOf(i));
      if (first) probeOk++;
      // dig right after the first probe; while it runs, a late answer is timed by probes every millisecond
      const dig = execFileP('dig', [
        '+short',
        '+tries=1',
        '+time=2',
        '-p',
        String(side.dnsPort),
        '@127.0.0.1',
        name,
        'A',
      ]);
      let ok = first;
      while (!ok && performance.now() - responded < 10_000) {
        await new Promise((r) => setTimeout(r, 1));
        ok = await answers(side.dnsPort, name, ipOf(i));
      }
      lags.push(first ? 0 : performance.now() - responded);
      if ((await dig).stdout.trim().split('\n').includes(ipOf(i))) digOk++;
      if (!ok) throw new Error(`${side.label}: ${name} not answered 10 s after the write`);
    }
    return { probeOk, digOk, maxLag: Math.max(...lags), medianLag: median(lags) };
  };
  const line = (side: Side, r: Awaited<ReturnType<typeof run>>): string =>
    `  ${side.label.padEnd(9)} first UDP probe answered ${r.probeOk}/${LAG_WRITES}, dig right after ${r.digOk}/${LAG_WRITES}; ` +
    `lag median ${f1(r.medianLag)} ms, max ${f1(r.maxLag)} ms`;
  const a = await run(ours);
  const b = await run(pdns);
  return [
    `DNS API: a write's response → DNS answering it (${LAG_WRITES} writes one at a time, each name asked once before; ` +
      `goal: answered before the response, lag 0):`,
    line(ours, a),
    line(pdns, b),
  ];
}

interface BatchRuns {
  times: number[];
  /** Server CPU per batch, ms. */
  cpu: number[];
  peakDelta: number;
  before: { rss: number; peak: number };
  after?: { rss: number; peak: number };
}

async function batch(ours: Side, pdns: Side): Promise<string[]> {
  const zone = 'batch.bench';
  const sides = [ours, pdns] as const;
  const runs = new Map<Side, BatchRuns>();
  for (const side of sides) {
    await side.createZone(zone);
    await side.bulk(zone, 10_000_000, 100, 100); // warm-up
    runs.set(side, { times: [], cpu: [], peakDelta: 0, before: memoryOf(side.pid) });
  }
  // the sides take turns, batch by batch: load from outside falls on both alike
  for (let b = 0; b < BATCHES; b++) {
    for (const side of sides) {
      const r = runs.get(side) as BatchRuns;
      resetPeak(side.pid);
      const start = memoryOf(side.pid);
      const cpu0 = cpuSeconds(side.pid);
      const t0 = performance.now();
      await side.bulk(zone, b * BATCH_OPS, BATCH_OPS, BATCH_OPS);
      r.times.push(performance.now() - t0);
      r.cpu.push((cpuSeconds(side.pid) - cpu0) * 1000);
      r.peakDelta = Math.max(r.peakDelta, memoryOf(side.pid).peak - start.rss);
    }
  }
  for (const side of sides) {
    const count = await side.countA(zone);
    if (count !== BATCHES * BATCH_OPS + 100) throw new Error(`${side.label}: ${count} A records after the batches`);
    (runs.get(side) as BatchRuns).after = memoryOf(side.pid);
  }
  const line = (side: Side): string => {
    const r = runs.get(side) as BatchRuns;
    return (
      `  ${side.label.padEnd(9)} ${f0(median(r.times))} ms median (${r.times.map(f0).join(', ')} ms), ` +
      `${f0((BATCH_OPS * 1000) / median(r.times))} records/s, server CPU ${f0(median(r.cpu))} ms a batch (median); ` +
      `RSS ${mb(r.before.rss)} → ${mb(r.after?.rss ?? NaN)}, peak during a batch +${mb(r.peakDelta)}`
    );
  };
  const [a, b] = [runs.get(ours) as BatchRuns, runs.get(pdns) as BatchRuns];
  return [
    `DNS API: a batch of ${BATCH_OPS} creates in one request, ${BATCHES} in a row into one zone, the sides in turn ` +
      `(ours POST /records/batch, all or nothing; PowerDNS one PATCH of ${BATCH_OPS} rrsets):`,
    line(ours),
    line(pdns),
    `  ratios PowerDNS/ours (higher is better for us): time ${(median(b.times) / median(a.times)).toFixed(3)}, ` +
      `server CPU ${(median(b.cpu) / median(a.cpu)).toFixed(3)}`,
  ];
}

function bigZoneFile(zone: string, count: number): string {
  const lines = [
    `$ORIGIN ${zone}.`,
    `$TTL ${TTL}`,
    `@ IN SOA ns1.${zone}. hostmaster.${zone}. ( 2026010101 10800 3600 604800 3600 )`,
    `@ IN NS ns1.${zone}.`,
  ];
  for (let i = 0; i < count; i++) lines.push(`${hostOf(i)} IN A ${ipOf(i)}`);
  return `${lines.join('\n')}\n`;
}

async function paging(ours: Side & OursExtras, pdns: Side): Promise<string[]> {
  const zone = 'paged.bench';
  const t0 = performance.now();
  await ours.importZone(zone, bigZoneFile(zone, PAGED_RECORDS));
  const importMs = performance.now() - t0;
  const t1 = performance.now();
  let cursor: string | null = null;
  let pages = 0;
  let records = 0;
  do {
    const page = await ours.page(zone, PAGE, cursor);
    pages++;
    records += page.records;
    cursor = page.next;
  } while (cursor && pages < 10_000);
  const pagedMs = performance.now() - t1;
  if (records < PAGED_RECORDS) throw new Error(`ours: paging gave ${records} records, not ${PAGED_RECORDS}`);
  const t2 = performance.now();
  const wholeBytes = await ours.list(zone);
  const wholeMs = performance.now() - t2;
  const mem = memoryOf(ours.pid);

  await pdns.createZone(zone);
  const t3 = performance.now();
  await pdns.bulk(zone, 0, PAGED_RECORDS, 10_000);
  const pdnsLoadMs = performance.now() - t3;
  const t4 = performance.now();
  const pdnsBytes = await pdns.list(zone);
  const pdnsWholeMs = performance.now() - t4;
  return [
    `DNS API: a ${PAGED_RECORDS}-record zone (imported from a master file in ${f0(importMs)} ms):`,
    `  ours paged with limit=${PAGE}: ${pages} pages, ${records} records in ${f0(pagedMs)} ms ` +
      `(${f1(pagedMs / pages)} ms a page); whole listing in one request ${f0(wholeMs)} ms (${mb(wholeBytes)}); server RSS ${mb(mem.rss)}`,
    `  PowerDNS (no paging): whole zone in one GET ${f0(pdnsWholeMs)} ms (${mb(pdnsBytes)}), ` +
      `loaded by 10 PATCHes of 10 000 rrsets in ${f0(pdnsLoadMs)} ms`,
  ];
}

export async function dnsApiBenchmark(): Promise<string[]> {
  requireTool('dig');
  const out: string[] = [];
  const ours = await startOurs();
  let pdns: Side | undefined;
  try {
    pdns = await startPowerDns();
    if (PARTS.has('writes')) out.push(...(await writes(ours, pdns)));
    if (PARTS.has('list')) out.push(...(await listing(ours, pdns)));
    if (PARTS.has('lag')) out.push(...(await visibility(ours, pdns)));
    if (PARTS.has('batch')) out.push(...(await batch(ours, pdns)));
    if (PARTS.has('paging')) out.push(...(await paging(ours, pdns)));
    return out;
  } finally {
    await Promise.all([ours.stop(), pdns?.stop()]);
  }
}

runWhenMain(module, dnsApiBenchmark);
