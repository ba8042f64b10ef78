import type { Span } from '@opentelemetry/api';
import type { ExecutionResult } from 'graphql';
import { createClient } from 'graphql-sse';
import { PushStream, type Stream } from '../../../subgraphs/async-streams';
import { subgraphUnavailable } from '../federation/subgraph-errors';
import { injectTraceHeaders } from '../tracing';

/** What a failed connection to a remote subgraph looks like to the subscriber: an error naming the subgraph. */
export function unavailableResult(serviceName: string, err: unknown): ExecutionResult {
  // Formatted errors travel as the result's errors (they are what the client gets), hence the cast.
  return { errors: [subgraphUnavailable(serviceName, err)] } as unknown as ExecutionResult;
}

/** Events a subscriber may fall behind by before it loses the oldest (as the price hub's own queues). */
const MAX_QUEUED = 64;

/**
 * Opens a subscription on a remote subgraph over graphql-sse (distinct connections mode: one stream per
 * subscription, POSTed to the subgraph's GraphQL URL with `Accept: text/event-stream`). A broken connection ends
 * the stream with an error naming the subgraph; clients resubscribe. `return()` aborts the connection at once.
 * graphql-sse's client reads as fast as events come, so events the subscriber has not taken queue here, bounded by
 * count and by `maxQueuedBytes` (the oldest go first).
 */
export function openRemoteSubscription(
  url: string,
  serviceName: string,
  operation: string,
  variables: Record<string, unknown>,
  /** `trace`: the span of the subscription's opening (tracing on), whose traceparent the subgraph is sent. */
  caller: { requestId: string; authorization?: string; trace?: Span },
  maxQueuedBytes = 1024 * 1024,
): Stream<ExecutionResult> {
  const headers: Record<string, string> = { 'x-request-id': caller.requestId };
  if (caller.authorization) headers.authorization = caller.authorization; // the caller, passed on as sent
  if (caller.trace) injectTraceHeaders(caller.trace, headers);
  const client = createClient({ url, retryAttempts: 0, headers });
  let dispose: () => void = () => undefined;
  const stream = new PushStream<ExecutionResult>(
    () => {
      dispose();
      client.dispose();
    },
    { maxQueued: MAX_QUEUED, maxBytes: maxQueuedBytes, sizeOf: (event) => JSON.stringify(event).length },
  );
  dispose = client.subscribe<Record<string, unknown>>(
    { query: operation, variables },
    {
      next: (result) => stream.push(result as ExecutionResult),
      error: (err) => {
        stream.push(unavailableResult(serviceName, err));
        stream.end();
      },
      complete: () => stream.end(),
    },
  );
  return stream;
}
