import { ApolloGateway, RemoteGraphQLDataSource } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { readFileSync } from 'node:fs';

/**
 * gwbench reference: plain @apollo/gateway behind Apollo Server's standalone HTTP server, over the subgraph URLs of
 * SUPERGRAPH_FILE (Apollo's RemoteGraphQLDataSource, its default). No response cache (Apollo Server has none unless
 * its plugin is added). POST /graphql (any path answers).
 */
async function main(): Promise<void> {
  const gateway = new ApolloGateway({
    supergraphSdl: readFileSync(process.env.SUPERGRAPH_FILE as string, 'utf8'),
    buildService: ({ url }) => new RemoteGraphQLDataSource({ url }),
  });
  await startStandaloneServer(new ApolloServer({ gateway }), {
    listen: { port: Number(process.env.PORT), host: '127.0.0.1' },
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
