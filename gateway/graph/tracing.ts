import type { ApolloServerPlugin } from '@apollo/server';
import {
  isSpanContextValid,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type SpanContext,
  type TextMapGetter,
  type TextMapSetter,
  type Tracer,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { GatewayContext, OperationTrace, TraceCarrier } from './context';

/**
 * Spans of the graph (docs/gateway.md, "Tracing"). Everything here runs only when the host built a tracer: without
 * one no plugin is installed and `GatewayContext.trace` stays unset, so the hot path pays a property check at most.
 * Spans are parented explicitly (no context manager, no `context.with`): the operation's span travels in the
 * request's context. Variables, headers and credentials are never recorded.
 */

export const SPAN = {
  /** Fallback name of an operation's span, before (or without) its type and name are known. */
  operation: 'GraphQL Operation',
  plan: 'graphql.plan',
  fetch: 'graphql.fetch',
  subscriptionEvent: 'graphql.subscription.event',
} as const;

export const ATTR = {
  operationName: 'graphql.operation.name',
  operationType: 'graphql.operation.type',
  documentHash: 'graphql.document.hash',
  requestId: 'onegraph.request_id',
  cached: 'onegraph.cached',
  errorCodes: 'graphql.error.codes',
  subgraph: 'graphql.subgraph.name',
  transport: 'onegraph.subgraph.transport',
  httpStatus: 'http.response.status_code',
  httpMethod: 'http.request.method',
  serverAddress: 'server.address',
  serverPort: 'server.port',
  /** On an event's span: subscriptions it served past EVENT_LINK_LIMIT, not linked. */
  linksDropped: 'graphql.subscription.links_dropped',
} as const;

const propagator = new W3CTraceContextPropagator();

/**
 * Reads `traceparent` / `tracestate` from a header map (Apollo's HeaderMap, Node's headers, a graphql-ws
 * connection_init payload: lower-case keys).
 */
type Headers = ReadonlyMap<string, string> | TraceCarrier;
const isMap = (carrier: Headers): carrier is ReadonlyMap<string, string> => carrier instanceof Map;
const headerGetter: TextMapGetter<Headers> = {
  get: (carrier, key) => {
    const value: unknown = isMap(carrier) ? carrier.get(key) : carrier[key];
    return typeof value === 'string' || Array.isArray(value) ? (value as string | string[]) : undefined;
  },
  keys: (carrier) => (isMap(carrier) ? [...carrier.keys()] : Object.keys(carrier)),
};
const headerSetter: TextMapSetter<Record<string, string>> = {
  set: (carrier, key, value) => {
    carrier[key] = value;
  },
};

/** The trace an incoming request continues (its W3C traceparent), or a new one. */
export function incomingContext(headers: Headers | undefined): Context {
  return headers ? propagator.extract(ROOT_CONTEXT, headers, headerGetter) : ROOT_CONTEXT;
}

/**
 * A carrier whose `traceparent` is a valid W3C one (what `incomingContext` would continue), else undefined: lets a
 * caller fall back to another carrier instead of starting a new trace.
 */
export function validTraceCarrier(carrier: TraceCarrier | null | undefined): TraceCarrier | undefined {
  if (typeof carrier?.traceparent !== 'string') return undefined;
  const parent = trace.getSpanContext(incomingContext(carrier));
  return parent && isSpanContextValid(parent) ? carrier : undefined;
}

/** Sets `traceparent` (and `tracestate`) of `span` on outgoing headers. */
export function injectTraceHeaders(span: Span, headers: Record<string, string>): void {
  propagator.inject(trace.setSpan(ROOT_CONTEXT, span), headers, headerSetter);
}

/** A child span of the operation's. */
export function childSpan(parent: OperationTrace, name: string, attributes: Attributes, kind = SpanKind.INTERNAL) {
  return parent.tracer.startSpan(name, { kind, attributes }, trace.setSpan(ROOT_CONTEXT, parent.span));
}

/** Ends `span` as failed, with a message that says why (never a value the client sent). */
export function endFailed(span: Span, message: string): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message });
  span.end();
}

type ResultErrors = readonly { extensions?: Readonly<Record<string, unknown>> }[] | undefined;

/** Ends `span`: failed with the errors' codes (`graphql.error.codes`) when a result has errors, else as it went well. */
export function endWithErrors(span: Span, errors: ResultErrors): void {
  if (!errors?.length) {
    span.end();
    return;
  }
  const codes = errors.map((e) =>
    typeof e.extensions?.code === 'string' ? e.extensions.code : 'INTERNAL_SERVER_ERROR',
  );
  span.setAttribute(ATTR.errorCodes, [...new Set(codes)]);
  endFailed(span, codes[0] as string);
}

/**
 * One span per operation: continues an incoming traceparent (on /graphql), named and described once the operation is
 * resolved (`query Quote`: the OpenTelemetry GraphQL convention), failed when the response carries errors.
 */
export function tracingPlugin(tracer: Tracer): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart({ request, contextValue }) {
      // /graphql's own headers, else those of the request a REST interface or a stream endpoint runs it for
      const headers = request.http?.headers ?? contextValue.traceHeaders;
      const span = tracer.startSpan(
        SPAN.operation,
        {
          kind: headers ? SpanKind.SERVER : SpanKind.INTERNAL,
          attributes: { [ATTR.requestId]: contextValue.requestId },
        },
        incomingContext(headers),
      );
      contextValue.trace = { tracer, span };
      return {
        async didResolveOperation(rc) {
          const type = rc.operation?.operation ?? 'query';
          const name = rc.operationName ?? undefined;
          span.updateName(name ? `${type} ${name}` : type);
          span.setAttributes({
            [ATTR.operationType]: type,
            ...(name ? { [ATTR.operationName]: name } : {}),
            [ATTR.documentHash]: rc.queryHash,
          });
        },
        async willSendResponse(rc) {
          if (rc.contextValue.fromCache) span.setAttribute(ATTR.cached, true);
          const body = rc.response.body;
          endWithErrors(span, body.kind === 'single' ? body.singleResult.errors : undefined);
        },
      };
    },
  };
}

/**
 * A span named by the OpenTelemetry GraphQL convention (`query Name`), continuing the trace of `headers` (a span of
 * the server's when there are any).
 */
function namedSpan(
  tracer: Tracer,
  type: 'query' | 'subscription',
  operationName: string | null | undefined,
  documentHash: string,
  requestId: string | undefined,
  headers: TraceCarrier | undefined,
  extra: Attributes = {},
): Span {
  const attributes: Attributes = { [ATTR.operationType]: type, [ATTR.documentHash]: documentHash, ...extra };
  if (operationName) attributes[ATTR.operationName] = operationName;
  if (requestId) attributes[ATTR.requestId] = requestId;
  return tracer.startSpan(
    operationName ? `${type} ${operationName}` : type,
    { kind: headers ? SpanKind.SERVER : SpanKind.INTERNAL, attributes },
    incomingContext(headers),
  );
}

/** The span of a query answered whole from the response cache before Apollo Server saw it (no plugin runs then). */
export function cachedOperationSpan(
  tracer: Tracer,
  operationName: string | undefined,
  documentHash: string,
  requestId: string | undefined,
  headers: TraceCarrier | undefined,
): void {
  namedSpan(tracer, 'query', operationName, documentHash, requestId, headers, { [ATTR.cached]: true }).end();
}

/** The fetch span of a subgraph request (set by the timed source; the remote source adds HTTP details to it). */
export function fetchSpanAttributes(subgraph: string, query: string | undefined, operationName: string | undefined) {
  const type = /^\s*(mutation|subscription)\b/.exec(query ?? '')?.[1] ?? 'query';
  const attributes: Attributes = { [ATTR.subgraph]: subgraph, [ATTR.operationType]: type };
  if (operationName) attributes[ATTR.operationName] = operationName;
  return attributes;
}

/**
 * The span of opening a subscription (`subscription Name`, as an operation's): continues the trace of the request
 * that opened it, ends once its stream is open or it failed to open. Its planning is its child.
 */
export function subscriptionSpan(
  tracer: Tracer,
  operationName: string | null | undefined,
  documentHash: string,
  requestId: string,
  headers: TraceCarrier | undefined,
): Span {
  return namedSpan(tracer, 'subscription', operationName, documentHash, requestId, headers);
}

/**
 * Links an event's span takes at most: OpenTelemetry's default span link limit (past it the SDK would drop the
 * oldest, the first subscription's among them).
 */
export const EVENT_LINK_LIMIT = 128;

/**
 * The span of one subscription event's completion by the rest of its plan: a trace of its own (a subscription may
 * run for hours), linked to the opening span of every subscription the completion serves (identical subscriptions
 * share it): the one it starts for at once, each other as it takes the shared result while the span runs. Past
 * EVENT_LINK_LIMIT links, the rest are only counted (`graphql.subscription.links_dropped`, set only then); one that
 * takes the result once the span ended is not linked (an ended span takes nothing more).
 */
export class EventSpan {
  /** Until it ends: a shared result outlives its completion, and keeps no more than this object then. */
  private live: Span | undefined;
  private links = 0;
  private dropped = 0;

  constructor(tracer: Tracer, operationName: string | undefined, requestId: string, opened: SpanContext | undefined) {
    const attributes: Attributes = { [ATTR.operationType]: 'subscription', [ATTR.requestId]: requestId };
    if (operationName) attributes[ATTR.operationName] = operationName;
    this.live = tracer.startSpan(
      SPAN.subscriptionEvent,
      { kind: SpanKind.INTERNAL, attributes, ...(opened ? { links: [{ context: opened }] } : {}) },
      ROOT_CONTEXT,
    );
    if (opened) this.links = 1;
  }

  /** The span while it runs (the completion's fetches are its children). */
  get span(): Span | undefined {
    return this.live;
  }

  /** One more subscription served by this completion: linked to while the span runs, within the bound. */
  link(opened: SpanContext | undefined): void {
    if (!this.live || !opened) return;
    if (this.links >= EVENT_LINK_LIMIT) {
      this.dropped++;
      return;
    }
    this.links++;
    this.live.addLink({ context: opened });
  }

  /** Ends the span (failed with the errors' codes when the result has errors); later links are passed over. */
  end(errors: ResultErrors): void {
    const span = this.live;
    if (!span) return;
    this.live = undefined;
    if (this.dropped) span.setAttribute(ATTR.linksDropped, this.dropped);
    endWithErrors(span, errors);
  }
}
