// @needs redis
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClient } from '@redis/client';
import { call } from '../dns-api/api';
import { graphql, startSystem, type RunningSystem } from '../support/system';

/**
 * Every Redis key this program writes starts with REDIS_PREFIX and one `:` (docs/operations.md lists the layout):
 * two deployments with different prefixes on one Redis database share nothing — not the market cache, the live
 * poller, DNS tool sessions, login throttles. Runs on a database of its own (11), so a SCAN sees only this test's keys
 * (and any a failed run left behind, which are set aside and removed).
 */
const URL = 'redis://127.0.0.1:6379/11';
const run = `rk${process.pid}`;
const PREFIXES = [`${run}-a`, `${run}-b`] as const;

const redis = createClient({ url: URL });
const systems: RunningSystem[] = [];
let before = new Set<string>();

async function allKeys(): Promise<string[]> {
  const keys: string[] = [];
  for await (const batch of redis.scanIterator({ MATCH: '*', COUNT: 1000 })) keys.push(...batch);
  return keys.sort();
}

beforeAll(async () => {
  await redis.connect();
  before = new Set(await allKeys());
  for (const prefix of PREFIXES)
    systems.push(await startSystem({ REDIS_URL: URL, REDIS_PREFIX: prefix, LIVE_INTERVAL_MS: '200' }));
}, 120_000);

afterAll(async () => {
  for (const s of systems) await s.close();
  const keys = await allKeys(); // every key of this database is this test's (see above)
  if (keys.length > 0) await redis.del(keys);
  await redis.close();
});

/** What one deployment does that writes to Redis: market data, a live subscription, logins good and bad. */
async function exercise(sys: RunningSystem): Promise<void> {
  const quote = await graphql(sys.url, '{ quote(ticker: "AAPL:NASDAQ") { ticker } }');
  expect(quote.body.errors).toBeUndefined();
  const abort = new AbortController();
  const stream = await fetch(`${sys.url}/v1/live?tickers=MSFT:NASDAQ`, {
    signal: abort.signal,
    headers: { accept: 'text/event-stream' },
  });
  await (stream.body as ReadableStream<Uint8Array>).getReader().read();
  const token = readFileSync(join(sys.system.config.dataDir, 'dns-tool-token'), 'utf8').trim();
  const tool = async (body: Record<string, string>) =>
    fetch(`${sys.url}/api.php`, { method: 'POST', body: new URLSearchParams(body) });
  expect((await tool({ action: 'login_token', token })).status).toBe(200);
  expect((await tool({ action: 'login_token', token: `admin_${'0'.repeat(40)}` })).status).toBeGreaterThanOrEqual(400);
  expect(
    (await call(`${sys.url}/api/v1`, 'POST', '/auth/login', { body: { username: 'nobody', password: 'wrong' } }))
      .status,
  ).toBe(401);
  abort.abort();
}

test('two deployments with different REDIS_PREFIX on one Redis database write disjoint keys, each under its prefix', async () => {
  for (const sys of systems) await exercise(sys);
  const parts = [
    'market:quote:AAPL:NASDAQ',
    'live:',
    'tool-session:',
    'login-throttle:dns-tool:',
    'login-throttle:dns-api:',
  ];
  const keysOf = async (prefix: string) => (await allKeys()).filter((k) => k.startsWith(`${prefix}:`));
  for (const prefix of PREFIXES) {
    const deadline = Date.now() + 5_000;
    let mine = await keysOf(prefix);
    while (!parts.every((p) => mine.some((k) => k.startsWith(`${prefix}:${p}`))) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      mine = await keysOf(prefix);
    }
    for (const part of parts)
      expect({ part, found: mine.some((k) => k.startsWith(`${prefix}:${part}`)) }).toEqual({ part, found: true });
  }
  // every key of the database is under one of the two prefixes, followed by ':' — nothing shared, nothing bare
  const keys = (await allKeys()).filter((k) => !before.has(k));
  const stray = keys.filter((k) => !PREFIXES.some((p) => k.startsWith(`${p}:`)));
  expect(stray).toEqual([]);
  const [a, b] = await Promise.all(PREFIXES.map(keysOf));
  expect(a?.filter((k) => b?.includes(k))).toEqual([]);
  // the live fan-out's channel is under the prefix too
  for (const prefix of PREFIXES) expect(await redis.pubSubChannels(`${prefix}:*`)).toEqual([`${prefix}:live:ticks`]);
});
