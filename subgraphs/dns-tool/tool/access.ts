import { wireName } from '../../../dns/model';

/** What a role may do in a zone: read it, or read and change it. */
export type ZoneRight = 'r' | 'rw';

/** The built-in role that may do everything. */
export const ROOT_ROLE = 'root';

export interface RoleSettings {
  /** role → zone → right. */
  roles: Readonly<Record<string, Readonly<Record<string, ZoneRight>>>>;
  /** user name (or a whole token) → its roles; an entry replaces the default role. */
  usersRoles: Readonly<Record<string, readonly string[]>>;
  /** Role of users not in `usersRoles` (none when null). */
  defaultRole: string | null;
}

/** A caller's roles and where they came from (`is_logged` shows `role` only for roles of the map or the file). */
export interface Grant {
  roles: readonly string[];
  /** Roles from the users-to-roles map or the users file (not only the default role). */
  explicit: boolean;
}

/**
 * The roles of `user`: those of the users file when it gives some (they win for that user), else the map's entry,
 * else the default role.
 */
export function grantOf(settings: RoleSettings, user: string, fileRoles?: readonly string[]): Grant {
  if (fileRoles && fileRoles.length > 0) return { roles: fileRoles, explicit: true };
  const mapped = Object.prototype.hasOwnProperty.call(settings.usersRoles, user)
    ? settings.usersRoles[user]
    : undefined;
  if (mapped) return { roles: mapped, explicit: true };
  return { roles: settings.defaultRole ? [settings.defaultRole] : [], explicit: false };
}

/** The right a grant gives in `zone` (the strongest of its roles), or null. */
export function rightIn(settings: RoleSettings, grant: Grant, zone: string): ZoneRight | null {
  if (grant.roles.includes(ROOT_ROLE)) return 'rw';
  const z = wireName(zone);
  let right: ZoneRight | null = null;
  for (const role of grant.roles) {
    const zones = Object.prototype.hasOwnProperty.call(settings.roles, role) ? settings.roles[role] : undefined;
    if (!zones) continue;
    for (const [name, r] of Object.entries(zones)) {
      if (wireName(name) !== z) continue;
      if (r === 'rw') return 'rw';
      right = 'r';
    }
  }
  return right;
}

export const canRead = (settings: RoleSettings, grant: Grant, zone: string): boolean =>
  rightIn(settings, grant, zone) !== null;
export const canWrite = (settings: RoleSettings, grant: Grant, zone: string): boolean =>
  rightIn(settings, grant, zone) === 'rw';
