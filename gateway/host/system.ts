import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { Subgraph } from '../../subgraphs/subgraph';
import type { Config } from './config/schema';
import type { DnsPart } from './dns';
import {
  ConnectionLimiter,
  FederatedSubscriptions,
  formatError,
  GatewayMetrics,
  Graph,
  InProcessSubscriptions,
  OperationPlanner,
  type PreparedOperation,
  prepareOperation,
  probeRemoteSubgraph,
  StreamBuffers,
  STREAM_PATH,
  SupergraphError,
} from '../graph';
import { ConfigError } from './config/load';
import { buildSubgraph, type SystemOverrides } from './subgraphs';
import { GraphAccessError, type Engines, type GraphAccess } from '../../subgraphs/descriptor';

export type { SystemOverrides };
import { createLogger, type Logger } from '../../platform/log';
import { SUPERGRAPH_FILE } from './paths';
import { buildApiServer, buildServer, type LiveOptions } from './server';
import { Admission } from '../../platform/async';
import { configuredDocuments, persistedOperations } from './persisted-documents';
import type { Tracing } from './tracing';
import { tracesUrl } from './config/tracing-settings';

/** Something an HTTP listener serves, for its start-up line: what it is and its path (and other paths of it). */
export interface Served {
  what: string;
  path: string;
  /** Its URLs are ws:// (a WebSocket endpoint on the HTTP port). */
  webSocket?: boolean;
  also?: readonly string[];
}

export interface System {
  config: Config;
  log: Logger;
  app: FastifyInstance;
  /** What `app` serves (said in its start-up line). */
  serves: Served[];
  /** The DNS API alone, to listen on DNS_API_PORT (absent when that is 0, or serving a foreign supergraph). */
  apiApp?: FastifyInstance;
  /** What `apiApp` serves. */
  apiServes: Served[];
  graph: Graph;
  /** The planner of every operation (its progressive-override labels, its plan count). */
  planner: OperationPlanner;
  subgraphs: Map<string, Subgraph>;
  /** Subscriptions, the live streams' limits and the /graphql/stream endpoint. */
  live: LiveOptions;
  /** The DNS engine; absent when serving a foreign supergraph (--supergraph). */
  dns?: DnsPart;
  /** The tracing SDK; absent when no OTLP endpoint is configured (then nothing of it is built). */
  tracing?: Tracing;
  /** Stops accepting, finishes in-flight requests, closes subgraphs and caches. Safe to call twice. */
  close(): Promise<void>;
}

/** Builds every subgraph this process runs (those not pointed at a remote URL), plus a test's extra ones. */
async function createLocalSubgraphs(
  config: Config,
  log: Logger,
  engines: Engines,
  overrides: SystemOverrides,
  graph: GraphAccess,
): Promise<Map<string, Subgraph>> {
  const subgraphs = new Map<string, Subgraph>();
  const { SUBGRAPH_DESCRIPTORS } = await import('../../subgraphs');
  try {
    for (const descriptor of SUBGRAPH_DESCRIPTORS) {
      if (!config.subgraphUrls[descriptor.name])
        subgraphs.set(descriptor.name, await buildSubgraph(descriptor, config, log, engines, overrides, graph));
    }
  } catch (err) {
    for (const s of subgraphs.values()) await s.close();
    throw err;
  }
  for (const extra of overrides.extraSubgraphs ?? [])
    if (!config.subgraphUrls[extra.name]) subgraphs.set(extra.name, extra);
  return subgraphs;
}

/** The planner over the supergraph; a supergraph it refuses (an override label that is not valid) stops the start. */
function supergraphPlanner(
  supergraphSdl: string,
  file: string | undefined,
  random: (() => number) | undefined,
): OperationPlanner {
  try {
    return new OperationPlanner(supergraphSdl, random ? { random } : {});
  } catch (err) {
    if (!(err instanceof SupergraphError)) throw err;
    throw new ConfigError(
      file === undefined
        ? `the supergraph: ${err.message}`
        : `SUPERGRAPH_FILE (supergraphFile): ${file}: ${err.message}`,
    );
  }
}

/** Builds the whole system from a validated configuration (nothing listens until `app.listen`). */
export async function createSystem(
  config: Config,
  log: Logger = createLogger(config.logLevel),
  overrides: SystemOverrides = {},
): Promise<System> {
  // --supergraph FILE: a general gateway over remote subgraphs; our own subgraphs, DNS and REST stay off.
  const general = config.supergraphFile !== undefined;
  // Read before anything opens: a bad manifest stops the start with nothing to undo.
  const documents = configuredDocuments(config);
  const supergraphSdl = overrides.supergraphSdl ?? readFileSync(config.supergraphFile ?? SUPERGRAPH_FILE, 'utf8');
  const planner = supergraphPlanner(supergraphSdl, config.supergraphFile, overrides.plannerRandom);
  // Engines first: the subgraphs are built on them.
  const dns = general ? undefined : (overrides.dns ?? (await (await import('./dns')).startDns(config, log)));
  const engines: Engines = dns
    ? { dns: { store: dns.store, engine: dns.engine, toolKey: dns.toolKey, vault: dns.vault } }
    : {};
  // Subgraphs are built before the graph over them: their internal queries wait for it (they are made on requests).
  const started: { graph?: Graph } = {};
  // Internal operations are few and fixed: each prepared once (some run on every request, e.g. a token's user).
  const prepared = new Map<string, PreparedOperation>();
  const internal: GraphAccess = {
    async query(name, source, variables = {}, authorization) {
      if (!started.graph) throw new Error(`internal operation ${name} before the gateway started`);
      let op = prepared.get(source);
      if (!op) prepared.set(source, (op = prepareOperation(name, source)));
      const caller = authorization === undefined ? undefined : { authorization };
      const { result } = await started.graph.run(op, variables, `internal-${name}`, caller);
      const [first] = result.errors ?? [];
      if (first) {
        const code = first.extensions?.code;
        throw new GraphAccessError(
          `internal operation ${name}: ${first.message}`,
          typeof code === 'string' ? code : undefined,
        );
      }
      return result.data ?? {};
    },
  };
  // The cap on whole-zone reads is per process: the DNS API's REST listeners and its subgraph's zoneFile share it.
  const wholeZoneReads = new Admission({ running: config.dnsApiWholeZoneReads, waiting: config.dnsApiWholeZoneQueue });
  // Our own REST interfaces, loaded only when served: a foreign supergraph (--supergraph) has none.
  const rest = general
    ? undefined
    : { dnsApi: await import('../rest/dns-api'), dnsTool: await import('../rest/dns-tool') };
  const dnsApiRest = rest && { wholeZoneReads, sharedPages: new rest.dnsApi.SharedPages() };
  let subgraphs: Map<string, Subgraph>;
  try {
    subgraphs = general
      ? new Map<string, Subgraph>()
      : await createLocalSubgraphs(config, log, engines, { wholeZoneReads, ...overrides }, internal);
  } catch (err) {
    await dns?.close();
    throw err;
  }
  const metrics = new GatewayMetrics();
  if (dns) (await import('./dns-metrics')).registerDnsMetrics(metrics.registry, () => dns.engine.stats());
  // Off (undefined, nothing built) unless an OTLP endpoint is configured.
  const tracing = tracesUrl(config)
    ? (await import('./tracing')).startTracing(config, log.child({ part: 'tracing' }))
    : undefined;
  const graph = new Graph({
    supergraphSdl,
    planner,
    local: subgraphs,
    urls: config.subgraphUrls,
    responseCache: {
      maxEntries: config.responseCache ? config.responseCacheEntries : 0,
      maxBytes: config.responseCacheBytes,
      maxEntryBytes: config.responseCacheMaxEntryBytes,
    },
    limits: { maxQueryDepth: config.maxQueryDepth, maxAliases: config.maxAliases, maxFields: config.maxFields },
    maxQueryCost: config.maxQueryCost,
    concurrency: config.graphqlConcurrency,
    subgraphTimeoutMs: config.subgraphTimeoutMs,
    subgraphLongTimeoutMs: config.subgraphLongTimeoutMs,
    subgraphMaxResponseBytes: config.subgraphMaxResponseBytes,
    introspection: config.introspection,
    persisted: persistedOperations(config, documents, log.child({ part: 'persisted-queries' })),
    metrics,
    log,
    tracer: tracing?.tracer,
  });
  await graph.start();
  started.graph = graph;
  const subscriptions = new FederatedSubscriptions({
    planner,
    executor: graph.executor,
    local: new Map([...subgraphs].map(([name, subgraph]) => [name, new InProcessSubscriptions(subgraph)])),
    remote: graph.remote,
    remoteQueueBytes: config.liveMaxStreamBufferBytes,
    formatError,
    log: log.child({ part: 'subscriptions' }),
    onActive: (delta) => metrics.subscriptions.inc(delta),
    onEvent: () => metrics.subscriptionEvents.inc(),
    costLimit: graph.costLimit,
    tracer: tracing?.tracer,
  });
  const liveLimits = {
    maxConnections: config.liveMaxConnections,
    maxConnectionsPerClient: config.liveMaxConnectionsPerClient,
    maxSubscriptionsPerConnection: config.liveMaxSubscriptionsPerConnection,
  };
  const buffers = new StreamBuffers(
    {
      maxStreamBytes: config.liveMaxStreamBufferBytes,
      maxTotalBytes: config.liveMaxBufferedBytes,
      slowClientTimeoutMs: config.liveSlowClientTimeoutMs,
    },
    log.child({ part: 'live' }),
    ({ kind, limit }) => metrics.liveSlowClientDisconnects.inc({ kind, limit }),
  );
  metrics.watchBufferedBytes(() => buffers.bytes);
  const live: LiveOptions = {
    subscriptions,
    schema: planner.apiSchema,
    limits: liveLimits,
    connections: new ConnectionLimiter(liveLimits),
    heartbeatMs: config.liveHeartbeatMs,
    buffers,
    reservationTimeoutMs: config.liveReservationTimeoutMs,
    webSocket: { initTimeoutMs: config.liveWsInitTimeoutMs, keepAliveMs: config.liveWsKeepAliveMs },
  };
  const remoteHealth = Object.fromEntries(
    [...graph.remote].map(([name, url]) => [name, () => probeRemoteSubgraph(url)]),
  );
  const http = {
    log,
    corsOrigins: config.corsOrigins,
    metrics,
    bodyLimit: config.maxBodyBytes,
    httpLimits: {
      maxConnections: config.httpMaxConnections,
      requestTimeoutMs: config.httpRequestTimeoutMs,
      shutdownGraceMs: config.shutdownGraceMs,
    },
  };
  const app = await buildServer({
    ...http,
    graph,
    subgraphs,
    remoteSubgraphs: remoteHealth,
    rest: !general,
    restInterfaces:
      rest && dnsApiRest
        ? [
            rest.dnsApi.dnsApiRestInterface(graph, dnsApiRest),
            rest.dnsTool.dnsToolRestInterface(graph, { apiEnabled: config.dnsTool.apiEnabled }),
          ]
        : [],
    maxVariablesDepth: config.maxVariablesDepth,
    parts: dns ? { dns: () => dns.health() } : {},
    live,
    notListening: () => [
      ...(app.server.listening ? [] : [`PORT ${config.port}`]),
      ...(apiApp && !apiApp.server.listening ? [`DNS_API_PORT ${config.dnsApiPort}`] : []),
    ],
  });
  // The DNS API also on its own port (the seed's 8081), for clients configured with it.
  const apiApp =
    rest && dnsApiRest && config.dnsApiPort !== 0
      ? await buildApiServer(http, rest.dnsApi.dnsApiRestInterface(graph, dnsApiRest))
      : undefined;
  let closing: Promise<void> | undefined;
  return {
    config,
    log,
    app,
    // What is mounted, nothing more: a foreign supergraph (--supergraph) has no REST interfaces.
    serves: [
      { what: 'GraphQL', path: '/graphql' },
      { what: 'subscriptions', path: STREAM_PATH },
      // The WebSocket endpoint is on whenever live options carry it (always, today).
      ...(live.webSocket ? [{ what: 'WebSocket', path: '/graphql/ws', also: ['/graphql'], webSocket: true }] : []),
      ...(general
        ? []
        : [
            { what: 'market REST', path: '/v1/…' },
            { what: 'DNS API', path: '/api/v1/…' },
            { what: 'DNS tool', path: '/api.php' },
          ]),
    ],
    apiApp,
    apiServes: [{ what: 'DNS API', path: '/api/v1/…' }],
    graph,
    planner,
    subgraphs,
    dns,
    live,
    tracing,
    close() {
      closing ??= (async () => {
        await Promise.all([app.close(), apiApp?.close()]);
        await graph.stop();
        await tracing?.shutdown(); // the spans of the last requests are sent before the process ends
        for (const s of subgraphs.values()) await s.close();
        await dns?.close();
      })();
      return closing;
    },
  };
}
