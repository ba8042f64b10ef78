/**
 * `npm run bench -- replicas`: all-in-one replicas of the built program on one PostgreSQL database (a database made
 * for the run, dropped after). Propagation: a record created through one replica (the API answers once that replica's
 * DNS serves it) until each other replica's DNS answers it, median and p99 with three replicas. Throughput: API
 * creates per second, to one zone and to a zone per client, through 1, 2 and 3 replicas (clients spread over them),
 * with 1 replica as the reference. BENCH_REPLICA_WRITES (200) sets the propagation sample.
 */
import { DnsClient } from '../../dns/client';
import { call, login } from '../dns-api/api';
import { startReplica, stopReplicas, testDatabase, type Replica } from '../support/replica-cluster';
import { TEST_ADMIN_PASSWORD } from '../support/system';
import { runWhenMain, SECONDS } from './common';

const WRITES = Number(process.env.BENCH_REPLICA_WRITES ?? 200);
const CLIENTS = 8;

export async function replicasBenchmark(): Promise<string[]> {
  const out: string[] = ['replicas on one PostgreSQL database (each its own DATA_DIR, DNS_WORKERS=0):'];
  out.push(...(await withReplicas(3, propagation)));
  const oneZone: number[] = [];
  const ownZones: number[] = [];
  for (const n of [1, 2, 3]) {
    const [one, own] = await withReplicas(n, async (replicas, token) => [
      await throughput(replicas, token, false),
      await throughput(replicas, token, true),
    ]);
    oneZone.push(one);
    ownZones.push(own);
  }
  for (const [label, figures] of [
    ['one zone', oneZone],
    ['a zone per client', ownZones],
  ] as const)
    out.push(
      `API creates/s, ${CLIENTS} clients, ${label}: ${figures
        .map((f, i) => `${i + 1} replica(s) ${f.toFixed(0)} (ratio ${(f / figures[0]!).toFixed(2)})`)
        .join(', ')}`,
    );
  return out;
}

async function withReplicas<T>(n: number, fn: (replicas: Replica[], token: string) => Promise<T>): Promise<T> {
  const db = await testDatabase('bench_replicas');
  const replicas: Replica[] = [];
  try {
    for (let i = 0; i < n; i++) replicas.push(await startReplica(`r${i}`, db.url));
    return await fn(replicas, await login(replicas[0]!.api, 'admin', TEST_ADMIN_PASSWORD));
  } finally {
    await stopReplicas(replicas);
    await db.drop();
  }
}

async function createZone(r: Replica, token: string, zone: string): Promise<void> {
  const res = await call(r.api, 'POST', '/zones', { token, body: { name: zone } });
  if (res.status !== 201) throw new Error(`creating ${zone} answered ${res.status}: ${res.text}`);
}

async function addRecord(r: Replica, token: string, zone: string, name: string): Promise<void> {
  const res = await call(r.api, 'POST', `/zones/${zone}/records`, {
    token,
    body: { name, type: 'A', ttl: 300, value: '192.0.2.1' },
  });
  if (res.status !== 201) throw new Error(`creating ${name}.${zone} answered ${res.status}: ${res.text}`);
}

/** Milliseconds from the writer's answer until `client` answers the name, asking again every 0.2 ms or so. */
async function answeredAfter(client: DnsClient, name: string, since: number): Promise<number> {
  for (;;) {
    const res = await client.query(name, 'A');
    if (res.rcode === 0 && res.answers.length > 0) return performance.now() - since;
    if (performance.now() - since > 10_000) throw new Error(`${name} not answered within 10 s`);
  }
}

async function propagation(replicas: Replica[], token: string): Promise<string[]> {
  const zone = 'lag.bench';
  await createZone(replicas[0]!, token, zone);
  const clients = replicas.map((r) => new DnsClient({ server: r.dns, timeoutMs: 1000 }));
  const lags: number[] = [];
  for (let i = 0; i < WRITES; i++) {
    const writer = i % replicas.length;
    await addRecord(replicas[writer]!, token, zone, `lag-${i}`);
    const t0 = performance.now();
    const others = clients.filter((_, j) => j !== writer);
    lags.push(...(await Promise.all(others.map((c) => answeredAfter(c, `lag-${i}.${zone}`, t0)))));
  }
  lags.sort((x, y) => x - y);
  const at = (q: number) => lags[Math.min(lags.length - 1, Math.floor(q * lags.length))]!;
  return [
    `propagation with 3 replicas, ${WRITES} creates through each in turn (API answered → each other replica's DNS answers): median ${at(0.5).toFixed(1)} ms, p99 ${at(0.99).toFixed(1)} ms, max ${lags.at(-1)!.toFixed(1)} ms`,
  ];
}

/** Creates/s over SECONDS with CLIENTS clients spread over the replicas, to one zone or a zone each. */
async function throughput(replicas: Replica[], token: string, ownZones: boolean): Promise<number> {
  const zones = Array.from({ length: CLIENTS }, (_, c) => (ownZones ? `own${c}.tp.bench` : 'one.tp.bench'));
  for (const zone of new Set(zones)) await createZone(replicas[0]!, token, zone);
  const until = performance.now() + SECONDS * 1000;
  let done = 0;
  await Promise.all(
    zones.map(async (zone, c) => {
      const r = replicas[c % replicas.length]!;
      for (let i = 0; performance.now() < until; i++) {
        await addRecord(r, token, zone, `c${c}-${i}`);
        done++;
      }
    }),
  );
  return done / SECONDS;
}

runWhenMain(module, replicasBenchmark);
