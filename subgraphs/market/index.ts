import type { Subgraph, SubgraphContext } from '../subgraph';
import { closeMarketCache, type MarketCache } from './cache';
import type { MarketContext, MarketLimits } from './context';
import { LocalTicker, type LiveLogger } from './live/local-ticker';
import { PriceHub } from './live/price-hub';
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
  const { intervalMs, redisUrl, redisPrefix } = options.live;
  hub.attach(redisUrl
    ? new SharedTicker(hub, { redisUrl, prefix: redisPrefix ?? 'onegraph', intervalMs, log: options.log })
    : new LocalTicker(hub, intervalMs, options.log));
  return {
    name: 'market',
    schema,
    data,
    hub,
    createContext(base: SubgraphContext): MarketContext {
      return { ...base, market: data.createLoader((s) => base.cacheHint.restrict(s)), limits: options.limits, live: hub };
    },
    async health() {
      return { status: 'ok', provider: options.provider.name, providerCalls: data.stats.providerCalls, live: hub.stats };
    },
    async close() {
      await hub.close();
      await options.provider.close?.();
      await closeMarketCache(options.cache);
    },
  };
}

export { buildMarketSchema };
