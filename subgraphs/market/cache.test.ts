// @needs redis
import { randomUUID } from 'node:crypto';
import { MarketConfigSchema } from './config';
import { freePort } from '../../test/bench/processes';
import { startTestRedis, type TestRedis } from '../../test/support/redis-server';
import { closeMarketCache, createMarketCache, marketCacheHealth, type MarketCache } from './cache';
import { MarketData } from './market-data';
import type { Quote } from './model';
import type { MarketProvider, MarketRequest, MarketResult } from './providers/provider';

/**
 * The Redis-backed market cache against a redis-server of this test's own, killed, paused and restarted: requests
 * never wait for Redis (they go straight to the provider while it is away), an outage is logged once when it starts
 * and once when it ends, and the cache is used again when Redis is back.
 */
const ttls = MarketConfigSchema.parse({}).marketCacheTtl;
const COMMAND_TIMEOUT_MS = 300;

class CountingProvider implements MarketProvider {
  readonly name = 'counting';
  calls = 0;
  async fetch(requests: readonly MarketRequest[]): Promise<MarketResult[]> {
    this.calls++;
    return requests.map((r) => ({
      ok: true,
      value: { ticker: (r as { ticker: string }).ticker, price: this.calls } as Quote,
    }));
  }
}

interface Logged {
  level: 'info' | 'warn';
  msg: string;
}
function recorder(): { log: { info(o: object, m: string): void; warn(o: object, m: string): void }; lines: Logged[] } {
  const lines: Logged[] = [];
  return {
    lines,
    log: {
      info: (_o, msg) => lines.push({ level: 'info', msg }),
      warn: (_o, msg) => lines.push({ level: 'warn', msg }),
    },
  };
}

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`${what} not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await fn();
  return { value, ms: Date.now() - started };
}

const quote = (ticker: string): MarketRequest => ({ kind: 'quote', ticker });

describe('market cache on Redis that is away', () => {
  const caches: MarketCache[] = [];
  let redis: TestRedis | undefined;
  afterEach(async () => {
    await Promise.all(caches.splice(0).map((c) => closeMarketCache(c)));
    await redis?.kill();
    redis = undefined;
  });

  test('Redis never started: the first request answers at once from the provider; one log line for many requests', async () => {
    const port = await freePort();
    const { log, lines } = recorder();
    const cache = createMarketCache({
      redisUrl: `redis://127.0.0.1:${port}`,
      namespace: `t-${randomUUID()}`,
      log,
      commandTimeoutMs: COMMAND_TIMEOUT_MS,
    });
    caches.push(cache);
    const provider = new CountingProvider();
    const data = new MarketData(provider, cache, ttls);
    const first = await timed(() => data.fetchMany([quote('AAPL:NASDAQ')]));
    expect(first.value[0]).toMatchObject({ ok: true, value: { ticker: 'AAPL:NASDAQ' } });
    expect(first.ms).toBeLessThan(1_000);
    await until(() => marketCacheHealth(cache)?.state === 'down', 'the link is down');
    for (let i = 0; i < 50; i++) {
      const { value, ms } = await timed(() => data.fetchMany([quote(`T${i}:X`)]));
      expect(value[0]?.ok).toBe(true);
      expect(ms).toBeLessThan(1_000);
    }
    expect(provider.calls).toBe(51);
    expect(marketCacheHealth(cache)).toMatchObject({
      state: 'down',
      since: expect.any(String),
      error: expect.stringMatching(/ECONNREFUSED/),
    });
    // told once the first connection's retry failed too (one failed attempt alone may be a busy start-up)
    await until(() => lines.length > 0, 'the outage told');
    expect(lines).toEqual([
      {
        level: 'warn',
        msg: expect.stringMatching(
          /^market cache: Redis is unreachable, so market data is read from the provider without the shared cache until it answers again$/,
        ),
      },
    ]);
  });

  test('killed and restarted on the same port: reads through while away, logs the outage once each way, caches again after', async () => {
    redis = await startTestRedis();
    const { log, lines } = recorder();
    const cache = createMarketCache({
      redisUrl: redis.url,
      namespace: `t-${randomUUID()}`,
      log,
      commandTimeoutMs: COMMAND_TIMEOUT_MS,
    });
    caches.push(cache);
    const provider = new CountingProvider();
    const data = new MarketData(provider, cache, ttls);
    await until(() => marketCacheHealth(cache)?.state === 'up', 'connected');
    await data.fetchMany([quote('A:X')]);
    await until(async () => (await cache.get('quote:A:X')) !== undefined, 'the value in Redis');
    const other = new MarketData(new CountingProvider(), cache, ttls);
    expect((await other.fetchMany([quote('A:X')]))[0]).toMatchObject({ ok: true, value: { price: 1 } }); // from Redis

    await redis.kill();
    await until(() => marketCacheHealth(cache)?.state === 'down', 'the link is down');
    for (let i = 0; i < 20; i++) {
      const { value, ms } = await timed(() => data.fetchMany([quote(`B${i}:X`)]));
      expect(value[0]?.ok).toBe(true);
      expect(ms).toBeLessThan(1_000);
    }

    await redis.start();
    await until(() => marketCacheHealth(cache)?.state === 'up', 'reconnected', 15_000);
    expect(lines.map((l) => l.level)).toEqual(['warn', 'info']);
    expect(lines[1]?.msg).toMatch(/^market cache: Redis is back after [\d.]+ s/);
    const calls = provider.calls;
    await data.fetchMany([quote('C:X')]);
    await until(async () => (await cache.get('quote:C:X')) !== undefined, 'writes reach Redis again');
    expect((await other.fetchMany([quote('C:X')]))[0]).toMatchObject({ ok: true, value: { price: calls + 1 } });
  });

  test('a server that stops answering: each request waits at most the command timeout, then none waits at all', async () => {
    redis = await startTestRedis();
    const { log, lines } = recorder();
    const cache = createMarketCache({
      redisUrl: redis.url,
      namespace: `t-${randomUUID()}`,
      log,
      commandTimeoutMs: COMMAND_TIMEOUT_MS,
    });
    caches.push(cache);
    const data = new MarketData(new CountingProvider(), cache, ttls);
    await until(() => marketCacheHealth(cache)?.state === 'up', 'connected');
    redis.pause();
    try {
      const first = await timed(() => data.fetchMany([quote('P:X')]));
      expect(first.value[0]?.ok).toBe(true);
      expect(first.ms).toBeLessThan(COMMAND_TIMEOUT_MS + 700);
      expect(marketCacheHealth(cache)).toMatchObject({
        state: 'down',
        error: expect.stringMatching(/did not answer within 300 ms/),
      });
      const next = await timed(() => data.fetchMany([quote('Q:X')]));
      expect(next.ms).toBeLessThan(200);
    } finally {
      redis.resume();
    }
    await until(() => marketCacheHealth(cache)?.state === 'up', 'the probe finds it answering again');
    expect(lines.map((l) => l.level)).toEqual(['warn', 'info']);
  });
});
