import { ApolloGateway } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { readFileSync } from 'node:fs';
import { SUPERGRAPH_FILE } from '../../gateway/host/paths';

/**
 * Reference for the gateway benchmark: plain @apollo/gateway (default RemoteGraphQLDataSource) over HTTP subgraphs,
 * behind Apollo's standalone server. SUBGRAPH_URL points the market subgraph at a running subgraph service.
 */
async function main(): Promise<void> {
  const url = process.env.SUBGRAPH_URL as string;
  const gateway = new ApolloGateway({
    supergraphSdl: readFileSync(SUPERGRAPH_FILE, 'utf8').replace(
      /url: "http:\/\/127\.0\.0\.1:4101\/graphql"/,
      `url: "${url}"`,
    ),
  });
  await startStandaloneServer(new ApolloServer({ gateway }), {
    listen: { port: Number(process.env.PORT), host: '127.0.0.1' },
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
