/**
 * The references of the isolation bench (test/bench/isolation.ts), on this machine in the same run with the same
 * master files, each under the same UDP load as ours (test/bench/udp-load.ts): PowerDNS Authoritative (gsqlite3,
 * test/bench/pdns.ts) importing the zone through its HTTP API (one `POST /zones` with every rrset), then listing and
 * exporting it; BIND 9 `named` serving the file to concurrent AXFRs (after a window at rest: the load's own floor);
 * `dnssec-signzone` signing it with keys from `dnssec-keygen` (no server: no load). Each figure is a wall time, or
 * the error that stopped it (a reference that fails does not stop the bench).
 */
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DnsClient } from '../../dns/client';
import { parseZoneFile } from '../../dns/zonefile';
import { startBind, withServer } from './dns-servers';
import { answered, LOSS_MS, message, sleep, until, WARM_UP_MS } from './isolation-dns';
import type { WindowStats } from './isolation-stats';
import { startPdns } from './pdns';
import { startUdpLoad, type Question, type UdpLoad } from './udp-load';

const run = promisify(execFile);

/** A wall time in ms, or why there is none. */
export type Timed = { ms: number; note: string } | { error: string };

/** A reference's wall time and what its DNS answered meanwhile. */
export interface Measured {
  time: Timed;
  dns?: WindowStats;
}

/** A zone of the bench: name, master file, existing questions. */
export interface BenchZone {
  name: string;
  file: string;
  text: string;
  questions: Question[];
  /** Records besides the SOA (what a transfer holds). */
  records: number;
}

export interface LoadOptions {
  qps: number;
  /** The window at rest before the operations (BIND only), ms. */
  idleMs: number;
}

/** `fn`'s wall time, or its error. */
async function timed(fn: () => Promise<string>): Promise<Timed> {
  const t0 = performance.now();
  try {
    const note = await fn();
    return { ms: performance.now() - t0, note };
  } catch (err) {
    return { error: message(err) };
  }
}

/** `fn` timed in a window of `load`. */
async function measured(load: UdpLoad, label: string, fn: () => Promise<string>): Promise<Measured> {
  load.open(label);
  const time = await timed(fn);
  return { time, dns: await load.close() };
}

/** The load on 127.0.0.1:`port` once `other` answers there, for `fn`; stopped after. */
async function withLoad<T>(port: number, other: BenchZone, qps: number, fn: (load: UdpLoad) => Promise<T>): Promise<T> {
  const ready = await until(AbortSignal.timeout(30_000), 100, async () => {
    return (await answered(port, other.questions.slice(0, 10))) === Math.min(10, other.questions.length);
  });
  if (!ready) throw new Error(`${other.name} not answered on port ${port} within 30 s`);
  const load = await startUdpLoad({ port, qps, timeoutMs: LOSS_MS, other: other.questions });
  try {
    await sleep(WARM_UP_MS);
    return await fn(load);
  } finally {
    await load.stop();
  }
}

/** `count` transfers of `zone` at once from 127.0.0.1:`port` through our DNS client; the records each brought. */
export async function axfrs(
  port: number,
  zone: string,
  count: number,
  expected: number,
  signal?: AbortSignal,
): Promise<string> {
  const client = new DnsClient({ server: { host: '127.0.0.1', port }, timeoutMs: 60_000 });
  const sizes = await Promise.all(
    Array.from({ length: count }, async () => (await client.transfer(zone, { signal })).records.length),
  );
  const wrong = sizes.filter((n) => n !== expected);
  if (wrong.length)
    throw new Error(`${wrong.length} of ${count} transfers brought ${wrong[0]} records, not ${expected}`);
  return `${count} × ${expected} records`;
}

type Rrset = { name: string; type: string; ttl: number; records: Array<{ content: string; disabled: boolean }> };

/** PowerDNS rrsets of a master file (names and targets absolute, as its API wants them). */
function rrsetsOf(zone: BenchZone): Rrset[] {
  const parsed = parseZoneFile(zone.text, { origin: zone.name });
  const sets = new Map<string, Rrset>();
  const add = (name: string, type: string, ttl: number, content: string): void => {
    const key = `${name} ${type}`;
    const set = sets.get(key) ?? { name: `${name}.`, type, ttl, records: [] };
    set.records.push({ content, disabled: false });
    sets.set(key, set);
  };
  const soa = parsed.soa;
  if (soa) {
    const fields = `${soa.serial} ${soa.refresh} ${soa.retry} ${soa.expire} ${soa.minimum}`;
    add(zone.name, 'SOA', soa.ttl, `${soa.mname}. ${soa.rname}. ${fields}`);
  }
  for (const r of parsed.records) add(r.name, r.type, r.ttl, r.value);
  return [...sets.values()];
}

export interface PdnsFigures {
  import: Measured;
  /** Absent when not asked for (0 of them). */
  listings?: Measured;
  exports?: Measured;
}

/**
 * PowerDNS under the load (half `other`, created first; half `work` once imported): `work` created with all its
 * rrsets in one request, then `listings` GETs of it and `exports` exports at once (none when 0).
 */
export async function pdnsReference(
  work: BenchZone,
  other: BenchZone,
  listings: number,
  exports: number,
  options: LoadOptions,
): Promise<PdnsFigures> {
  const pdns = await startPdns();
  try {
    const base = `${pdns.url}/api/v1/servers/localhost/zones`;
    const headers = { 'x-api-key': pdns.apiKey, 'content-type': 'application/json' };
    const expect = async (res: Response, status: number): Promise<number> => {
      const body = Buffer.from(await res.arrayBuffer());
      if (res.status !== status)
        throw new Error(`PowerDNS answered ${res.status} (expected ${status}): ${body.toString().slice(0, 200)}`);
      return body.length;
    };
    const create = async (zone: BenchZone): Promise<string> => {
      const rrsets = rrsetsOf(zone);
      const body = JSON.stringify({ name: `${zone.name}.`, kind: 'Native', nameservers: [], rrsets });
      await expect(await fetch(base, { method: 'POST', headers, body }), 201);
      return `${rrsets.length} rrsets in one POST /zones`;
    };
    await create(other);
    const many = (n: number, path: string) => async (): Promise<string> => {
      const sizes = await Promise.all(
        Array.from({ length: n }, async () => expect(await fetch(`${base}/${work.name}.${path}`, { headers }), 200)),
      );
      return `${n} × ${((sizes[0] ?? 0) / 1048576).toFixed(1)} MB`;
    };
    return await withLoad(pdns.dnsPort, other, options.qps, async (load) => {
      const imported = await measured(load, 'PowerDNS import', () => create(work));
      load.target(work.questions);
      const ok = 'ms' in imported.time;
      const then = async (n: number, label: string, path: string): Promise<Measured | undefined> =>
        n === 0
          ? undefined
          : ok
            ? measured(load, label, many(n, path))
            : { time: { error: 'the zone was not imported' } };
      return {
        import: imported,
        listings: await then(listings, 'PowerDNS listings', ''),
        exports: await then(exports, 'PowerDNS exports', '/export'),
      };
    });
  } finally {
    await pdns.stop();
  }
}

export interface BindFigures {
  idle: Measured;
  axfrs: Measured;
}

/** BIND 9 serving both master files under the load: a window at rest, then `count` AXFRs of `work` at once. */
export async function bindReference(
  dir: string,
  work: BenchZone,
  other: BenchZone,
  count: number,
  options: LoadOptions,
): Promise<BindFigures> {
  const zones = [work, other].map((z) => ({ name: z.name, file: z.file, options: 'allow-transfer { any; };' }));
  return withServer(startBind('BIND 9', dir, zones), (bind) =>
    withLoad(bind.port, other, options.qps, async (load) => {
      load.target(work.questions);
      const idle = await measured(load, 'BIND at rest', async () => {
        await sleep(options.idleMs);
        return 'at rest';
      });
      const transfers = await measured(load, 'BIND AXFRs', () => axfrs(bind.port, work.name, count, work.records));
      return { idle, axfrs: transfers };
    }),
  );
}

/**
 * `dnssec-signzone -S` (NSEC; verifies every signature after signing, as it does by default) over the master file
 * with a KSK and a ZSK of `algorithm` made beforehand by `dnssec-keygen` (not timed); bounded by `timeoutMs`.
 */
export async function signzone(
  dir: string,
  zone: BenchZone,
  algorithm: string,
  bits: number | undefined,
  timeoutMs: number,
): Promise<Timed> {
  const keys = join(dir, `keys-${algorithm}`);
  mkdirSync(keys, { recursive: true });
  const size = bits ? ['-b', String(bits)] : [];
  try {
    for (const flags of [['-f', 'KSK'], []])
      await run('dnssec-keygen', ['-q', '-K', keys, '-a', algorithm, ...size, ...flags, zone.name], { cwd: dir });
  } catch (err) {
    return { error: `dnssec-keygen: ${message(err)}` };
  }
  const out = join(dir, `${zone.name}.${algorithm}.signed`);
  const t0 = performance.now();
  return timed(async () => {
    const args = ['-S', '-t', '-K', keys, '-o', zone.name, '-f', out, zone.file];
    const { stdout } = await run('dnssec-signzone', args, { cwd: dir, timeout: timeoutMs, maxBuffer: 1 << 24 }).catch(
      (err: unknown) => {
        if ((err as { killed?: boolean }).killed) throw new Error(`not finished within ${timeoutMs / 1000} s`);
        throw err instanceof Error ? err : new Error(String(err));
      },
    );
    const signatures = /Signatures generated:\s+(\d+)/.exec(stdout)?.[1];
    // stopped by the timeout's SIGTERM, it may still exit 0, without its statistics
    if (signatures === undefined || performance.now() - t0 >= timeoutMs)
      throw new Error(`not finished within ${timeoutMs / 1000} s`);
    return `${signatures} signatures`;
  });
}
