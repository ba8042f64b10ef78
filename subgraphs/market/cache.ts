import KeyvRedis, { createKeyvNonBlocking } from '@keyv/redis';
import { Keyv } from 'keyv';
import type { MarketValue } from './providers/provider';

/** What the shared cache keeps per request key: the value and when it stops being fresh (epoch ms). */
export interface CachedMarketValue {
  v: MarketValue;
  exp: number;
}

export type MarketCache = Keyv<CachedMarketValue>;

export interface MarketCacheOptions {
  /** `redis://…` shares the cache across gateway replicas; unset keeps it in this process's memory. */
  redisUrl?: string;
  /** Bound of the in-memory cache. */
  maxEntries?: number;
  /** Key prefix, so several deployments (or test runs) can share one Redis. */
  namespace?: string;
  onError?: (err: unknown) => void;
}

/**
 * A Map that forgets its oldest-written entries beyond `max` (Keyv accepts any Map; lru-cache's set() signature
 * does not match what Keyv passes, so it cannot be used as Keyv's store directly).
 */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(private readonly max: number) {
    super();
  }

  override set(key: K, value: V): this {
    if (this.has(key)) this.delete(key); // re-insert: a rewritten entry counts as new
    super.set(key, value);
    if (this.size > this.max) this.delete(this.keys().next().value as K);
    return this;
  }
}

/** Keyv over a bounded Map (memory) or Redis; cache faults are reported and read as misses, never thrown. */
export function createMarketCache(options: MarketCacheOptions = {}): MarketCache {
  const keyv: MarketCache = options.redisUrl
    ? (createKeyvNonBlocking(options.redisUrl, { namespace: options.namespace ?? 'market' }) as MarketCache)
    : new Keyv<CachedMarketValue>({
        store: new BoundedMap<string, unknown>(options.maxEntries ?? 50_000),
        namespace: options.namespace ?? 'market',
        // In memory the values are kept as they are, not as JSON text parsed again on every hit (it was the single
        // largest cost of an uncached GraphQL request); MarketData freezes them, so no reader can change a shared one.
        serialize: undefined,
        deserialize: undefined,
      });
  keyv.on('error', (err: unknown) => options.onError?.(err));
  return keyv;
}

/** Closes the Redis connection, if any. */
export async function closeMarketCache(cache: MarketCache): Promise<void> {
  const store: unknown = cache.store;
  if (store instanceof KeyvRedis) await store.disconnect();
}
