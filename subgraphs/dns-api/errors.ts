import { GraphQLError } from 'graphql';
import type { ErrorCode } from '../../platform/errors';
import { RecordValueError } from '../../dns/records';
import { StoreError } from '../../dns/store';
import { IdentityError } from './identity';

/**
 * The DNS API's errors, as GraphQL errors whose `extensions.code` comes from the error-code registry
 * (platform/errors), which also says the status `/api/v1` answers each with. BAD_USER_INPUT carries
 * `errors: [{field, message}]`, TOO_MANY_REQUESTS and BUSY `retryAfter` seconds.
 */
export type DnsApiErrorCode = Extract<
  ErrorCode,
  | 'BAD_REQUEST'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'PRECONDITION_FAILED'
  | 'PAYLOAD_TOO_LARGE'
  | 'BAD_USER_INPUT'
  | 'TOO_MANY_REQUESTS'
  | 'UNAVAILABLE'
  | 'BUSY'
>;

export interface FieldError {
  field: string;
  message: string;
}

export function apiError(
  code: DnsApiErrorCode,
  message: string,
  extensions: Record<string, unknown> = {},
): GraphQLError {
  return new GraphQLError(message, { extensions: { code, ...extensions } });
}

/** A value that does not validate: the message names the field; `errors` lists every invalid field. */
export function invalid(field: string, message: string, more: readonly FieldError[] = []): GraphQLError {
  const errors = [{ field, message }, ...more.filter((e) => e.field !== field || e.message !== message)];
  return apiError('BAD_USER_INPUT', message, { field, errors });
}

/** Several invalid fields at once (the first names the error). */
export function invalidFields(errors: readonly FieldError[]): GraphQLError {
  const [first, ...rest] = errors;
  if (!first) throw new Error('invalidFields needs at least one field');
  return invalid(first.field, first.message, rest);
}

/** Record fields of the API as the seed names them (the engine says `name`, `type`, `ttl`, `value`). */
export function recordFieldError(err: RecordValueError, prefix = ''): GraphQLError {
  return invalid(`${prefix}${err.field}`, err.message);
}

/**
 * Errors of the layers below (zone store, record codecs, identity) as API errors; anything else passes through
 * unchanged (a bug: the gateway reports it as an internal error without its details).
 */
export function apiErrorOf(err: unknown, fieldPrefix = ''): unknown {
  if (err instanceof GraphQLError) return err;
  if (err instanceof RecordValueError) return recordFieldError(err, fieldPrefix);
  if (err instanceof StoreError) {
    switch (err.code) {
      case 'NOT_FOUND':
        return apiError('NOT_FOUND', err.message);
      case 'CONFLICT':
        return apiError('CONFLICT', err.message);
      case 'INVALID':
        return invalid(fieldPrefix ? fieldPrefix.replace(/\.$/, '') : 'value', err.message);
      case 'SERIAL_MISMATCH':
      case 'PRECONDITION_FAILED':
        return apiError('PRECONDITION_FAILED', err.message);
      case 'UNAVAILABLE':
        return apiError('UNAVAILABLE', err.message);
    }
  }
  if (err instanceof IdentityError) {
    switch (err.code) {
      case 'INVALID':
        return invalidFields(err.errors?.length ? err.errors : [{ field: err.field ?? 'input', message: err.message }]);
      case 'THROTTLED':
        return apiError('TOO_MANY_REQUESTS', err.message, { retryAfter: err.retryAfterSeconds });
      case 'UNAUTHENTICATED':
        return apiError('UNAUTHENTICATED', err.message, err.reason ? { reason: err.reason } : {});
      default:
        return apiError(err.code, err.message);
    }
  }
  return err;
}

/** Runs `work`, turning the lower layers' errors into API errors. */
export async function asApi<T>(work: () => Promise<T>, fieldPrefix = ''): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw apiErrorOf(err, fieldPrefix);
  }
}
