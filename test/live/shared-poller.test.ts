// @needs redis build
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@redis/client';
import { PROJECT_ROOT } from '../../gateway/host/paths';
import { freePort, startNode, type Child } from '../bench/processes';
import { startTestRedis, type TestRedis } from '../support/redis-server';
import { dataFrames, openStream, waitFor, type OpenStream } from '../support/sse';

/**
 * Two gateway processes sharing the local Redis (REDIS_URL): one poller serves both (the lease holder polls the
 * union of both replicas' tickers in one provider call per interval and publishes each tick), both deliver every
 * tick with the same sequence numbers, and when the leader is killed the other takes over and its clients keep
 * receiving frames.
 */
const MAIN = join(PROJECT_ROOT, 'dist', 'gateway', 'main.js');
const REDIS_URL = 'redis://127.0.0.1:6379';
const INTERVAL_MS = 300;
const PREFIX = `onegraph-test-${randomUUID()}`;

interface MarketHealth {
  status: string;
  reason?: string;
  providerCalls: number;
  live: { role: string; sequence: number };
}
interface Health {
  status: string;
  subgraphs: { market: MarketHealth };
}

async function healthz(gw: Child): Promise<{ http: number; body: Health }> {
  const res = await fetch(`${gw.url}/healthz`);
  return { http: res.status, body: (await res.json()) as Health };
}

async function health(gw: Child): Promise<MarketHealth> {
  return (await healthz(gw)).body.subgraphs.market;
}

function replica(redisUrl = REDIS_URL, prefix = PREFIX): Promise<Child> {
  return startNode(MAIN, {
    REDIS_URL: redisUrl,
    REDIS_PREFIX: prefix,
    LIVE_INTERVAL_MS: String(INTERVAL_MS),
    LOG_LEVEL: 'warn',
    DNS_PORT: '0',
    DNS_API_PORT: '0',
    DATA_DIR: mkdtempSync(join(tmpdir(), 'onegraph-replica-')),
  });
}

const ids = (s: OpenStream) => dataFrames(s.frames).map((f) => Number(f.id));

/** Polls an async check every 50 ms until it holds; fails after `timeoutMs` naming `what`. */
async function eventually(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`${what} not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Every frame's id above the one before it: the stream's sequence never went back. */
function expectRising(s: OpenStream): void {
  const seen = ids(s);
  const back = seen.flatMap((id, i) => (i > 0 && id <= (seen[i - 1] as number) ? [`${seen[i - 1]} then ${id}`] : []));
  expect(back).toEqual([]);
}

describe('two replicas on the shared Redis', () => {
  let a: Child;
  let b: Child;
  const streams: OpenStream[] = [];

  beforeAll(async () => {
    const redis = createClient({ url: REDIS_URL });
    await redis.connect().catch((err: unknown) => {
      throw new Error(`this test needs Redis at ${REDIS_URL}: ${String(err)}`);
    });
    await redis.close();
    [a, b] = await Promise.all([replica(), replica()]);
  }, 60_000);

  afterAll(async () => {
    for (const s of streams) s.close();
    await Promise.all([a?.stop(), b?.stop()]);
    const redis = createClient({ url: REDIS_URL });
    await redis.connect();
    for (const key of await redis.keys(`${PREFIX}:*`)) await redis.del(key);
    await redis.close();
  });

  test('one poller for both replicas; each delivers every tick; the other takes over when the leader dies', async () => {
    const onA = await openStream(`${a.url}/v1/live?tickers=AAPL:NASDAQ`);
    const onB = await openStream(`${b.url}/v1/live?tickers=BTC-USD`);
    streams.push(onA, onB);
    expect([onA.status, onB.status]).toEqual([200, 200]);
    await waitFor(() => ids(onA).length >= 3 && ids(onB).length >= 3, 10_000, 'three frames on each replica');

    // Exactly one leader; the follower asks the provider nothing while the leader polls once per interval.
    const roles = [(await health(a)).live.role, (await health(b)).live.role].sort();
    expect(roles).toEqual(['follower', 'leader']);
    const [leader, follower, followerStream, leaderStream] =
      (await health(a)).live.role === 'leader' ? [a, b, onB, onA] : [b, a, onA, onB];
    const before = { leader: (await health(leader)).providerCalls, follower: (await health(follower)).providerCalls };
    const framesBefore = ids(followerStream).length;
    await new Promise((r) => setTimeout(r, INTERVAL_MS * 6));
    const leaderCalls = (await health(leader)).providerCalls - before.leader;
    expect((await health(follower)).providerCalls - before.follower).toBe(0);
    expect(leaderCalls).toBeGreaterThanOrEqual(3);
    expect(leaderCalls).toBeLessThanOrEqual(8); // one per interval (6 ± timer jitter), not one per replica or ticker
    expect(ids(followerStream).length - framesBefore).toBeGreaterThanOrEqual(3);

    // Both replicas delivered the same ticks: the sequence numbers after the first frames are shared.
    const shared = ids(onA)
      .slice(1)
      .filter((id) => ids(onB).includes(id));
    expect(shared.length).toBeGreaterThanOrEqual(3);
    const items = dataFrames(onB.frames).map((f) =>
      (JSON.parse(f.data as string) as Array<{ ticker: string }>).map((i) => i.ticker),
    );
    expect(items.every((t) => t.length === 1 && t[0] === 'BTC-USD')).toBe(true);

    // Kill the leader: no goodbye, its lease must run out. The follower's client keeps getting frames with rising ids.
    leader.process.kill('SIGKILL');
    leaderStream.close();
    const lastId = Math.max(...ids(followerStream));
    await waitFor(
      () => ids(followerStream).filter((id) => id > lastId).length >= 3,
      10_000,
      'three frames after the leader died',
    );
    expect((await health(follower)).live.role).toBe('leader');
    const after = ids(followerStream).filter((id) => id > lastId);
    expect(after).toEqual([...after].sort((x, y) => x - y));
  }, 60_000);
});

/**
 * A Redis of this test's own, killed (SIGKILL) and started again on the same port under two replicas with open
 * streams: frames keep flowing on both during the outage (each replica polls for its own subscribers), /healthz
 * answers 200 `degraded` with the reason, the replicas share one poller again when Redis is back, and no stream's
 * sequence ever goes back (the restarted Redis has lost its counter).
 */
describe('Redis away and back', () => {
  let redis: TestRedis;
  const replicas: Child[] = [];
  const open: OpenStream[] = [];
  beforeAll(async () => {
    redis = await startTestRedis();
  }, 30_000);
  afterAll(async () => {
    for (const s of open) s.close();
    await Promise.all(replicas.map((r) => r.stop()));
    await redis?.kill();
  });

  test('killed and restarted on the same port: frames keep flowing, /healthz says degraded, sequence never goes back', async () => {
    const prefix = `onegraph-test-${randomUUID()}`;
    const [a, b] = await Promise.all([replica(redis.url, prefix), replica(redis.url, prefix)]);
    replicas.push(a, b);
    const [onA, onB] = [
      await openStream(`${a.url}/v1/live?tickers=AAPL:NASDAQ`),
      await openStream(`${b.url}/v1/live?tickers=BTC-USD`),
    ];
    open.push(onA, onB);
    expect([onA.status, onB.status]).toEqual([200, 200]);
    const shared = async () =>
      [(await health(a)).live.role, (await health(b)).live.role].sort().join() === 'follower,leader';
    await eventually(shared, 15_000, 'one leader and one follower');
    await waitFor(() => ids(onA).length >= 3 && ids(onB).length >= 3, 10_000, 'three frames on each replica');

    await redis.kill();
    const killed = { a: ids(onA).length, b: ids(onB).length };
    await eventually(
      async () => (await healthz(a)).body.status === 'degraded' && (await healthz(b)).body.status === 'degraded',
      10_000,
      '/healthz degraded',
    );
    for (const gw of [a, b]) {
      const { http, body } = await healthz(gw);
      expect(http).toBe(200);
      expect(body.subgraphs.market).toMatchObject({
        status: 'degraded',
        reason: expect.stringMatching(/Redis unreachable since .*polls the provider for its own live subscribers/),
      });
      expect(body.subgraphs.market.live.role).toBe('local');
    }
    await waitFor(
      () => ids(onA).length >= killed.a + 4 && ids(onB).length >= killed.b + 4,
      10_000,
      'four frames on each replica while Redis is away',
    );
    const quote = await fetch(`${a.url}/v1/quote/MSFT:NASDAQ`);
    expect(quote.status).toBe(200); // the cache reads through to the provider

    await redis.start();
    await eventually(
      async () => (await healthz(a)).body.status === 'ok' && (await healthz(b)).body.status === 'ok' && shared(),
      20_000,
      'both back on the shared poller',
    );
    const back = { a: ids(onA).length, b: ids(onB).length };
    await waitFor(
      () => ids(onA).length >= back.a + 5 && ids(onB).length >= back.b + 5,
      10_000,
      'five frames on each replica after Redis is back',
    );
    // One poller again: the last frames of both streams carry the same sequence numbers.
    const recentA = ids(onA).slice(back.a + 2);
    expect(
      ids(onB)
        .slice(back.b + 2)
        .filter((id) => recentA.includes(id)).length,
    ).toBeGreaterThanOrEqual(2);
    expectRising(onA);
    expectRising(onB);
  }, 90_000);

  test('Redis never started: the first market request answers at once with data; /healthz 200 degraded; live still flows', async () => {
    const gw = await replica(`redis://127.0.0.1:${await freePort()}`, `onegraph-test-${randomUUID()}`);
    replicas.push(gw);
    const started = Date.now();
    const res = await fetch(`${gw.url}/v1/quote/AAPL:NASDAQ`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ticker: 'AAPL:NASDAQ', price: expect.any(Number) });
    expect(Date.now() - started).toBeLessThan(2_000); // was 10 s and then a 400
    const gql = await fetch(`${gw.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ quote(ticker: "MSFT:NASDAQ") { price } }' }),
    });
    expect(gql.status).toBe(200);
    expect(((await gql.json()) as { data: { quote: { price: unknown } } }).data.quote.price).toEqual(
      expect.any(Number),
    );
    await eventually(async () => (await healthz(gw)).body.status === 'degraded', 10_000, '/healthz degraded');
    expect((await healthz(gw)).http).toBe(200);
    const stream = await openStream(`${gw.url}/v1/live?tickers=AAPL:NASDAQ`);
    open.push(stream);
    await waitFor(() => ids(stream).length >= 3, 10_000, 'three frames without Redis');
    expectRising(stream);
  }, 60_000);
});
