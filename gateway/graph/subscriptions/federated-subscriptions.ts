import { createHash } from 'node:crypto';
import type { GatewayGraphQLRequestContext } from '@apollo/server-gateway-interface';
import {
  GraphQLError,
  print,
  type DocumentNode,
  type ExecutionResult,
  type FormattedExecutionResult,
  type GraphQLFormattedError,
} from 'graphql';
import { LRUCache } from 'lru-cache';
import type { Span, SpanContext, Tracer } from '@opentelemetry/api';
import { createGatewayContext, type GatewayContext, type OperationTrace, type TraceCarrier } from '../context';
import { ATTR, endFailed, endWithErrors, EventSpan, subscriptionSpan } from '../tracing';
import type { OperationCostLimit } from '../limits';
import type { Logger } from '../../../platform/log';
import { mapStream, type Stream } from '../../../subgraphs/async-streams';
import type { InProcessSubscriptions } from './in-process-stream';
import type { FederatedExecutor } from '../federation/federated-executor';
import type { OperationPlanner, SubscriptionPlan } from '../federation/operation-planner';
import type { DataObject } from '../federation/plan-executor';
import type { FetchStep } from '../federation/query-plan';
import { withService } from '../federation/subgraph-errors';
import { openRemoteSubscription, unavailableResult } from './remote-stream';

/** How long a remote event's completed result may serve equal events of identical subscriptions. */
const CONTENT_REUSE_MS = 1_000;
/**
 * Bytes of remote events whose results are kept for reuse (results are about their events' size). Entries leave
 * when stale, not only when evicted: large events at a short interval would otherwise keep 10 000 results alive.
 */
const CONTENT_REUSE_BYTES = 64 * 1024 * 1024;

/**
 * One event's result for one operation, shared by the identical subscriptions that receive the event; `span`: its
 * completion's span when tracing (each subscription that takes the result is linked to from it).
 */
interface SharedResult {
  result: Promise<FormattedExecutionResult>;
  span?: EventSpan;
}

export interface SubscriptionRequest {
  document: DocumentNode;
  /** The operation's text (a plan cache key; printed from `document` when absent). */
  query?: string;
  operationName?: string | null;
  variables?: Record<string, unknown> | null;
  requestId: string;
  /**
   * Subscribers with the same share key may share the execution of an event (results memoised per event); the
   * caller puts in it whatever may make results differ between callers (e.g. the credentials they present).
   */
  shareKey?: string;
  /** The caller's Authorization header, handed to every subgraph the subscription reaches (never logged). */
  authorization?: string;
  /** The headers of the request that opens it: its opening span continues their trace (read only when tracing is on). */
  traceHeaders?: TraceCarrier;
}

export interface FederatedSubscriptionsOptions {
  planner: OperationPlanner;
  /** Runs the rest of each event's plan over the subgraphs (the executor the gateway runs queries with). */
  executor: FederatedExecutor;
  /** Subgraphs in this process that can open subscriptions, by name. */
  local: ReadonlyMap<string, InProcessSubscriptions>;
  /** URLs of remote subgraphs, by name. */
  remote: ReadonlyMap<string, string>;
  /** Bytes of a remote subgraph's events queued for a subscriber that has not taken them (it loses the oldest past it). */
  remoteQueueBytes?: number;
  formatError: (error: GraphQLFormattedError) => GraphQLFormattedError;
  log: Logger;
  /** Bounds the estimated cost of each subscription as it bounds queries' (the same limit, with its variables). */
  costLimit?: OperationCostLimit;
  /** Told when a subscription starts (+1) and ends (-1), and of every event delivered. */
  onActive?: (delta: 1 | -1) => void;
  onEvent?: () => void;
  /** When tracing is on: each event's completion is a span (a trace of its own; its fetches are its children). */
  tracer?: Tracer;
}

/**
 * Subscriptions through the federated graph: each is planned by the query planner, its root field opened on the
 * owning subgraph (in this process, or over graphql-sse), and every event completed with the fields other
 * subgraphs add by executing the rest of the plan — our executor runs it, with the event standing in for the
 * plan's first fetch. Results of one event are memoised per operation, so identical subscriptions share the work.
 */
export class FederatedSubscriptions {
  private readonly results = new WeakMap<object, Map<string, SharedResult>>();
  private readonly byContent = new LRUCache<string, SharedResult>({
    max: 10_000,
    ttl: CONTENT_REUSE_MS,
    ttlAutopurge: true,
    maxSize: CONTENT_REUSE_BYTES,
  });

  constructor(private readonly options: FederatedSubscriptionsOptions) {}

  async subscribe(request: SubscriptionRequest): Promise<Stream<FormattedExecutionResult> | FormattedExecutionResult> {
    const tracer = this.options.tracer;
    if (!tracer) return this.start(request, undefined);
    const text = request.query ?? print(request.document);
    const span = subscriptionSpan(
      tracer,
      request.operationName,
      createHash('sha256').update(text).digest('hex'),
      request.requestId,
      request.traceHeaders,
    );
    try {
      const result = await this.start(request, { tracer, span });
      endWithErrors(span, isStream(result) ? undefined : result.errors);
      return result;
    } catch (err) {
      endFailed(span, 'INTERNAL_SERVER_ERROR');
      throw err;
    }
  }

  /** Plans, checks and opens a subscription; with `traced`, its planning is a child of the opening span. */
  private async start(
    request: SubscriptionRequest,
    traced: OperationTrace | undefined,
  ): Promise<Stream<FormattedExecutionResult> | FormattedExecutionResult> {
    let plan: SubscriptionPlan;
    try {
      // A subscription keeps the plan of the labels rolled when it starts.
      const active = this.options.planner.rollLabels();
      plan = await this.options.planner.planSubscription(
        request.document,
        request.operationName,
        request.query,
        active,
        traced,
      );
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      return {
        errors: [
          this.options.formatError({
            message: `cannot plan the subscription: ${message}`,
            extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
          }),
        ],
      };
    }
    const variables = request.variables ?? {};
    const refused = this.options.costLimit?.check(request.document, plan.prepared.operation, variables);
    if (refused)
      return {
        errors: [this.options.formatError({ message: refused.message, extensions: refused.extensions })],
      };
    const { primary } = plan;
    const fetchVariables: Record<string, unknown> = {};
    for (const name of primary.variableUsages ?? [])
      if (variables[name] !== undefined) fetchVariables[name] = variables[name];

    const name = plan.prepared.operation.name?.value;
    if (traced && name && !request.operationName) {
      traced.span.updateName(`subscription ${name}`);
      traced.span.setAttribute(ATTR.operationName, name);
    }
    const opened = traced?.span.spanContext();
    const source = await this.open(primary, fetchVariables, request, traced?.span);
    if (!isStream(source)) return this.complete(plan, source, request, opened).result;

    const started = performance.now();
    let events = 0;
    this.options.onActive?.(1);
    const key = `${request.operationName ?? ''}\u0000${request.query ?? ''}\u0000${JSON.stringify(variables)}\u0000${request.shareKey ?? ''}`;
    return mapStream(
      source,
      (event) => {
        events++;
        this.options.onEvent?.();
        return this.resultOf(plan, event, request, key, opened);
      },
      () => {
        this.options.onActive?.(-1);
        this.options.log.info(
          {
            reqId: request.requestId,
            operation: request.operationName ?? null,
            subgraph: primary.serviceName,
            events,
            ms: Math.round(performance.now() - started),
          },
          'subscription ended',
        );
      },
    );
  }

  /** Opens the subscription's root field on its subgraph; a remote one is sent the traceparent of `span`. */
  private async open(
    primary: FetchStep,
    variables: Record<string, unknown>,
    request: SubscriptionRequest,
    span: Span | undefined,
  ): Promise<Stream<ExecutionResult> | ExecutionResult> {
    const name = primary.serviceName;
    const local = this.options.local.get(name);
    try {
      const caller = {
        requestId: request.requestId,
        shareKey: request.shareKey ?? '',
        authorization: request.authorization,
      };
      if (local) return await local.open(primary.operation, variables, caller);
      const url = this.options.remote.get(name);
      if (!url) return unavailableResult(name, new Error('no URL is known for it'));
      return openRemoteSubscription(
        url,
        name,
        primary.operation,
        variables,
        { ...caller, trace: span },
        this.options.remoteQueueBytes,
      );
    } catch (err) {
      this.options.log.warn({ err, reqId: request.requestId, subgraph: name }, 'opening a subscription failed');
      return unavailableResult(name, err);
    }
  }

  /**
   * The result of one event for one operation, computed once and shared by identical subscriptions: by the event
   * object when the subgraph runs in this process (it hands every subscriber the same object), by the event's
   * content when it is remote (each subscription has its own stream, so equal events are distinct objects). A
   * content match is reused for CONTENT_REUSE_MS at most, so other subgraphs' fields are never staler than that.
   * Each subscription that takes a shared result is linked to from its completion's span (`opened`: its opening).
   */
  private resultOf(
    plan: SubscriptionPlan,
    event: ExecutionResult,
    request: SubscriptionRequest,
    key: string,
    opened: SpanContext | undefined,
  ): Promise<FormattedExecutionResult> {
    let byOperation = this.results.get(event);
    if (!byOperation) {
      byOperation = new Map();
      this.results.set(event, byOperation);
    }
    let shared = byOperation.get(key);
    if (shared) {
      shared.span?.link(opened);
      return shared.result;
    }
    const remote = !this.options.local.has(plan.primary.serviceName);
    const content = remote ? JSON.stringify(event) : undefined;
    // The key holds a digest of the event, not the event: the text of a large event would double what an entry holds.
    const contentKey =
      content === undefined ? undefined : `${key}\u0000${createHash('sha256').update(content).digest('base64url')}`;
    shared = contentKey === undefined ? undefined : this.byContent.get(contentKey);
    if (shared) shared.span?.link(opened);
    else {
      shared = this.complete(plan, event, request, opened);
      if (contentKey !== undefined)
        this.byContent.set(contentKey, shared, { size: Math.max(1, (content?.length ?? 0) + contentKey.length) });
    }
    byOperation.set(key, shared);
    return shared.result;
  }

  /**
   * Runs the rest of the plan on one event and shapes the result as the client's operation asked for it. `opened`:
   * the opening span of the subscription it starts for (its event's span links to it).
   */
  private complete(
    plan: SubscriptionPlan,
    event: ExecutionResult,
    request: SubscriptionRequest,
    opened?: SpanContext,
  ): SharedResult {
    const primaryName = plan.primary.serviceName;
    if (!event.data) {
      const errors = (event.errors ?? [new GraphQLError('the subgraph sent an event without data')]).map((e) =>
        this.options.formatError(withService(e, primaryName)),
      );
      return { result: Promise.resolve({ errors }) };
    }
    const tracer = this.options.tracer;
    // started now, not in the promise: subscriptions sharing the result from here on are linked to it
    const span = tracer && new EventSpan(tracer, plan.prepared.operation.name?.value, request.requestId, opened);
    return { result: this.run(plan, event.data, event.errors, request, span), span };
  }

  /** The completion: the rest of the plan over a copy of the event's data; ends `span` (failed if it throws). */
  private async run(
    plan: SubscriptionPlan,
    eventData: Record<string, unknown>,
    eventErrors: ExecutionResult['errors'],
    request: SubscriptionRequest,
    span: EventSpan | undefined,
  ): Promise<FormattedExecutionResult> {
    const primaryName = plan.primary.serviceName;
    const context = createGatewayContext(request.requestId, this.options.log, { authorization: request.authorization });
    const tracer = this.options.tracer;
    if (tracer && span?.span) context.trace = { tracer, span: span.span };
    const variables = request.variables ?? {};
    const requestContext = {
      request: { query: request.query, operationName: request.operationName ?? undefined, variables },
      context,
      logger: this.options.log,
      metrics: {},
      overallCachePolicy: {},
    } as unknown as GatewayGraphQLRequestContext<GatewayContext>;
    try {
      // The plan's execution writes into the data it starts from; the event may be shared by many subscribers.
      const data = structuredClone(eventData) as DataObject;
      const response = await this.options.executor.run(plan.prepared, plan.rest, { requestContext, variables }, data);
      const errors = [
        ...(eventErrors ?? []).map((e) => withService(e, primaryName)),
        ...(response.errors ?? []).map((e) => e.toJSON()),
      ];
      const result: FormattedExecutionResult = { data: response.data ?? null };
      if (errors.length) result.errors = errors.map((e) => this.options.formatError(e));
      span?.end(result.errors);
      return result;
    } catch (err) {
      span?.end([{ extensions: { code: 'INTERNAL_SERVER_ERROR' } }]);
      throw err;
    }
  }
}

function isStream<T>(value: Stream<T> | ExecutionResult | FormattedExecutionResult): value is Stream<T> {
  return typeof (value as Stream<T>).next === 'function';
}
