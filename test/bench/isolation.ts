/**
 * Isolation part of `npm run bench` (`npm run bench -- isolation`): do DNS answers wait for the control plane? Our
 * built gateway as `npm start` runs it (SQLite store, embedded DNS server, DNS_WORKERS=auto; MAX_BODY_BYTES raised to
 * 64 MiB, the default 1 MiB refusing the master file) answers a steady UDP load (test/bench/udp-load.ts, a child
 * process: BENCH_ISOLATION_QPS questions a second, default 2 000, paced; half for names of a small other zone, half
 * for names of the zone being worked on once it exists) through a window at rest, then, one after another:
 *
 * - `import`: a BENCH_ISOLATION_RECORDS-record master file (default 100 000; the realistic mix of
 *   test/bench/dns-realistic.ts: A, AAAA, CNAME, MX, TXT) through `POST /api/v1/zones {name, zone_file}`;
 * - `list`: 20 whole listings `GET /zones/{zone}/records` at once, with the RSS of our process tree before and its
 *   peak (sampled every 50 ms);
 * - `export`: 20 `GET /zones/{zone}/export` at once;
 * - `axfr`: 10 AXFRs of the zone at once over TCP (dns/client);
 * - `dnssec`: DNSSEC enabled with ECDSAP256SHA256, disabled, enabled with RSASHA256 (2048 bits), each until served
 *   so (a DO query on the last name of the zone, the DNSKEY RRset and the apex SOA, polled), whatever the API
 *   answered meanwhile.
 *
 * Each reports its wall time and what the load saw in its window (sent, answered, lost: no answer within 2 s,
 * latency p50/p99/max, the longest silence; datagrams the kernel dropped at the server's full socket), then whether
 * the new state is served, and waits until our server is at rest again (work left behind, e.g. after a 504, is
 * reported and kept out of the next window). BENCH_ISOLATION_PARTS picks parts (import, list, export, axfr, dnssec;
 * all by default; the zone is imported untimed when `import` is left out); BENCH_ISOLATION_TIMEOUT bounds each
 * operation (seconds, default 180: past it, what was reached is reported and the bench goes on).
 *
 * References, after our server stopped, under the same load (test/bench/isolation-refs.ts): PowerDNS (import through
 * its HTTP API, listings, exports), BIND 9 (at rest: the load's own floor; AXFRs), `dnssec-signzone` (both
 * algorithms). A summary says which window meets the isolation targets: none lost, no error answer, p99 ≤ 10 ms,
 * RSS during the listings ≤ 1.5 × before. Our misses are printed, never thrown.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { prng } from '../../dns/testing/prng';
import { compareNames, parseZoneFile } from '../../dns/zonefile';
import { requireTool } from '../support/dns-peers';
import { FIXED_ENV, GATEWAY, runWhenMain } from './common';
import { realisticZone, type Name } from './dns-realistic';
import { cpuSeconds, memoryOf } from './dns-servers';
import { signedNow } from './dnssec';
import { answered, LOSS_MS, message, sleep, until, WARM_UP_MS } from './isolation-dns';
import {
  axfrs,
  bindReference,
  pdnsReference,
  signzone,
  type BenchZone,
  type BindFigures,
  type Measured,
  type PdnsFigures,
  type Timed,
} from './isolation-refs';
import { missedTargets, TARGETS, wallLine, windowLine, type WindowStats } from './isolation-stats';
import { freeDnsPort, startNode, type Child } from './processes';
import { startUdpLoad, type Question, type UdpLoad } from './udp-load';

const PART_NAMES = ['import', 'list', 'export', 'axfr', 'dnssec'];
const PARTS = new Set((process.env.BENCH_ISOLATION_PARTS ?? PART_NAMES.join(',')).split(',').map((p) => p.trim()));
const RECORDS = Number(process.env.BENCH_ISOLATION_RECORDS ?? 100_000);
const QPS = Number(process.env.BENCH_ISOLATION_QPS ?? 2_000);
const TIMEOUT_MS = Number(process.env.BENCH_ISOLATION_TIMEOUT ?? 180) * 1000;
const WORK_ZONE = 'work.test';
const OTHER_ZONE = 'other.test';
const OTHER_NAMES = 500;
const LISTINGS = 20;
const EXPORTS = 20;
const TRANSFERS = 10;
/** The load's first window, before anything happens: what the server does at rest. */
const IDLE_MS = 5_000;
/** Questions checked after each scenario (answered; signed or not after DNSSEC changes). */
const SAMPLE = 50;
const SIGNED_SAMPLE = 20;
const ADMIN_PASSWORD = 'bench-admin-password';

const s2 = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const mb = (bytes: number): string => `${(bytes / 1048576).toFixed(1)} MB`;

function checkSettings(): void {
  const unknown = [...PARTS].filter((p) => !PART_NAMES.includes(p));
  if (unknown.length)
    throw new Error(`BENCH_ISOLATION_PARTS: no part ${unknown.join(', ')}; parts are ${PART_NAMES.join(', ')}`);
  if (!Number.isInteger(RECORDS) || RECORDS < 100)
    throw new Error(
      `BENCH_ISOLATION_RECORDS must be an integer of at least 100, not ${process.env.BENCH_ISOLATION_RECORDS}`,
    );
  if (!Number.isInteger(QPS) || QPS < 2 || QPS > 30_000)
    throw new Error(`BENCH_ISOLATION_QPS must be an integer from 2 to 30000, not ${process.env.BENCH_ISOLATION_QPS}`);
  if (!(TIMEOUT_MS >= 1000))
    throw new Error(`BENCH_ISOLATION_TIMEOUT must be at least 1 (seconds), not ${process.env.BENCH_ISOLATION_TIMEOUT}`);
}

// ---------------------------------------------------------------------------------------------------------------
// The zones
// ---------------------------------------------------------------------------------------------------------------

/** One existing question per name: a type it has (CNAME for an alias, so that a DO answer's RRSIG covers it). */
function questionsOf(zone: string, names: Name[]): Question[] {
  const rnd = prng(25);
  return names.map((n) => {
    const type = n.types.includes('CNAME') ? 'CNAME' : (n.types[Math.floor(rnd() * n.types.length)] ?? 'A');
    return [`${n.owner}.${zone}`, type] as const;
  });
}

/** `count` of `xs`, picked at random (the same each run). */
function sample<T>(xs: readonly T[], count: number, seed: number): T[] {
  const rnd = prng(seed);
  return Array.from({ length: Math.min(count, xs.length) }, () => xs[Math.floor(rnd() * xs.length)] as T);
}

interface Work extends BenchZone {
  /** The last name in canonical order: the one a signer reaches last. */
  deep: Question;
}

/** A realistic zone of `size` written into `root`, with its questions. */
function benchZone(root: string, name: string, size: { names?: number; records?: number }): BenchZone {
  const zone = realisticZone(name, size);
  const file = join(root, `${name}.zone`);
  writeFileSync(file, zone.text);
  const records = parseZoneFile(zone.text, { origin: name }).records.length;
  return { name, file, text: zone.text, records, questions: questionsOf(name, zone.names) };
}

function workZone(root: string): Work {
  const zone = benchZone(root, WORK_ZONE, { records: RECORDS });
  return { ...zone, deep: zone.questions.reduce((a, b) => (compareNames(b[0], a[0]) > 0 ? b : a)) };
}

// ---------------------------------------------------------------------------------------------------------------
// Our gateway
// ---------------------------------------------------------------------------------------------------------------

interface Ours {
  api: string;
  headers: Record<string, string>;
  dnsPort: number;
  pid: number;
  stop(): Promise<void>;
}

async function startOurs(): Promise<Ours> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-isolation-'));
  const dnsPort = await freeDnsPort();
  let child: Child | undefined;
  const stop = async (): Promise<void> => {
    await child?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    child = await startNode(GATEWAY, {
      ...FIXED_ENV,
      DATA_DIR: dataDir,
      DNS_PORT: String(dnsPort),
      ADMIN_PASSWORD,
      MAX_BODY_BYTES: String(64 * 1024 * 1024),
    });
    const api = `${child.url}/api/v1`;
    const res = await fetch(`${api}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }),
    });
    if (res.status !== 200) throw new Error(`login answered ${res.status}: ${await res.text()}`);
    const { token } = (await res.json()) as { token: string };
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    return { api, headers, dnsPort, pid: child.process.pid as number, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** One API call: its status and body size (the body itself when `keep`). */
async function call(
  ours: Ours,
  method: string,
  path: string,
  options: { body?: unknown; signal?: AbortSignal; keep?: boolean } = {},
): Promise<{ status: number; bytes: number; text?: string }> {
  const res = await fetch(ours.api + path, {
    method,
    headers: ours.headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: options.signal,
  });
  const body = Buffer.from(await res.arrayBuffer());
  const short = res.status >= 300 || options.keep;
  return { status: res.status, bytes: body.length, text: short ? body.toString() : undefined };
}

// ---------------------------------------------------------------------------------------------------------------
// Scenarios
// ---------------------------------------------------------------------------------------------------------------

interface Outcome {
  /** The figure compared with the reference (the HTTP answer, all of them, or "served"), ms; absent: not reached. */
  wallMs?: number;
  /** What the API answered (statuses), or that it had not. */
  api: string;
  /** From the start until the new state was served, ms (operations that change what DNS answers). */
  servedMs?: number;
  notes: string[];
}

interface Scenario {
  label: string;
  dns: WindowStats;
  outcome?: Outcome;
  error?: string;
  rss: { before: number; peak: number };
  /** The check after it (the new state served). */
  check?: string;
  /** How long our server stayed busy after the window (work the operation left behind), ms. */
  busyAfterMs?: number;
  /** Peak / before, for the scenario whose target is memory. */
  rssTarget?: boolean;
}

interface Context {
  ours: Ours;
  load: UdpLoad;
  work: Work;
}

/** Our server is at rest when its process tree uses less than this share of a core (the load alone costs less). */
const BUSY = 0.3;
/** The longest wait for our server to come to rest between scenarios. */
const SETTLE_MS = 60_000;

/**
 * Waits until our process tree's CPU over half a second is below BUSY (work an operation left behind, e.g. after a
 * 504, must not fall into the next scenario's window): how long it stayed busy, ms (0: at rest at once).
 */
async function settle(pid: number): Promise<number> {
  const t0 = performance.now();
  for (;;) {
    const before = cpuSeconds(pid);
    await sleep(500);
    const busy = (cpuSeconds(pid) - before) / 0.5;
    const waited = performance.now() - t0;
    if (busy < BUSY || waited > SETTLE_MS) return waited <= 600 ? 0 : waited - 500;
  }
}

/** The RSS of our process tree now and its largest value, sampled every 50 ms until `stop`. */
function sampleRss(pid: number): { stop(): { before: number; peak: number } } {
  const rss = (): number => {
    try {
      return memoryOf(pid).rss;
    } catch {
      return 0; // a process of the tree ended meanwhile
    }
  };
  const before = rss();
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, rss());
  }, 50);
  return {
    stop() {
      clearInterval(timer);
      return { before, peak: Math.max(peak, rss()) };
    },
  };
}

/** Runs `fn` in a window of the load, bounded by TIMEOUT_MS (its signal aborts then); never throws. */
async function scenario(
  ctx: Context,
  label: string,
  fn: (signal: AbortSignal) => Promise<Outcome>,
  check?: () => Promise<string>,
): Promise<Scenario> {
  const rss = sampleRss(ctx.ours.pid);
  ctx.load.open(label);
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new Error(`not finished within ${TIMEOUT_MS / 1000} s`)), TIMEOUT_MS);
  const result: Partial<Scenario> = { label };
  try {
    result.outcome = await fn(abort.signal);
  } catch (err) {
    result.error = abort.signal.aborted ? message(abort.signal.reason) : message(err);
  } finally {
    clearTimeout(timer);
  }
  result.dns = await ctx.load.close();
  result.rss = rss.stop();
  if (check) result.check = await check().catch((err: unknown) => `check failed: ${message(err)}`);
  result.busyAfterMs = await settle(ctx.ours.pid);
  return result as Scenario;
}

/** What the API answered to one request (status 0: no answer, `text` the reason), in words. */
function httpLine(reply: { status: number; text?: string; ms: number }, ok: number, signal: AbortSignal): string {
  if (reply.status === ok) return `HTTP ${ok} after ${s2(reply.ms)}`;
  if (reply.status === 0 && signal.aborted) return `no HTTP answer within ${TIMEOUT_MS / 1000} s (request abandoned)`;
  if (reply.status === 0) return `no HTTP answer: ${reply.text ?? ''} after ${s2(reply.ms)}`;
  return `HTTP ${reply.status} after ${s2(reply.ms)}: ${(reply.text ?? '').slice(0, 400)}`;
}

async function importZone(ctx: Context, signal: AbortSignal): Promise<Outcome> {
  const { ours, work } = ctx;
  const t0 = performance.now();
  const posted = call(ours, 'POST', '/zones', { body: { name: WORK_ZONE, zone_file: work.text }, signal }).then(
    (r) => ({ ...r, ms: performance.now() - t0 }),
    (err: unknown) => ({ status: 0, bytes: 0, text: message(err), ms: performance.now() - t0 }),
  );
  // served: the last name and a sample answer (polled while the request runs: the answer may come first or later)
  const probe = [work.deep, ...sample(work.questions, SAMPLE, 1)];
  const served = await until(signal, 100, async () => (await answered(ours.dnsPort, probe)) === probe.length);
  const servedMs = served ? performance.now() - t0 : undefined;
  const reply = await posted;
  return {
    wallMs: reply.status === 201 ? reply.ms : undefined,
    api: httpLine(reply, 201, signal),
    servedMs,
    notes: [
      served ? `served (the last name and ${SAMPLE} others answered) after ${s2(servedMs ?? NaN)}` : 'not served',
    ],
  };
}

async function listings(ctx: Context, signal: AbortSignal): Promise<Outcome> {
  const t0 = performance.now();
  const replies = await Promise.all(
    Array.from({ length: LISTINGS }, (_, i) =>
      call(ctx.ours, 'GET', `/zones/${WORK_ZONE}/records`, { signal, keep: i === 0 }),
    ),
  );
  const wallMs = performance.now() - t0;
  const statuses = new Map<number, number>();
  for (const r of replies) statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
  const first = replies[0];
  const count = first?.status === 200 ? (JSON.parse(first.text ?? '{}') as { records?: unknown[] }).records?.length : 0;
  const ok = statuses.get(200) === LISTINGS;
  return {
    wallMs: ok ? wallMs : undefined,
    api: `${[...statuses].map(([s, n]) => `${n} × HTTP ${s}`).join(', ')}, all in ${s2(wallMs)}`,
    notes: [
      `${mb(first?.bytes ?? 0)} each; ${count ?? '?'} records listed (${ctx.work.records} in the file besides the SOA)`,
    ],
  };
}

async function exportsOf(ctx: Context, signal: AbortSignal): Promise<Outcome> {
  const t0 = performance.now();
  const replies = await Promise.all(
    Array.from({ length: EXPORTS }, () => call(ctx.ours, 'GET', `/zones/${WORK_ZONE}/export`, { signal })),
  );
  const wallMs = performance.now() - t0;
  const ok = replies.filter((r) => r.status === 200).length;
  const other = replies.find((r) => r.status !== 200);
  return {
    wallMs: ok === EXPORTS ? wallMs : undefined,
    api: `${ok} × HTTP 200${other ? `, others ${other.status}: ${(other.text ?? '').slice(0, 400)}` : ''}, all in ${s2(wallMs)}`,
    notes: ok ? [`${mb(replies[0]?.bytes ?? 0)} each`] : [],
  };
}

async function transfers(ctx: Context, signal: AbortSignal): Promise<Outcome> {
  const t0 = performance.now();
  const note = await axfrs(ctx.ours.dnsPort, WORK_ZONE, TRANSFERS, ctx.work.records, signal);
  const wallMs = performance.now() - t0;
  return { wallMs, api: `AXFR over TCP, all in ${s2(wallMs)}`, notes: [note] };
}

/**
 * `POST /zones/{zone}/dnssec` with `body`, polled until served as `signed` says (DO queries for the apex SOA, the
 * DNSKEY RRset and the last name: all with an RRSIG, or none); the HTTP answer is waited for too, both bounded by
 * `signal`. When the bound comes first: how far it got.
 */
async function dnssecChange(
  ctx: Context,
  body: Record<string, unknown>,
  signed: boolean,
  signal: AbortSignal,
): Promise<Outcome> {
  const port = { port: ctx.ours.dnsPort };
  const probe: Question[] = [[WORK_ZONE, 'SOA'], [WORK_ZONE, 'DNSKEY'], ctx.work.deep];
  const before = await signedNow(port, [[WORK_ZONE, 'SOA']]);
  const t0 = performance.now();
  let reply: { status: number; text?: string; ms: number } | undefined;
  const posted = call(ctx.ours, 'POST', `/zones/${WORK_ZONE}/dnssec`, { body, signal }).then(
    (r) => (reply = { ...r, ms: performance.now() - t0 }),
    (err: unknown) => (reply = { status: 0, text: message(err), ms: performance.now() - t0 }),
  );
  let last = { signed: [false, false, false], serial: NaN };
  const served = await until(signal, 200, async () => {
    last = await signedNow(port, probe);
    // signed: every probe carries an RRSIG; unsigned: none does (DNSKEY gone), with an answer (the serial) to show it
    return signed ? last.signed.every(Boolean) : Number.isFinite(last.serial) && !last.signed.some(Boolean);
  });
  const servedMs = served ? performance.now() - t0 : undefined;
  if (!signal.aborted) await Promise.race([posted, new Promise((r) => signal.addEventListener('abort', r))]);
  const answer = reply ? httpLine(reply, 200, signal) : `no HTTP answer within ${TIMEOUT_MS / 1000} s`;
  const state = signed ? 'signed' : 'unsigned';
  const notes = served
    ? [`served ${state} after ${s2(servedMs ?? NaN)}; SOA serial ${before.serial} → ${last.serial}`]
    : [
        `NOT served ${state} within ${TIMEOUT_MS / 1000} s; last seen: SOA serial ${before.serial} → ${last.serial}, ` +
          `RRSIG on the SOA ${last.signed[0] ? 'yes' : 'no'}, on the DNSKEY RRset ${last.signed[1] ? 'yes' : 'no'}, ` +
          `on ${ctx.work.deep.join(' ')} ${last.signed[2] ? 'yes' : 'no'}`,
      ];
  return { wallMs: servedMs, api: answer, servedMs, notes };
}

/** After a DNSSEC change: how many of a sample answer signed (RRSIG over the type asked). */
async function signedSample(ctx: Context): Promise<{ signed: number; of: number }> {
  const questions = sample(ctx.work.questions, SIGNED_SAMPLE, 2);
  const now = await signedNow({ port: ctx.ours.dnsPort }, questions);
  return { signed: now.signed.filter(Boolean).length, of: questions.length };
}

async function servedCheck(ctx: Context): Promise<string> {
  const probe = sample(ctx.work.questions, SAMPLE, 3);
  return `${await answered(ctx.ours.dnsPort, probe)}/${probe.length} sampled names answered`;
}

async function ourScenarios(ctx: Context): Promise<Scenario[]> {
  const done: Scenario[] = [];
  await sleep(WARM_UP_MS);
  ctx.load.open('idle');
  await sleep(IDLE_MS);
  const idle = await ctx.load.close();
  done.push({ label: 'idle (before the import)', dns: idle, rss: { before: NaN, peak: NaN } });

  const workQuestions = (): void => ctx.load.target(ctx.work.questions);
  if (PARTS.has('import')) {
    const s = await scenario(ctx, `import of ${ctx.work.records + 1} records`, (signal) => importZone(ctx, signal));
    done.push(s);
  } else {
    const untimed = await importZone(ctx, AbortSignal.timeout(TIMEOUT_MS));
    if (untimed.servedMs === undefined) throw new Error(`the zone to work on was not served: ${untimed.api}`);
  }
  workQuestions();
  const check = (): Promise<string> => servedCheck(ctx);
  if (PARTS.has('list')) {
    const s = await scenario(ctx, `${LISTINGS} concurrent full listings`, (signal) => listings(ctx, signal), check);
    done.push({ ...s, rssTarget: true });
  }
  if (PARTS.has('export'))
    done.push(await scenario(ctx, `${EXPORTS} concurrent exports`, (signal) => exportsOf(ctx, signal), check));
  if (PARTS.has('axfr'))
    done.push(await scenario(ctx, `${TRANSFERS} concurrent AXFRs`, (signal) => transfers(ctx, signal), check));
  if (PARTS.has('dnssec')) {
    const signedCheck = (want: boolean) => async (): Promise<string> => {
      const { signed, of } = await signedSample(ctx);
      const answers = await servedCheck(ctx);
      return `${signed}/${of} sampled names answered with an RRSIG (want ${want ? 'all' : 'none'}); ${answers}`;
    };
    const steps: Array<[string, Record<string, unknown>, boolean]> = [
      ['DNSSEC on, ECDSAP256SHA256', { enable: true, algorithm: 'ECDSAP256SHA256' }, true],
      ['DNSSEC off', { enable: false }, false],
      ['DNSSEC on, RSASHA256 2048', { enable: true, algorithm: 'RSASHA256', key_size: 2048 }, true],
    ];
    for (const [label, body, signed] of steps)
      done.push(await scenario(ctx, label, (signal) => dnssecChange(ctx, body, signed, signal), signedCheck(signed)));
  }
  return done;
}

// ---------------------------------------------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------------------------------------------

function scenarioLines(s: Scenario): string[] {
  const lines = [`isolation: ${s.label}`];
  if (s.outcome) lines.push(`  ${[s.outcome.api, ...s.outcome.notes].join('; ')}`);
  if (s.error) lines.push(`  ERROR: ${s.error}`);
  lines.push(`  ${windowLine(s.dns)}`);
  if (Number.isFinite(s.rss.before))
    lines.push(
      `  RSS of our process tree: ${mb(s.rss.before)} before, peak ${mb(s.rss.peak)} (×${(s.rss.peak / s.rss.before).toFixed(2)}` +
        `${s.rssTarget ? `, target ≤ ×${TARGETS.rssRatio}` : ''})`,
    );
  if (s.check) lines.push(`  after: ${s.check}`);
  if (s.busyAfterMs)
    lines.push(
      `  our server stayed busy ${s2(s.busyAfterMs)} after the window (CPU over ${BUSY * 100} % of a core; ` +
        `the next scenario waited)`,
    );
  return lines;
}

const wallOf = (t: Timed | undefined): number => (t && 'ms' in t ? t.ms : NaN);
const refNote = (t: Timed): string => ('ms' in t ? `${s2(t.ms)} (${t.note})` : `ERROR: ${t.error}`);

interface References {
  pdns?: PdnsFigures;
  pdnsError?: string;
  bind?: BindFigures;
  bindError?: string;
  ecdsa?: Timed;
  rsa?: Timed;
}

async function references(root: string, work: Work, other: BenchZone): Promise<References> {
  const refs: References = {};
  const load = { qps: QPS, idleMs: IDLE_MS };
  if (PARTS.has('import') || PARTS.has('list') || PARTS.has('export')) {
    const listings = PARTS.has('list') ? LISTINGS : 0;
    const exports = PARTS.has('export') ? EXPORTS : 0;
    refs.pdns = await pdnsReference(work, other, listings, exports, load).catch((err: unknown) => {
      refs.pdnsError = message(err);
      return undefined;
    });
  }
  if (PARTS.has('axfr'))
    refs.bind = await bindReference(root, work, other, TRANSFERS, load).catch((err: unknown) => {
      refs.bindError = message(err);
      return undefined;
    });
  if (PARTS.has('dnssec')) {
    refs.ecdsa = await signzone(root, work, 'ECDSAP256SHA256', undefined, TIMEOUT_MS);
    refs.rsa = await signzone(root, work, 'RSASHA256', 2048, TIMEOUT_MS);
  }
  return refs;
}

function comparisons(scenarios: Scenario[], refs: References): string[] {
  const ours = (prefix: string): number => scenarios.find((s) => s.label.startsWith(prefix))?.outcome?.wallMs ?? NaN;
  const out = ['isolation: wall times against the references (same machine, same master files, the same load):'];
  if (refs.pdnsError) out.push(`  PowerDNS: ERROR: ${refs.pdnsError}`);
  if (refs.bindError) out.push(`  BIND 9: ERROR: ${refs.bindError}`);
  const line = (label: string, oursMs: number, name: string, ref: Measured | undefined): void => {
    if (!ref) return;
    out.push(`  ${wallLine(label, oursMs, name, wallOf(ref.time))}`);
    out.push(
      `    ${name}: ${refNote(ref.time)}${ref.dns ? `; its ${windowLine(ref.dns)}` : ' (no DNS load: no server)'}`,
    );
  };
  const { pdns, bind } = refs;
  if (bind)
    out.push(`  the load against BIND 9 at rest (its own floor): ${bind.idle.dns ? windowLine(bind.idle.dns) : '—'}`);
  if (PARTS.has('import')) line('import (HTTP answer)', ours('import'), 'PowerDNS', pdns?.import);
  if (PARTS.has('list'))
    line(`${LISTINGS} concurrent full listings`, ours(`${LISTINGS} concurrent full`), 'PowerDNS', pdns?.listings);
  if (PARTS.has('export'))
    line(`${EXPORTS} concurrent exports`, ours(`${EXPORTS} concurrent exports`), 'PowerDNS', pdns?.exports);
  if (PARTS.has('axfr'))
    line(`${TRANSFERS} concurrent AXFRs`, ours(`${TRANSFERS} concurrent AXFR`), 'BIND 9', bind?.axfrs);
  if (PARTS.has('dnssec')) {
    const signed = (t: Timed | undefined): Measured | undefined => t && { time: t };
    line('DNSSEC on, ECDSAP256SHA256 (served signed)', ours('DNSSEC on, ECDSA'), 'dnssec-signzone', signed(refs.ecdsa));
    line('DNSSEC on, RSASHA256 2048 (served signed)', ours('DNSSEC on, RSA'), 'dnssec-signzone', signed(refs.rsa));
  }
  return out;
}

interface Row {
  label: string;
  dns: WindowStats;
  wallMs?: number;
  missed: string[];
}

function summary(scenarios: Scenario[], refs: References): string[] {
  const cell = (text: string, width: number): string => text.padEnd(width);
  const msText = (n: number): string => (Number.isFinite(n) ? `${n < 10 ? n.toFixed(2) : n.toFixed(0)} ms` : '—');
  const rows: Row[] = scenarios.map((s) => {
    const missed = missedTargets(s.dns, s.rssTarget ? s.rss.peak / s.rss.before : undefined);
    if (s.error) missed.push(`error: ${s.error}`);
    else if (s.outcome && s.outcome.wallMs === undefined) missed.push('not done (see above)');
    return { label: s.label, dns: s.dns, wallMs: s.outcome?.wallMs, missed };
  });
  const reference = (label: string, m: Measured | undefined): void => {
    if (m?.dns) rows.push({ label: `ref: ${label}`, dns: m.dns, wallMs: wallOf(m.time), missed: missedTargets(m.dns) });
  };
  reference('BIND 9 at rest', refs.bind?.idle);
  reference('PowerDNS import', refs.pdns?.import);
  reference(`PowerDNS ${LISTINGS} listings`, refs.pdns?.listings);
  reference(`PowerDNS ${EXPORTS} exports`, refs.pdns?.exports);
  reference(`BIND 9 ${TRANSFERS} AXFRs`, refs.bind?.axfrs);
  return [
    `isolation summary (targets: lost 0, no error answer, p99 ≤ ${TARGETS.p99Ms} ms; RSS during the listings ≤ ` +
      `×${TARGETS.rssRatio} before; ref: the references under the same load):`,
    `  ${cell('scenario', 36)} ${cell('lost', 8)} ${cell('p99', 10)} ${cell('silence', 10)} ${cell('wall', 10)} result`,
    ...rows.map(
      (r) =>
        `  ${cell(r.label, 36)} ${cell(String(r.dns.lost), 8)} ${cell(msText(r.dns.p99), 10)} ` +
        `${cell(msText(r.dns.silence), 10)} ${cell(r.wallMs === undefined || !Number.isFinite(r.wallMs) ? '—' : s2(r.wallMs), 10)} ` +
        `${r.missed.length ? `FAIL: ${r.missed.join(', ')}` : 'pass'}`,
    ),
  ];
}

export async function isolationBenchmark(): Promise<string[]> {
  checkSettings();
  for (const tool of ['dig', 'named', 'dnssec-keygen', 'dnssec-signzone']) requireTool(tool);
  const root = mkdtempSync(join(tmpdir(), 'bench-isolation-files-'));
  try {
    const work = workZone(root);
    const other = benchZone(root, OTHER_ZONE, { names: OTHER_NAMES });
    const out = [
      `isolation: our gateway (built, as npm start runs it; SQLite store; MAX_BODY_BYTES 64 MiB) under ${QPS} UDP ` +
        `questions/s paced (half ${OTHER_ZONE}: ${other.questions.length} names, half ${WORK_ZONE} once imported: ` +
        `${work.questions.length} names, ${work.records + 1} records); lost = no answer within ${LOSS_MS / 1000} s; ` +
        `each operation bounded by ${TIMEOUT_MS / 1000} s`,
    ];
    const loadAtStart = loadavg()[0] ?? NaN;
    const ours = await startOurs();
    let scenarios: Scenario[];
    try {
      const created = await call(ours, 'POST', '/zones', { body: { name: OTHER_ZONE, zone_file: other.text } });
      if (created.status !== 201) throw new Error(`${OTHER_ZONE}: HTTP ${created.status}: ${created.text ?? ''}`);
      const ready = await until(AbortSignal.timeout(30_000), 100, async () => {
        return (await answered(ours.dnsPort, other.questions.slice(0, 10))) === 10;
      });
      if (!ready) throw new Error(`${OTHER_ZONE} not served 30 s after its import`);
      const load = await startUdpLoad({ port: ours.dnsPort, qps: QPS, timeoutMs: LOSS_MS, other: other.questions });
      try {
        scenarios = await ourScenarios({ ours, load, work });
      } finally {
        await load.stop();
      }
    } finally {
      await ours.stop();
    }
    for (const s of scenarios) out.push(...scenarioLines(s));
    const refs = await references(root, work, other);
    out.push(...comparisons(scenarios, refs));
    out.push(...summary(scenarios, refs));
    out.push(
      `isolation: the machine: ${availableParallelism()} cores, load average ${loadAtStart.toFixed(2)} at the start, ` +
        `${(loadavg()[0] ?? NaN).toFixed(2)} at the end (work of other processes lands in every window, ours and the references')`,
    );
    return out;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

runWhenMain(module, isolationBenchmark);
