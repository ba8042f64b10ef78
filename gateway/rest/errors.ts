import { STATUS_CODES } from 'node:http';
import type { GraphQLFormattedError } from 'graphql';
import { statusOfCode, type ErrorExtras, type ErrorInterface } from '../../platform/errors';

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

/** The status `iface` answers a GraphQL error with (the error-code registry's); a code it does not expect is a 500. */
export function statusOfGraphQLError(error: GraphQLFormattedError, iface: ErrorInterface): number {
  return statusOfCode(error.extensions?.code, iface) ?? 500;
}

/** The first error decides the status: the response describes one failure, as a REST client expects. */
export function restErrorFromGraphQL(errors: readonly GraphQLFormattedError[], iface: ErrorInterface): RestError {
  const first = errors[0] as GraphQLFormattedError;
  const status = statusOfGraphQLError(first, iface);
  return new RestError(status, status === 500 ? 'internal error' : first.message);
}
