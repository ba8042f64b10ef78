import DataLoader from 'dataloader';
import type { GraphQLError } from 'graphql';
import { upstreamUnavailable } from '../errors';
import type { MarketCache } from './cache';
import {
  requestKey,
  UpstreamError,
  type MarketProvider,
  type MarketRequest,
  type MarketResult,
  type MarketValue,
} from './providers/provider';

/** TTL in seconds per kind of data (see gateway config `marketCacheTtl`). */
export interface MarketTtls {
  quote: number;
  company: number;
  chartIntraday: number;
  chartDaily: number;
  news: number;
  financials: number;
  related: number;
  indices: number;
  movers: number;
  trending: number;
  earnings: number;
  headline: number;
  notFound: number;
}

/** A result with the instant its value stops being fresh, so responses built from it can say how long they keep. */
export type TimedResult = { ok: true; value: MarketValue; expiresAt: number } | { ok: false; error: UpstreamError };

export interface MarketDataStats {
  providerCalls: number;
  cacheHits: number;
  coalesced: number;
}

export interface MarketDataLogger {
  warn(obj: object, msg: string): void;
}

/**
 * Market data with the shared cache in front of the provider: one cache read for a whole batch, identical
 * in-flight provider calls coalesced (also across concurrent requests), and one provider call for all misses.
 */
export class MarketData {
  readonly stats: MarketDataStats = { providerCalls: 0, cacheHits: 0, coalesced: 0 };
  private readonly inFlight = new Map<string, Promise<TimedResult>>();

  constructor(
    readonly provider: MarketProvider,
    private readonly cache: MarketCache,
    private readonly ttls: MarketTtls,
    private readonly log?: MarketDataLogger,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Results of a batch, in order. `fresh` skips the cache read (the live price hub polls for current prices) but
   * still joins identical calls in flight and writes what it gets to the cache.
   */
  async fetchMany(requests: readonly MarketRequest[], options: { fresh?: boolean } = {}): Promise<TimedResult[]> {
    const keys = requests.map(requestKey);
    const cached = options.fresh ? [] : await this.readCache(keys);
    const now = this.now();
    const results = new Array<TimedResult | Promise<TimedResult> | undefined>(requests.length);
    const missIndex = new Map<string, number>(); // key -> position in `misses` (duplicates in a batch share one)
    const misses: MarketRequest[] = [];
    keys.forEach((key, i) => {
      const hit = cached[i];
      if (hit && hit.exp > now) {
        this.stats.cacheHits++;
        results[i] = { ok: true, value: hit.v, expiresAt: hit.exp };
        return;
      }
      const pending = this.inFlight.get(key);
      if (pending) {
        this.stats.coalesced++;
        results[i] = pending;
      } else if (!missIndex.has(key)) {
        missIndex.set(key, misses.length);
        misses.push(requests[i] as MarketRequest);
      }
    });
    if (misses.length > 0) {
      const fetched = this.fetchMisses(misses, [...missIndex.keys()]);
      keys.forEach((key, i) => {
        if (results[i] === undefined) results[i] = fetched[missIndex.get(key) as number];
      });
    }
    return Promise.all(
      results.map(async (result, i) => {
        if (result === undefined) throw new Error(`market request ${keys[i]} got no result`); // each is a hit, in flight or a miss
        return result;
      }),
    );
  }

  /** One provider call for every miss; each miss is registered in flight until it settles. */
  private fetchMisses(misses: MarketRequest[], keys: string[]): Promise<TimedResult>[] {
    this.stats.providerCalls++;
    const call = this.provider.fetch(misses).catch((err: unknown): MarketResult[] => {
      const error =
        err instanceof UpstreamError ? err : new UpstreamError(`market provider failed: ${String(err)}`, err);
      return misses.map(() => ({ ok: false, error }));
    });
    const perKey = keys.map((key, i) => {
      const p = call.then((all): TimedResult => {
        const r = all[i] ?? {
          ok: false as const,
          error: new UpstreamError(`market provider gave no result for ${key}`),
        };
        return r.ok
          ? {
              ok: true,
              value: r.value,
              expiresAt: this.now() + this.ttlFor(misses[i] as MarketRequest, r.value) * 1000,
            }
          : r;
      });
      this.inFlight.set(key, p);
      return p;
    });
    // Stay registered until the cache has the values, so no request slips between the two and calls again.
    void Promise.all(perKey)
      .then((results) => this.writeCache(keys, results))
      .finally(() => keys.forEach((key) => this.inFlight.delete(key)));
    return perKey;
  }

  private ttlFor(request: MarketRequest, value: MarketValue): number {
    if (value === null) return this.ttls.notFound;
    if (request.kind === 'chart')
      return request.range === '1D' || request.range === '5D' ? this.ttls.chartIntraday : this.ttls.chartDaily;
    return this.ttls[request.kind];
  }

  private async readCache(keys: string[]): Promise<Array<{ v: MarketValue; exp: number } | undefined>> {
    try {
      return await this.cache.getMany(keys);
    } catch (err) {
      this.log?.warn({ err }, 'market cache read failed; reading through to the provider');
      return keys.map(() => undefined);
    }
  }

  private async writeCache(keys: string[], results: TimedResult[]): Promise<void> {
    const entries = keys.flatMap((key, i) => {
      const r = results[i];
      if (!r?.ok) return [];
      const ttl = r.expiresAt - this.now();
      return ttl > 0 ? [{ key, value: { v: deepFreeze(r.value), exp: r.expiresAt }, ttl }] : [];
    });
    if (entries.length === 0) return;
    try {
      await this.cache.setMany(entries);
    } catch (err) {
      this.log?.warn({ err }, 'market cache write failed');
    }
  }

  /**
   * A per-request loader: every load of one tick goes to `fetchMany` as one batch. `onFresh` learns, per value,
   * how many seconds it stays fresh (the response may be cached no longer than its freshest-expiring part).
   */
  createLoader(onFresh: (seconds: number) => void): DataLoader<MarketRequest, MarketValue, string> {
    return new DataLoader<MarketRequest, MarketValue, string>(
      async (requests) => {
        const results = await this.fetchMany(requests);
        const now = this.now();
        return results.map((r): MarketValue | GraphQLError => {
          if (!r.ok) return upstreamUnavailable(`market data upstream unavailable: ${r.error.message}`);
          onFresh((r.expiresAt - now) / 1000);
          return r.value;
        });
      },
      { cacheKeyFn: requestKey, maxBatchSize: 200 },
    );
  }
}

/** Freezes a cached value and everything in it: the memory cache hands the same object to every reader. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
