// @needs postgres build bind redis
import pg from 'pg';
import { call, login } from '../dns-api/api';
import { axfrLines, dig } from '../support/dns-peers';
import { adminQuery, startReplica, stopReplicas, testDatabase, type Replica } from '../support/replica-cluster';
import { TEST_ADMIN_PASSWORD } from '../support/system';

/**
 * Three replicas of the built program on one PostgreSQL database: whatever a replica misses — its notification
 * connection cut while others write, a kill -9 during writes — it serves exactly what the store has soon after,
 * checked per zone by SOA serial and by AXFR content with BIND's dig; /healthz and /readyz stay bounded while the
 * database is stalled. The timings asserted are generous backstops; the figures are measured by `npm run bench`.
 */
const ZONE = 'replicas.example.test';
let db: Awaited<ReturnType<typeof testDatabase>>;
const replicas: Replica[] = [];
let token: string;

beforeAll(async () => {
  db = await testDatabase('catchup');
  // one after the other: the first creates the schema and the admin user, the others find them
  for (const name of ['a', 'b', 'c']) replicas.push(await startReplica(name, db.url));
  token = await login(replicas[0]!.api, 'admin', TEST_ADMIN_PASSWORD);
  const created = await call(replicas[0]!.api, 'POST', '/zones', { token, body: { name: ZONE } });
  expect(created.status).toBe(201);
}, 180_000);

afterAll(async () => {
  await stopReplicas(replicas);
  await db?.drop();
});

const a = (): Replica => replicas[0]!;
const b = (): Replica => replicas[1]!;
const c = (): Replica => replicas[2]!;

async function storeSerial(): Promise<number> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    const rows = (await client.query<{ serial: string }>('SELECT serial FROM zones WHERE name = $1', [ZONE])).rows;
    return Number(rows[0]!.serial);
  } finally {
    await client.end();
  }
}

async function servedSerial(r: Replica): Promise<number | null> {
  const soa = await dig(r.dns, [ZONE, 'SOA']);
  const fields = soa.answer[0]?.split(' ');
  return fields ? Number(fields[6]) : null;
}

/** Waits until every replica serves the store's serial with one AXFR content; gives how long that took. */
async function converged(deadlineMs = 15_000): Promise<{ ms: number; serial: number; lines: string[] }> {
  const started = Date.now();
  for (;;) {
    const serial = await storeSerial();
    const served = await Promise.all(replicas.map(servedSerial));
    if (served.every((s) => s === serial)) {
      const transfers = await Promise.all(replicas.map((r) => axfrLines(r.dns, ZONE)));
      if (transfers.every((t) => JSON.stringify(t) === JSON.stringify(transfers[0])))
        return { ms: Date.now() - started, serial, lines: transfers[0]! };
    }
    if (Date.now() - started > deadlineMs)
      throw new Error(`replicas serve ${JSON.stringify(served)}, the store has ${serial}, after ${deadlineMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function addRecord(r: Replica, name: string, value: string): Promise<void> {
  const res = await call(r.api, 'POST', `/zones/${ZONE}/records`, {
    token,
    body: { name, type: 'A', ttl: 300, value },
  });
  expect(res.status).toBe(201);
}

interface Replication {
  repaired: number;
  caughtUpFromLog: number;
  stale: unknown[];
}
async function replication(r: Replica): Promise<Replication> {
  const res = await fetch(`${r.url}/healthz`);
  const body = (await res.json()) as { dns: { replication: Replication } };
  return body.dns.replication;
}

test('notification connections cut while one replica writes: the others catch up from the change log', async () => {
  await converged();
  const before = await Promise.all([b(), c()].map(replication));
  // before each write, every replica's listening connection is ended (as a database restart or a network cut would
  // do it): each reconnects only after 250 ms, so the write's notification reaches none but the writer
  for (let i = 0; i < 11; i++) {
    const cut = await adminQuery(
      `SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity
       WHERE datname = $1 AND application_name = 'zone-store-listener'`,
      [db.name],
    );
    expect(cut.length).toBeLessThanOrEqual(3);
    await addRecord(a(), `cut-${i}`, `192.0.2.${i + 1}`);
  }
  const { ms, lines } = await converged();
  console.log(`after the cut, every replica served all 11 writes ${ms} ms after the last was answered`);
  for (let i = 0; i < 11; i++) expect(lines).toContain(`cut-${i}.${ZONE}. 300 in a 192.0.2.${i + 1}`);
  const after = await Promise.all([b(), c()].map(replication));
  // what was missed was brought in by the check or the log, not by chance
  for (const [i, r] of after.entries()) {
    expect(r.repaired + r.caughtUpFromLog).toBeGreaterThan(before[i]!.repaired + before[i]!.caughtUpFromLog);
    expect(r.stale).toEqual([]);
  }
});

test('a replica killed with SIGKILL during writes through another serves what the store has once restarted', async () => {
  const writes = (async () => {
    for (let i = 0; i < 30; i++) await addRecord(a(), `kill-${i}`, `198.51.100.${i + 1}`);
  })();
  await new Promise((r) => setTimeout(r, 100));
  await c().kill('SIGKILL');
  await writes;
  await c().restart();
  const { lines } = await converged();
  for (let i = 0; i < 30; i++) expect(lines).toContain(`kill-${i}.${ZONE}. 300 in a 198.51.100.${i + 1}`);
});

test('writes through every replica in turn: each serves the same serial and content', async () => {
  for (let i = 0; i < 12; i++) await addRecord(replicas[i % 3]!, `turn-${i}`, `203.0.113.${i + 1}`);
  const { lines } = await converged();
  for (let i = 0; i < 12; i++) expect(lines).toContain(`turn-${i}.${ZONE}. 300 in a 203.0.113.${i + 1}`);
});

test('a stalled database: /healthz and /readyz answer within seconds (degraded, not ready), then ready again', async () => {
  // (the lock below also stalls the replica check and the store probes of the two DNS parts: each gives up after 2 s)
  const locker = new pg.Client({ connectionString: db.url });
  await locker.connect();
  try {
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE zones IN ACCESS EXCLUSIVE MODE');
    const started = Date.now();
    const [health, ready] = await Promise.all([fetch(`${b().url}/healthz`), fetch(`${b().url}/readyz`)]);
    const took = Date.now() - started;
    const body = (await health.json()) as { status: string; dns: { status: string; problems: string[] } };
    expect(took).toBeLessThan(6_000); // each probe gives up after 2 s
    expect(health.status).toBe(200); // DNS keeps answering from what it has
    expect(body.dns.status).toBe('degraded');
    expect(body.dns.problems.join(' ')).toMatch(/did not answer within 2000 ms/);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { ready: boolean }).ready).toBe(false);
    // DNS still answers
    expect(await servedSerial(b())).toBe(await servedSerialAfterLock(locker));
    // a write waits for the lock at most 5 s, then fails whole, well before the gateway's 10 s: no late commit
    const writeStarted = Date.now();
    const write = await call(b().api, 'POST', `/zones/${ZONE}/records`, {
      token,
      body: { name: 'during-lock', type: 'A', ttl: 300, value: '192.0.2.99' },
    });
    expect(Date.now() - writeStarted).toBeLessThan(9_000);
    expect(write.status).toBe(503);
    expect(write.text).toMatch(/busy.*nothing was written/);
  } finally {
    await locker.query('ROLLBACK').catch(() => {});
    await locker.end();
  }
  for (let i = 0; i < 100; i++) {
    if ((await fetch(`${b().url}/readyz`)).status === 200) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  expect((await fetch(`${b().url}/readyz`)).status).toBe(200);
  expect((await fetch(`${b().url}/livez`)).status).toBe(200);
  const { lines } = await converged();
  expect(lines.join('\n')).not.toContain('during-lock');
}, 60_000);

/** The zone's serial as the locking transaction sees it (the lock holder may read). */
async function servedSerialAfterLock(locker: pg.Client): Promise<number> {
  const rows = (await locker.query<{ serial: string }>('SELECT serial FROM zones WHERE name = $1', [ZONE])).rows;
  return Number(rows[0]!.serial);
}
