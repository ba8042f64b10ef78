import KeyvRedis, { createKeyvNonBlocking } from '@keyv/redis';
import { Keyv } from 'keyv';
import { LRUCache } from 'lru-cache';
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
  onError?: (err: unknown) => void;
}

/** Keyv over an LRU-bounded Map (memory) or Redis; cache faults are reported and read as misses, never thrown. */
export function createMarketCache(options: MarketCacheOptions = {}): MarketCache {
  const keyv: MarketCache = options.redisUrl
    ? (createKeyvNonBlocking(options.redisUrl, { namespace: 'market' }) as MarketCache)
    : new Keyv<CachedMarketValue>({
        store: new LRUCache<string, object>({ max: options.maxEntries ?? 50_000 }),
        namespace: 'market',
      });
  keyv.on('error', (err: unknown) => options.onError?.(err));
  return keyv;
}

/** Closes the Redis connection, if any. */
export async function closeMarketCache(cache: MarketCache): Promise<void> {
  const store: unknown = cache.store;
  if (store instanceof KeyvRedis) await store.disconnect();
}
