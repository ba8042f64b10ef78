/**
 * The realistic DNS query mix of `npm run bench -- dns` (part `mix`): a zone of 10 000 names as a company's zone
 * holds them (addresses, some IPv6, aliases, mail exchangers, text records) and 200 000 questions, 85 % for records
 * that exist (A, AAAA, CNAME, MX, TXT) and 15 % for names that do not, sent by one dnsperf client (`-c 1 -T 1`, the
 * way a busy resolver talks to an authoritative server). Names are asked uniformly, so the answer cache holds no
 * small set of hot answers. Ours (as `npm start` runs it, DNS_WORKERS=auto) is measured against BIND 9 with its
 * default threads and Knot DNS with its default workers (test/bench/knot.ts), with our answer cache on and off, and
 * with a process on every core; BIND -n 1 beside. Besides queries/s, queries per second of server CPU time (user +
 * system of the server's process and its children, every thread, from /proc over the dnsperf run): what an answer
 * costs, whatever else the shared machine runs. Beside them, our UDP floor (test/bench/udp-floor-child.ts): the least
 * any answer path of ours could cost per query on this transport.
 */
import { writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { prng } from '../../dns/testing/prng';
import { defined } from '../support/defined';
import { autoWorkerCount } from '../../dns/engine/workers/answer-workers';
import {
  compareAnswers,
  dnsperf,
  importZone,
  measureQps,
  startBind,
  startOurs,
  startUdpFloor,
  withServers,
  type Load,
  type PerfResult,
  type Server,
} from './dns-servers';
import { startKnot } from './knot';

/** `n` answer workers, in words. */
const workers = (n: number): string => `${n} answer worker${n === 1 ? '' : 's'}`;

/** The realistic zone's name (also served signed by the DNSSEC bench, test/bench/dnssec.ts). */
export const REALISTIC_ZONE = 'corp.test';
const ZONE = REALISTIC_ZONE;
const NAMES = 10_000;
const QUESTIONS = 200_000;
const NXDOMAIN_SHARE = 0.15;
/** dnsperf's load of the realistic mix: one client socket and thread, 100 queries outstanding. */
export const REALISTIC_LOAD: Load = { clients: 1, outstanding: 100, threads: 1 };
const LOAD = REALISTIC_LOAD;
const SEED = 20261124;

/** One name of the zone and the types it has. */
export interface Name {
  owner: string;
  types: string[];
}

/**
 * The zone (master file) and its names: 15 % aliases, the rest addresses with IPv6, TXT and MX on some. `size` bounds
 * it by names (default 10 000) or by records besides the apex's and its servers' (the isolation bench's 100 000).
 */
export function realisticZone(
  zone = ZONE,
  size: { names?: number; records?: number } = { names: NAMES },
): { text: string; names: Name[]; records: number } {
  const rnd = prng(SEED);
  const lines = [
    `$ORIGIN ${zone}.`,
    '$TTL 3600',
    `@ IN SOA ns1.${zone}. hostmaster.${zone}. ( 2026112401 10800 3600 604800 300 )`,
    '  IN NS ns1',
    '  IN NS ns2',
    '  IN MX 10 mx1',
    'ns1 IN A 192.0.2.53',
    'ns2 IN A 192.0.2.54',
    'mx1 IN A 192.0.2.25',
  ];
  const header = lines.length;
  const names: Name[] = [];
  const maxNames = size.names ?? Infinity;
  const maxRecords = size.records ?? Infinity;
  for (let i = 0; i < maxNames && lines.length - header < maxRecords; i++) {
    const owner = `host${i}`;
    const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
    if (i > 0 && rnd() < 0.15) {
      lines.push(`${owner} 300 IN CNAME host${Math.floor(rnd() * i)}`);
      names.push({ owner, types: ['A', 'AAAA', 'CNAME'] });
      continue;
    }
    const types = ['A'];
    lines.push(`${owner} 300 IN A ${ip}`);
    if (rnd() < 0.3) lines.push(`${owner} 300 IN A 10.128.${(i >> 8) & 255}.${i & 255}`);
    if (rnd() < 0.4) {
      lines.push(`${owner} 300 IN AAAA 2001:db8::${i.toString(16)}`);
      types.push('AAAA');
    }
    if (rnd() < 0.25) {
      lines.push(`${owner} 300 IN TXT "v=spf1 ip4:${ip} -all"`);
      types.push('TXT');
    }
    if (rnd() < 0.1) {
      lines.push(`${owner} 300 IN MX 10 mx1.${zone}.`);
      types.push('MX');
    }
    names.push({ owner, types });
  }
  return { text: `${lines.join('\n')}\n`, names, records: lines.length - 2 };
}

/** dnsperf's question file: 85 % existing (name, type) pairs, 15 % names that do not exist. */
export function realisticQuestions(names: Name[]): string {
  const rnd = prng(SEED + 1);
  const lines: string[] = [];
  for (let i = 0; i < QUESTIONS; i++) {
    if (rnd() < NXDOMAIN_SHARE) {
      lines.push(`nx${Math.floor(rnd() * 1e9)}.${ZONE} ${rnd() < 0.5 ? 'A' : 'AAAA'}`);
      continue;
    }
    const name = defined(names[Math.floor(rnd() * names.length)], 'a name');
    lines.push(`${name.owner}.${ZONE} ${defined(name.types[Math.floor(rnd() * name.types.length)], 'a type')}`);
  }
  return `${lines.join('\n')}\n`;
}

const f0 = (n: number): string => n.toFixed(0);

/**
 * The realistic zone and questions written into `root` (master file, dnsperf input), and the zone imported into our
 * store at `data`.
 */
export async function prepareRealistic(root: string): Promise<{
  zone: { text: string; names: Name[] };
  zoneFile: string;
  questions: string;
  questionsFile: string;
  data: string;
}> {
  const zone = realisticZone();
  const zoneFile = join(root, 'corp.zone');
  writeFileSync(zoneFile, zone.text);
  const questions = realisticQuestions(zone.names);
  const questionsFile = join(root, 'corp-questions.txt');
  writeFileSync(questionsFile, questions);
  const data = join(root, 'ours-corp');
  await importZone(data, ZONE, zoneFile);
  return { zone, zoneFile, questions, questionsFile, data };
}

export async function realisticThroughput(root: string, seconds: number, rounds: number): Promise<string[]> {
  const { zoneFile, questions, questionsFile, data } = await prepareRealistic(root);
  const labels = [
    `ours (DNS_WORKERS=auto: ${autoWorkerCount()})`,
    'ours, answer cache off',
    `ours, every core (${workers(availableParallelism() - 1)})`,
    'BIND 9 default threads',
    'BIND 9 -n 1',
    'Knot DNS default workers',
    'our UDP floor (no DNS work)',
  ] as const;
  const bindZone = { name: ZONE, file: zoneFile };
  const runs = await withServers(
    [
      () => startOurs(data, ZONE),
      () => startOurs(data, ZONE, { BENCH_DNS_ANSWER_CACHE: 'off' }),
      () => startOurs(data, ZONE, { BENCH_DNS_WORKERS: String(availableParallelism() - 1) }),
      () => startBind(labels[3], root, [bindZone]),
      () => startBind(labels[4], root, [bindZone], { threads: 1 }),
      () => startKnot(labels[5], root, [bindZone]),
      () => startUdpFloor(labels[6]),
    ],
    async (servers) => {
      for (const [i, s] of servers.entries()) s.label = labels[i] ?? s.label;
      const [ours, , , bind, , knot] = servers as [Server, Server, Server, Server, Server, Server, Server];
      // the first 200 questions: the same rcode, AA and section sizes as BIND and as Knot, or the run stops
      const first = questions
        .split('\n')
        .slice(0, 200)
        .map((line) => ['realistic mix', ...line.split(' ')] as [string, string, string]);
      const mismatches = [...(await compareAnswers(ours, bind, first)), ...(await compareAnswers(ours, knot, first))];
      if (mismatches.length) throw new Error(`our answers differ from BIND's or Knot's:\n${mismatches.join('\n')}`);
      for (const s of servers) await dnsperf(s.port, questionsFile, 1, LOAD); // warm-up: JIT, caches
      const results: PerfResult[][] = servers.map(() => []);
      for (let round = 0; round < rounds; round++) {
        for (const [i, s] of servers.entries()) results[i]?.push(await measureQps(s, questionsFile, seconds, LOAD));
      }
      return results;
    },
  );
  const best = runs.map((r) => r.reduce((a, b) => (b.qps > a.qps ? b : a)));
  const [ours, uncached, every, bind, bind1, knot] = best as [
    PerfResult,
    PerfResult,
    PerfResult,
    PerfResult,
    PerfResult,
    PerfResult,
    PerfResult,
  ];
  // queries per server CPU-second: the round where an answer cost least counts (outside load only ever adds to it)
  const perCpu = runs.map((r) => 1e6 / Math.min(...r.map((x) => x.cpuPerQuery)));
  const [cpuOurs = NaN, cpuUncached = NaN, , cpuBind = NaN, , cpuKnot = NaN, cpuFloor = NaN] = perCpu;
  const out = [
    `DNS realistic mix: ${NAMES} names (15 % CNAME; A, AAAA 40 %, TXT 25 %, MX 10 %), ${QUESTIONS} questions ` +
      `(${100 - NXDOMAIN_SHARE * 100} % existing A/AAAA/CNAME/MX/TXT, ${NXDOMAIN_SHARE * 100} % NXDOMAIN, names uniform); ` +
      `dnsperf -c ${LOAD.clients} -T ${LOAD.threads} -q ${LOAD.outstanding}, ${rounds} rounds of ${seconds} s in turn; best round ` +
      `(queries per server CPU-second: the round where an answer cost least):`,
  ];
  for (const [i, label] of labels.entries()) {
    const r = defined(best[i], label);
    out.push(
      `  ${label.padEnd(26)} ${f0(r.qps).padStart(7)} q/s  (${runs[i]?.map((x) => f0(x.qps)).join(', ')}); ` +
        `server CPU ${r.cpuPerQuery.toFixed(1)} µs/query, ${f0(defined(perCpu[i], label))} queries per CPU-second`,
    );
  }
  const goal = (value: number, min: number): string =>
    `${value.toFixed(3)} (goal ≥ ${min}: ${value >= min ? 'met' : 'NOT met'})`;
  out.push(
    `DNS realistic mix ratio vs BIND default threads: ${goal(ours.qps / bind.qps, 1.2)}; answer cache off: ` +
      `${goal(uncached.qps / bind.qps, 1.0)}; every core: ${(every.qps / bind.qps).toFixed(3)}; vs BIND -n 1: ${(ours.qps / bind1.qps).toFixed(3)}; ` +
      `CPU per query BIND -n 1 / ours: ${(bind1.cpuPerQuery / ours.cpuPerQuery).toFixed(3)}`,
  );
  const r3 = (a: number, b: number): string => (a / b).toFixed(3);
  out.push(
    `DNS realistic mix ours/Knot: queries/s ${r3(ours.qps, knot.qps)} (answer cache off ${r3(uncached.qps, knot.qps)}), ` +
      `queries per CPU-second ${r3(cpuOurs, cpuKnot)} (answer cache off ${r3(cpuUncached, cpuKnot)}); ours/BIND default ` +
      `threads: queries/s ${r3(ours.qps, bind.qps)} (answer cache off ${r3(uncached.qps, bind.qps)}), queries per ` +
      `CPU-second ${r3(cpuOurs, cpuBind)} (answer cache off ${r3(cpuUncached, cpuBind)}); Knot/BIND: queries/s ` +
      `${r3(knot.qps, bind.qps)}, per CPU-second ${r3(cpuKnot, cpuBind)}`,
  );
  // the most any work on our answer path could give: the transport alone, answering with no DNS work at all
  out.push(
    `DNS realistic mix, our UDP floor (the same transport answering REFUSED, no DNS work) per CPU-second: ` +
      `${r3(cpuFloor, cpuKnot)} × Knot, ${r3(cpuFloor, cpuOurs)} × ours; ours reaches ${r3(cpuOurs, cpuFloor)} of it`,
  );
  return out;
}
