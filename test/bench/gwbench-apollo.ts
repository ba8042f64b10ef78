import { ApolloGateway, type GraphQLDataSourceProcessOptions, RemoteGraphQLDataSource } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { readFileSync } from 'node:fs';

interface Context {
  authorization?: string;
}

/** Apollo's RemoteGraphQLDataSource, passing the caller's Authorization header on (as ours and Hive's are set to). */
class ForwardingDataSource extends RemoteGraphQLDataSource<Context> {
  override willSendRequest({ request, context }: GraphQLDataSourceProcessOptions<Context>): void {
    if ('authorization' in context && context.authorization)
      request.http?.headers.set('authorization', context.authorization);
  }
}

/**
 * gwbench reference: plain @apollo/gateway behind Apollo Server's standalone HTTP server, over the subgraph URLs of
 * SUPERGRAPH_FILE (Apollo's RemoteGraphQLDataSource, its default, passing the caller's Authorization header to every
 * subgraph as the public benchmark's gateways do). No response cache (Apollo Server has none unless its plugin is
 * added). POST /graphql (any path answers).
 */
async function main(): Promise<void> {
  const gateway = new ApolloGateway({
    supergraphSdl: readFileSync(process.env.SUPERGRAPH_FILE as string, 'utf8'),
    buildService: ({ url }) => new ForwardingDataSource({ url }),
  });
  await startStandaloneServer(new ApolloServer<Context>({ gateway }), {
    listen: { port: Number(process.env.PORT), host: '127.0.0.1' },
    context: async ({ req }) => ({ authorization: req.headers.authorization }),
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
