/**
 * Roles and what each may do. Operations fall into three classes:
 * - `read`: zones, records, DNSSEC status, the caller's own user (`me`, own password);
 * - `write`: changes to zones, records and DNSSEC;
 * - `users`: user management (list, get, create, update, delete other users);
 * - `keys`: the token signing keys (list, rotate).
 */
import { IdentityError } from './errors';

export const ROLES = ['admin', 'operator', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export const ACTIONS = ['read', 'write', 'users', 'keys'] as const;
export type Action = (typeof ACTIONS)[number];

const ALLOWED: Readonly<Record<Role, ReadonlySet<Action>>> = {
  admin: new Set<Action>(['read', 'write', 'users', 'keys']),
  operator: new Set<Action>(['read', 'write']),
  viewer: new Set<Action>(['read']),
};

const DESCRIBED: Readonly<Record<Action, string>> = {
  read: 'read zones, records and DNSSEC status',
  write: 'change zones, records or DNSSEC',
  users: 'manage users',
  keys: 'manage the token signing keys',
};

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

export function can(role: Role, action: Action): boolean {
  return ALLOWED[role].has(action);
}

/** The roles allowed `action`, most powerful first. */
export function rolesAllowed(action: Action): Role[] {
  return ROLES.filter((r) => can(r, action));
}

/** Throws FORBIDDEN unless `caller` may do `action`. */
export function authorize(caller: { role: Role }, action: Action): void {
  if (can(caller.role, action)) return;
  throw new IdentityError(
    'FORBIDDEN',
    `the role ${caller.role} may not ${DESCRIBED[action]}; this needs the role ${rolesAllowed(action).join(' or ')}`,
  );
}
