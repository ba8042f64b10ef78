import autocannon from 'autocannon';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCH_JS, CONNECTIONS, FIXED_ENV, GATEWAY, ratioLine, SECONDS } from './common';
import { compareWithPublic, firstDifference, loadGwbenchWorkload, SUPERGRAPH_URL_PREFIX } from './gwbench-workload';
import { type BenchWorkload, loadWorkload, selection, WORKLOAD_NAMES, type WorkloadName } from './gwbench-workloads';
import { type Child, startNode } from './processes';

/**
 * `npm run bench -- gwbench`: federation gateways over the same HTTP subgraphs. Our gateway and three references, each
 * a child process over one subgraph server (test/bench/gwbench-subgraphs.ts), with no response cache anywhere: Apollo
 * Gateway (@apollo/gateway + @apollo/server), Hive Gateway with its JS planner, and Hive Gateway with
 * @graphql-hive/router-runtime (Rust planner and its executor). Every gateway passes the caller's Authorization header
 * to the subgraphs.
 *
 * Workloads (gwbench-workloads.ts; BENCH_GWBENCH_WORKLOADS=gwbench,heavy-plan,big-response, default all):
 * - gwbench: The Guild's federation gateway benchmark (graphql-hive/graphql-gateways-benchmark): four subgraphs, one
 *   deep query, one 87 kB answer; its supergraph and query as published (test/bench/gwbench/), its data generated.
 *   When the public benchmark's files are at GWBENCH_DIR (default ../shared/gwbench beside the checkout), the derived
 *   expected response must also deep-equal their expected.json (GWBENCH_PUBLIC=required: they must be there).
 * - heavy-plan (gwbench-heavy-plan.ts) and big-response (gwbench-big-response.ts): scenarios of the kind Grafbase's
 *   2025 benchmark added, a plan-heavy query over six subgraphs and a ~5 MB answer, written here.
 * Each workload's expected response is derived from its generated data by graphql-js without any gateway.
 *
 * Modes (BENCH_GWBENCH_MODES=shared,unique,pinned, default all):
 * - shared: every request the same (no Authorization), BENCH_CONNECTIONS connections, BENCH_SECONDS per round;
 * - unique: every request carries its own `Authorization: Bearer <unique>`, so no gateway may share an in-flight
 *   fetch or a response between requests; same connections, BENCH_GWBENCH_EXTRA_SECONDS (default 4) per round;
 * - pinned: unique headers, every gateway process pinned to core 0 (`taskset -c 0`; WORKERS=auto left out), the
 *   subgraph server and this process (the load generator) to core 1, 50 connections, EXTRA_SECONDS per round.
 * In every mode the subgraph server counts its requests: fetches per gateway request under load are reported against
 * those of one lone request, and with unique headers fewer under load means a gateway shared fetches between requests.
 *
 * Each gateway's answer must deep-equal the expected response first (a reference that differs fails the section;
 * ours is reported as a failure line and left out, so the section stays useful while ours is reworked). Then every
 * gateway is warmed up and loaded with autocannon in two rounds, the second in the reverse order; reported per
 * gateway: req/s (mean of the rounds), p50/p99 latency (mean of the rounds), its peak RSS during the load and the CPU
 * it and the subgraph server used; then the goals as ratio lines. Gateways are started afresh for every mode.
 */

const ROUNDS = 2;
/**
 * Load before the measured rounds, long enough for the JIT: measured second by second from a fresh start (gwbench,
 * pinned), ours went 360 → ~650 req/s and Hive Gateway + router-runtime 83 → ~245 over the first 6 s, both flat after.
 * A shorter warm-up measured the compiler more than the gateway (BENCH_GWBENCH_WARMUP_SECONDS).
 */
const WARMUP_SECONDS = Number(process.env.BENCH_GWBENCH_WARMUP_SECONDS ?? 6);
/** Seconds per round of the unique and pinned modes (shorter than BENCH_SECONDS to keep the section near 10 min). */
const EXTRA_SECONDS = Number(process.env.BENCH_GWBENCH_EXTRA_SECONDS ?? 4);
const PINNED_CONNECTIONS = 50;
/**
 * Requests sent at once to count fetches (enough to show sharing; 50 answers of 5 MB at once outlast fetch's 300 s
 * headers timeout on one loaded core).
 */
const BURST = 10;
/** Goals the results are reported against (throughput ratios with unique headers, pinned and not). */
const GOAL_VS_HIVE_RT = 3;
const GOAL_VS_APOLLO = 8;

export const MODE_NAMES = ['shared', 'unique', 'pinned'] as const;
export type ModeName = (typeof MODE_NAMES)[number];

interface Mode {
  name: ModeName;
  label: string;
  uniqueHeaders: boolean;
  pinned: boolean;
  connections: number;
  seconds: number;
}

const MODES: Record<ModeName, Mode> = {
  shared: {
    name: 'shared',
    label: `same request every time, ${CONNECTIONS} connections, unpinned`,
    uniqueHeaders: false,
    pinned: false,
    connections: CONNECTIONS,
    seconds: SECONDS,
  },
  unique: {
    name: 'unique',
    label: `a unique Authorization header per request, ${CONNECTIONS} connections, unpinned`,
    uniqueHeaders: true,
    pinned: false,
    connections: CONNECTIONS,
    seconds: EXTRA_SECONDS,
  },
  pinned: {
    name: 'pinned',
    label: `unique Authorization headers, gateway on core 0, subgraphs + load generator on core 1, ${PINNED_CONNECTIONS} connections`,
    uniqueHeaders: true,
    pinned: true,
    connections: PINNED_CONNECTIONS,
    seconds: EXTRA_SECONDS,
  },
};

interface GatewayUnderTest {
  key: 'ours' | 'ours-workers' | 'apollo' | 'hive' | 'hive-rt';
  label: string;
  script: string;
  args?: string[];
  env?: Record<string, string>;
  probe: string;
}

/**
 * No response cache. Each workload raises some of our limits (BenchWorkload.oursLimits: e.g. the benchmark's query
 * has an estimated cost of about 108 000, over our default bound of 100 000, which the other gateways do not have).
 */
const OURS_ENV = { RESPONSE_CACHE: 'false' };

const GATEWAYS: GatewayUnderTest[] = [
  { key: 'ours', label: 'our gateway', script: GATEWAY, env: OURS_ENV, probe: '/healthz' },
  {
    key: 'ours-workers',
    label: 'our gateway, WORKERS=auto',
    script: GATEWAY,
    env: { ...OURS_ENV, WORKERS: 'auto' },
    probe: '/healthz',
  },
  { key: 'apollo', label: 'Apollo Gateway', script: join(BENCH_JS, 'gwbench-apollo.js'), probe: '/' },
  { key: 'hive', label: 'Hive Gateway', script: join(BENCH_JS, 'gwbench-hive.js'), probe: '/healthcheck' },
  {
    key: 'hive-rt',
    label: 'Hive Gateway + router-runtime',
    script: join(BENCH_JS, 'gwbench-hive.js'),
    args: ['--router-runtime'],
    probe: '/healthcheck',
  },
];

interface Running {
  gw: GatewayUnderTest;
  child: Child;
}

interface Round {
  rps: number;
  /**
   * Subgraph requests per gateway request sent (those cut off at the end included), and the share of them that carried
   * an Authorization header.
   */
  fetchesPerRequest: number;
  authorizedShare: number;
  p50: number;
  p99: number;
  peakRssKb: number;
  gatewayCores: number; // CPU time / wall time
  subgraphCores: number;
}

function show(value: unknown): string {
  const s = JSON.stringify(value) ?? String(value);
  return s.length > 120 ? `${s.slice(0, 117)}...` : s;
}

const CLOCK_TICKS = ((): number => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** Fields of /proc/<pid>/stat from the 3rd (state) on; undefined once the process is gone. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** A gateway's processes: itself and, when it runs workers, its children. */
function processTree(pid: number): number[] {
  const pids = [pid];
  for (const entry of readdirSync('/proc'))
    if (/^\d+$/.test(entry) && Number(statFields(Number(entry))?.[1]) === pid) pids.push(Number(entry));
  return pids;
}

/** CPU seconds (user + system) a gateway's processes have used. */
function cpuSeconds(pid: number): number {
  let sum = 0;
  for (const p of processTree(pid)) {
    const fields = statFields(p);
    if (fields) sum += (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS; // utime, stime: the 14th and 15th
  }
  return sum;
}

/** Resident memory of a gateway's processes together. */
function rssKb(pid: number): number {
  let sum = 0;
  for (const p of processTree(pid)) {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${p}/status`, 'utf8'));
      sum += m ? Number(m[1]) : 0;
    } catch {
      // gone meanwhile
    }
  }
  return sum;
}

interface SubgraphStats {
  cpuMicros: number;
  requests: number;
  authorized: number;
}

async function subgraphStats(subgraphs: Child): Promise<SubgraphStats> {
  return (await (await fetch(`${subgraphs.url}/stats`)).json()) as SubgraphStats;
}

/** Unique credentials: this run's prefix and a counter, so no two requests of the section carry the same header. */
const RUN_ID = `${process.pid}-${Date.now()}`;
let credential = 0;
const nextAuthorization = (): string => `Bearer bench-${RUN_ID}-${++credential}`;

/** The request headers of a mode: with unique headers, a fresh Authorization each call. */
function headersFor(mode: Mode): Record<string, string> {
  return mode.uniqueHeaders
    ? { 'content-type': 'application/json', authorization: nextAuthorization() }
    : { 'content-type': 'application/json' };
}

/** One autocannon run against `url` while sampling the gateway's RSS and both processes' CPU time. */
async function loadRun(
  url: string,
  body: string,
  mode: Mode,
  seconds: number,
  gateway: Child,
  subgraphs: Child,
): Promise<Round> {
  const pid = gateway.process.pid as number;
  let peakRssKb = rssKb(pid);
  const sampler = setInterval(() => {
    peakRssKb = Math.max(peakRssKb, rssKb(pid));
  }, 50);
  const sg0 = await settledStats(subgraphs);
  const start = process.hrtime.bigint();
  const gwCpu0 = cpuSeconds(pid);
  try {
    const result = await autocannon({
      url,
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
      // unique mode: every request is rebuilt with its own Authorization header
      requests: mode.uniqueHeaders
        ? [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, authorization: nextAuthorization() } }) }]
        : undefined,
      connections: mode.connections,
      duration: seconds,
    });
    if (result.non2xx > 0 || result.errors > 0)
      throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors under load`);
    const wall = Number(process.hrtime.bigint() - start) / 1e9;
    const gwCpu1 = cpuSeconds(pid);
    const sg1 = await subgraphStats(subgraphs);
    const settled = await settledStats(subgraphs); // the fetches of requests cut off at the end
    const fetches = settled.requests - sg0.requests;
    return {
      rps: result.requests.average,
      fetchesPerRequest: fetches / Math.max(1, result.requests.sent),
      authorizedShare: (settled.authorized - sg0.authorized) / Math.max(1, fetches),
      p50: result.latency.p50,
      p99: result.latency.p99,
      peakRssKb: Math.max(peakRssKb, rssKb(pid)),
      gatewayCores: (gwCpu1 - gwCpu0) / wall,
      subgraphCores: (sg1.cpuMicros - sg0.cpuMicros) / 1e6 / wall,
    };
  } finally {
    clearInterval(sampler);
  }
}

async function checkAnswer(url: string, body: string, expected: unknown, mode: Mode): Promise<string | undefined> {
  const res = await fetch(url, { method: 'POST', body, headers: headersFor(mode) });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return `HTTP ${res.status}, not JSON: ${show(text)}`;
  }
  const diff = firstDifference(parsed, expected);
  const errors = (parsed as { errors?: { message?: unknown }[] } | null)?.errors;
  const said = Array.isArray(errors) && errors.length > 0 ? ` (first error: ${show(errors[0]?.message)})` : '';
  if (diff) return diff + said;
  return res.status === 200 ? undefined : `HTTP ${res.status}`;
}

/**
 * The subgraph server's stats once its request count has stood still for 300 ms (at most 10 s): the fetches of gateway
 * requests cut off at the end of a load run are in by then, and the next run starts from a quiet server.
 */
async function settledStats(subgraphs: Child): Promise<SubgraphStats> {
  let last = await subgraphStats(subgraphs);
  let stillSince = Date.now();
  const deadline = Date.now() + 10_000;
  while (Date.now() - stillSince < 300 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    const now = await subgraphStats(subgraphs);
    if (now.requests !== last.requests) stillSince = Date.now();
    last = now;
  }
  return last;
}

/**
 * The subgraph fetches `n` gateway requests sent at once cause (all answered, the server settled); n = 1 is one lone
 * request. With a unique header each, n requests must cause n times a lone request's fetches, or fetches were shared.
 */
async function burstFetches(url: string, body: string, mode: Mode, subgraphs: Child, n: number): Promise<number> {
  const before = (await settledStats(subgraphs)).requests;
  await Promise.all(
    Array.from({ length: n }, async () => {
      const res = await fetch(url, { method: 'POST', body, headers: headersFor(mode) });
      await res.arrayBuffer();
    }),
  );
  return (await settledStats(subgraphs)).requests - before;
}

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const pct = (cores: number): string => `${(cores * 100).toFixed(0)}%`;

/** A process's CPU affinity list (`taskset -pc`), e.g. "0,1". */
function affinityOf(pid: number): string {
  const said = execFileSync('taskset', ['-pc', String(pid)], { encoding: 'utf8' });
  return said.slice(said.lastIndexOf(':') + 1).trim();
}

/** Pins every thread of `pid` to `cpus` (a taskset list). */
function pin(pid: number, cpus: string): void {
  execFileSync('taskset', ['-a', '-pc', cpus, String(pid)], { stdio: 'ignore' });
}

/** Why the pinned mode cannot run here, or undefined when it can. */
function pinnedUnavailable(): string | undefined {
  if (availableParallelism() < 2) return `${availableParallelism()} core available, pinning needs 2`;
  try {
    affinityOf(process.pid);
    return undefined;
  } catch {
    return 'taskset (util-linux) not found';
  }
}

const sizeOf = (value: unknown): string => {
  const bytes = Buffer.byteLength(JSON.stringify(value));
  return bytes >= 1 << 20 ? `${(bytes / (1 << 20)).toFixed(1)} MB` : `${(bytes / 1024).toFixed(0)} kB`;
};

interface Summary {
  label: string;
  rps: number;
  p50: number;
  p99: number;
  peakRssMb: number;
  gatewayCores: number;
  subgraphCores: number;
  fetchesPerRequest: number;
  authorizedShare: number;
  lone: number;
  /** Fetches of BURST requests sent at once. */
  burst: number;
  perRound: string;
}

/**
 * One workload in one mode: fresh gateways (pinned if the mode says so), checked, warmed up and loaded. Its lines go
 * to `out` as they come, so that a failure keeps what was measured before it.
 */
async function runMode(
  workload: BenchWorkload,
  mode: Mode,
  subgraphs: Child,
  supergraphFile: string,
  out: string[],
): Promise<void> {
  if (workload.load) {
    const connections = Math.min(mode.connections, workload.load.maxConnections);
    const seconds = Math.max(mode.seconds, workload.load.minSeconds);
    const label = mode.label.replace(
      `${mode.connections} connections`,
      `${connections} connections (this workload's most)`,
    );
    mode = { ...mode, connections, seconds, label };
  }
  const tag = `${workload.name} × ${mode.name}`;
  out.push(`-- ${tag}: ${mode.label}; ${ROUNDS} rounds × ${mode.seconds} s after ${WARMUP_SECONDS} s warm-up`);
  const gateways = GATEWAYS.filter((gw) => !(mode.pinned && gw.key === 'ours-workers'));
  const running: (Running & { lone: number; burst: number })[] = [];
  const subgraphPid = subgraphs.process.pid as number;
  const restore = mode.pinned ? { self: affinityOf(process.pid), subgraphs: affinityOf(subgraphPid) } : undefined;
  try {
    if (mode.pinned) {
      pin(process.pid, '1');
      pin(subgraphPid, '1');
    }
    // Start and check every gateway: a reference that fails stops the section; ours is reported and left out.
    for (const gw of gateways) {
      let child: Child | undefined;
      try {
        child = await startNode(
          gw.script,
          {
            ...FIXED_ENV,
            SUPERGRAPH_FILE: supergraphFile,
            ...gw.env,
            ...(gw.key.startsWith('ours') ? workload.oursLimits : {}),
          },
          gw.probe,
          gw.args,
          [],
          mode.pinned ? ['taskset', '-c', '0'] : [],
        );
        const diff = await checkAnswer(`${child.url}/graphql`, workload.body, workload.expected, mode);
        if (diff) throw new Error(`response differs from the expected response at ${diff}`);
        const url = `${child.url}/graphql`;
        const lone = await burstFetches(url, workload.body, mode, subgraphs, 1);
        const burst = await burstFetches(url, workload.body, mode, subgraphs, BURST);
        running.push({ gw, child, lone, burst });
      } catch (err) {
        await child?.stop();
        const why = err instanceof Error ? err.message : String(err);
        if (!gw.key.startsWith('ours')) throw new Error(`gwbench ${tag}: ${gw.label}: ${why}`, { cause: err });
        out.push(`FAILED: ${gw.label}: ${why} — not measured`);
      }
    }
    out.push(`responses deep-equal the expected response: ${running.map((r) => r.gw.label).join(', ')}`);

    // Warm-up, then the rounds (the second in reverse order). Errors under load fail the section, except ours'.
    const rounds = new Map<string, Round[]>(running.map((r) => [r.gw.key, []]));
    const dropped = new Set<string>();
    const measure = async (r: Running, seconds: number, record: boolean): Promise<void> => {
      if (dropped.has(r.gw.key)) return;
      try {
        const result = await loadRun(`${r.child.url}/graphql`, workload.body, mode, seconds, r.child, subgraphs);
        if (record) rounds.get(r.gw.key)?.push(result);
      } catch (err) {
        if (!r.gw.key.startsWith('ours')) throw err;
        dropped.add(r.gw.key);
        out.push(
          `FAILED: ${r.gw.label} under load: ${err instanceof Error ? err.message : String(err)} — not measured`,
        );
      }
    };
    for (const r of running) await measure(r, WARMUP_SECONDS, false);
    for (let round = 0; round < ROUNDS; round++)
      for (const r of round % 2 === 0 ? running : [...running].reverse()) await measure(r, mode.seconds, true);

    const summary = new Map<string, Summary>(
      running
        .filter((r) => !dropped.has(r.gw.key))
        .map((r) => {
          const rs = rounds.get(r.gw.key) ?? [];
          return [
            r.gw.key,
            {
              label: r.gw.label,
              rps: mean(rs.map((x) => x.rps)),
              p50: mean(rs.map((x) => x.p50)),
              p99: mean(rs.map((x) => x.p99)),
              peakRssMb: Math.max(...rs.map((x) => x.peakRssKb)) / 1024,
              gatewayCores: mean(rs.map((x) => x.gatewayCores)),
              subgraphCores: mean(rs.map((x) => x.subgraphCores)),
              fetchesPerRequest: mean(rs.map((x) => x.fetchesPerRequest)),
              authorizedShare: mean(rs.map((x) => x.authorizedShare)),
              lone: r.lone,
              burst: r.burst,
              perRound: rs.map((x) => x.rps.toFixed(0)).join('/'),
            },
          ];
        }),
    );
    for (const s of summary.values())
      out.push(
        `${s.label.padEnd(30)} ${s.rps.toFixed(0).padStart(6)} req/s (rounds ${s.perRound})  p50 ${s.p50.toFixed(1)} ms  p99 ${s.p99.toFixed(1)} ms  ` +
          `peak RSS ${s.peakRssMb.toFixed(0)} MB  CPU: gateway ${pct(s.gatewayCores)}, subgraphs ${pct(s.subgraphCores)} of one core`,
      );
    out.push(...goalLines(tag, summary, mode));
    out.push(...fetchLines(tag, summary, mode));
  } finally {
    for (const r of running) await r.child.stop();
    if (restore) {
      pin(process.pid, restore.self);
      pin(subgraphPid, restore.subgraphs);
    }
  }
}

/** The goals as lines: ours / Hive + router-runtime ≥ 3, ours / Apollo ≥ 8, our p99 the lowest, our RSS ≤ hive-rt's. */
function goalLines(tag: string, summary: Map<string, Summary>, mode: Mode): string[] {
  const out: string[] = [];
  const ours = summary.get('ours');
  const apollo = summary.get('apollo');
  const hive = summary.get('hive');
  const hiveRt = summary.get('hive-rt');
  if (!apollo || !hive || !hiveRt) return out;
  const idle = [...summary.values()].filter((s) => !(s.rps > 0)).map((s) => s.label);
  if (idle.length > 0) {
    out.push(`${tag}: no request completed in a round by ${idle.join(', ')}: goals not judged (longer rounds needed)`);
    return out;
  }
  if (!ours) {
    out.push(
      `${tag}: references: Hive Gateway + router-runtime / Apollo Gateway ${(hiveRt.rps / apollo.rps).toFixed(2)}×, Hive Gateway / Apollo Gateway ${(hive.rps / apollo.rps).toFixed(2)}×`,
    );
    return out;
  }
  out.push(ratioLine(`${tag}: ours / Hive Gateway + router-runtime`, ours.rps, hiveRt.rps, GOAL_VS_HIVE_RT));
  out.push(ratioLine(`${tag}: ours / Apollo Gateway`, ours.rps, apollo.rps, GOAL_VS_APOLLO));
  out.push(ratioLine(`${tag}: ours / Hive Gateway`, ours.rps, hive.rps));
  const workers = summary.get('ours-workers');
  if (workers && !mode.pinned)
    out.push(
      ratioLine(`${tag}: ours, worker per core (${availableParallelism()}) / ours alone`, workers.rps, ours.rps),
      ratioLine(`${tag}: ours, worker per core / Hive Gateway + router-runtime`, workers.rps, hiveRt.rps),
    );
  const best = [apollo, hive, hiveRt].reduce((a, b) => (b.p99 < a.p99 ? b : a));
  out.push(
    `${tag}: our p99 ${ours.p99.toFixed(1)} ms vs the best other's ${best.p99.toFixed(1)} ms (${best.label}): ` +
      `${ours.p99 <= best.p99 ? 'lowest (goal met)' : 'not the lowest (goal NOT met)'}`,
  );
  out.push(
    `${tag}: our peak RSS ${ours.peakRssMb.toFixed(0)} MB vs Hive Gateway + router-runtime's ${hiveRt.peakRssMb.toFixed(0)} MB: ` +
      `${ours.peakRssMb <= hiveRt.peakRssMb ? 'no more (goal met)' : 'more (goal NOT met)'}`,
  );
  const busiest = Math.max(...[...summary.values()].map((s) => s.subgraphCores));
  const gatewayMost = Math.max(...[...summary.values()].map((s) => s.gatewayCores));
  out.push(
    `${tag}: subgraph server at most ${pct(busiest)} of one core under any gateway (gateways: up to ${pct(gatewayMost)}): ` +
      (busiest < 0.5 * gatewayMost ? 'not the bottleneck' : 'it may be a bottleneck, check'),
  );
  return out;
}

/**
 * Subgraph fetches per gateway request: of one lone request, of BURST requests sent at once (exact: all
 * answered and counted), and under load (approximate). With unique headers, a burst that causes fewer fetches than
 * that many lone requests means the gateway shared fetches between requests; the lines also say whether the
 * Authorization header reached the subgraphs.
 */
function fetchLines(tag: string, summary: Map<string, Summary>, mode: Mode): string[] {
  const n = BURST;
  return [...summary.values()].map((s) => {
    const verdict = !mode.uniqueHeaders
      ? ''
      : s.burst >= n * s.lone
        ? ': none shared between requests'
        : ': FEWER than alone, fetches shared between requests';
    const auth = mode.uniqueHeaders ? `; Authorization on ${pct(s.authorizedShare)} of them under load` : '';
    return (
      `${tag}: ${s.label}: subgraph fetches/request: lone ${s.lone}, ${n} at once ${(s.burst / n).toFixed(2)}${verdict}; ` +
      `under load ${s.fetchesPerRequest.toFixed(2)}${auth}`
    );
  });
}

/** One workload: its subgraph server, its supergraph, then each selected mode; lines to `out` as they come. */
async function runWorkload(name: WorkloadName, modes: Mode[], out: string[]): Promise<void> {
  const workload = loadWorkload(name);
  out.push(
    `== ${name}: ${workload.description}; answer ${sizeOf(workload.expected)}, expected response derived from generated data (no gateway)`,
  );
  if (name === 'gwbench') out.push(`gwbench: ${compareWithPublic(loadGwbenchWorkload())}`); // throws when they differ
  const subgraphs = await startNode(
    join(BENCH_JS, 'gwbench-subgraphs.js'),
    { ...FIXED_ENV, GWBENCH_WORKLOAD: name },
    '/health',
  );
  const dir = mkdtempSync(join(tmpdir(), 'gwbench-'));
  try {
    const supergraphFile = join(dir, 'supergraph.graphql');
    const rewritten = workload.supergraph.replaceAll(SUPERGRAPH_URL_PREFIX, `${subgraphs.url}/`);
    if (rewritten.split(`${subgraphs.url}/`).length !== workload.subgraphNames.length + 1)
      throw new Error(`gwbench ${name}: expected ${workload.subgraphNames.length} subgraph URLs`);
    writeFileSync(supergraphFile, rewritten);
    for (const mode of modes) await runMode(workload, mode, subgraphs, supergraphFile, out);
    const verify = (await (await fetch(`${subgraphs.url}/verify`)).json()) as { checked: number; mismatches: number };
    if (verify.mismatches > 0)
      throw new Error(`gwbench ${name}: subgraph memo differs from a fresh execution for ${verify.mismatches} bodies`);
    out.push(`${name}: subgraph memo: ${verify.checked} distinct bodies, bytes identical to a fresh execution`);
  } finally {
    await subgraphs.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function gwbenchBenchmark(): Promise<string[]> {
  const workloads = selection('BENCH_GWBENCH_WORKLOADS', process.env.BENCH_GWBENCH_WORKLOADS, WORKLOAD_NAMES);
  let modeNames = selection('BENCH_GWBENCH_MODES', process.env.BENCH_GWBENCH_MODES, MODE_NAMES);
  const started = Date.now();
  const out = [
    `gwbench: workloads ${workloads.join(', ')}; modes ${modeNames.join(', ')}; response cache off everywhere; ${availableParallelism()} cores; ` +
      `goals: ours / Hive Gateway + router-runtime ≥ ${GOAL_VS_HIVE_RT}, ours / Apollo Gateway ≥ ${GOAL_VS_APOLLO}, our p99 the lowest, our peak RSS ≤ Hive Gateway + router-runtime's`,
  ];
  const cannotPin = modeNames.includes('pinned') ? pinnedUnavailable() : undefined;
  if (cannotPin) {
    out.push(`pinned mode left out: ${cannotPin}`);
    modeNames = modeNames.filter((m) => m !== 'pinned');
  }
  try {
    for (const name of workloads)
      await runWorkload(
        name,
        modeNames.map((m) => MODES[m]),
        out,
      );
  } catch (err) {
    // what was measured before the failure is kept in the message
    const why = err instanceof Error ? err.message : String(err);
    throw new Error(`${out.join('\n')}\n${why}`, { cause: err });
  }
  out.push(`gwbench: section took ${((Date.now() - started) / 60_000).toFixed(1)} min`);
  return out;
}
