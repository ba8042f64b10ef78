import { createGatewayRuntime } from '@graphql-hive/gateway-runtime';
import { unifiedGraphHandler } from '@graphql-hive/router-runtime';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

/**
 * gwbench reference: Hive Gateway's runtime (@graphql-hive/gateway-runtime, what the `hive-gateway` CLI runs) over
 * SUPERGRAPH_FILE, served by node:http. Its own JS query planner by default; with `--router-runtime`, the Rust query
 * planner and executor of @graphql-hive/router-runtime (the `unifiedGraphHandler` option). Defaults otherwise, which
 * means no response cache and no inbound request deduplication; landing page and GraphiQL off, logs at warn; the
 * caller's Authorization header is passed to every subgraph (propagateHeaders), as the public benchmark's gateways do.
 * POST /graphql; GET /healthcheck.
 */
const routerRuntime = process.argv.includes('--router-runtime');
const gateway = createGatewayRuntime({
  supergraph: readFileSync(process.env.SUPERGRAPH_FILE as string, 'utf8'),
  ...(routerRuntime ? { unifiedGraphHandler } : {}),
  logging: 'warn',
  landingPage: false,
  graphiql: false,
  propagateHeaders: {
    fromClientToSubgraphs: ({ request }) => {
      const authorization = request.headers.get('authorization');
      return authorization ? { authorization } : undefined;
    },
  },
});
createServer(gateway).listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
