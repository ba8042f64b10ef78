import { createHash } from 'node:crypto';
import type { GraphQLDataSource } from '@apollo/gateway';
import { ApolloServer, type GraphQLRequest } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import type { Tracer } from '@opentelemetry/api';
import { NoSchemaIntrospectionCustomRule, parse, type FormattedExecutionResult, type ValidationRule } from 'graphql';
import type { Subgraph } from '../../subgraphs/subgraph';
import type { Logger } from '../../platform/log';
import {
  cacheScopeOf,
  createGatewayContext,
  type GatewayContext,
  type RequestCaller,
  type TraceCarrier,
} from './context';
import { costDirectives } from './cost-directives';
import { deferRule } from './defer-rule';
import { OperationAdmission, type ConcurrencySetting } from './admission';
import { CostEstimator } from './cost';
import { FederatedExecutor } from './federation/federated-executor';
import { InProcessDataSource } from './federation/in-process-data-source';
import type { OperationPlanner } from './federation/operation-planner';
import { PersistedOperations } from './persisted/persisted-operations';
import { RemoteSubgraphDataSource } from './federation/remote-data-source';
import { SingleSubgraphExecutor } from './federation/single-subgraph-executor';
import { TimedDataSource, type FetchBounds } from './federation/timed-data-source';
import { formatError } from './format-error';
import { OperationCostLimit, operationLimitsRule, type OperationLimits } from './limits';
import { longRunningFields, LongRunningOperations } from './long-running';
import type { GatewayMetrics } from './metrics';
import { observabilityPlugin } from './observability';
import type { PreparedOperation } from './prepared-operation';
import { costLimitPlugin, operationChecksPlugin } from './request-checks';
import { ResponseCache, type CachedResponse, type ResponseCacheOptions } from './response-cache';
import { cachedOperationSpan, tracingPlugin } from './tracing';

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
  /** Operations executing at once (GRAPHQL_CONCURRENCY; default `auto`). */
  concurrency?: ConcurrencySetting;
  /** Longest a subgraph fetch may take before the request goes on without it. */
  subgraphTimeoutMs: number;
  /** Longest a fetch of a long-running root field (`@longRunning`) may take instead; 0: as long as the subgraph works. */
  subgraphLongTimeoutMs: number;
  /** Largest answer taken from a remote subgraph. */
  subgraphMaxResponseBytes: number;
  introspection: boolean;
  /** Trusted documents and the automatic persisted queries' store (default: APQ in Apollo Server's own cache, no manifest). */
  persisted?: PersistedOperations;
  metrics: GatewayMetrics;
  log: Logger;
  /** Spans of operations, planning and fetches (docs/gateway.md, "Tracing"); absent: tracing is off and costs nothing. */
  tracer?: Tracer;
}

export interface RunResult {
  result: FormattedExecutionResult;
  /** The cache entry holding `result`, when the response is cacheable. */
  cached?: CachedResponse;
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
  /** Trusted documents and APQ: resolved at the HTTP edge of /graphql and /graphql/stream (never for `run`). */
  readonly persisted: PersistedOperations;
  /** How many operations execute at once; the HTTP endpoint and `run`/`execute` go through it (not subscriptions). */
  readonly admission: OperationAdmission;

  constructor(private readonly options: GraphOptions) {
    const { planner } = options;
    // With percent override labels, an answer is cached per active label set that can change its plan.
    this.cache = new ResponseCache(
      options.responseCache,
      planner.overrides.any
        ? {
            active: (context) => planner.contextLabels(context),
            relevant: (document, operationName, key) => planner.relevantLabels(operationName, key, document),
          }
        : undefined,
    );
    this.admission = new OperationAdmission(options.concurrency ?? 'auto');
    options.metrics.watchAdmission(this.admission);
    this.persisted = options.persisted ?? new PersistedOperations({ only: false });
    this.validationRules = [
      operationLimitsRule(options.limits),
      deferRule,
      ...(options.introspection ? [] : [NoSchemaIntrospectionCustomRule]),
    ];
    const inProcess = new Map<string, Subgraph>();
    const bounds: FetchBounds = {
      timeoutMs: options.subgraphTimeoutMs,
      longTimeoutMs: options.subgraphLongTimeoutMs,
      long: new LongRunningOperations(longRunningFields(options.supergraphSdl), options.planner.apiSchema),
    };
    for (const { name, url } of options.planner.subgraphs) {
      const local = options.urls?.[name] ? undefined : options.local.get(name);
      let inner: GraphQLDataSource<GatewayContext>;
      const transport = local ? 'in-process' : 'http';
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
      this.dataSources.set(name, new TimedDataSource(name, inner, bounds, options.metrics, transport));
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
      // APQ: our bounded store, or off (PERSISTED_QUERIES=off: a hash alone is answered PersistedQueryNotSupported).
      persistedQueries: options.persisted
        ? options.persisted.options.store
          ? { cache: options.persisted.options.store }
          : false
        : undefined,
      validationRules: [operationLimitsRule(options.limits), deferRule], // Apollo Server applies `introspection` itself
      logger: options.log.child({ part: 'apollo' }),
      plugins: [
        ApolloServerPluginCacheControlDisabled(),
        ApolloServerPluginLandingPageDisabled(),
        this.cache.plugin(),
        observabilityPlugin(options.metrics),
        operationChecksPlugin(),
        costLimitPlugin(this.costLimit),
        ...(options.tracer ? [tracingPlugin(options.tracer)] : []),
      ],
    });
  }

  async start(): Promise<void> {
    await this.server.start();
  }

  async stop(): Promise<void> {
    this.admission.close();
    await this.server.stop();
    await Promise.all(this.connections.map((c) => c.close()));
    await this.persisted.options.store?.close();
  }

  /**
   * A roll of the request's percent override labels, for a request that looks up the response cache before its
   * context exists: handed on to its context (`RequestCaller.overrideLabels`) so that planning uses the same set.
   * Undefined when the supergraph has no percent label.
   */
  rollLabels(): ReadonlySet<string> | undefined {
    return this.options.planner.rollLabels();
  }

  /** Whether tracing is on (a tracer was handed): trace context is read only then. */
  get traced(): boolean {
    return this.options.tracer !== undefined;
  }

  context(requestId: string, caller?: RequestCaller): GatewayContext {
    return createGatewayContext(requestId, this.options.log, caller);
  }

  /** The context of an operation run without HTTP of its own: it continues the trace of the caller's request. */
  private runContext(requestId: string, caller: RequestCaller | undefined): GatewayContext {
    const context = this.context(requestId, caller);
    if (this.options.tracer) context.traceHeaders = caller?.traceHeaders;
    return context;
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
    /** The request's id and headers, for its span when tracing is on (only traceparent and tracestate are read). */
    requestId?: string,
    headers?: TraceCarrier,
    /** The request's percent override labels (`rollLabels`); without them an operation they matter to is a miss. */
    labels?: ReadonlySet<string>,
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
      labels,
    );
    const entry = key === undefined ? undefined : this.cache.get(key);
    if (!entry) return null;
    if (this.options.tracer)
      cachedOperationSpan(this.options.tracer, operationName ?? undefined, hash, requestId, headers);
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
    const response = await this.admission.run(() =>
      this.server.executeOperation(
        { query, operationName, variables },
        { contextValue: this.runContext(requestId, caller) },
      ),
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
    // Rolled once: the key and the planning of a miss (through the context) use the same labels.
    const active = this.options.planner.rollLabels();
    const labels = active && this.options.planner.planLabels(op.name, op.hash, () => parse(op.query), active);
    const key = ResponseCache.key(
      cacheScopeOf(caller?.authorization),
      op.hash,
      op.name,
      op.variables,
      variables,
      labels,
    );
    const hit = this.cache.get(key);
    if (hit) {
      if (this.options.tracer)
        cachedOperationSpan(this.options.tracer, op.name, op.hash, requestId, caller?.traceHeaders);
      return { result: hit.result, cached: hit };
    }
    const request: GraphQLRequest = { query: op.query, operationName: op.name, variables };
    const response = await this.admission.run(() =>
      this.server.executeOperation(request, {
        contextValue: this.runContext(requestId, active ? { ...caller, overrideLabels: active } : caller),
      }),
    );
    if (response.body.kind !== 'single') throw new Error(`operation ${op.name} returned an incremental response`);
    return { result: response.body.singleResult, cached: this.cache.get(key) };
  }
}
