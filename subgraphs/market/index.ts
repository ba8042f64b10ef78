import type { Subgraph, SubgraphContext } from '../subgraph';
import { closeMarketCache, type MarketCache } from './cache';
import type { MarketContext, MarketLimits } from './context';
import { MarketData, type MarketDataLogger, type MarketTtls } from './market-data';
import type { MarketProvider } from './providers/provider';
import { buildMarketSchema } from './schema';

export interface MarketSubgraphOptions {
  provider: MarketProvider;
  cache: MarketCache;
  ttls: MarketTtls;
  limits: MarketLimits;
  log?: MarketDataLogger;
}

export interface MarketSubgraph extends Subgraph<MarketContext> {
  readonly data: MarketData;
}

export async function createMarketSubgraph(options: MarketSubgraphOptions): Promise<MarketSubgraph> {
  const schema = await buildMarketSchema();
  const data = new MarketData(options.provider, options.cache, options.ttls, options.log);
  return {
    name: 'market',
    schema,
    data,
    createContext(base: SubgraphContext): MarketContext {
      return { ...base, market: data.createLoader((s) => base.cacheHint.restrict(s)), limits: options.limits };
    },
    async health() {
      return { status: 'ok', provider: options.provider.name, providerCalls: data.stats.providerCalls };
    },
    async close() {
      await options.provider.close?.();
      await closeMarketCache(options.cache);
    },
  };
}

export { buildMarketSchema };
