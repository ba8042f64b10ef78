import { GraphQLError, type GraphQLFormattedError } from 'graphql';

/**
 * The most specific message of an error: fetch reports "fetch failed" and keeps the reason (e.g. "connect
 * ECONNREFUSED …") in its cause chain. Duck typing, not instanceof: errors may come from another realm (fetch's
 * own, or a test VM).
 */
export function errorReason(err: unknown): string {
  const messageOf = (e: unknown): string | undefined =>
    typeof e === 'object' && e !== null && typeof (e as { message?: unknown }).message === 'string'
      ? (e as { message: string }).message
      : undefined;
  let reason = messageOf(err) ?? String(err);
  for (let cause = (err as { cause?: unknown } | null)?.cause; cause !== undefined && cause !== null;) {
    const message = messageOf(cause);
    if (message === undefined) break;
    reason = message;
    cause = (cause as { cause?: unknown }).cause;
  }
  return reason;
}

/** A subgraph that could not be reached (connection refused, reset, a broken stream), as the error naming it. */
export function subgraphUnavailable(serviceName: string, err: unknown): GraphQLFormattedError {
  return {
    message: `subgraph ${serviceName} is unavailable: ${errorReason(err)}`,
    extensions: { code: 'SUBGRAPH_UNAVAILABLE', serviceName },
  };
}

/**
 * A subgraph fetch that went past its bound (the subgraph timeout, or the long one of a long-running field). The
 * gateway stops waiting, but the subgraph goes on: a mutation may still be applied, so its message says the outcome
 * is unknown rather than that it failed (docs/gateway.md, "Limits").
 */
export function subgraphTimeout(
  serviceName: string,
  timeoutMs: number,
  mutation: boolean,
  setting: 'subgraphTimeoutMs' | 'subgraphLongTimeoutMs' = 'subgraphTimeoutMs',
): GraphQLFormattedError {
  const late = `subgraph ${serviceName} did not answer within ${timeoutMs} ms (${setting})`;
  return {
    message: mutation
      ? `${late}: the outcome of the mutation is unknown, its change may still be applied; ` +
        'read what it changes back before retrying'
      : late,
    extensions: { code: 'SUBGRAPH_TIMEOUT', serviceName },
  };
}

/**
 * A subgraph's error as Apollo's gateway passes it on: the subgraph named in `extensions.serviceName`, and
 * DOWNSTREAM_SERVICE_ERROR as its code when the subgraph gave none.
 */
export function withService(error: GraphQLError | GraphQLFormattedError, serviceName: string): GraphQLFormattedError {
  const formatted = error instanceof GraphQLError ? error.toJSON() : error;
  // a variable the subgraph could not coerce (an enum value it does not have): the caller's input, as Apollo Server
  // codes it, not a fault of the subgraph
  const code = VARIABLE_COERCION.test(formatted.message) ? 'BAD_USER_INPUT' : 'DOWNSTREAM_SERVICE_ERROR';
  return { ...formatted, extensions: { code, ...formatted.extensions, serviceName } };
}

const VARIABLE_COERCION = /^Variable "\$[^"]+" got invalid value /;
