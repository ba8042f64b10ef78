import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Span, Tracer } from '@opentelemetry/api';
import type { Logger } from '../../platform/log';
import { CacheHint } from '../../subgraphs/subgraph';
import type { IncrementalDelivery } from './incremental';
import { clientStop, type Stop } from './request-signal';

/** Context of one incoming request at the gateway. */
export interface GatewayContext {
  requestId: string;
  log: Logger;
  /** The caller's `Authorization` header, handed to every subgraph (in their context, or as the header). Never logged. */
  authorization?: string;
  /** The caller's address (handed to subgraphs: login throttling). */
  clientAddress?: string;
  /**
   * What separates one caller's cached responses from another's: '' for anonymous callers, else a digest of the
   * credential (caller-dependent data is also never declared cacheable; this is the second line).
   */
  cacheScope: string;
  /** How long the whole response may be reused: the minimum over every subgraph fetch. */
  cachePolicy: CacheHint;
  /** Set when the response came from the response cache. */
  fromCache?: boolean;
  /** Subgraph fetches made for this request (for the request log line). */
  fetches: SubgraphFetch[];
  /** Fires when the request's client goes away: its subgraph fetches stop (each also stops at its deadline). */
  stop?: Stop;
  /** Present when the client accepts `multipart/mixed`: active `@defer` fragments are delivered after the rest. */
  incremental?: IncrementalDelivery;
  /** The operation's span, when tracing is on (its planning and fetches are its children); unset otherwise. */
  trace?: OperationTrace;
  /**
   * The headers of the request an operation run without HTTP of its own is for (a REST interface's, a stream
   * endpoint's): its span continues their trace. Set only when tracing is on.
   */
  traceHeaders?: TraceCarrier;
  /**
   * The request's active percent override labels (OperationPlanner.contextLabels): rolled once, kept here so that the
   * response cache's key and the planning use one set. A property, not a map keyed by the object: Apollo Server runs
   * a request with a shallow copy of the context it is given, which carries it.
   */
  overrideLabels?: ReadonlySet<string>;
}

/** Where an incoming trace context is read (request headers, a connection_init payload): only `traceparent` and `tracestate`. */
export type TraceCarrier = Readonly<Record<string, unknown>>;

/** An operation's span and the tracer its children are made with. */
export interface OperationTrace {
  tracer: Tracer;
  span: Span;
}

export interface SubgraphFetch {
  subgraph: string;
  ms: number;
  ok: boolean;
}

/** The response cache's scope for a credential: '' without one. */
export function cacheScopeOf(authorization: string | undefined): string {
  return authorization ? createHash('sha256').update(authorization).digest('base64url') : '';
}

/** Who sent a request, as far as subgraphs may care: the credentials presented and the address they came from. */
export interface RequestCaller {
  authorization?: string;
  address?: string;
  /** Fires when the caller goes away (its HTTP connection closed before the answer): nobody awaits the work then. */
  stop?: Stop;
  /** Where deferred fragments' payloads are left (the caller accepts `multipart/mixed`). */
  incremental?: IncrementalDelivery;
  /** The request's headers: the operation continues their trace when tracing is on (nothing is read otherwise). */
  traceHeaders?: TraceCarrier;
  /** The request's percent override labels, when rolled before its context was made (the response cache's fast path). */
  overrideLabels?: ReadonlySet<string>;
}

/** The caller of an HTTP request. */
export function callerOf(req: { headers: IncomingHttpHeaders; ip: string; raw?: IncomingMessage }): RequestCaller {
  const stop = req.raw && clientStop(req.raw);
  return {
    authorization: req.headers.authorization,
    address: req.ip,
    traceHeaders: req.headers,
    ...(stop ? { stop } : {}),
  };
}

export function createGatewayContext(requestId: string, log: Logger, caller: RequestCaller = {}): GatewayContext {
  const { authorization, address, stop, incremental, overrideLabels } = caller;
  return {
    requestId,
    log,
    authorization,
    clientAddress: address,
    cacheScope: cacheScopeOf(authorization),
    cachePolicy: new CacheHint(),
    fetches: [],
    ...(stop ? { stop } : {}),
    ...(incremental ? { incremental } : {}),
    ...(overrideLabels ? { overrideLabels } : {}),
  };
}
