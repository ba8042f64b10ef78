import type { ExecutionResult } from 'graphql';
import { createClient } from 'graphql-sse';
import { PushStream, type Stream } from '../../subgraphs/async-streams';

/** What a failed connection to a remote subgraph looks like to the subscriber: an error naming the subgraph. */
export function subgraphUnavailable(serviceName: string, err: unknown): ExecutionResult {
  const reason = err instanceof Error ? err.message : typeof err === 'object' && err !== null && 'message' in err ? String(err.message) : String(err);
  return {
    errors: [{
      message: `subgraph ${serviceName} is unavailable: ${reason}`,
      extensions: { code: 'SUBGRAPH_UNAVAILABLE', serviceName },
    }],
  } as unknown as ExecutionResult;
}

/**
 * Opens a subscription on a remote subgraph over graphql-sse (distinct connections mode: one stream per
 * subscription, POSTed to the subgraph's GraphQL URL with `Accept: text/event-stream`). A broken connection ends
 * the stream with an error naming the subgraph; clients resubscribe. `return()` aborts the connection at once.
 */
export function openRemoteSubscription(
  url: string,
  serviceName: string,
  operation: string,
  variables: Record<string, unknown>,
  requestId: string,
): Stream<ExecutionResult> {
  const client = createClient({ url, retryAttempts: 0, headers: { 'x-request-id': requestId } });
  let dispose: () => void = () => undefined;
  const stream = new PushStream<ExecutionResult>(() => {
    dispose();
    client.dispose();
  });
  dispose = client.subscribe<Record<string, unknown>>({ query: operation, variables }, {
    next: (result) => stream.push(result as ExecutionResult),
    error: (err) => {
      stream.push(subgraphUnavailable(serviceName, err));
      stream.end();
    },
    complete: () => stream.end(),
  });
  return stream;
}
