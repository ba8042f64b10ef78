import { GraphQLError } from 'graphql';

/** The `extensions.code` values every subgraph uses; REST adapters map them to their own status codes. */
export type ErrorCode =
  | 'BAD_USER_INPUT'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'UPSTREAM_UNAVAILABLE'
  | 'INTERNAL_SERVER_ERROR';

export function graphqlError(code: ErrorCode, message: string, extra: Record<string, unknown> = {}): GraphQLError {
  return new GraphQLError(message, { extensions: { code, ...extra } });
}

/** A bad argument: names the argument (`field`) and says what is allowed in the message. */
export function badUserInput(field: string, message: string): GraphQLError {
  return graphqlError('BAD_USER_INPUT', message, { field });
}

export function notFound(message: string): GraphQLError {
  return graphqlError('NOT_FOUND', message);
}

export function upstreamUnavailable(message: string): GraphQLError {
  return graphqlError('UPSTREAM_UNAVAILABLE', message);
}
