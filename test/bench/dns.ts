/**
 * DNS part of `npm run bench`: our DNS engine against BIND 9 serving the same zone on this machine, in this run.
 *
 * - queries/s and queries per server CPU-second under `dnsperf` with a realistic mix (test/bench/dns-realistic.ts: the
 *   issue's goals), against BIND 9 and Knot DNS (test/bench/knot.ts);
 * - queries/s under `dnsperf` with a mix of positive, NXDOMAIN, NODATA, CNAME and wildcard questions; reference:
 *   BIND with one worker thread (`-n 1`, like for like: our server answers on one Node event loop) and BIND with its
 *   default thread count (one per CPU), both printed;
 * - dynamic updates/s over UDP, each signed with TSIG (HMAC-SHA256), one at a time as nsupdate sends them;
 * - start-up time (process start until the first answer) and resident memory with a zone of 100 000 records.
 *
 * Every server is a child process on 127.0.0.1 on a free port, started and stopped here. BENCH_SECONDS sets the
 * length of each measured run (default 5 s). The four query servers run side by side and dnsperf loads them in
 * turn, BENCH_DNS_ROUNDS times (default 2) after a 1 s warm-up each; the best round of each counts, so that load
 * from outside the benchmark (this machine is shared) weighs on no server more than on another. BENCH_DNS_PARTS
 * picks parts (mix, qps, updates, startup; all by default).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseKeyFile, type TsigKey } from '../../dns/tsig/keyfile';
import { requireTool } from '../support/dns-peers';
import { prng } from '../../dns/testing/prng';
import { defined } from '../support/defined';
import { realisticThroughput } from './dns-realistic';
import { autoWorkerCount } from '../../dns/engine/workers/answer-workers';
import {
  compareAnswers,
  dnsClient,
  dnsperf,
  importZone,
  measureQps,
  memoryOf,
  startBind,
  startOurs,
  withServer,
  withServers,
  type BindZone,
  type Load,
  type PerfResult,
  type Server,
} from './dns-servers';
import { runWhenMain } from './common';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
/** `n` answer workers, in words. */
const workers = (n: number): string => `${n} answer worker${n === 1 ? '' : 's'}`;

export const ZONE = 'bench.test';
/** The zone of the start-up part (also signed whole by the DNSSEC bench, test/bench/dnssec.ts). */
export const BIG_ZONE = 'big.test';
const HOSTS = 1000;
const CNAMES = 200;
export const BIG_RECORDS = 100_000;
const QUERY_LINES = 20_000;
const KEY_NAME = 'bench-key';
const KEY_SECRET = Buffer.from('benchmark-tsig-secret-of-32-byte').toString('base64');
const KEY_TEXT = `key "${KEY_NAME}" { algorithm hmac-sha256; secret "${KEY_SECRET}"; };\n`;
/** Answer workers that give every core a process (the default, DNS_WORKERS=auto, starts none below 4 cores). */
const EVERY_CORE = availableParallelism() - 1;
/** dnsperf's load for the mixed-answer part: 10 client sockets, 100 queries outstanding. */
const MIXED_LOAD: Load = { clients: 10, outstanding: 100 };
/** dnsperf rounds per server, taken in turn (the best one counts: load from outside only ever lowers a round). */
const ROUNDS = Math.max(1, Number(process.env.BENCH_DNS_ROUNDS ?? 2));
/** Which parts to run (comma-separated: mix, qps, updates, startup); all by default. */
const PARTS = new Set((process.env.BENCH_DNS_PARTS ?? 'mix,qps,updates,startup').split(',').map((p) => p.trim()));

// ---------------------------------------------------------------------------------------------------------------
// Zones and the query mix
// ---------------------------------------------------------------------------------------------------------------

function soaLines(origin: string): string[] {
  return [
    `$ORIGIN ${origin}.`,
    '$TTL 3600',
    `@ IN SOA ns1.${origin}. hostmaster.${origin}. ( 2026010101 10800 3600 604800 300 )`,
    `  IN NS ns1.${origin}.`,
    `  IN NS ns2.${origin}.`,
    '  IN MX 10 mail',
    'ns1 IN A 192.0.2.53',
    'ns2 IN A 192.0.2.54',
    'mail IN A 192.0.2.25',
  ];
}

/** The dnsperf zone: HOSTS names with A/AAAA/TXT (MX on every other one), CNAMEs to them, a wildcard. */
export function benchZone(): string {
  const lines = soaLines(ZONE);
  for (let i = 0; i < HOSTS; i++) {
    lines.push(`h${i} 300 IN A 10.${(i >> 8) & 255}.${i & 255}.1`);
    if (i % 3 === 0) lines.push(`h${i} 300 IN A 10.${(i >> 8) & 255}.${i & 255}.2`);
    lines.push(`h${i} 300 IN AAAA 2001:db8::${i.toString(16)}`);
    lines.push(`h${i} 300 IN TXT "host ${i}" "v=bench"`);
    if (i % 2 === 0) lines.push(`h${i} 300 IN MX 10 mail.${ZONE}.`);
  }
  for (let i = 0; i < CNAMES; i++) lines.push(`c${i} 300 IN CNAME h${(i * 7) % HOSTS}`);
  lines.push('*.wild 300 IN A 192.0.2.77', '*.wild 300 IN TXT "wildcard"');
  return `${lines.join('\n')}\n`;
}

/** A zone of BIG_RECORDS records (25 000 names × A, AAAA, TXT, MX) for start-up time and memory. */
export function bigZone(): string {
  const lines = soaLines(BIG_ZONE);
  for (let i = 0; lines.length - 9 < BIG_RECORDS; i++) {
    lines.push(`n${i} 300 IN A 10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
    lines.push(`n${i} 300 IN AAAA 2001:db8::${(i >> 16).toString(16)}:${(i & 0xffff).toString(16)}`);
    lines.push(`n${i} 300 IN TXT "record ${i}"`);
    lines.push(`n${i} 300 IN MX 10 mail.${BIG_ZONE}.`);
  }
  return `${lines.join('\n')}\n`;
}

/** Tiny zone: the baseline for memory deltas. */
function tinyZone(origin: string): string {
  return `${soaLines(origin).join('\n')}\n`;
}

type Kind = 'positive' | 'NXDOMAIN' | 'NODATA' | 'CNAME' | 'wildcard';
const MIX: Array<[Kind, number]> = [
  ['positive', 0.4],
  ['NXDOMAIN', 0.15],
  ['NODATA', 0.15],
  ['CNAME', 0.15],
  ['wildcard', 0.15],
];

function question(kind: Kind, rnd: () => number): [string, string] {
  const n = (max: number): number => Math.floor(rnd() * max);
  switch (kind) {
    case 'positive': {
      const i = n(HOSTS);
      const types = i % 2 === 0 ? ['A', 'AAAA', 'TXT', 'MX'] : ['A', 'AAAA', 'TXT'];
      return [`h${i}.${ZONE}`, defined(types[n(types.length)], 'a type')];
    }
    case 'NXDOMAIN':
      return [`nx${n(5000)}.${ZONE}`, n(2) ? 'A' : 'AAAA'];
    case 'NODATA': {
      const i = n(HOSTS);
      return i % 2 === 1 && n(2) ? [`h${i}.${ZONE}`, 'MX'] : [`h${i}.${ZONE}`, 'SRV'];
    }
    case 'CNAME':
      return [`c${n(CNAMES)}.${ZONE}`, n(2) ? 'A' : 'AAAA'];
    case 'wildcard':
      return [`w${n(5000)}.wild.${ZONE}`, n(2) ? 'A' : 'TXT'];
  }
}

export function queryFile(): { text: string; samples: Array<[Kind, string, string]> } {
  const rnd = prng(20260101);
  const lines: string[] = [];
  const samples: Array<[Kind, string, string]> = [];
  for (let i = 0; i < QUERY_LINES; i++) {
    let x = rnd();
    let kind: Kind = 'positive';
    for (const [k, w] of MIX) {
      if (x < w) {
        kind = k;
        break;
      }
      x -= w;
    }
    const [name, type] = question(kind, rnd);
    lines.push(`${name} ${type}`);
    if (samples.filter((s) => s[0] === kind).length < 4) samples.push([kind, name, type]);
  }
  return { text: `${lines.join('\n')}\n`, samples };
}

/** Signed dynamic updates, one at a time (each adds a new name), for `seconds`: NOERROR answers per second. */
async function updatesPerSecond(
  server: Server,
  key: TsigKey,
  seconds: number,
  first: number,
): Promise<{ rate: number; ok: number; failed: number }> {
  const client = dnsClient(server.port, { key, timeoutMs: 5000 });
  let ok = 0;
  let failed = 0;
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  for (let i = first; performance.now() < end; i++) {
    const value = `10.200.${(i >> 8) & 255}.${i & 255}`;
    try {
      await client.update(ZONE, [{ op: 'add', name: `u${i}.${ZONE}`, type: 'A', ttl: 300, value }]); // throws unless NOERROR
      ok++;
    } catch {
      failed++;
    }
  }
  return { rate: ok / ((performance.now() - t0) / 1000), ok, failed };
}

const f0 = (n: number): string => n.toFixed(0);
const mb = (bytes: number): string => `${(bytes / 1048576).toFixed(1)} MB`;
const ratio = (a: number, b: number): string => (a / b).toFixed(3);

async function queryThroughput(root: string, zoneFile: string, ourData: string): Promise<string[]> {
  const queries = queryFile();
  const queriesFile = join(root, 'queries.txt');
  writeFileSync(queriesFile, queries.text);
  const bindZone: BindZone = { name: ZONE, file: zoneFile };
  const labels: [string, string, string, string, string] = [
    `ours (DNS_WORKERS=auto: ${autoWorkerCount()})`,
    'ours, answer cache off',
    'BIND 9 -n 1 (one worker thread)',
    'BIND 9 default threads',
    `ours, every core (${workers(EVERY_CORE)})`,
  ];
  const runs = await withServers(
    [
      () => startOurs(ourData, ZONE),
      () => startOurs(ourData, ZONE, { BENCH_DNS_ANSWER_CACHE: 'off' }),
      () => startBind(labels[2], root, [bindZone], { threads: 1 }),
      () => startBind(labels[3], root, [bindZone]),
      () => startOurs(ourData, ZONE, { BENCH_DNS_WORKERS: String(EVERY_CORE) }),
    ],
    async (servers) => {
      const [ours, , bind1] = servers as [Server, Server, Server, Server, Server];
      const mismatches = await compareAnswers(ours, bind1, queries.samples);
      if (mismatches.length) throw new Error(`our answers differ from BIND's:\n${mismatches.join('\n')}`);
      for (const s of servers) await dnsperf(s.port, queriesFile, 1, MIXED_LOAD); // warm-up: JIT, caches
      // rounds in turn, so that load from outside this benchmark falls on every server alike
      const results: PerfResult[][] = servers.map(() => []);
      for (let round = 0; round < ROUNDS; round++) {
        for (const [i, s] of servers.entries()) results[i]?.push(await measureQps(s, queriesFile, SECONDS, MIXED_LOAD));
      }
      return results;
    },
  );
  const best = runs.map((r) => r.reduce((a, b) => (b.qps > a.qps ? b : a)));
  const [ours, uncached, bind1, bindN, every] = best as [PerfResult, PerfResult, PerfResult, PerfResult, PerfResult];
  const out: string[] = [];
  out.push(
    `DNS zone: ${HOSTS} hosts (A/AAAA/TXT, MX on half), ${CNAMES} CNAMEs, a wildcard; ${QUERY_LINES} questions: ` +
      `${MIX.map(([k, w]) => `${k} ${w * 100}%`).join(', ')} (${queries.samples.length} samples: same rcode and sections as BIND)`,
  );
  out.push(
    `dnsperf -c ${MIXED_LOAD.clients} -q ${MIXED_LOAD.outstanding} over UDP on 127.0.0.1 (2 cores shared with dnsperf), ` +
      `${ROUNDS} rounds of ${SECONDS} s per server in turn after a 1 s warm-up; best round (every round):`,
  );
  // server CPU per query: what each answer costs, whatever else runs on the machine (lowest round counts)
  const cpu = runs.map((r) => Math.min(...r.map((x) => x.cpuPerQuery)));
  const [cpuOurs = NaN, cpuUncached = NaN, cpuBind1 = NaN, , cpuEvery = NaN] = cpu;
  for (const [i, label] of labels.entries()) {
    const r = defined(best[i], `the best run of ${label}`);
    const lost = runs[i]?.reduce((n, x) => n + x.lost, 0) ?? 0;
    out.push(
      `  ${label.padEnd(34)} ${f0(r.qps).padStart(7)} q/s  (${runs[i]?.map((x) => f0(x.qps)).join(', ')})${lost ? `, ${lost} lost` : ''}; ` +
        `server CPU ${defined(cpu[i], 'CPU time').toFixed(1)} µs/query`,
    );
  }
  const verdict = ours.qps / bind1.qps >= 0.8 ? 'met' : 'NOT met';
  out.push(
    `DNS queries/s ratio vs BIND -n 1 (like for like): ${ratio(ours.qps, bind1.qps)} (goal ≥ 0.8: ${verdict}); ` +
      `vs BIND default threads: ${ratio(ours.qps, bindN.qps)}; answer cache off vs BIND -n 1: ${ratio(uncached.qps, bind1.qps)}; ` +
      `every core vs BIND default threads: ${ratio(every.qps, bindN.qps)}`,
  );
  out.push(
    `DNS server CPU per query, BIND -n 1 / ours (queries one core answers, relative): ${ratio(cpuBind1, cpuOurs)}; ` +
      `every core: ${ratio(cpuBind1, cpuEvery)}; with the answer cache off: ${ratio(cpuBind1, cpuUncached)}`,
  );
  return out;
}

async function dynamicUpdates(root: string, zoneFile: string): Promise<string[]> {
  const keyFile = join(root, 'bench.key');
  writeFileSync(keyFile, KEY_TEXT);
  const key = defined(parseKeyFile(KEY_TEXT)[0], 'the bench key');
  const updData = join(root, 'ours-update');
  await importZone(updData, ZONE, zoneFile);
  const ours = await withServer(startOurs(updData, ZONE, { BENCH_DNS_KEYS: keyFile }), (s) =>
    updatesPerSecond(s, key, SECONDS, 0),
  );
  // every core: an UPDATE is answered once every process serves it, so answer workers add their round trip
  const every = await withServer(
    startOurs(updData, ZONE, { BENCH_DNS_KEYS: keyFile, BENCH_DNS_WORKERS: String(EVERY_CORE) }),
    (s) => updatesPerSecond(s, key, SECONDS, 1_000_000),
  );
  const bindFile = join(root, 'bench-update.zone');
  writeFileSync(bindFile, readFileSync(zoneFile));
  const bind = await withServer(
    startBind('BIND -n 1', root, [{ name: ZONE, file: bindFile, options: `allow-update { key "${KEY_NAME}"; };` }], {
      threads: 1,
      extra: KEY_TEXT,
    }),
    (s) => updatesPerSecond(s, key, SECONDS, 0),
  );
  const failures = (r: { failed: number }): string => (r.failed ? `, ${r.failed} not NOERROR` : '');
  return [
    `DNS dynamic updates with TSIG (hmac-sha256, UDP, one at a time, each adds a name to the ${HOSTS}-host zone), ${SECONDS} s each:`,
    `  ours (DNS_WORKERS=auto: ${autoWorkerCount()}) ${f0(ours.rate)} updates/s (${ours.ok} NOERROR${failures(ours)}); ` +
      `ours, every core (${workers(EVERY_CORE)}) ${f0(every.rate)} (${every.ok}${failures(every)}); ` +
      `BIND -n 1 ${f0(bind.rate)} updates/s (${bind.ok}${failures(bind)})`,
    `DNS updates ratio vs BIND -n 1: ${ratio(ours.rate, bind.rate)}; every core ${ratio(every.rate, bind.rate)}`,
  ];
}

async function startupAndMemory(root: string): Promise<string[]> {
  const bigFile = join(root, 'big.zone');
  writeFileSync(bigFile, bigZone());
  const tinyFile = join(root, 'tiny.zone');
  writeFileSync(tinyFile, tinyZone(BIG_ZONE));
  const bigData = join(root, 'ours-big');
  const tinyData = join(root, 'ours-tiny');
  const imported = await importZone(bigData, BIG_ZONE, bigFile);
  await importZone(tinyData, BIG_ZONE, tinyFile);
  const startup = async (start: Promise<Server>) =>
    withServer(start, async (s) => {
      await new Promise((r) => setTimeout(r, 500));
      const mem = memoryOf(s.process.pid as number);
      const answered = await dnsClient(s.port)
        .query(`n${BIG_RECORDS / 4 - 1}.${BIG_ZONE}`, 'TXT')
        .then(
          (reply) => reply.rcode === 0,
          () => false,
        );
      return { ms: s.answeredAt - s.spawnedAt, ...mem, info: s.info, answered };
    });
  const one = { BENCH_DNS_WORKERS: '0' };
  const ourBig = await startup(startOurs(bigData, BIG_ZONE, one));
  const ourTiny = await startup(startOurs(tinyData, BIG_ZONE, one));
  const bindBig = await startup(startBind('BIND -n 1', root, [{ name: BIG_ZONE, file: bigFile }], { threads: 1 }));
  const bindTiny = await startup(startBind('BIND -n 1', root, [{ name: BIG_ZONE, file: tinyFile }], { threads: 1 }));
  const ourEvery = await startup(startOurs(bigData, BIG_ZONE, { BENCH_DNS_WORKERS: String(EVERY_CORE) }));
  const bindEvery = await startup(startBind('BIND', root, [{ name: BIG_ZONE, file: bigFile }]));
  if (!ourBig.answered || !bindBig.answered || !ourEvery.answered || !bindEvery.answered)
    throw new Error('a server did not answer for the last name of the 100 000-record zone');
  return [
    `DNS zone of ${imported.records} records (imported into SQLite in ${f0(imported.ms)} ms first); process start → first answer, RSS 0.5 s later:`,
    `  ours, one process ${f0(ourBig.ms)} ms (DnsEngine.start ${f0(ourBig.info?.startMs ?? NaN)} ms), RSS ${mb(ourBig.rss)} (peak ${mb(ourBig.peak)}), ` +
      `delta vs a tiny zone ${mb(ourBig.rss - ourTiny.rss)} (tiny: ${f0(ourTiny.ms)} ms, ${mb(ourTiny.rss)})`,
    `  BIND -n 1 ${f0(bindBig.ms)} ms, RSS ${mb(bindBig.rss)} (peak ${mb(bindBig.peak)}), ` +
      `delta vs a tiny zone ${mb(bindBig.rss - bindTiny.rss)} (tiny: ${f0(bindTiny.ms)} ms, ${mb(bindTiny.rss)})`,
    `  ratios ours/BIND (lower is better): start-up time ${ratio(ourBig.ms, bindBig.ms)}, RSS ${ratio(ourBig.rss, bindBig.rss)}, ` +
      `RSS delta ${ratio(ourBig.rss - ourTiny.rss, bindBig.rss - bindTiny.rss)}`,
    `  every core (${workers(EVERY_CORE)}): ours ${f0(ourEvery.ms)} ms to the first answer (every process answering after ${f0(ourEvery.info?.startMs ?? NaN)} ms), ` +
      `RSS of its ${ourEvery.processes} processes ${mb(ourEvery.rss)}; BIND default threads ${f0(bindEvery.ms)} ms, RSS ${mb(bindEvery.rss)}; ` +
      `ratios start-up ${ratio(ourEvery.ms, bindEvery.ms)}, RSS ${ratio(ourEvery.rss, bindEvery.rss)}`,
  ];
}

export async function dnsBenchmark(): Promise<string[]> {
  for (const tool of ['named', 'knotd', 'dnsperf']) requireTool(tool);
  const root = mkdtempSync(join(tmpdir(), 'bench-dns-'));
  const out: string[] = [];
  try {
    const zoneFile = join(root, 'bench.zone');
    writeFileSync(zoneFile, benchZone());
    const ourData = join(root, 'ours');
    await importZone(ourData, ZONE, zoneFile);
    if (PARTS.has('mix')) out.push(...(await realisticThroughput(root, SECONDS, ROUNDS)));
    if (PARTS.has('qps')) out.push(...(await queryThroughput(root, zoneFile, ourData)));
    if (PARTS.has('updates')) out.push(...(await dynamicUpdates(root, zoneFile)));
    if (PARTS.has('startup')) out.push(...(await startupAndMemory(root)));
    return out;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

runWhenMain(module, dnsBenchmark);
