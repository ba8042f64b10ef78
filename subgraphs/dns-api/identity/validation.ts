/**
 * Input rules for users. Each check returns the problem (field + one sentence saying what is allowed) or the
 * normalised value; callers collect the problems of a whole call and throw them together (errors.ts).
 */
import type { FieldProblem } from './errors';
import { ROLES, isRole, type Role } from './roles';

export const USERNAME_MAX = 64;
export const EMAIL_MAX = 254;

export type Checked<T> = { ok: true; value: T } | { ok: false; problem: FieldProblem };

const ok = <T>(value: T): Checked<T> => ({ ok: true, value });
const bad = <T>(field: string, message: string): Checked<T> => ({ ok: false, problem: { field, message } });

/**
 * Usernames are case-insensitive: stored and compared lower-cased. Only ASCII is accepted before lower-casing,
 * so no other character folds into an existing name (e.g. the Kelvin sign U+212A lower-cases to `k`).
 */
const USERNAME = /^[A-Za-z0-9._-]+$/;

export function checkUsername(value: unknown, field = 'username'): Checked<string> {
  if (typeof value !== 'string') return bad(field, `${field} must be a string`);
  if (value.length === 0 || value.length > USERNAME_MAX) {
    return bad(field, `${field} must be 1 to ${USERNAME_MAX} characters long (got ${value.length})`);
  }
  if (!USERNAME.test(value)) {
    return bad(
      field,
      `${field} may contain only letters a-z, digits, '.', '_' and '-' (case-insensitive, stored lower-cased)`,
    );
  }
  return ok(value.toLowerCase());
}

/**
 * A practical subset of RFC 5321/5322 addresses: a dot-atom local part (at most 64 characters) and a host name
 * of letters, digits and hyphens (labels of 1–63 characters, not starting or ending with a hyphen). No quoted
 * local parts, comments or address literals; the domain is lower-cased, the local part kept as given.
 */
const LOCAL_PART = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const LABEL = /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

export function checkEmail(value: unknown, field = 'email'): Checked<string> {
  if (typeof value !== 'string') return bad(field, `${field} must be a string`);
  if (value.length === 0 || value.length > EMAIL_MAX) {
    return bad(field, `${field} must be 1 to ${EMAIL_MAX} characters long (got ${value.length})`);
  }
  const at = value.lastIndexOf('@');
  const local = value.slice(0, at);
  const domain = value.slice(at + 1);
  const shape = `${field} must be an address like name@example.com (letters, digits and !#$%&'*+/=?^_\`{|}~.- before the @, a host name after it)`;
  if (at <= 0 || local.length > 64 || !LOCAL_PART.test(local)) return bad(field, shape);
  if (domain.length === 0 || domain.length > 253 || !domain.split('.').every((l) => LABEL.test(l))) {
    return bad(field, shape);
  }
  return ok(`${local}@${domain.toLowerCase()}`);
}

export function checkRole(value: unknown, field = 'role'): Checked<Role> {
  if (isRole(value)) return ok(value);
  return bad(field, `${field} must be one of ${ROLES.join(', ')}`);
}

export function checkBoolean(value: unknown, field: string): Checked<boolean> {
  if (typeof value === 'boolean') return ok(value);
  return bad(field, `${field} must be true or false`);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

/** Collects the problems of several checks; `take` returns the normalised value of a check that passed. */
export class Problems {
  readonly list: FieldProblem[] = [];
  take<T>(checked: Checked<T>): T | undefined {
    if (checked.ok) return checked.value;
    this.list.push(checked.problem);
    return undefined;
  }
}
