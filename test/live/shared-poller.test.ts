import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@redis/client';
import { PROJECT_ROOT } from '../../gateway/paths';
import { startNode, type Child } from '../bench/processes';
import { dataFrames, openStream, waitFor, type OpenStream } from '../helpers/sse';

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

interface Health {
  subgraphs: { market: { providerCalls: number; live: { role: string; sequence: number } } };
}

async function health(gw: Child): Promise<Health['subgraphs']['market']> {
  return ((await (await fetch(`${gw.url}/healthz`)).json()) as Health).subgraphs.market;
}

function replica(): Promise<Child> {
  return startNode(MAIN, {
    REDIS_URL, REDIS_PREFIX: PREFIX, LIVE_INTERVAL_MS: String(INTERVAL_MS), LOG_LEVEL: 'warn',
    DNS_PORT: '0', DNS_API_PORT: '0', DATA_DIR: mkdtempSync(join(tmpdir(), 'onegraph-replica-')),
  });
}

const ids = (s: OpenStream) => dataFrames(s.frames).map((f) => Number(f.id));

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
  const [leader, follower, followerStream, leaderStream] = (await health(a)).live.role === 'leader' ? [a, b, onB, onA] : [b, a, onA, onB];
  const before = { leader: (await health(leader)).providerCalls, follower: (await health(follower)).providerCalls };
  const framesBefore = ids(followerStream).length;
  await new Promise((r) => setTimeout(r, INTERVAL_MS * 6));
  const leaderCalls = (await health(leader)).providerCalls - before.leader;
  expect((await health(follower)).providerCalls - before.follower).toBe(0);
  expect(leaderCalls).toBeGreaterThanOrEqual(3);
  expect(leaderCalls).toBeLessThanOrEqual(8); // one per interval (6 ± timer jitter), not one per replica or ticker
  expect(ids(followerStream).length - framesBefore).toBeGreaterThanOrEqual(3);

  // Both replicas delivered the same ticks: the sequence numbers after the first frames are shared.
  const shared = ids(onA).slice(1).filter((id) => ids(onB).includes(id));
  expect(shared.length).toBeGreaterThanOrEqual(3);
  const items = dataFrames(onB.frames).map((f) => (JSON.parse(f.data as string) as Array<{ ticker: string }>).map((i) => i.ticker));
  expect(items.every((t) => t.length === 1 && t[0] === 'BTC-USD')).toBe(true);

  // Kill the leader: no goodbye, its lease must run out. The follower's client keeps getting frames with rising ids.
  leader.process.kill('SIGKILL');
  leaderStream.close();
  const lastId = Math.max(...ids(followerStream));
  await waitFor(() => ids(followerStream).filter((id) => id > lastId).length >= 3, 10_000, 'three frames after the leader died');
  expect((await health(follower)).live.role).toBe('leader');
  const after = ids(followerStream).filter((id) => id > lastId);
  expect(after).toEqual([...after].sort((x, y) => x - y));
}, 60_000);
