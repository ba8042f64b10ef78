import { STATUS_CODES } from 'node:http';
import type { GraphQLFormattedError } from 'graphql';
import type { ErrorExtras } from '../error-shapes';

/** An error a REST adapter answers with: a status and the message for the body. */
export class RestError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** More for the body, where the interface's shape has room for it (invalid fields, a limit's name). */
    readonly extras?: ErrorExtras,
    /** Headers the answer carries (Retry-After, WWW-Authenticate). */
    readonly headers?: Readonly<Record<string, string>>,
  ) {
    super(message);
    this.name = 'RestError';
  }
}

export function statusText(status: number): string {
  return STATUS_CODES[status] ?? 'Error';
}

/** GraphQL error codes to HTTP status; anything unknown is a 500 (and logged). */
const STATUS_OF_CODE: Record<string, number> = {
  BAD_USER_INPUT: 400,
  GRAPHQL_VALIDATION_FAILED: 400,
  GRAPHQL_PARSE_FAILED: 400,
  BAD_REQUEST: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UPSTREAM_UNAVAILABLE: 502,
  SUBGRAPH_UNAVAILABLE: 503,
  SUBGRAPH_TIMEOUT: 504,
};

export function statusOfGraphQLError(error: GraphQLFormattedError): number {
  const code = error.extensions?.code;
  return (typeof code === 'string' && STATUS_OF_CODE[code]) || 500;
}

/** The first error decides the status: the response describes one failure, as a REST client expects. */
export function restErrorFromGraphQL(errors: readonly GraphQLFormattedError[]): RestError {
  const first = errors[0] as GraphQLFormattedError;
  const status = statusOfGraphQLError(first);
  return new RestError(status, status === 500 ? 'internal error' : first.message);
}
