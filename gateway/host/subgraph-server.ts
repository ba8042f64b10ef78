import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginLandingPageDisabled,
} from '@apollo/server/plugin/disabled';
import { fastifyApolloHandler } from '@as-integrations/fastify';
import Fastify, { type FastifyInstance } from 'fastify';
import { OperationTypeNode, print } from 'graphql';
import { CacheHint, type Subgraph, type SubgraphContext } from '../../subgraphs/subgraph';
import { applyHttpLifecycle, DEFAULT_HTTP_LIMITS, httpServerOptions, type HttpLimits } from './http-server';
import { LOOPBACK_PROXIES, type Config } from './config/schema';
import type { Logger } from '../../platform/log';
import {
  clientStop,
  ConnectionLimiter,
  createSubscriptionStream,
  DEFAULT_STREAM_BUFFER_LIMITS,
  InProcessSubscriptions,
  STREAM_PATH,
  type StreamBufferLimits,
  StreamBuffers,
} from '../graph';

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

/**
 * A mutation runs to its end even when its gateway stops waiting (a write is all or nothing): its context keeps no
 * signal. Queries keep theirs, which fires when the gateway closes the connection (its deadline, its client gone).
 */
function mutationsRunToTheEnd(): ApolloServerPlugin<SubgraphContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation, contextValue }) {
          if (operation?.operation === OperationTypeNode.MUTATION) delete contextValue.signal;
        },
      };
    },
  };
}

/**
 * Its client is a gateway, which bounds its own clients: the subgraph only guards against runaway numbers.
 */
const SUBGRAPH_STREAM_LIMITS = {
  maxConnections: 100_000,
  maxConnectionsPerClient: 100_000,
  maxSubscriptionsPerConnection: 100_000,
};

export interface SubgraphServerOptions {
  /** Bounds on the bytes its event streams hold for a gateway that reads slower than events come. */
  streamBuffers?: StreamBufferLimits;
  reservationTimeoutMs?: number;
  /** Connection and request-time bounds (defaults: DEFAULT_HTTP_LIMITS). */
  http?: HttpLimits;
  /** Peers whose X-Forwarded-For is believed (the gateway's addresses); default: loopback only. */
  trustedProxies?: readonly string[];
}

/**
 * The client's address: the one a trusted gateway passed on (the first of X-Forwarded-For), else the peer's own. Only
 * the gateway's word counts: a client reaching the subgraph directly could claim any address (and so slip past
 * per-address limits such as the login throttle).
 */
export function clientAddressOf(
  peer: string | undefined,
  header: string | string[] | undefined,
  trusted: readonly string[],
): string | undefined {
  if (peer === undefined || !trusted.includes(peer)) return peer;
  const first = (Array.isArray(header) ? header[0] : header)?.split(',')[0]?.trim();
  return first || peer;
}

/** The options of a subgraph server from the one configuration (its streams' bounds, HTTP limits). */
export function subgraphServerOptions(config: Config): SubgraphServerOptions {
  return {
    streamBuffers: {
      maxStreamBytes: config.liveMaxStreamBufferBytes,
      maxTotalBytes: config.liveMaxBufferedBytes,
      slowClientTimeoutMs: config.liveSlowClientTimeoutMs,
    },
    reservationTimeoutMs: config.liveReservationTimeoutMs,
    http: {
      maxConnections: config.httpMaxConnections,
      requestTimeoutMs: config.httpRequestTimeoutMs,
      shutdownGraceMs: config.shutdownGraceMs,
    },
    trustedProxies: config.subgraphTrustedProxies,
  };
}

/**
 * One subgraph alone as an HTTP service: GraphQL at /graphql (subscriptions over graphql-sse on the same URL, for
 * requests that accept `text/event-stream`, and at /graphql/stream), health at /healthz.
 */
export async function buildSubgraphServer(
  subgraph: Subgraph,
  log: Logger,
  options: SubgraphServerOptions = {},
): Promise<{ app: FastifyInstance; server: ApolloServer<SubgraphContext>; buffers: StreamBuffers }> {
  const server = new ApolloServer<SubgraphContext>({
    schema: subgraph.schema,
    includeStacktraceInErrorResponses: false,
    stopOnTerminationSignals: false, // shutdown is subgraph-main's, in order (Apollo's handlers re-raise the signal)
    logger: log.child({ part: 'apollo' }),
    plugins: [
      ApolloServerPluginCacheControlDisabled(),
      ApolloServerPluginLandingPageDisabled(),
      cacheHeaderPlugin(),
      mutationsRunToTheEnd(),
    ],
  });
  await server.start();
  const limits = options.http ?? DEFAULT_HTTP_LIMITS;
  const app = Fastify(httpServerOptions(log, limits));
  applyHttpLifecycle(app, limits);
  const apollo = fastifyApolloHandler<SubgraphContext>(server, {
    context: async (req) =>
      subgraph.createContext({
        requestId: req.id,
        cacheHint: new CacheHint(),
        authorization: req.headers.authorization,
        clientAddress: clientAddressOf(
          req.socket.remoteAddress,
          req.headers['x-forwarded-for'],
          options.trustedProxies ?? LOOPBACK_PROXIES,
        ),
        signal: clientStop(req.raw)?.signal,
      }),
  });
  const subscriptions = new InProcessSubscriptions(subgraph);
  const buffers = new StreamBuffers(options.streamBuffers ?? DEFAULT_STREAM_BUFFER_LIMITS, log.child({ part: 'live' }));
  const stream = createSubscriptionStream({
    path: STREAM_PATH,
    subscribe: (r) =>
      subscriptions.open(r.query ?? print(r.document), r.variables ?? {}, {
        requestId: r.requestId,
        shareKey: r.shareKey ?? '',
        authorization: r.authorization,
      }),
    execute: async ({ query, operationName, variables, requestId, authorization, address }) => {
      const response = await server.executeOperation(
        { query, operationName, variables },
        {
          contextValue: subgraph.createContext({
            requestId,
            cacheHint: new CacheHint(),
            authorization,
            clientAddress: address,
          }),
        },
      );
      return response.body.kind === 'single'
        ? response.body.singleResult
        : { errors: [{ message: 'incremental delivery is not supported here' }] };
    },
    schema: subgraph.schema,
    validationRules: [],
    limits: SUBGRAPH_STREAM_LIMITS,
    connections: new ConnectionLimiter(SUBGRAPH_STREAM_LIMITS),
    log,
    buffers,
    kind: 'subgraph',
    reservationTimeoutMs: options.reservationTimeoutMs,
  });
  app.route({
    url: '/graphql',
    method: ['GET', 'POST'],
    handler(req, reply) {
      if (req.headers.accept === 'text/event-stream') return stream.serve(req, reply);
      return apollo.call(this, req as Parameters<typeof apollo>[0], reply as Parameters<typeof apollo>[1]);
    },
  });
  app.route({
    url: STREAM_PATH,
    method: ['GET', 'POST', 'PUT', 'DELETE'],
    handler: (req, reply) => stream.serve(req, reply),
  });
  app.addHook('preClose', async () => {
    await stream.closeStreams();
  });
  app.get('/healthz', async (_req, reply) => {
    const health = await subgraph.health().catch((err: unknown) => ({ status: 'down' as const, error: String(err) }));
    return reply.status(health.status === 'down' ? 503 : 200).send({ subgraph: subgraph.name, ...health });
  });
  app.addHook('onClose', async () => {
    await server.stop();
  });
  return { app, server, buffers };
}
