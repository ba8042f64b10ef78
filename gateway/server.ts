import fastifyCors from '@fastify/cors';
import { fastifyApolloHandler } from '@as-integrations/fastify';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Subgraph, SubgraphHealth } from '../subgraphs/subgraph';
import { callerOf, type GatewayContext } from './context';
import type { Graph } from './graph';
import type { Logger } from './logger';
import type { GatewayMetrics } from './metrics';
import { registerPlayground } from './playground';
import { mountRestInterface, type RestInterface } from './rest/interface';
import { marketRestInterface } from './rest/market';
import { VERSION } from './version';
import type { ConnectionLimiter, StreamLimits } from './subscriptions/connection-limits';
import type { FederatedSubscriptions } from './subscriptions/federated-subscriptions';
import { createSubscriptionStream, STREAM_PATH, type SubscriptionStreamEndpoint } from './subscriptions/sse-endpoint';
import type { StreamBuffers } from './subscriptions/stream-buffers';
import type { GraphQLSchema } from 'graphql';
import { allowedOrigin, ErrorShapes, graphqlErrorShape, marketErrorShape } from './error-shapes';
import { nestingDepth } from './request-bounds';
import { applyHttpLifecycle, DEFAULT_HTTP_LIMITS, httpServerOptions, type HttpLimits } from './http-server';

export interface ServerOptions {
  graph: Graph;
  subgraphs: ReadonlyMap<string, Subgraph>;
  log: Logger;
  corsOrigins: string;
  bodyLimit?: number;
  /** Connection and request-time bounds (defaults: DEFAULT_HTTP_LIMITS). */
  httpLimits?: HttpLimits;
  /** REST interfaces served beside the market's (each an encapsulated plugin with its own error shape). */
  restInterfaces?: RestInterface[];
  /** Deepest nesting of arrays and objects allowed in a request's variables. Default 32. */
  maxVariablesDepth?: number;
  metrics: GatewayMetrics;
  /** Serve the REST adapters (off for a foreign supergraph). Default true. */
  rest?: boolean;
  /** Health probes of subgraphs served over HTTP, by name. */
  remoteSubgraphs?: Record<string, () => Promise<SubgraphHealth>>;
  /** Health of parts that are not subgraphs (the DNS engine), shown in /healthz. */
  parts?: Record<string, () => Promise<SubgraphHealth>>;
  /** Subscriptions at /graphql/stream (graphql-sse) and the limits of every live stream. */
  live?: LiveOptions;
}

export interface LiveOptions {
  subscriptions: FederatedSubscriptions;
  /** The client-facing schema subscriptions are validated against. */
  schema: GraphQLSchema;
  limits: StreamLimits;
  connections: ConnectionLimiter;
  /** Comment lines on /v1/live streams keep idle connections open through proxies. */
  heartbeatMs?: number;
  /** Bounds the unsent bytes of every live stream (/graphql/stream and /v1/live together). */
  buffers: StreamBuffers;
  /** How long a graphql-sse single-connection reservation waits for its stream. */
  reservationTimeoutMs?: number;
  /** Set by buildServer: the /graphql/stream endpoint (tests inspect it). */
  endpoint?: SubscriptionStreamEndpoint;
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** The methods a path answers (for Allow on OPTIONS). */
function allowedMethods(app: FastifyInstance, url: string): string {
  const path = url.split('?')[0] ?? '/';
  const found = METHODS.filter((method) => app.findRoute({ method, url: path }) !== null);
  return [...found, 'OPTIONS'].join(', ');
}

function corsOrigin(setting: string): string | string[] {
  return setting === '*'
    ? '*'
    : setting
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
}

/** The gateway's HTTP server: /graphql, the REST adapters and /healthz on one port. */
export async function buildServer(options: ServerOptions): Promise<FastifyInstance> {
  const { graph, log } = options;
  const cors = corsOrigin(options.corsOrigins);
  const shapes = new ErrorShapes(marketErrorShape);
  shapes.add('/graphql', graphqlErrorShape);
  const limits = options.httpLimits ?? DEFAULT_HTTP_LIMITS;
  const app = Fastify({
    ...httpServerOptions(log, limits),
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    // Long path parameters reach the validators (a 400 that says what is allowed); Node's 16 KiB header limit bounds URLs.
    routerOptions: { maxParamLength: 16_384 },
    // Errors raised before routing (a bad percent-escape, an over-long parameter): the path's interface's own
    // shape, CORS headers as on any answer, and never the URL echoed back.
    frameworkErrors: (err, req, reply) => {
      const origin = allowedOrigin(cors, req.headers.origin);
      if (origin) reply.header('access-control-allow-origin', origin);
      const tooLong = err.code === 'FST_ERR_MAX_PARAM_LENGTH';
      void shapes.send(
        req,
        reply,
        tooLong ? 414 : 400,
        tooLong
          ? 'a path parameter is longer than 16384 characters'
          : 'the URL is not valid (a bad percent-escape or character)',
      );
    },
  });

  applyHttpLifecycle(app, limits);
  app.addHook('preClose', async () => {
    await options.live?.endpoint?.closeStreams(); // open streams never finish by themselves
  });

  // PUT and DELETE: graphql-sse's single-connection mode reserves streams and stops operations with them.
  // strictPreflight off: a plain OPTIONS (no preflight headers) is answered 204 with Allow, as the original service did.
  await app.register(fastifyCors, {
    origin: cors,
    methods: ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'],
    strictPreflight: false,
  });
  app.addHook('onSend', async (req, reply, payload) => {
    if (req.method === 'OPTIONS' && !reply.hasHeader('allow')) reply.header('allow', allowedMethods(app, req.url));
    return payload;
  });

  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url ?? 'unmatched';
    options.metrics.httpRequests.inc({ route, method: req.method, status: String(reply.statusCode) });
    options.metrics.httpDuration.observe({ route }, reply.elapsedTime / 1000);
    req.log.info(
      { method: req.method, url: req.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 },
      'request',
    );
  });

  // Paths outside the REST interfaces (/graphql, /healthz, /metrics, the playground): errors in the shape of the
  // path's owner, as errors raised before routing are.
  app.setErrorHandler((err: FastifyError, req, reply) => {
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status === 500) req.log.error({ err }, 'unhandled error');
    if (status === 413) {
      const message = `request body exceeds the limit of ${options.bodyLimit ?? 1024 * 1024} bytes (maxBodyBytes)`;
      return shapes.send(req, reply, 413, message, { limit: 'maxBodyBytes' });
    }
    return shapes.send(req, reply, status, status === 500 ? 'internal error' : err.message);
  });
  app.setNotFoundHandler((req, reply) =>
    shapes.send(req, reply, 404, `no such path: ${req.method} ${req.url.split('?')[0]}`),
  );

  // Variables nested past any real input type are refused before anything walks them recursively (cache keys,
  // coercion): a megabyte of `[[[…]]]` would overflow the stack.
  const maxVariablesDepth = options.maxVariablesDepth ?? 32;
  const boundVariables = async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const variables = (req.body as { variables?: unknown } | null | undefined)?.variables;
    if (variables === undefined || variables === null || typeof variables !== 'object') return;
    if (nestingDepth(variables, maxVariablesDepth) > maxVariablesDepth) {
      await shapes.send(
        req,
        reply,
        400,
        `variables are nested deeper than the limit of ${maxVariablesDepth} levels (maxVariablesDepth)`,
        { limit: 'maxVariablesDepth' },
      );
    }
  };

  const apollo = fastifyApolloHandler<GatewayContext>(graph.server, {
    context: async (req) => graph.context(req.id, callerOf(req)),
  });
  app.route({
    url: '/graphql',
    method: ['GET', 'POST'],
    preHandler: boundVariables,
    handler(req, reply) {
      // A POSTed JSON query whose response is cached is answered from the cache directly (JSON bodies are not
      // CSRF-prone, so Apollo's checks have nothing to add); everything else goes through Apollo Server.
      const body = req.body as
        { query?: unknown; operationName?: unknown; variables?: unknown; extensions?: unknown } | undefined;
      if (req.method === 'POST' && typeof body?.query === 'string' && body.extensions === undefined) {
        const hit = graph.cachedBody(body.query, body.operationName, body.variables, req.headers.authorization);
        if (hit) {
          options.metrics.operationDuration.observe(
            {
              operation: options.metrics.operationLabel(body.operationName as string | undefined),
              type: 'query',
              cached: 'true',
            },
            reply.elapsedTime / 1000,
          );
          return reply
            .header('cache-control', `public, max-age=${hit.maxAge}`)
            .type('application/json; charset=utf-8')
            .send(hit.body);
        }
      }
      return apollo.call(this, req as Parameters<typeof apollo>[0], reply as Parameters<typeof apollo>[1]);
    },
  });
  if (options.live) {
    const { subscriptions } = options.live;
    const endpoint = createSubscriptionStream({
      path: STREAM_PATH,
      subscribe: (request) => subscriptions.subscribe(request),
      execute: async ({ query, operationName, variables, requestId, authorization, address }) =>
        await graph.execute(query, operationName, variables, requestId, { authorization, address }),
      schema: options.live.schema,
      validationRules: graph.validationRules,
      limits: options.live.limits,
      connections: options.live.connections,
      log,
      buffers: options.live.buffers,
      reservationTimeoutMs: options.live.reservationTimeoutMs,
      onConnection: (delta) => options.metrics.liveConnections.inc({ kind: 'graphql' }, delta),
    });
    options.live.endpoint = endpoint;
    app.route({
      url: STREAM_PATH,
      method: ['GET', 'POST', 'PUT', 'DELETE'],
      preHandler: boundVariables,
      handler: (req, reply) => endpoint.serve(req, reply),
    });
  }
  registerPlayground(app, { graphqlPath: '/graphql' }); // GET / and browsers' GET /graphql: the offline GraphiQL page

  if (options.rest !== false) {
    const live = options.live && {
      graph,
      subscriptions: options.live.subscriptions,
      schema: options.live.schema,
      connections: options.live.connections,
      buffers: options.live.buffers,
      metrics: options.metrics,
      log,
      heartbeatMs: options.live.heartbeatMs,
    };
    for (const rest of [marketRestInterface(graph, live), ...(options.restInterfaces ?? [])]) {
      shapes.add(rest.prefix, rest.shape);
      await mountRestInterface(app, rest, options.bodyLimit ?? 1024 * 1024);
    }
  }

  app.get('/metrics', async (_req, reply) =>
    reply.type(options.metrics.registry.contentType).send(await options.metrics.registry.metrics()),
  );

  app.get('/healthz', async (_req, reply) => {
    let ok = true;
    let degraded = false; // still serving (200), with less (e.g. Redis away): said in `status`
    const check = async (probe: () => Promise<SubgraphHealth>): Promise<SubgraphHealth> => {
      const health = await probe().catch((err: unknown): SubgraphHealth => ({ status: 'down', error: String(err) }));
      if (health.status === 'down') ok = false;
      if (health.status === 'degraded') degraded = true;
      return health;
    };
    const subgraphs: Record<string, SubgraphHealth> = {};
    for (const [name, subgraph] of options.subgraphs) subgraphs[name] = await check(() => subgraph.health());
    for (const [name, probe] of Object.entries(options.remoteSubgraphs ?? {})) subgraphs[name] = await check(probe);
    const parts: Record<string, SubgraphHealth> = {};
    for (const [name, probe] of Object.entries(options.parts ?? {})) parts[name] = await check(probe);
    const status = !ok ? 'unavailable' : degraded ? 'degraded' : 'ok';
    return reply.status(ok ? 200 : 503).send({ status, version: VERSION, subgraphs, ...parts });
  });

  return app;
}
