import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { createMarketSubgraph } from '../subgraphs/market';
import { createMarketCache } from '../subgraphs/market/cache';
import { createMarketProvider } from '../subgraphs/market/providers';
import type { MarketProvider } from '../subgraphs/market/providers/provider';
import type { Subgraph } from '../subgraphs/subgraph';
import type { Config } from './config/schema';
import { startDns, type DnsPart } from './dns';
import { Graph } from './graph';
import { createLogger, type Logger } from './logger';
import { SUPERGRAPH_FILE } from './paths';
import { buildServer } from './server';

export interface System {
  config: Config;
  log: Logger;
  app: FastifyInstance;
  graph: Graph;
  subgraphs: Map<string, Subgraph>;
  dns: DnsPart;
  /** Stops accepting, finishes in-flight requests, closes subgraphs and caches. Safe to call twice. */
  close(): Promise<void>;
}

/** Parts a test or an embedding program may supply instead of building them from the configuration. */
export interface SystemOverrides {
  marketProvider?: MarketProvider;
}

async function createLocalSubgraphs(config: Config, log: Logger, overrides: SystemOverrides): Promise<Map<string, Subgraph>> {
  const subgraphs = new Map<string, Subgraph>();
  if (!config.subgraphUrls.market) {
    const provider = overrides.marketProvider ?? createMarketProvider({
      provider: config.marketProvider,
      seed: config.marketSeed,
      fixedTime: config.marketClock ? Date.parse(config.marketClock) : undefined,
      googleBaseUrl: config.googleFinanceUrl,
      timeoutMs: config.upstreamTimeoutMs,
      retries: config.upstreamRetries,
    });
    const cache = createMarketCache({
      redisUrl: config.redisUrl,
      onError: (err) => log.warn({ err }, 'market cache error'),
    });
    const marketLog = log.child({ subgraph: 'market' });
    subgraphs.set('market', await createMarketSubgraph({
      provider,
      cache,
      ttls: config.marketCacheTtl,
      limits: { maxQuotesPerRequest: config.maxQuotesPerRequest },
      log: marketLog,
    }));
  }
  return subgraphs;
}

/** Builds the whole system from a validated configuration (nothing listens until `app.listen`). */
export async function createSystem(
  config: Config,
  log: Logger = createLogger(config.logLevel),
  overrides: SystemOverrides = {},
): Promise<System> {
  const subgraphs = await createLocalSubgraphs(config, log, overrides);
  const dns = await startDns(config, log);
  const graph = new Graph({
    supergraphSdl: readFileSync(config.supergraphFile ?? SUPERGRAPH_FILE, 'utf8'),
    local: subgraphs,
    urls: config.subgraphUrls,
    responseCacheEntries: config.responseCache ? config.responseCacheEntries : 0,
    log,
  });
  await graph.start();
  const app = await buildServer({ graph, subgraphs, log, corsOrigins: config.corsOrigins, parts: { dns: () => dns.health() } });
  let closing: Promise<void> | undefined;
  return {
    config, log, app, graph, subgraphs, dns,
    close() {
      closing ??= (async () => {
        await app.close();
        await graph.stop();
        for (const s of subgraphs.values()) await s.close();
        await dns.close();
      })();
      return closing;
    },
  };
}
