import type { SubgraphDescriptor } from '../descriptor';
import { createMarketCache } from './cache';
import { MarketConfigSchema, type MarketConfig } from './config';
import { buildMarketSchema, createMarketSubgraph } from './index';
import { createMarketProvider } from './providers';
import type { MarketProvider } from './providers/provider';

function isProvider(value: unknown): value is MarketProvider {
  return typeof value === 'object' && value !== null && typeof (value as MarketProvider).fetch === 'function';
}

/** Market data: quotes, company data, charts, news, lists and live prices, from the configured provider. */
export const marketDescriptor: SubgraphDescriptor<MarketConfig> = {
  name: 'market',
  configSchema: MarketConfigSchema,
  defaultUrl: 'http://127.0.0.1:4101/graphql',
  needs: [],
  buildSchema: buildMarketSchema,
  async create({ config, shared, log, overrides }) {
    // A test may hand in its own provider (overrides.marketProvider).
    const provider = isProvider(overrides.marketProvider)
      ? overrides.marketProvider
      : createMarketProvider({
          provider: config.marketProvider,
          seed: config.marketSeed,
          fixedTime: config.marketClock ? Date.parse(config.marketClock) : undefined,
          googleBaseUrl: config.googleFinanceUrl,
          timeoutMs: config.upstreamTimeoutMs,
          retries: config.upstreamRetries,
          log,
        });
    const redisTimeouts = {
      connectTimeoutMs: shared.redisConnectTimeoutMs,
      commandTimeoutMs: shared.redisCommandTimeoutMs,
    };
    const cache = createMarketCache({
      redisUrl: shared.redisUrl,
      prefix: shared.redisPrefix,
      ...redisTimeouts,
      log,
      onError: (err) => log.warn({ err }, 'market cache error'),
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
        redisUrl: shared.redisUrl,
        redisPrefix: shared.redisPrefix,
        redisConnectTimeoutMs: redisTimeouts.connectTimeoutMs,
        redisCommandTimeoutMs: redisTimeouts.commandTimeoutMs,
      },
      log,
    });
  },
};
