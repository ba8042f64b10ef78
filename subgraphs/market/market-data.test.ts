// @needs redis
import { randomUUID } from 'node:crypto';
import { MarketConfigSchema } from './config';
import { closeMarketCache, createMarketCache, marketCacheHealth, type MarketCache } from './cache';
import { MarketData } from './market-data';
import { UpstreamError, type MarketProvider, type MarketRequest, type MarketResult } from './providers/provider';

const ttls = MarketConfigSchema.parse({}).marketCacheTtl;
const quoteReq = (ticker: string): MarketRequest => ({ kind: 'quote', ticker });

/** A provider whose answers the test releases by hand, to observe coalescing of in-flight calls. */
class GatedProvider implements MarketProvider {
  readonly name = 'gated';
  calls: MarketRequest[][] = [];
  private release: Array<() => void> = [];
  fail = false;
  async fetch(requests: readonly MarketRequest[]): Promise<MarketResult[]> {
    this.calls.push([...requests]);
    await new Promise<void>((r) => this.release.push(r));
    return requests.map((r) =>
      this.fail
        ? { ok: false, error: new UpstreamError('boom') }
        : {
            ok: true,
            value:
              r.kind === 'quote' && r.ticker.startsWith('NONE')
                ? null
                : ({ ticker: (r as { ticker: string }).ticker } as never),
          },
    );
  }
  releaseAll(): void {
    this.release.splice(0).forEach((r) => r());
  }
}

async function settle(): Promise<void> {
  await new Promise((r) => setImmediate(r));
}

describe('MarketData over the memory cache', () => {
  let provider: GatedProvider;
  let data: MarketData;
  let now: number;
  beforeEach(() => {
    provider = new GatedProvider();
    now = 1_000_000;
    data = new MarketData(provider, createMarketCache(), ttls, undefined, () => now);
  });

  test('misses of one batch go to the provider in ONE call, duplicates sent once', async () => {
    const p = data.fetchMany([quoteReq('A:X'), quoteReq('B:X'), quoteReq('A:X')]);
    await settle();
    provider.releaseAll();
    const results = await p;
    expect(provider.calls).toHaveLength(1);
    expect(provider.calls[0]).toHaveLength(2);
    expect(results.map((r) => r.ok && r.value)).toEqual([{ ticker: 'A:X' }, { ticker: 'B:X' }, { ticker: 'A:X' }]);
  });

  test('identical in-flight calls from concurrent requests are coalesced', async () => {
    const first = data.fetchMany([quoteReq('A:X')]);
    await settle();
    const second = data.fetchMany([quoteReq('A:X')]);
    await settle();
    provider.releaseAll();
    await Promise.all([first, second]);
    expect(provider.calls).toHaveLength(1);
    expect(data.stats.coalesced).toBe(1);
  });

  test('values are cached for their kind TTL, then fetched again', async () => {
    const load = async () => {
      const p = data.fetchMany([quoteReq('A:X')]);
      await settle();
      provider.releaseAll();
      return p;
    };
    const [r] = await load();
    expect(r).toMatchObject({ ok: true, expiresAt: now + ttls.quote * 1000 });
    await load(); // coalesced with the in-flight call or read from the cache: no second provider call
    expect(provider.calls).toHaveLength(1);
    now += ttls.quote * 1000 + 1;
    await load();
    expect(provider.calls).toHaveLength(2);
  });

  test('"no data" is cached with the notFound TTL; upstream errors are not cached', async () => {
    let p = data.fetchMany([quoteReq('NONE:X')]);
    await settle();
    provider.releaseAll();
    expect((await p)[0]).toEqual({ ok: true, value: null, expiresAt: now + ttls.notFound * 1000 });
    provider.fail = true;
    p = data.fetchMany([quoteReq('B:X')]);
    await settle();
    provider.releaseAll();
    expect((await p)[0]).toMatchObject({ ok: false, error: expect.any(UpstreamError) });
    provider.fail = false;
    p = data.fetchMany([quoteReq('B:X')]);
    await settle();
    provider.releaseAll();
    expect((await p)[0]).toMatchObject({ ok: true, value: { ticker: 'B:X' } });
    expect(provider.calls).toHaveLength(3);
  });

  test('a provider that throws becomes an UpstreamError per item, never a crash', async () => {
    const throwing: MarketProvider = {
      name: 't',
      fetch: async () => {
        throw new Error('socket hang up');
      },
    };
    const d = new MarketData(throwing, createMarketCache(), ttls);
    const [r] = await d.fetchMany([quoteReq('A:X')]);
    expect(r).toMatchObject({ ok: false });
    expect(!r?.ok && r?.error.message).toMatch(/market provider failed: Error: socket hang up/);
  });

  test('the loader batches one tick of loads and reports freshness', async () => {
    const fresh: number[] = [];
    const loader = data.createLoader((s) => fresh.push(s));
    const all = Promise.all([loader.load(quoteReq('A:X')), loader.load({ kind: 'company', ticker: 'A:X' })]);
    await settle();
    provider.releaseAll();
    await all;
    expect(provider.calls).toHaveLength(1);
    expect(fresh.sort((a, b) => a - b)).toEqual([ttls.quote, ttls.company]);
  });
});

describe('MarketData over Redis (shared by replicas)', () => {
  const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const namespace = `test-market-${randomUUID()}`;
  let caches: MarketCache[] = [];
  afterAll(async () => {
    await caches[0]?.clear();
    for (const c of caches) await closeMarketCache(c);
  });

  test('a value fetched by one replica is read by another without a provider call', async () => {
    const errors: unknown[] = [];
    caches = [
      createMarketCache({ redisUrl, namespace, onError: (e) => errors.push(e) }),
      createMarketCache({ redisUrl, namespace }),
    ];
    // Nothing waits for Redis (until it answers, reads miss and writes are skipped): wait for it here.
    for (let i = 0; i < 500 && caches.some((c) => marketCacheHealth(c)?.state !== 'up'); i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(caches.map((c) => marketCacheHealth(c)?.state)).toEqual(['up', 'up']);
    const p1 = new GatedProvider();
    const p2 = new GatedProvider();
    const replica1 = new MarketData(p1, caches[0] as MarketCache, ttls);
    const replica2 = new MarketData(p2, caches[1] as MarketCache, ttls);
    const first = replica1.fetchMany([quoteReq('SHARED:X')]);
    for (let i = 0; i < 50 && p1.calls.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    p1.releaseAll();
    expect((await first)[0]).toMatchObject({ ok: true, value: { ticker: 'SHARED:X' } });
    // the write is asynchronous: wait until Redis has it
    for (let i = 0; i < 100 && (await (caches[1] as MarketCache).get('quote:SHARED:X')) === undefined; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    const second = await replica2.fetchMany([quoteReq('SHARED:X')]);
    expect(second[0]).toMatchObject({ ok: true, value: { ticker: 'SHARED:X' } });
    expect(p2.calls).toHaveLength(0);
    expect(replica2.stats.cacheHits).toBe(1);
    expect(errors).toEqual([]);
  });
});

describe('memory cache store', () => {
  test('keeps values through Keyv and forgets the oldest beyond its bound', async () => {
    const cache = createMarketCache({ maxEntries: 2 });
    await cache.set('a', { v: null, exp: 1 });
    await cache.set('b', { v: null, exp: 2 });
    expect(await cache.get('a')).toEqual({ v: null, exp: 1 });
    await cache.set('c', { v: null, exp: 3 });
    expect(await cache.getMany(['a', 'b', 'c'])).toEqual([undefined, { v: null, exp: 2 }, { v: null, exp: 3 }]);
  });
});
