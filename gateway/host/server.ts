import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Subgraph, SubgraphHealth } from '../../subgraphs/subgraph';
import { metricsText, shareMetrics } from './cluster';
import {
  callerOf,
  type ConnectionLimiter,
  createSubscriptionStream,
  createWebSocketEndpoint,
  type FederatedSubscriptions,
  type DocumentParams,
  type GatewayMetrics,
  type Graph,
  type Resolution,
  refuseUpgrade,
  searchParamsOf,
  searchWithDocument,
  STREAM_PATH,
  type StreamBuffers,
  type StreamLimits,
  type SubscriptionStreamEndpoint,
  type WebSocketEndpoint,
  withDocument,
} from '../graph';
import type { Logger } from '../../platform/log';
import { registerPlayground } from '../playground';
import type { RestInterface } from '../rest/interface';
import { createHttpApp, mountRestInterfaces } from './http-app';
import { marketErrorShape, marketRestInterface } from '../rest/market';
import { VERSION } from '../../platform/version';
import type { GraphQLSchema } from 'graphql';
import { ErrorShapes, graphqlErrorShape } from './error-shapes';
import { nestingDepth } from './request-bounds';
import { answerWithoutUpgrade, markUpgraded, requestIdOf, wantsWebSocket, type HttpLimits } from './http-server';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { sendIncremental, sendToApollo } from './graphql-http';
import { multipartFormat } from './multipart';
import { parse, specifiedRules, validate } from 'graphql';

/** What the two streaming endpoints are given alike: how operations run, and the bounds they share. */
type StreamingOptions = Pick<
  Parameters<typeof createWebSocketEndpoint>[0],
  'subscribe' | 'execute' | 'schema' | 'validationRules' | 'limits' | 'connections' | 'buffers' | 'log'
>;

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
  /** The HTTP listeners not bound yet (this one, DNS_API_PORT's): /readyz is 503 until none is left. */
  notListening?: () => string[];
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
  /** GraphQL over WebSocket (graphql-transport-ws) on /graphql and /graphql/ws; off when absent. */
  webSocket?: {
    /** How long a socket may stay open without its connection_init. */
    initTimeoutMs: number;
    /** Interval of pings; a socket that answered none by the next is cut. */
    keepAliveMs: number;
  };
  /** Set by buildServer: the /graphql/stream endpoint (tests inspect it). */
  endpoint?: SubscriptionStreamEndpoint;
  /** Set by buildServer: the WebSocket endpoint, when served (tests inspect it). */
  wsEndpoint?: WebSocketEndpoint;
}

/** The gateway's HTTP server: /graphql, the REST adapters and /healthz on one port. */
export async function buildServer(options: ServerOptions): Promise<FastifyInstance> {
  const { graph, log } = options;
  const shapes = new ErrorShapes(marketErrorShape);
  shapes.add('/graphql', graphqlErrorShape);
  const app = await createHttpApp({ ...options, shapes });
  app.addHook('preClose', async () => {
    // open streams and sockets never finish by themselves
    await Promise.all([options.live?.endpoint?.closeStreams(), options.live?.wsEndpoint?.close()]);
  });

  // Variables nested past any real input type are refused before anything walks them recursively (cache keys,
  // coercion): a megabyte of `[[[…]]]` would overflow the stack.
  const maxVariablesDepth = options.maxVariablesDepth ?? 32;
  const tooDeep = (variables: unknown): string | undefined =>
    variables !== null &&
    typeof variables === 'object' &&
    nestingDepth(variables, maxVariablesDepth) > maxVariablesDepth
      ? `variables are nested deeper than the limit of ${maxVariablesDepth} levels (maxVariablesDepth)`
      : undefined;
  const boundVariables = async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const refused = tooDeep((req.body as { variables?: unknown } | null | undefined)?.variables);
    if (refused) await shapes.send(req, reply, 400, refused, { limit: 'maxVariablesDepth' });
  };

  /**
   * A request's document parameters (the body's, or a GET's query string) resolved against the trusted documents
   * and, on the stream, APQ: the body and query string to go on with, or the refusal already sent.
   */
  const resolveDocument = async (
    req: FastifyRequest,
    reply: FastifyReply,
    resolve: (params: DocumentParams) => Resolution | Promise<Resolution>,
  ): Promise<{ body: unknown; search: string } | undefined> => {
    const url = new URL(req.url, 'http://localhost');
    const body = req.body;
    const get = req.method === 'GET';
    const params: DocumentParams | undefined = get
      ? searchParamsOf(url.searchParams)
      : typeof body === 'object' && body !== null && !Array.isArray(body)
        ? body
        : undefined;
    const resolution = params ? await resolve(params) : { kind: 'as-is' as const };
    if (resolution.kind === 'refused') {
      const { status, code, message } = resolution.refusal;
      // Apollo's own APQ errors (200) say the same: a client must not cache an answer telling it to send the text
      if (status === 200) void reply.header('cache-control', 'private, no-cache, must-revalidate');
      await shapes.send(req, reply, status, message, { code });
      return undefined;
    }
    if (resolution.kind === 'as-is') return { body, search: url.search };
    if (get) return { body, search: `?${searchWithDocument(url.searchParams, resolution.query).toString()}` };
    return { body: withDocument(body as DocumentParams, resolution.query), search: url.search };
  };

  app.route({
    url: '/graphql',
    method: ['GET', 'POST'],
    preHandler: boundVariables,
    async handler(req, reply) {
      const request = await resolveDocument(req, reply, (params) => graph.persisted.resolve(params));
      if (!request) return reply;
      // A POSTed JSON query whose response is cached is answered from the cache directly (JSON bodies are not
      // CSRF-prone, so Apollo's checks have nothing to add); everything else goes through Apollo Server.
      const body = request.body as
        { query?: unknown; operationName?: unknown; variables?: unknown; extensions?: unknown } | undefined;
      // A lookup here rolls the request's progressive-override labels (none without percent labels) and hands them
      // to its context: a miss is planned, and cached, with the same set. Otherwise (a batch: each operation its
      // own) the context rolls them when first needed.
      let overrideLabels: ReadonlySet<string> | undefined;
      if (req.method === 'POST' && typeof body?.query === 'string' && body.extensions === undefined) {
        overrideLabels = graph.rollLabels();
        const hit = graph.cachedBody(
          body.query,
          body.operationName,
          body.variables,
          req.headers.authorization,
          req.id,
          req.headers,
          overrideLabels,
        );
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
      // A client taking multipart/mixed gets active @defer fragments delivered apart (one header test otherwise).
      const format = multipartFormat(req.headers.accept);
      // its turn among the operations executing at once (an incremental one's until its initial result is sent)
      return graph.admission.run(() =>
        format
          ? sendIncremental(
              graph.server,
              req,
              reply,
              request,
              async (incremental) => graph.context(req.id, { ...callerOf(req), incremental, overrideLabels }),
              format,
            )
          : sendToApollo(graph.server, req, reply, request, async () =>
              graph.context(req.id, { ...callerOf(req), overrideLabels }),
            ),
      );
    },
  });
  if (options.live) {
    const { subscriptions, schema } = options.live;
    const rules = [...specifiedRules, ...graph.validationRules];
    // what both streaming endpoints (graphql-sse here, graphql-ws below) run operations with, and their shared bounds
    const streaming: StreamingOptions = {
      subscribe: (request) => subscriptions.subscribe(request),
      execute: async ({ query, operationName, variables, requestId, authorization, address, traceHeaders }) =>
        await graph.execute(query, operationName, variables, requestId, { authorization, address, traceHeaders }),
      schema: options.live.schema,
      validationRules: graph.validationRules,
      limits: options.live.limits,
      connections: options.live.connections,
      buffers: options.live.buffers,
      log,
    };
    const endpoint = createSubscriptionStream({
      ...streaming,
      path: STREAM_PATH,
      reservationTimeoutMs: options.live.reservationTimeoutMs,
      onConnection: (delta) => options.metrics.liveConnections.inc({ kind: 'graphql' }, delta),
    });
    options.live.endpoint = endpoint;
    app.route({
      url: STREAM_PATH,
      method: ['GET', 'POST', 'PUT', 'DELETE'],
      preHandler: boundVariables,
      async handler(req, reply) {
        // Operations only (PUT and DELETE reserve and stop streams): trusted documents, then APQ over the same store.
        if (req.method !== 'GET' && req.method !== 'POST') return endpoint.serve(req, reply);
        const request = await resolveDocument(req, reply, (params) =>
          graph.persisted.resolveStream(params, (query) => {
            try {
              return validate(schema, parse(query), rules).length === 0;
            } catch {
              return false;
            }
          }),
        );
        if (request) await endpoint.serve(req, reply, request);
      },
    });
    if (options.live.webSocket) {
      const ws = createWebSocketEndpoint({
        ...streaming,
        maxMessageBytes: options.bodyLimit ?? 1024 * 1024,
        connectionInitTimeoutMs: options.live.webSocket.initTimeoutMs,
        keepAliveMs: options.live.webSocket.keepAliveMs,
        requestIdOf,
        traced: graph.traced,
        refuseVariables: (variables) => {
          const message = tooDeep(variables);
          return message ? { message, limit: 'maxVariablesDepth' } : undefined;
        },
        onConnection: (delta) => options.metrics.liveConnections.inc({ kind: 'graphql-ws' }, delta),
      });
      options.live.wsEndpoint = ws;
      app.server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
        // Any other upgrade (h2c from `curl --http2`, …) is ignored: the request gets its ordinary answer.
        if (!wantsWebSocket(req)) return answerWithoutUpgrade(app.server, req, socket, head);
        markUpgraded(socket);
        if (!ws.handleUpgrade(req, socket, head)) refuseUpgrade(socket, 404, 'Not Found');
      });
    }
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
    await mountRestInterfaces(
      app,
      shapes,
      [marketRestInterface(graph, live), ...(options.restInterfaces ?? [])],
      options.bodyLimit,
    );
  }

  shareMetrics(options.metrics.registry);
  app.get('/metrics', async (_req, reply) =>
    reply.type(options.metrics.registry.contentType).send(await metricsText(options.metrics.registry)),
  );

  const probeAll = async () => {
    let ok = true;
    let degraded = false; // still serving (200), with less (e.g. Redis away): said in `status`
    let ready = true;
    const check = async (probe: () => Promise<SubgraphHealth>): Promise<SubgraphHealth> => {
      const health = await probe().catch((err: unknown): SubgraphHealth => ({ status: 'down', error: String(err) }));
      if (health.status === 'down') ok = false;
      if (health.status === 'degraded') degraded = true;
      if (health.ready === false) ready = false;
      return health;
    };
    // all at once: each probe bounds its own wait, so the answer takes the slowest one's time, not their sum
    const all = async (probes: [string, () => Promise<SubgraphHealth>][]) =>
      Object.fromEntries(await Promise.all(probes.map(async ([name, probe]) => [name, await check(probe)] as const)));
    const subgraphs = await all([
      ...[...options.subgraphs].map(([name, subgraph]): [string, () => Promise<SubgraphHealth>] => [
        name,
        () => subgraph.health(),
      ]),
      ...Object.entries(options.remoteSubgraphs ?? {}),
    ]);
    const parts = await all(Object.entries(options.parts ?? {}));
    const status = !ok ? 'unavailable' : degraded ? 'degraded' : 'ok';
    return { ok, ready: ok && ready, body: { status, version: VERSION, subgraphs, ...parts } };
  };
  app.get('/healthz', async (_req, reply) => {
    const { ok, body } = await probeAll();
    return reply.status(ok ? 200 : 503).send(body);
  });
  // Readiness: 503 also while a part serves but should get no traffic (a replica behind its store, the store away).
  // Every listener must be bound too: this one (a request can come before, through inject) and DNS_API_PORT's.
  app.get('/readyz', async (_req, reply) => {
    const { ready, body } = await probeAll();
    const notListening = options.notListening?.() ?? [];
    const all = ready && notListening.length === 0;
    return reply
      .status(all ? 200 : 503)
      .send({ ...body, ready: all, ...(notListening.length ? { notListening } : {}) });
  });
  // Liveness: the process and its loop turn; nothing else is asked (a slow database must not get it restarted).
  app.get('/livez', async (_req, reply) => reply.send({ status: 'ok', version: VERSION }));

  return app;
}

/** The DNS API alone on a listener of its own (DNS_API_PORT, 8081 by default, as the seed says). */
export async function buildApiServer(
  options: Pick<ServerOptions, 'log' | 'corsOrigins' | 'bodyLimit' | 'httpLimits' | 'metrics'>,
  rest: RestInterface,
): Promise<FastifyInstance> {
  const shapes = new ErrorShapes(rest.shape);
  const app = await createHttpApp({ ...options, shapes });
  await mountRestInterfaces(app, shapes, [rest], options.bodyLimit);
  return app;
}
