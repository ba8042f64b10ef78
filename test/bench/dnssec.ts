/**
 * DNSSEC part of `npm run bench` (`npm run bench -- dnssec`): our DNS engine serving signed zones, against BIND 9 and
 * Knot DNS (test/bench/knot.ts) on this machine, in this run. Parts (BENCH_DNSSEC_PARTS, comma-separated; all by default):
 *
 * - `do`: queries with the DO bit on the realistic 10 000-name zone (test/bench/dns-realistic.ts) signed with
 *   ECDSAP256SHA256 (NSEC): ours (a KSK and a ZSK in the store, the zone signed as the engine starts) with the answer
 *   cache on and off, against BIND with `dnssec-policy default; inline-signing yes;` (it signs after loading, in the
 *   background: the run waits until it is done and reports how long it took), and against Knot with `dnssec-signing:
 *   on` (an automatic policy, ECDSAP256SHA256, NSEC; it signs as it loads: the run waits for the RRSIG on the SOA).
 *   Answers are checked first (same rcode; RRSIG in the answer, NSEC in the authority of NXDOMAIN, on all); then
 *   `dnsperf -D` with the realistic load, BENCH_DNS_ROUNDS rounds of BENCH_SECONDS in turn, the best round counting;
 *   queries/s and queries per server CPU-second, ours over each;
 * - `sign`: signing the 100 000-record zone of the start-up part of test/bench/dns.ts from scratch: our process start
 *   to the first answer with DNSSEC on minus the same without (the signing cost), against the wall time of BIND's
 *   `dnssec-signzone` and of Knot's `kzonesign`, each with a KSK and a ZSK made beforehand; resident memory of the
 *   signed zone against the unsigned; start-up to the first answer signed from scratch against unsigned; and a restart
 *   with the signed zone kept on disk (DATA_DIR/signed-zones, read instead of signing) against unsigned, time and RSS;
 * - `resign`: one change of that signed zone, in this process: a record added through the store until the engine
 *   serves it signed (commit, incremental re-signing, index swap), BENCH_DNSSEC_CHANGES times (default 50), and the
 *   incremental re-signing (`signPatch`) alone; median and p95. Then the signatures' refresh: the signing clock moved
 *   to the scheduler's due time, the engine's refresh end to end (the scheduler's serial bump → the refreshed copy
 *   served), twice in turn (the first slice after a whole signing, then the next), against a whole signing of the
 *   same copy (`signZoneInSteps`), wall and process CPU time, and the RRSIGs each made.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { algorithmByName } from '../../dns/dnssec/algorithms';
import { KeyVault } from '../../dns/dnssec/key-vault';
import { KSK_FLAGS, ZSK_FLAGS } from '../../dns/dnssec/keys';
import { SigningScheduler } from '../../dns/dnssec/scheduler';
import { refreshSignatures } from '../../dns/dnssec/zone-refresh';
import { signPatch, signZoneInSteps } from '../../dns/dnssec/zone-signer';
import { newStoredKey } from '../../dns/dnssec/zone-signing';
import { DnsEngine } from '../../dns/engine/engine';
import { toAnswers } from '../../dns/zone/node-pack';
import { autoWorkerCount } from '../../dns/engine/workers/answer-workers';
import type { RR, ZoneData } from '../../dns/zone';
import { openSqliteStore } from '../../dns/store';
import { defined } from '../support/defined';
import { dig, requireTool, type DigAnswer } from '../support/dns-peers';
import { BIG_RECORDS, BIG_ZONE, bigZone } from './dns';
import { prepareRealistic, REALISTIC_LOAD, REALISTIC_ZONE } from './dns-realistic';
import {
  dnsperf,
  importZone,
  measureQps,
  memoryOf,
  startBind,
  startOurs,
  withServer,
  withServers,
  type Load,
  type PerfResult,
  type Server,
} from './dns-servers';
import { knotConfig, knotKeys, kzonesign, startKnot } from './knot';
import { runWhenMain } from './common';

const run = promisify(execFile);

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
/** dnsperf rounds per server, taken in turn (the best one counts: load from outside only ever lowers a round). */
const ROUNDS = Math.max(1, Number(process.env.BENCH_DNS_ROUNDS ?? 2));
/** Which parts to run (comma-separated: do, sign, resign); all by default. */
const PARTS = new Set((process.env.BENCH_DNSSEC_PARTS ?? 'do,sign,resign').split(',').map((p) => p.trim()));
/** Single-record changes timed by the re-signing part. */
const CHANGES = Math.max(1, Number(process.env.BENCH_DNSSEC_CHANGES ?? 50));
const ALGORITHM = 'ECDSAP256SHA256';
/** The realistic load with the DO bit: dnsperf -D -c 1 -T 1 -q 100. */
const LOAD: Load = { ...REALISTIC_LOAD, dnssecOk: true };
/** Questions whose answers are checked on both servers before measuring. */
const CHECKED = 50;
/** How long BIND or Knot may take to sign the realistic zone. */
const BIND_SIGNING_TIMEOUT_MS = 120_000;

const f0 = (n: number): string => n.toFixed(0);
const f1 = (n: number): string => n.toFixed(1);
const f2 = (n: number): string => n.toFixed(2);
const mb = (bytes: number): string => `${(bytes / 1048576).toFixed(1)} MB`;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const min = (xs: number[]): number => Math.min(...xs);

/** The `q`-quantile of `xs` (nearest rank). */
function quantile(xs: readonly number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
}

const goalAtLeast = (value: number, goal: number): string =>
  `${value.toFixed(3)} (goal ≥ ${goal}: ${value >= goal ? 'met' : 'NOT met'})`;
const goalAtMost = (value: number, goal: number, unit = ''): string =>
  `${value.toFixed(unit ? 2 : 3)}${unit} (goal ≤ ${goal}${unit}: ${value <= goal ? 'met' : 'NOT met'})`;

/** The type field of dig's record lines ("owner ttl class TYPE rdata"). */
const typesOf = (lines: readonly string[]): string[] => lines.map((l) => l.split(' ')[3] ?? '');
const has = (lines: readonly string[], type: string): boolean => typesOf(lines).includes(type);

/** dig +dnssec +norec of one question. */
const digDo = (server: Server, name: string, type: string): Promise<DigAnswer> =>
  dig({ host: '127.0.0.1', port: server.port }, ['+dnssec', name, type]);

/**
 * One dig process asking `questions` with DO (cheap enough to poll with while BIND signs): for each, whether its
 * answer carries an RRSIG over the type asked; and the SOA serial when one of them asked the SOA (NaN when no SOA
 * came back). Also used by the isolation bench while our server signs.
 */
export async function signedNow(
  server: Pick<Server, 'port'>,
  questions: ReadonlyArray<readonly [string, string]>,
): Promise<{ signed: boolean[]; serial: number }> {
  const args = ['+dnssec', '+norec', '+noall', '+answer', '+time=2', '+tries=1', '-p', String(server.port)];
  args.push('@127.0.0.1', ...questions.flat());
  const { stdout } = await run('dig', args, { timeout: 20_000 }).catch(() => ({ stdout: '' }));
  const lines = stdout.split('\n').map((l) => l.trim().split(/\s+/));
  const owner = (name: string): string => `${name.toLowerCase()}.`;
  const signed = questions.map(([name, type]) =>
    lines.some((l) => l[0]?.toLowerCase() === owner(name) && l[3] === 'RRSIG' && l[4] === type),
  );
  const soa = lines.find((l) => l[3] === 'SOA');
  return { signed, serial: Number(soa?.[6] ?? NaN) };
}

/**
 * Waits until a reference server (BIND, Knot) serves `zone` signed: the SOA and every name of `last` answered with an
 * RRSIG (polled every 200 ms), then until the SOA serial has not moved for a second (BIND's inline signing commits its
 * work in steps, each with a new serial). Times in ms since the server was spawned.
 */
async function servedSigned(
  server: Server,
  zone: string,
  last: ReadonlyArray<readonly [string, string]>,
): Promise<{ signedMs: number; settledMs: number; serial: number }> {
  const deadline = server.spawnedAt + BIND_SIGNING_TIMEOUT_MS;
  const late = (what: string): Error => new Error(`${server.label} ${what} within ${BIND_SIGNING_TIMEOUT_MS} ms`);
  let now = await signedNow(server, [[zone, 'SOA'], ...last]);
  while (!now.signed.every(Boolean)) {
    if (performance.now() > deadline) throw late(`did not sign ${zone}`);
    await sleep(200);
    now = await signedNow(server, [[zone, 'SOA'], ...last]);
  }
  const signedAt = performance.now();
  let serial = now.serial;
  let changedAt = signedAt;
  while (performance.now() - changedAt < 1000) {
    if (performance.now() > deadline) throw late(`kept changing the serial of ${zone}`);
    await sleep(200);
    const { serial: next } = await signedNow(server, [[zone, 'SOA']]);
    if (next !== serial) {
      serial = next;
      changedAt = performance.now();
    }
  }
  return { signedMs: signedAt - server.spawnedAt, settledMs: changedAt - server.spawnedAt, serial };
}

/**
 * The first questions asked of both servers with DO: the same rcode, and the proof DNSSEC gives — an RRSIG in the
 * answer of a positive answer, NSEC (or NSEC3) in the authority of NXDOMAIN — from both, else the bench fails. A
 * question whose answers fail the check is asked once more (200 ms later) before it fails the bench, and reported.
 * Returns what the check saw (the reference's denial kind, answers whose section sizes differ, questions asked again).
 */
async function checkSignedAnswers(
  ours: Server,
  bind: Server,
  questions: Array<[string, string]>,
): Promise<{ positive: number; nxdomain: number; bindDenial: string; sizesDiffer: string[]; again: string[] }> {
  const problems: string[] = [];
  const sizesDiffer: string[] = [];
  const again: string[] = [];
  let positive = 0;
  let nxdomain = 0;
  let bindDenial = 'none seen';
  const proven = (a: DigAnswer): boolean =>
    a.status === 'NOERROR'
      ? has(a.answer, 'RRSIG')
      : a.status === 'NXDOMAIN' && (has(a.authority, 'NSEC') || has(a.authority, 'NSEC3'));
  const sections = (a: DigAnswer): string =>
    `${a.status} answer ${typesOf(a.answer).join(',')} authority ${typesOf(a.authority).join(',')}`;
  /** What is wrong with the two answers to one question (undefined: nothing). */
  const problem = (x: DigAnswer, y: DigAnswer): string | undefined =>
    x.status !== y.status || !proven(x) || !proven(y) ? `ours ${sections(x)}; ${bind.label} ${sections(y)}` : undefined;
  const ask = (name: string, type: string) => Promise.all([digDo(ours, name, type), digDo(bind, name, type)]);
  for (const [name, type] of questions) {
    const q = `${name} ${type}`;
    let [x, y] = await ask(name, type);
    const first = problem(x, y);
    if (first) {
      await sleep(200);
      [x, y] = await ask(name, type);
      const second = problem(x, y);
      if (second) {
        const raw = (a: DigAnswer): string => JSON.stringify(a.raw).slice(0, 800);
        problems.push(`${q}: ${second} (asked twice)\n  ours: ${raw(x)}\n  ${bind.label}: ${raw(y)}`);
      } else again.push(`${q}: ${first}`);
    }
    if (x.status === 'NXDOMAIN') {
      nxdomain++;
      bindDenial = has(y.authority, 'NSEC3') ? 'NSEC3' : has(y.authority, 'NSEC') ? 'NSEC' : bindDenial;
    } else positive++;
    const sizes = (a: DigAnswer): string => `an=${a.answer.length} ns=${a.authority.length}`;
    if (sizes(x) !== sizes(y)) sizesDiffer.push(`${q}: ours ${sizes(x)}, ${bind.label} ${sizes(y)}`);
  }
  if (problems.length) throw new Error(`signed answers differ or lack their proof:\n${problems.join('\n')}`);
  return { positive, nxdomain, bindDenial, sizesDiffer, again };
}

/** BIND's DNSKEY RRset of `zone`, in words: "1 DNSKEY: flags 257, algorithm 13 (a CSK)". */
async function bindKeys(server: Server, zone: string): Promise<string> {
  const keys = (await digDo(server, zone, 'DNSKEY')).answer
    .map((l) => l.split(' '))
    .filter((f) => f[3] === 'DNSKEY')
    .map((f) => `flags ${f[4]}, algorithm ${f[6]}`);
  const csk = keys.length === 1 && keys[0]?.startsWith('flags 257,') ? ' (a CSK: one key signs every RRset)' : '';
  return `${keys.length} DNSKEY${keys.length === 1 ? '' : 's'}: ${keys.join('; ')}${csk}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Part do: queries with the DO bit
// ---------------------------------------------------------------------------------------------------------------

async function signedQueries(root: string): Promise<string[]> {
  const { zone, questions, questionsFile, data } = await prepareRealistic(root);
  // BIND signs inline: its zone, keys and signed copy in a directory of their own
  const bindDir = join(root, 'bind-corp');
  mkdirSync(bindDir);
  const bindFile = join(bindDir, 'corp.zone');
  writeFileSync(bindFile, zone.text);
  const bindOptions = `dnssec-policy default; inline-signing yes; key-directory "${bindDir}";`;
  const signed = { BENCH_DNS_DNSSEC: ALGORITHM, BENCH_DNS_ZONE: REALISTIC_ZONE };
  const labels = [
    `ours (DNS_WORKERS=auto: ${autoWorkerCount()})`,
    'ours, answer cache off',
    'BIND 9 default threads',
    'Knot DNS default workers',
  ] as const;
  const lastHost = defined(zone.names[zone.names.length - 1], 'the last host');
  const last: Array<[string, string]> = [
    [`${lastHost.owner}.${REALISTIC_ZONE}`, lastHost.types.includes('CNAME') ? 'CNAME' : 'A'],
    [`ns2.${REALISTIC_ZONE}`, 'A'], // last in canonical order
  ];
  const checked = questions
    .split('\n')
    .slice(0, CHECKED)
    .map((line) => line.split(' ') as [string, string]);
  const measured = await withServers(
    [
      () => startOurs(data, REALISTIC_ZONE, signed),
      () => startOurs(data, REALISTIC_ZONE, { ...signed, BENCH_DNS_ANSWER_CACHE: 'off' }),
      () => startBind(labels[2], bindDir, [{ name: REALISTIC_ZONE, file: bindFile, options: bindOptions }]),
      // Knot signs as it loads (an automatic policy, ECDSAP256SHA256, KSK + ZSK, NSEC); the file is never written back
      () => startKnot(labels[3], root, [{ name: REALISTIC_ZONE, file: bindFile, signing: true }]),
    ],
    async (servers) => {
      for (const [i, s] of servers.entries()) s.label = labels[i] ?? s.label;
      const [ours, , bind, knot] = servers as [Server, Server, Server, Server];
      // both polled at once: each one's time is its own (Knot signs as it loads, BIND in the background)
      const [bindSigning, knotSigning] = await Promise.all(
        [bind, knot].map((server) => servedSigned(server, REALISTIC_ZONE, last)),
      );
      const check = await checkSignedAnswers(ours, bind, checked);
      const knotCheck = await checkSignedAnswers(ours, knot, checked);
      const keys = await bindKeys(bind, REALISTIC_ZONE);
      const knotKeyset = await bindKeys(knot, REALISTIC_ZONE);
      for (const s of servers) await dnsperf(s.port, questionsFile, 1, LOAD); // warm-up: JIT, caches
      const results: PerfResult[][] = servers.map(() => []);
      for (let round = 0; round < ROUNDS; round++) {
        for (const [i, s] of servers.entries()) results[i]?.push(await measureQps(s, questionsFile, SECONDS, LOAD));
      }
      const knotSide = {
        signing: defined(knotSigning, 'Knot signed'),
        check: knotCheck,
        keys: knotKeyset,
        firstAnswerMs: knot.answeredAt - knot.spawnedAt,
      };
      return {
        results,
        bindSigning: defined(bindSigning, 'BIND signed'),
        check,
        keys,
        knotSide,
        info: servers.map((s) => s.info),
      };
    },
  );
  const { results, bindSigning, check, keys, knotSide, info } = measured;
  const best = results.map((r) => r.reduce((a, b) => (b.qps > a.qps ? b : a)));
  const [ours, uncached, bind, knot] = best as [PerfResult, PerfResult, PerfResult, PerfResult];
  // server CPU per query: what each answer costs, whatever else runs on the machine (lowest round counts)
  const cpu = results.map((r) => min(r.map((x) => x.cpuPerQuery)));
  const [cpuOurs = NaN, cpuUncached = NaN, cpuBind = NaN, cpuKnot = NaN] = cpu;
  const ourStart = info[0];
  const steps = bindSigning.serial - Number(/\bSOA\b[^(]*\(\s*(\d+)/.exec(zone.text)?.[1] ?? NaN);
  const out = [
    `DNSSEC: the realistic zone (${zone.names.length} names) signed with ${ALGORITHM}, NSEC; signing at the start:`,
    `  ours, a KSK and a ZSK: DnsEngine.start ${f0(ourStart?.startMs ?? NaN)} ms (signs the zone whole: ` +
      `${ourStart?.signed ?? '?'} RRSIGs; the server with the answer cache off: ${f0(info[1]?.startMs ?? NaN)} ms)`,
    `  BIND 9 dnssec-policy default, inline-signing yes, ${keys}: the SOA and the last names answered signed ` +
      `${f2(bindSigning.signedMs / 1000)} s after its start, the serial stable from ${f2(bindSigning.settledMs / 1000)} s ` +
      `(${steps} steps of signing, one serial each)`,
    `  Knot DNS dnssec-signing on (automatic policy, ${ALGORITHM}, NSEC), ${knotSide.keys}: the SOA and the last names ` +
      `answered signed ${f2(knotSide.signing.signedMs / 1000)} s after its start (first answer after ` +
      `${f2(knotSide.firstAnswerMs / 1000)} s: it signs as it loads)`,
    `  answers with DO to the first ${checked.length} questions (${check.positive} positive, ${check.nxdomain} NXDOMAIN): ` +
      `same rcode, RRSIG in the answer / NSEC in the authority of NXDOMAIN on both (BIND denies with ${check.bindDenial}); ` +
      `section sizes differ in ${check.sizesDiffer.length}${check.sizesDiffer.length ? ` (${check.sizesDiffer.slice(0, 3).join('; ')})` : ''}` +
      `${check.again.length ? `; ${check.again.length} passed only when asked again (first: ${check.again.join('; ')})` : ''}`,
    `  the same questions against Knot: same rcode and proof (Knot denies with ${knotSide.check.bindDenial}); section ` +
      `sizes differ in ${knotSide.check.sizesDiffer.length}${knotSide.check.sizesDiffer.length ? ` (${knotSide.check.sizesDiffer.slice(0, 3).join('; ')})` : ''}`,
    `  dnsperf -D -c ${LOAD.clients} -T ${LOAD.threads} -q ${LOAD.outstanding} (DO bit on every query), ${ROUNDS} rounds ` +
      `of ${SECONDS} s per server in turn after a 1 s warm-up; best round (every round), server CPU of the lowest round:`,
  ];
  for (const [i, label] of labels.entries()) {
    const r = defined(best[i], label);
    const lost = results[i]?.reduce((n, x) => n + x.lost, 0) ?? 0;
    out.push(
      `  ${label.padEnd(26)} ${f0(r.qps).padStart(7)} q/s  (${results[i]?.map((x) => f0(x.qps)).join(', ')})` +
        `${lost ? `, ${lost} lost` : ''}; server CPU ${f1(defined(cpu[i], 'CPU time'))} µs/query`,
    );
  }
  out.push(
    `DNSSEC queries (DO) ratio ours/BIND: ${goalAtLeast(ours.qps / bind.qps, 0.8)}; answer cache off: ` +
      `${goalAtLeast(uncached.qps / bind.qps, 0.8)}; CPU per query BIND / ours: ${(cpuBind / cpuOurs).toFixed(3)} ` +
      `(answer cache off: ${(cpuBind / cpuUncached).toFixed(3)})`,
  );
  const perCpuSecond = (cpuPerQuery: number): number => 1e6 / cpuPerQuery;
  out.push(
    `DNSSEC queries (DO) ours/Knot: queries/s ${(ours.qps / knot.qps).toFixed(3)} (answer cache off ` +
      `${(uncached.qps / knot.qps).toFixed(3)}); queries per server CPU-second ${(cpuKnot / cpuOurs).toFixed(3)} ` +
      `(answer cache off ${(cpuKnot / cpuUncached).toFixed(3)}): ours ${f0(perCpuSecond(cpuOurs))}, ` +
      `Knot ${f0(perCpuSecond(cpuKnot))}, BIND ${f0(perCpuSecond(cpuBind))}`,
  );
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// The 100 000-record zone: imported once, with keys in the store for parts sign and resign
// ---------------------------------------------------------------------------------------------------------------

interface BigZone {
  file: string;
  data: string;
  records: number;
  importMs: number;
}

/** The big zone in a master file and in our SQLite store (with a KSK and a ZSK, sealed by the store's vault). */
async function bigZoneStore(root: string): Promise<BigZone> {
  const file = join(root, 'big.zone');
  writeFileSync(file, bigZone());
  const data = join(root, 'ours-big');
  const imported = await importZone(data, BIG_ZONE, file);
  const store = await openSqliteStore({ file: join(data, 'zones.sqlite') });
  try {
    const vault = KeyVault.open({ dataDir: data });
    const algorithm = defined(algorithmByName(ALGORITHM), ALGORITHM);
    const now = Math.floor(Date.now() / 1000) - 60;
    const times = { publishAt: now, activateAt: now, lifetime: 365 * 86_400 };
    await store.changeDnssecKeys(BIG_ZONE, {
      add: [KSK_FLAGS, ZSK_FLAGS].map((flags) => newStoredKey(BIG_ZONE, algorithm, flags, vault, times)),
    });
  } finally {
    await store.close();
  }
  return { file, data, records: imported.records, importMs: imported.ms };
}

// ---------------------------------------------------------------------------------------------------------------
// Part sign: signing the zone from scratch
// ---------------------------------------------------------------------------------------------------------------

interface Startup {
  /** Spawn to the first answer. */
  ms: number;
  startMs: number;
  signed?: number;
  rss: number;
  peak: number;
  /** The last name's TXT answered with DO carries an RRSIG. */
  rrsig: boolean;
}

/**
 * Our process started on the big zone's data dir, timed to its first answer. `kept`: with signed zones kept on disk
 * (the host's default), so a start after the first reads the signed zone from its file; without, it signs afresh.
 */
async function ourStartup(big: BigZone, dnssec: boolean, kept = false): Promise<Startup> {
  const env: Record<string, string> = { BENCH_DNS_WORKERS: '0', BENCH_DNS_ZONE: BIG_ZONE };
  if (dnssec) env.BENCH_DNS_DNSSEC = ALGORITHM;
  if (kept) env.BENCH_DNS_KEPT = '1';
  return withServer(startOurs(big.data, BIG_ZONE, env), async (s) => {
    const ms = s.answeredAt - s.spawnedAt;
    await sleep(500);
    const mem = memoryOf(s.process.pid as number);
    const last = await digDo(s, `n${BIG_RECORDS / 4 - 1}.${BIG_ZONE}`, 'TXT');
    if (last.status !== 'NOERROR') throw new Error(`ours did not answer the last name of ${BIG_ZONE}: ${last.status}`);
    return {
      ms,
      startMs: s.info?.startMs ?? NaN,
      signed: s.info?.signed,
      rss: mem.rss,
      peak: mem.peak,
      rrsig: has(last.answer, 'RRSIG'),
    };
  });
}

/**
 * Wall time of `dnssec-signzone -S` over the big zone, with its statistics (-t): signatures made, and the time it
 * says it signed for. `verify` false: -P, without the post-sign verification of every signature (ours does none).
 */
async function signzone(
  root: string,
  big: BigZone,
  keyDir: string,
  verify: boolean,
): Promise<{ ms: number; signatures: number; signingMs: number }> {
  const args = ['-S', '-t', '-K', keyDir, '-o', BIG_ZONE, '-f', join(root, 'big.zone.signed')];
  if (!verify) args.push('-P');
  const t0 = performance.now();
  const { stdout } = await run('dnssec-signzone', [...args, big.file], { cwd: root, maxBuffer: 1 << 24 });
  const ms = performance.now() - t0;
  const stat = (re: RegExp): number => Number(re.exec(stdout)?.[1] ?? NaN);
  return {
    ms,
    signatures: stat(/Signatures generated:\s+(\d+)/),
    signingMs: stat(/Signing time in seconds:\s+([\d.]+)/) * 1000,
  };
}

async function signingFromScratch(root: string, big: BigZone): Promise<string[]> {
  // rounds in turn, unsigned and signed: the best (shortest) of each counts
  const unsigned: Startup[] = [];
  const signed: Startup[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    unsigned.push(await ourStartup(big, false));
    signed.push(await ourStartup(big, true));
  }
  if (unsigned.some((s) => s.rrsig) || signed.some((s) => !s.rrsig))
    throw new Error(`ours: the last name of ${BIG_ZONE} is not signed (only) when DNSSEC is on`);
  const keyDir = join(root, 'bind-keys');
  mkdirSync(keyDir);
  for (const flags of [['-f', 'KSK'], []])
    await run('dnssec-keygen', ['-q', '-K', keyDir, '-a', ALGORITHM, ...flags, BIG_ZONE], { cwd: root });
  const verified: Array<Awaited<ReturnType<typeof signzone>>> = [];
  const unverified: Array<Awaited<ReturnType<typeof signzone>>> = [];
  for (let round = 0; round < ROUNDS; round++) {
    verified.push(await signzone(root, big, keyDir, true));
    unverified.push(await signzone(root, big, keyDir, false));
  }
  // a restart with the signed zone kept on disk: the first start signs and writes the file (not counted)
  await ourStartup(big, true, true);
  const restarts: Startup[] = [];
  for (let round = 0; round < ROUNDS; round++) restarts.push(await ourStartup(big, true, true));
  if (restarts.some((r) => !r.rrsig)) throw new Error(`ours: a restart from the kept file served ${BIG_ZONE} unsigned`);
  const knot = await knotSigning(root, big);
  const best = <T extends { ms: number }>(xs: T[]): T => xs.reduce((a, b) => (b.ms < a.ms ? b : a));
  const u = best(unsigned);
  const s = best(signed);
  const b = best(verified);
  const p = best(unverified);
  const k = best(knot.rounds);
  const r = best(restarts);
  const cost = s.ms - u.ms;
  const fastest = p.ms <= k.ms ? { name: 'dnssec-signzone -P', ms: p.ms } : { name: 'kzonesign', ms: k.ms };
  const all = (xs: Array<{ ms: number }>): string => xs.map((x) => f0(x.ms)).join(', ');
  return [
    `DNSSEC signing the ${big.records}-record zone ${BIG_ZONE} from scratch (${ALGORITHM}, KSK + ZSK, NSEC), ` +
      `${ROUNDS} rounds, best (every round):`,
    `  ours, one process: spawn → first answer ${f0(s.ms)} ms signed (${all(signed)}), ${f0(u.ms)} ms unsigned (${all(unsigned)}): ` +
      `signing costs ${f0(cost)} ms; DnsEngine.start ${f0(s.startMs)} ms signed, ${f0(u.startMs)} ms unsigned; ${s.signed ?? '?'} RRSIGs`,
    `  BIND dnssec-signzone -S (keys made beforehand, not timed), wall time: ${f0(b.ms)} ms (${all(verified)}) as is, ` +
      `which verifies every signature after signing; ${f0(p.ms)} ms (${all(unverified)}) with -P (no verification; ` +
      `signing ${f0(p.signingMs)} ms by its -t statistics); ${p.signatures} signatures`,
    `  Knot kzonesign (a KSK and a ZSK made beforehand with keymgr, not timed; Knot's default signing-threads), wall ` +
      `time: ${f0(k.ms)} ms (${all(knot.rounds)}); ${knot.signatures} RRSIGs in its output`,
    `DNSSEC signing ratio ours/kzonesign: ${(cost / k.ms).toFixed(3)}; ours/the faster reference (${fastest.name}): ` +
      `${(cost / fastest.ms).toFixed(3)}; kzonesign/dnssec-signzone -P: ${(k.ms / p.ms).toFixed(3)}`,
    `DNSSEC signing ratio ours/dnssec-signzone -P (signing alone, like for like): ${goalAtMost(cost / p.ms, 1.5)}; ` +
      `ours/dnssec-signzone as is (with its verification): ${goalAtMost(cost / b.ms, 1.5)}; whole signed start-up / ` +
      `dnssec-signzone -P: ${(s.ms / p.ms).toFixed(3)}`,
    `  ours RSS 0.5 s after the start: signed ${mb(s.rss)} (peak ${mb(s.peak)}), unsigned ${mb(u.rss)} (peak ${mb(u.peak)}): ` +
      `signatures and NSEC chain ${mb(s.rss - u.rss)}, ×${(s.rss / u.rss).toFixed(2)}`,
    `DNSSEC start-up to the first answer (ours, one process), signed from scratch / unsigned: ` +
      `${(s.ms / u.ms).toFixed(3)} (${f0(s.ms)} ms / ${f0(u.ms)} ms)`,
    `DNSSEC start-up to the first answer, a restart with the signed zone kept on disk / unsigned: ` +
      `${goalAtMost(r.ms / u.ms, 1.2)} (${f0(r.ms)} ms (${all(restarts)}) / ${f0(u.ms)} ms)`,
    `DNSSEC memory, RSS 0.5 s after a restart from the kept file / unsigned: ${goalAtMost(r.rss / u.rss, 1.5)} ` +
      `(${mb(r.rss)} / ${mb(u.rss)}; signed from scratch ${mb(s.rss)})`,
  ];
}

/**
 * Knot's offline signer over the big zone: keys made first by keymgr in a KASP database of its own (not timed), then
 * `kzonesign` BENCH_DNS_ROUNDS times, each writing the signed zone afresh; the RRSIGs of its output counted.
 */
async function knotSigning(root: string, big: BigZone): Promise<{ rounds: Array<{ ms: number }>; signatures: number }> {
  const dir = join(root, 'knot-sign');
  const out = join(dir, 'signed');
  mkdirSync(out, { recursive: true });
  const conf = join(dir, 'knot.conf');
  writeFileSync(conf, knotConfig(dir, 0, [{ name: BIG_ZONE, file: big.file, signing: true }]));
  await knotKeys(conf, BIG_ZONE);
  const rounds: Array<{ ms: number }> = [];
  for (let round = 0; round < ROUNDS; round++) rounds.push({ ms: await kzonesign(conf, BIG_ZONE, out) });
  const signed = readFileSync(join(out, basename(big.file)), 'utf8');
  // Knot's dump writes no class: owner, TTL, type
  const signatures = signed.split('\n').filter((l) => l.split(/\s+/)[2] === 'RRSIG').length;
  if (signatures < big.records) throw new Error(`kzonesign wrote ${signatures} RRSIGs for ${big.records} records`);
  return { rounds, signatures };
}

// ---------------------------------------------------------------------------------------------------------------
// Part resign: one change re-signed
// ---------------------------------------------------------------------------------------------------------------

async function resigning(big: BigZone): Promise<string[]> {
  const store = await openSqliteStore({ file: join(big.data, 'zones.sqlite') });
  try {
    const vault = KeyVault.open({ dataDir: big.data });
    const t0 = performance.now();
    // the signing clock: real time until the refresh moves it to the scheduler's due time
    let moved: number | null = null;
    const now = (): number => moved ?? Math.floor(Date.now() / 1000);
    const engine = await DnsEngine.start({ store, host: '127.0.0.1', port: 0, listen: false, dnssec: { vault, now } });
    const startMs = performance.now() - t0;
    try {
      const signedAtStart = engine.index.get(BIG_ZONE)?.signing;
      if (!signedAtStart) throw new Error(`${BIG_ZONE} is not signed in process`);
      const change = async (i: number): Promise<{ total: number; commit: number }> => {
        const name = `resign${i}.${BIG_ZONE}`;
        const value = `192.0.2.${i % 250}`;
        const start = performance.now();
        const outcome = await store.change(BIG_ZONE, [{ op: 'add', record: { name, type: 'A', ttl: 300, value } }]);
        const committed = performance.now();
        await engine.served(BIG_ZONE, outcome.zone.serial);
        const total = performance.now() - start;
        const node = engine.index.get(BIG_ZONE)?.nodes.get(name);
        if (!node?.get('RRSIG')?.length || !node.get('NSEC')) throw new Error(`${name} is served unsigned`);
        return { total, commit: committed - start };
      };
      const WARM_UP = 5;
      for (let i = 0; i < WARM_UP; i++) await change(i);
      const changes: Array<{ total: number; commit: number }> = [];
      for (let i = WARM_UP; i < WARM_UP + CHANGES; i++) changes.push(await change(i));
      // the incremental re-signing alone: the same kind of change (a new name) on the served copy, one after another
      let zone = defined(engine.index.get(BIG_ZONE), BIG_ZONE);
      const patches: number[] = [];
      const now = Math.floor(Date.now() / 1000);
      for (let i = 0; i < WARM_UP + CHANGES; i++) {
        const name = `patch${i}.${BIG_ZONE}`;
        const owners = new Map<string, RR[]>([
          [name, toAnswers([{ name, type: 'A', ttl: 300, value: `192.0.2.${i % 250}` }])],
        ]);
        const soa = { ...zone.soa, data: { ...zone.soa.data, serial: (zone.soa.data.serial ?? 0) + 1 } };
        const start = performance.now();
        const next: ZoneData = signPatch(zone, soa, owners, now);
        if (i >= WARM_UP) patches.push(performance.now() - start);
        zone = next;
      }
      const totals = changes.map((c) => c.total);
      const commits = changes.map((c) => c.commit);
      const ms = (xs: number[]): string => `median ${f2(quantile(xs, 0.5))} ms, p95 ${f2(quantile(xs, 0.95))} ms`;
      const refresh = await refreshing(engine, (t) => (moved = t));
      return [
        ...refresh,
        `DNSSEC re-signing ${BIG_ZONE} (${big.records} records, signed in process: DnsEngine.start ${f0(startMs)} ms, ` +
          `${signedAtStart.chain.length} names in the NSEC chain) after one change, ${CHANGES} changes (a new name with ` +
          `one A record each) after ${WARM_UP} to warm up:`,
        `  end to end (store.change → engine.served: commit, incremental re-signing, index swap): ${ms(totals)}, ` +
          `max ${f2(Math.max(...totals))} ms; of which the SQLite commit ${ms(commits)}`,
        `  the incremental re-signing alone (signPatch: the new name, its predecessor's NSEC, the apex): ${ms(patches)}`,
        `DNSSEC re-signing after one change: end to end median ${goalAtMost(quantile(totals, 0.5), 10, ' ms')}, ` +
          `p95 ${goalAtMost(quantile(totals, 0.95), 10, ' ms')}; signPatch alone p95 ${goalAtMost(quantile(patches, 0.95), 10, ' ms')}`,
      ];
    } finally {
      await engine.close();
    }
  } finally {
    await store.close();
  }
}

/** Wall and process CPU time (ms; the signing pool's threads included) of `work`. */
async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number; cpuMs: number }> {
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const value = await work();
  const ms = performance.now() - t0;
  const used = process.cpuUsage(cpu);
  return { value, ms, cpuMs: (used.user + used.system) / 1000 };
}

const rrsigCount = (zone: ZoneData): number => {
  let n = 0;
  for (const node of zone.nodes.values()) n += node.get('RRSIG')?.length ?? 0;
  return n;
};

/**
 * The signatures' refresh of the served copy against a whole signing of it: the refresh alone (refreshSignatures) and
 * the engine's end to end with the clock moved to the scheduler's due time (`move`), twice in turn.
 */
async function refreshing(engine: DnsEngine, move: (t: number) => void): Promise<string[]> {
  const served = (): ZoneData => defined(engine.index.get(BIG_ZONE), BIG_ZONE);
  const zone = served();
  const state = defined(zone.signing, 'signing');
  const signatures = rrsigCount(zone);
  const realNow = Math.floor(Date.now() / 1000);
  const whole = await timed(() => signZoneInSteps(zone, state.keys, state.policy, realNow));
  const bumped = { ...zone.soa, data: { ...zone.soa.data, serial: (zone.soa.data.serial ?? 0) + 1 } };
  const alone = await timed(async () => refreshSignatures(zone, bumped, SigningScheduler.dueAt(zone) ?? realNow));
  const rounds: Array<{ ms: number; cpuMs: number; resigned: number; at: number }> = [];
  for (let round = 0; round < 2; round++) {
    const before = served();
    const due = defined(SigningScheduler.dueAt(before), 'due');
    const serial = before.soa.data.serial;
    const oldInceptions = new Map<string, number>();
    for (const [owner, node] of before.nodes.entries())
      for (const r of node.get('RRSIG') ?? []) {
        const d = r.data as unknown as { typeCovered: string; inception: number };
        oldInceptions.set(`${owner} ${d.typeCovered}`, d.inception);
      }
    const t = await timed(async () => {
      move(due);
      engine.checkSigning();
      while (served().soa.data.serial === serial) await sleep(2);
    });
    let resigned = 0;
    for (const [owner, node] of served().nodes.entries())
      for (const r of node.get('RRSIG') ?? []) {
        const d = r.data as unknown as { typeCovered: string; inception: number };
        if (oldInceptions.get(`${owner} ${d.typeCovered}`) !== d.inception) resigned++;
      }
    rounds.push({ ms: t.ms, cpuMs: t.cpuMs, resigned, at: (due - state.signedAt) / 86_400 });
  }
  const first = defined(rounds[0], 'round');
  return [
    `DNSSEC refresh of ${BIG_ZONE}'s signatures (${signatures} RRSIGs; validity ${state.policy.signatureValidity / 86_400} d, ` +
      `expirations spread, re-signed when due):`,
    `  whole signing of the served copy (signZoneInSteps): ${f0(whole.ms)} ms wall, ${f0(whole.cpuMs)} ms CPU`,
    `  refreshSignatures alone at the first due time: ${f0(alone.ms)} ms wall, ${f0(alone.cpuMs)} ms CPU, ` +
      `${alone.value?.resigned ?? 'null'} RRSIGs made of ${signatures}`,
    ...rounds.map(
      (r, i) =>
        `  engine refresh ${i + 1} end to end (day ${f1(r.at)} after the whole signing: serial bump in the store → ` +
        `refreshed copy served): ${f0(r.ms)} ms wall, ${f0(r.cpuMs)} ms CPU, ${r.resigned} RRSIGs made`,
    ),
    `DNSSEC refresh / whole signing (the first, largest slice after a whole signing): wall ` +
      `${(first.ms / whole.ms).toFixed(3)}, CPU ${(first.cpuMs / whole.cpuMs).toFixed(3)}; the next: wall ` +
      `${((rounds[1]?.ms ?? NaN) / whole.ms).toFixed(3)}, CPU ${((rounds[1]?.cpuMs ?? NaN) / whole.cpuMs).toFixed(3)}`,
  ];
}

export async function dnssecBenchmark(): Promise<string[]> {
  for (const tool of ['named', 'knotd', 'keymgr', 'kzonesign', 'dnsperf', 'dig', 'dnssec-keygen', 'dnssec-signzone'])
    requireTool(tool);
  const root = mkdtempSync(join(tmpdir(), 'bench-dnssec-'));
  const out: string[] = [];
  try {
    if (PARTS.has('do')) out.push(...(await signedQueries(root)));
    if (PARTS.has('sign') || PARTS.has('resign')) {
      const big = await bigZoneStore(root);
      if (PARTS.has('sign')) out.push(...(await signingFromScratch(root, big)));
      if (PARTS.has('resign')) out.push(...(await resigning(big)));
    }
    return out;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

runWhenMain(module, dnssecBenchmark);
