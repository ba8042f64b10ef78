import { GraphQLError } from 'graphql';
import type { ErrorCode } from '../platform/errors';

// The codes come from the error-code registry (platform/errors), which also holds each interface's status for them.
export type { ErrorCode };

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
