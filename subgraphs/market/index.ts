import type { Subgraph, SubgraphContext } from '../subgraph';
import { closeMarketCache, marketCacheHealth, type MarketCache } from './cache';
import type { MarketContext, MarketLimits } from './context';
import { LocalTicker } from './live/local-ticker';
import { type LiveLogger, PriceHub } from './live/price-hub';
import { SharedTicker } from './live/shared-ticker';
import { MarketData, type MarketDataLogger, type MarketTtls } from './market-data';
import type { MarketProvider } from './providers/provider';
import { buildMarketSchema } from './schema';

export interface MarketLiveOptions {
  /** How often the watched tickers are polled. */
  intervalMs: number;
  /** With Redis, one poller serves every replica sharing it (see live/shared-ticker.ts). */
  redisUrl?: string;
  /** Redis key prefix of the shared poller. */
  redisPrefix?: string;
  /** Bounds of one Redis connection attempt and one command (the shared poller's defaults: 1000 and 500 ms). */
  redisConnectTimeoutMs?: number;
  redisCommandTimeoutMs?: number;
}

export interface MarketSubgraphOptions {
  provider: MarketProvider;
  cache: MarketCache;
  ttls: MarketTtls;
  limits: MarketLimits;
  live: MarketLiveOptions;
  log?: MarketDataLogger & LiveLogger;
}

export interface MarketSubgraph extends Subgraph<MarketContext> {
  readonly data: MarketData;
  readonly hub: PriceHub;
}

export async function createMarketSubgraph(options: MarketSubgraphOptions): Promise<MarketSubgraph> {
  const schema = await buildMarketSchema();
  const data = new MarketData(options.provider, options.cache, options.ttls, options.log);
  const hub = new PriceHub(data, options.log);
  const { intervalMs, redisUrl, redisPrefix, redisConnectTimeoutMs, redisCommandTimeoutMs } = options.live;
  hub.attach(
    redisUrl
      ? new SharedTicker(hub, {
          redisUrl,
          prefix: redisPrefix ?? 'onegraph',
          intervalMs,
          log: options.log,
          connectTimeoutMs: redisConnectTimeoutMs,
          commandTimeoutMs: redisCommandTimeoutMs,
        })
      : new LocalTicker(hub, intervalMs, options.log),
  );
  return {
    name: 'market',
    schema,
    data,
    hub,
    createContext(base: SubgraphContext): MarketContext {
      return {
        ...base,
        market: data.createLoader((s) => base.cacheHint.restrict(s)),
        limits: options.limits,
        live: hub,
      };
    },
    async health() {
      // Redis away is `degraded`, never `down`: the cache reads through to the provider and live prices are polled
      // locally, so everything still answers (only slower, and with more upstream calls).
      const cache = marketCacheHealth(options.cache);
      const live = hub.health();
      const reasons = [
        ...(cache?.state === 'down'
          ? [
              `Redis unreachable since ${cache.since} (${cache.error}): market data is read from the provider without the shared cache`,
            ]
          : []),
        ...(live.status === 'degraded' && live.reason ? [live.reason] : []),
      ];
      return {
        status: reasons.length > 0 ? 'degraded' : 'ok',
        ...(reasons.length > 0 ? { reason: reasons.join('; ') } : {}),
        provider: options.provider.name,
        providerCalls: data.stats.providerCalls,
        ...(cache ? { cache: { store: 'redis', ...cache } } : {}),
        live: hub.stats,
      };
    },
    async close() {
      await hub.close();
      await options.provider.close?.();
      await closeMarketCache(options.cache);
    },
  };
}

export { buildMarketSchema };
