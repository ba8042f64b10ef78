import 'reflect-metadata';
import { ApolloGateway, LocalGraphQLDataSource } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { readFileSync } from 'node:fs';
import { createMarketSubgraph } from '../../subgraphs/market';
import { createMarketCache } from '../../subgraphs/market/cache';
import { createMarketProvider } from '../../subgraphs/market/providers';
import { loadConfig } from '../../gateway/host/config/load';
import { SUPERGRAPH_FILE } from '../../gateway/host/paths';
import { CacheHint } from '../../subgraphs/subgraph';

/**
 * Reference for the benchmark: plain @apollo/gateway with Apollo's own LocalGraphQLDataSource over the same
 * market subgraph and the same market data (simulated provider, shared cache), behind Apollo's standalone server.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const market = await createMarketSubgraph({
    provider: createMarketProvider({
      provider: 'simulated',
      seed: config.marketSeed,
      fixedTime: config.marketClock ? Date.parse(config.marketClock) : undefined,
    }),
    cache: createMarketCache(),
    ttls: config.marketCacheTtl,
    limits: {
      maxQuotesPerRequest: config.maxQuotesPerRequest,
      maxTickersPerSubscription: config.liveMaxTickersPerSubscription,
    },
    live: { intervalMs: config.liveIntervalMs },
  });
  const gateway = new ApolloGateway({
    supergraphSdl: readFileSync(SUPERGRAPH_FILE, 'utf8'),
    buildService: () => new LocalGraphQLDataSource(market.schema),
  });
  const server = new ApolloServer({ gateway });
  await startStandaloneServer(server, {
    listen: { port: config.port, host: '127.0.0.1' },
    // Apollo's LocalGraphQLDataSource hands the gateway context to the subgraph as is: make it a market context.
    context: async () => market.createContext({ requestId: 'bench', cacheHint: new CacheHint() }),
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
