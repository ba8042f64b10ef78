import { randomUUID } from 'node:crypto';
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { fastifyApolloHandler } from '@as-integrations/fastify';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { CacheHint, type Subgraph, type SubgraphContext } from '../subgraphs/subgraph';
import type { Logger } from './logger';

/** Sends the subgraph's cache hint as Cache-Control, which the gateway's remote data source reads back. */
function cacheHeaderPlugin(): ApolloServerPlugin<SubgraphContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse(rc) {
          const maxAge = rc.contextValue.cacheHint.maxAge ?? 0;
          const ok = rc.response.body.kind === 'single' && !rc.response.body.singleResult.errors?.length;
          rc.response.http.headers.set('cache-control', ok && maxAge > 0 ? `public, max-age=${maxAge}` : 'no-store');
        },
      };
    },
  };
}

/** One subgraph alone as an HTTP service: GraphQL at /graphql, health at /healthz. */
export async function buildSubgraphServer(subgraph: Subgraph, log: Logger): Promise<{ app: FastifyInstance; server: ApolloServer<SubgraphContext> }> {
  const server = new ApolloServer<SubgraphContext>({
    schema: subgraph.schema,
    includeStacktraceInErrorResponses: false,
    logger: log.child({ part: 'apollo' }),
    plugins: [ApolloServerPluginCacheControlDisabled(), ApolloServerPluginLandingPageDisabled(), cacheHeaderPlugin()],
  });
  await server.start();
  const app = Fastify({
    loggerInstance: log as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
  });
  app.route({
    url: '/graphql',
    method: ['GET', 'POST'],
    handler: fastifyApolloHandler<SubgraphContext>(server, {
      context: async (req) => subgraph.createContext({ requestId: req.id, cacheHint: new CacheHint() }),
    }),
  });
  app.get('/healthz', async (_req, reply) => {
    const health = await subgraph.health().catch((err: unknown) => ({ status: 'down' as const, error: String(err) }));
    return reply.status(health.status === 'down' ? 503 : 200).send({ subgraph: subgraph.name, ...health });
  });
  app.addHook('onClose', async () => {
    await server.stop();
  });
  return { app, server };
}
