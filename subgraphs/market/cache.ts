import KeyvRedis from '@keyv/redis';
import { Keyv, type KeyvEntry } from 'keyv';
import { BoundedMap } from './bounded-map';
import type { MarketValue } from './providers/provider';
import {
  REDIS_TIMEOUT_DEFAULTS,
  RedisLink,
  redisKey,
  type RedisLinkHealth,
  type RedisLinkLogger,
} from '../../platform/redis';

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
  /** REDIS_PREFIX (default `onegraph`): Redis keys are `<prefix>:<namespace>:<kind>:…`, so deployments never share them. */
  prefix?: string;
  /** The cache's own part of its keys (default `market`). */
  namespace?: string;
  /** Redis only: bound of one connection attempt (default 1000 ms). */
  connectTimeoutMs?: number;
  /** Redis only: bound of one command (default 500 ms). */
  commandTimeoutMs?: number;
  /** Redis only: where an outage is reported (once when it starts, once when it ends). */
  log?: RedisLinkLogger;
  /** Store errors that are not Redis being away (an error reply); those never reach callers either. */
  onError?: (err: unknown) => void;
}

/**
 * The Redis store behind the shared cache, over a RedisLink: while Redis is away every read is a miss and every
 * write is skipped at once, without touching the network, so requests go straight to the provider; when it is up,
 * every call is bounded by the command timeout. Nothing here ever throws to the cache's users.
 */
class GuardedRedisStore extends KeyvRedis<CachedMarketValue> {
  constructor(
    readonly link: RedisLink,
    private readonly onError?: (err: unknown) => void,
  ) {
    super(link.client, { throwOnConnectError: false, throwOnErrors: true, keyPrefixSeparator: ':' });
  }

  override async get<U = CachedMarketValue>(key: string): Promise<U | undefined> {
    return this.guard(() => super.get<U>(key), undefined);
  }

  override async getMany<U = CachedMarketValue>(keys: string[]): Promise<Array<U | undefined>> {
    return this.guard(
      () => super.getMany<U>(keys),
      keys.map(() => undefined),
    );
  }

  override async set(key: string, value: string, ttl?: number): Promise<void> {
    await this.guard(() => super.set(key, value, ttl), undefined);
  }

  override async setMany(entries: KeyvEntry[]): Promise<void> {
    await this.guard(() => super.setMany(entries), undefined);
  }

  private async guard<T>(call: () => Promise<T>, otherwise: T): Promise<T> {
    if (!this.link.up) return otherwise;
    try {
      return await this.link.run(call);
    } catch (err) {
      if (this.link.up) this.onError?.(err); // a fault of Redis itself is the link's to report, once per outage
      return otherwise;
    }
  }
}

/** Keyv over a bounded Map (memory) or Redis; cache faults are reported and read as misses, never thrown. */
export function createMarketCache(options: MarketCacheOptions = {}): MarketCache {
  if (options.redisUrl) {
    const link = new RedisLink({
      url: options.redisUrl,
      purpose: 'market cache',
      fallback: 'market data is read from the provider without the shared cache',
      connectTimeoutMs: options.connectTimeoutMs ?? REDIS_TIMEOUT_DEFAULTS.connectTimeoutMs,
      commandTimeoutMs: options.commandTimeoutMs ?? REDIS_TIMEOUT_DEFAULTS.commandTimeoutMs,
      log: options.log,
    });
    const keyv = new Keyv<CachedMarketValue>(new GuardedRedisStore(link, options.onError), {
      namespace: redisKey(options.prefix ?? 'onegraph', options.namespace ?? 'market'),
      useKeyPrefix: false, // the store prefixes keys itself (namespace:key), as @keyv/redis's createKeyv does
    });
    keyv.on('error', () => undefined); // the store's client errors: the link reports those, once per outage
    return keyv;
  }
  const keyv: MarketCache = new Keyv<CachedMarketValue>({
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
  if (store instanceof GuardedRedisStore) await store.link.close();
}

/** The Redis link's state of a Redis-backed cache; undefined for the memory cache. */
export function marketCacheHealth(cache: MarketCache): RedisLinkHealth | undefined {
  const store: unknown = cache.store;
  return store instanceof GuardedRedisStore ? store.link.health() : undefined;
}
