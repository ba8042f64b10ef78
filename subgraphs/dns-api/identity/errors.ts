/**
 * The one error class of the identity library. Every message is one sentence that names the field or the reason
 * and, for bad input, what is allowed; no message ever contains a password, a hash, a token or a key.
 */
export type IdentityErrorCode =
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'INVALID'
  | 'THROTTLED'
  /** The user store cannot be reached or prepared (database down, newer schema); not the caller's fault. */
  | 'UNAVAILABLE';

/** Why a credential was refused (UNAUTHENTICATED), for adapters that report it (e.g. `WWW-Authenticate`). */
export type AuthFailure =
  | 'missing'
  | 'too_long'
  | 'not_bearer'
  | 'malformed'
  | 'algorithm'
  | 'unknown_key'
  | 'signature'
  | 'issuer'
  | 'audience'
  | 'expired'
  | 'claims'
  | 'user_deleted'
  | 'user_disabled'
  | 'revoked'
  | 'lifetime'
  | 'credentials';

export interface FieldProblem {
  field: string;
  message: string;
}

export class IdentityError extends Error {
  /** The input field at fault (INVALID: the first of `errors`). */
  readonly field?: string;
  /** Every invalid field of the call (INVALID), in input order. */
  readonly errors?: readonly FieldProblem[];
  /** Whole seconds until an attempt may succeed again (THROTTLED). */
  readonly retryAfterSeconds?: number;
  /** Why the credential was refused (UNAUTHENTICATED). */
  readonly reason?: AuthFailure;

  constructor(
    readonly code: IdentityErrorCode,
    message: string,
    details: {
      field?: string;
      errors?: readonly FieldProblem[];
      retryAfterSeconds?: number;
      reason?: AuthFailure;
    } = {},
  ) {
    super(message);
    this.name = 'IdentityError';
    if (details.field !== undefined) this.field = details.field;
    if (details.errors !== undefined) this.errors = details.errors;
    if (details.retryAfterSeconds !== undefined) this.retryAfterSeconds = details.retryAfterSeconds;
    if (details.reason !== undefined) this.reason = details.reason;
  }
}

export const unauthenticated = (reason: AuthFailure, message: string): IdentityError =>
  new IdentityError('UNAUTHENTICATED', message, { reason });

/** One invalid field. */
export const invalid = (field: string, message: string): IdentityError =>
  new IdentityError('INVALID', message, { field, errors: [{ field, message }] });

/** Several invalid fields at once: the error names the first, `errors` lists them all. */
export function invalidFields(problems: readonly FieldProblem[]): IdentityError {
  const [first] = problems;
  if (!first) throw new Error('invalidFields needs at least one problem');
  const message =
    problems.length === 1 ? first.message : `${first.message} (and ${problems.length - 1} more invalid field(s))`;
  return new IdentityError('INVALID', message, { field: first.field, errors: problems });
}

/** Throws an INVALID error listing `problems` when there are any. */
export function throwIfInvalid(problems: readonly FieldProblem[]): void {
  if (problems.length > 0) throw invalidFields(problems);
}
