import { createHash } from 'node:crypto';
import type { GraphQLDataSource } from '@apollo/gateway';
import { ApolloServer, type ApolloServerPlugin, type GraphQLRequest } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import {
  getOperationAST,
  GraphQLError,
  Kind,
  NoSchemaIntrospectionCustomRule,
  OperationTypeNode,
  parse,
  type FormattedExecutionResult,
  type GraphQLFormattedError,
  type ValidationRule,
} from 'graphql';
import type { Subgraph } from '../subgraphs/subgraph';
import { cacheScopeOf, createGatewayContext, type GatewayContext, type RequestCaller } from './context';
import { FederatedExecutor } from './federation/federated-executor';
import { InProcessDataSource } from './federation/in-process-data-source';
import type { OperationPlanner } from './federation/operation-planner';
import { SingleSubgraphExecutor } from './federation/single-subgraph-executor';
import { RemoteSubgraphDataSource } from './federation/remote-data-source';
import { TimedDataSource } from './federation/timed-data-source';
import { costDirectives } from './cost-directives';
import { CostEstimator } from './cost';
import { OperationCostLimit, operationLimitsRule, type OperationLimits } from './limits';
import type { GatewayMetrics } from './metrics';
import { observabilityPlugin } from './observability';
import type { Logger } from './logger';
import { declaredVariables, ResponseCache, type CachedResponse, type ResponseCacheOptions } from './response-cache';
import { STREAM_PATH } from './subscriptions/sse-endpoint';

/** A fixed operation (as the REST adapters run them), hashed once. */
export interface PreparedOperation {
  name: string;
  query: string;
  hash: string;
  /** The variables the operation declares (the response cache keys on them). */
  variables: readonly string[];
}

export function prepareOperation(name: string, query: string): PreparedOperation {
  const operation = getOperationAST(parse(query), name);
  if (!operation) throw new Error(`fixed operation ${name} is not in its own document`);
  return {
    name,
    query,
    hash: createHash('sha256').update(query).digest('hex'),
    variables: declaredVariables(operation),
  };
}

export interface GraphOptions {
  supergraphSdl: string;
  /** The query planner over the same supergraph: every operation is planned and prepared by it. */
  planner: OperationPlanner;
  /** Subgraphs that run in this process, by name; every other subgraph is fetched over HTTP. */
  local: ReadonlyMap<string, Subgraph>;
  /** Overrides of subgraph URLs (`--subgraph NAME=URL`). */
  urls?: Readonly<Record<string, string>>;
  responseCache: Omit<ResponseCacheOptions, 'now'>;
  limits: OperationLimits;
  /** Largest estimated cost of one operation (its page sizes and weights from the supergraph's cost directives). */
  maxQueryCost: number;
  /** Longest a subgraph fetch may take before the request goes on without it. */
  subgraphTimeoutMs: number;
  /** Largest answer taken from a remote subgraph. */
  subgraphMaxResponseBytes: number;
  introspection: boolean;
  metrics: GatewayMetrics;
  log: Logger;
}

export interface RunResult {
  result: FormattedExecutionResult;
  /** The cache entry holding `result`, when the response is cacheable. */
  cached?: CachedResponse;
}

/**
 * Operations Apollo Server must not hand to the executor: an operation name that names no operation (or several
 * unnamed operations) is a 400 with graphql-js's own message, and a subscription POSTed to /graphql gets a 400 that
 * says where subscriptions are served (Apollo cannot run them).
 */
function operationChecksPlugin(): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation, document, request }) {
          if (!operation) {
            const named = document?.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION) ?? [];
            const message = request.operationName
              ? `Unknown operation named "${request.operationName}".`
              : named.length > 1
                ? 'Must provide operation name if query contains multiple operations.'
                : 'Must provide an operation.';
            throw new GraphQLError(message, {
              extensions: { code: 'OPERATION_RESOLUTION_FAILURE', http: { status: 400 } },
            });
          }
          if (operation.operation !== OperationTypeNode.SUBSCRIPTION) return;
          throw new GraphQLError(
            `subscriptions are served over graphql-sse at ${STREAM_PATH} (POST the operation there with Accept: text/event-stream)`,
            {
              extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
            },
          );
        },
      };
    },
  };
}

/**
 * Refuses an operation whose estimated cost is over the limit before anything runs (Apollo Server answers 400). It
 * runs after the operation checks: an operation that names none, or a subscription, gets their error first.
 */
function costLimitPlugin(limit: OperationCostLimit): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation, document, request }) {
          const refused = operation && limit.check(document, operation, request.variables);
          if (refused)
            throw new GraphQLError(refused.message, {
              nodes: refused.nodes,
              extensions: { ...refused.extensions, http: { status: 400 } },
            });
        },
      };
    },
  };
}

/** Only what a client should see of an error: message, location, path and the documented extensions. */
export function formatError(formatted: GraphQLFormattedError): GraphQLFormattedError {
  const ext = formatted.extensions ?? {};
  const extensions: Record<string, unknown> = { code: ext.code ?? 'INTERNAL_SERVER_ERROR' };
  // `tool`: the DNS tool's own error, message and code, which /api.php answers with exactly.
  for (const k of ['field', 'serviceName', 'limit', 'errors', 'retryAfter', 'tool'])
    if (ext[k] !== undefined) extensions[k] = ext[k];
  return { message: formatted.message, locations: formatted.locations, path: formatted.path, extensions };
}

/**
 * The federated graph: the supergraph's operations planned by our planner and run by our executor, served by Apollo
 * Server (parsing, validation, plugins, error formatting), with the response cache.
 */
export class Graph {
  readonly server: ApolloServer<GatewayContext>;
  readonly cache: ResponseCache;
  /** Runs every operation that spans subgraphs (and those the direct path does not take). */
  readonly executor: FederatedExecutor;
  /** Remote subgraphs' connection pools (closed when the graph stops). */
  private readonly connections: RemoteSubgraphDataSource[] = [];
  /** Subgraphs fetched over HTTP, by name → URL (for health probes and subscriptions). */
  readonly remote = new Map<string, string>();
  /** Every subgraph's data source as the gateway built it (subscriptions run the rest of their plans with them). */
  readonly dataSources = new Map<string, GraphQLDataSource<GatewayContext>>();
  /** Runs operations one in-process subgraph answers whole, without planning and shaping. */
  readonly direct: SingleSubgraphExecutor;
  /** Rules every operation is validated with beyond the specification's (limits; introspection when it is off). */
  readonly validationRules: ValidationRule[];
  /** The bound of an operation's estimated cost, checked for each request with its variables (subscriptions too). */
  readonly costLimit: OperationCostLimit;

  constructor(private readonly options: GraphOptions) {
    this.cache = new ResponseCache(options.responseCache);
    this.validationRules = [
      operationLimitsRule(options.limits),
      ...(options.introspection ? [] : [NoSchemaIntrospectionCustomRule]),
    ];
    const inProcess = new Map<string, Subgraph>();
    for (const { name, url } of options.planner.subgraphs) {
      const local = options.urls?.[name] ? undefined : options.local.get(name);
      let inner: GraphQLDataSource<GatewayContext>;
      if (local) {
        inProcess.set(name, local);
        inner = new InProcessDataSource(local);
      } else {
        const target = options.urls?.[name] ?? url;
        if (!target) throw new Error(`subgraph ${name} has no URL: give one with --subgraph ${name}=URL`);
        this.remote.set(name, target);
        const remote = new RemoteSubgraphDataSource(target, options.subgraphMaxResponseBytes);
        this.connections.push(remote);
        inner = remote;
      }
      this.dataSources.set(name, new TimedDataSource(name, inner, options.subgraphTimeoutMs, options.metrics));
    }
    this.costLimit = new OperationCostLimit(
      new CostEstimator(options.planner.apiSchema, costDirectives(options.supergraphSdl)),
      options.maxQueryCost,
    );
    this.executor = new FederatedExecutor(options.planner, this.dataSources);
    const direct = new SingleSubgraphExecutor(options.planner, inProcess, this.dataSources);
    this.direct = direct;
    const executor = direct.wrap((rc) => this.executor.execute(rc as Parameters<FederatedExecutor['execute']>[0]));
    const apiSchema = options.planner.apiSchema;
    this.server = new ApolloServer<GatewayContext>({
      // Our executor in Apollo Server's gateway slot, with operations that one in-process subgraph answers whole run
      // directly on it. The supergraph is fixed for the life of the process.
      gateway: {
        load: async () => ({ schema: apiSchema, executor }),
        onSchemaLoadOrUpdate: (callback) => {
          callback({ apiSchema, coreSupergraphSdl: options.supergraphSdl });
          return () => {};
        },
        stop: async () => {},
      },
      formatError,
      includeStacktraceInErrorResponses: false,
      // Apollo's own SIGINT/SIGTERM handlers (on unless NODE_ENV=test) stop it and re-raise the signal, killing the
      // process before in-flight requests finish: shutdown is ours (main.ts), in order.
      stopOnTerminationSignals: false,
      introspection: options.introspection,
      validationRules: [operationLimitsRule(options.limits)], // Apollo Server applies `introspection` itself
      logger: options.log.child({ part: 'apollo' }),
      plugins: [
        ApolloServerPluginCacheControlDisabled(),
        ApolloServerPluginLandingPageDisabled(),
        this.cache.plugin(),
        observabilityPlugin(options.metrics),
        operationChecksPlugin(),
        costLimitPlugin(this.costLimit),
      ],
    });
  }

  async start(): Promise<void> {
    await this.server.start();
  }

  async stop(): Promise<void> {
    await this.server.stop();
    await Promise.all(this.connections.map((c) => c.close()));
  }

  context(requestId: string, caller?: RequestCaller): GatewayContext {
    return createGatewayContext(requestId, this.options.log, caller);
  }

  /**
   * The serialised body of a cached response to a POSTed query, if there is a fresh one (null otherwise). Lets the
   * HTTP layer answer a cache hit without Apollo Server's pipeline re-serialising the same result each time.
   */
  cachedBody(
    query: string,
    operationName: unknown,
    variables: unknown,
    authorization?: string,
  ): { body: string; maxAge: number } | null {
    if (!this.cache.enabled) return null;
    if (
      (operationName !== undefined && operationName !== null && typeof operationName !== 'string') ||
      (variables !== undefined && variables !== null && (typeof variables !== 'object' || Array.isArray(variables)))
    )
      return null;
    const hash = createHash('sha256').update(query).digest('hex');
    const key = this.cache.keyOf(
      cacheScopeOf(authorization),
      hash,
      operationName,
      variables as Record<string, unknown> | null | undefined,
    );
    const entry = key === undefined ? undefined : this.cache.get(key);
    if (!entry) return null;
    const body = this.cache.derive(entry, 'graphql', () => `${JSON.stringify(entry.result)}\n`);
    return { body, maxAge: this.cache.remaining(entry) };
  }

  /** Runs one operation (e.g. a query sent over the stream endpoint) through the same pipeline as /graphql. */
  async execute(
    query: string,
    operationName: string | undefined,
    variables: Record<string, unknown> | undefined,
    requestId: string,
    caller?: RequestCaller,
  ): Promise<FormattedExecutionResult> {
    const response = await this.server.executeOperation(
      { query, operationName, variables },
      { contextValue: this.context(requestId, caller) },
    );
    if (response.body.kind !== 'single')
      return {
        errors: [{ message: 'incremental delivery is not supported here', extensions: { code: 'BAD_REQUEST' } }],
      };
    return response.body.singleResult;
  }

  /** Runs a fixed operation through the same pipeline as /graphql (limits, logging, caching). */
  async run(
    op: PreparedOperation,
    variables: Record<string, unknown>,
    requestId: string,
    caller?: RequestCaller,
  ): Promise<RunResult> {
    const key = ResponseCache.key(cacheScopeOf(caller?.authorization), op.hash, op.name, op.variables, variables);
    const hit = this.cache.get(key);
    if (hit) return { result: hit.result, cached: hit };
    const request: GraphQLRequest = { query: op.query, operationName: op.name, variables };
    const response = await this.server.executeOperation(request, {
      contextValue: this.context(requestId, caller),
    });
    if (response.body.kind !== 'single') throw new Error(`operation ${op.name} returned an incremental response`);
    return { result: response.body.singleResult, cached: this.cache.get(key) };
  }
}
