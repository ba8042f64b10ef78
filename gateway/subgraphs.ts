import { createMarketSubgraph } from '../subgraphs/market';
import { createMarketCache } from '../subgraphs/market/cache';
import { createMarketProvider } from '../subgraphs/market/providers';
import type { MarketProvider } from '../subgraphs/market/providers/provider';
import type { Subgraph } from '../subgraphs/subgraph';
import type { Config } from './config/schema';
import type { Logger } from './logger';

/** Parts a test or an embedding program may supply instead of building them from the configuration. */
export interface SystemOverrides {
  marketProvider?: MarketProvider;
  /** More subgraphs to run beside ours (tests: a subgraph that extends Quote); their SDL must be in `supergraphSdl`. */
  extraSubgraphs?: Subgraph[];
  /** The supergraph to serve instead of schema/supergraph.graphql (composed with `extraSubgraphs`). */
  supergraphSdl?: string;
}

/** Builds one subgraph (in-process, or to serve alone with `npm run subgraph`) from the configuration. */
export async function createSubgraph(
  name: string,
  config: Config,
  log: Logger,
  overrides: SystemOverrides = {},
): Promise<Subgraph> {
  switch (name) {
    case 'market': {
      const marketLog = log.child({ subgraph: 'market' });
      const provider =
        overrides.marketProvider ??
        createMarketProvider({
          provider: config.marketProvider,
          seed: config.marketSeed,
          fixedTime: config.marketClock ? Date.parse(config.marketClock) : undefined,
          googleBaseUrl: config.googleFinanceUrl,
          timeoutMs: config.upstreamTimeoutMs,
          retries: config.upstreamRetries,
          log: marketLog,
        });
      const redisTimeouts = {
        connectTimeoutMs: config.redisConnectTimeoutMs,
        commandTimeoutMs: config.redisCommandTimeoutMs,
      };
      const cache = createMarketCache({
        redisUrl: config.redisUrl,
        ...redisTimeouts,
        log: marketLog,
        onError: (err) => marketLog.warn({ err }, 'market cache error'),
      });
      return createMarketSubgraph({
        provider,
        cache,
        ttls: config.marketCacheTtl,
        limits: {
          maxQuotesPerRequest: config.maxQuotesPerRequest,
          maxTickersPerSubscription: config.liveMaxTickersPerSubscription,
        },
        live: {
          intervalMs: config.liveIntervalMs,
          redisUrl: config.redisUrl,
          redisPrefix: config.redisPrefix,
          redisConnectTimeoutMs: redisTimeouts.connectTimeoutMs,
          redisCommandTimeoutMs: redisTimeouts.commandTimeoutMs,
        },
        log: marketLog,
      });
    }
    default:
      throw new Error(`unknown subgraph "${name}"`);
  }
}
