import { verifyPassword } from '../../../platform/passwords';
import { toolErrors } from '../protocol';

/**
 * File login (docs/dns-tool.md): a users file, one user a line, `user:hash[:enabled[:role,role]]` — the hash
 * an scrypt string as `hashPassword` writes it (never a plain password), `enabled` 1/0 (empty: enabled), and roles
 * that win over the users-to-roles map for that user. `#` starts a comment line.
 */
export interface FileUser {
  hash: string;
  enabled: boolean;
  /** Roles from the file (empty: the map or the default role decide). */
  roles: readonly string[];
}

export class UsersFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsersFileError';
  }
}

/** What a user name and a role name may be (the users-file command checks its arguments with them too). */
export const USER_NAME = /^[A-Za-z0-9._@-]{1,128}$/;
export const ROLE_NAME = /^[A-Za-z0-9._-]{1,100}$/;

export function parseUsersFile(text: string, source = 'users file'): Map<string, FileUser> {
  const users = new Map<string, FileUser>();
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const where = `${source} line ${i + 1}`;
    const [user = '', hash = '', enabled = '', roles = '', ...rest] = line.split(':');
    if (rest.length > 0) throw new UsersFileError(`${where}: more than 4 fields (user:hash[:enabled[:roles]])`);
    if (!USER_NAME.test(user))
      throw new UsersFileError(`${where}: the user name must be 1 to 128 of A-Z a-z 0-9 . _ @ -`);
    if (!hash.startsWith('scrypt$'))
      throw new UsersFileError(`${where}: the password must be an scrypt hash (scrypt$N$r$p$salt$key), not a password`);
    if (!['', '1', '0'].includes(enabled)) throw new UsersFileError(`${where}: enabled must be 1 or 0 (or empty)`);
    const list = roles === '' ? [] : roles.split(',').map((r) => r.trim());
    const badRole = list.find((r) => !ROLE_NAME.test(r));
    if (badRole !== undefined) throw new UsersFileError(`${where}: role ${JSON.stringify(badRole)} is not a role name`);
    if (users.has(user)) throw new UsersFileError(`${where}: user ${user} is listed twice`);
    users.set(user, { hash, enabled: enabled !== '0', roles: list });
  }
  return users;
}

/**
 * Checks a file login; the user's file roles on success. Failures are the tool's `Login failed` errors with the
 * original reasons. An unknown user costs as much time as a known one (no user enumeration by timing).
 */
export async function fileLogin(
  users: ReadonlyMap<string, FileUser>,
  username: string,
  password: string,
): Promise<{ user: string; fileRoles: readonly string[] }> {
  if (password === '') throw toolErrors.loginFailed('Empty password is not allowed');
  const entry = users.get(username);
  if (!entry) {
    await verifyPassword(password, DUMMY_HASH);
    throw toolErrors.loginFailed('Invalid username or password');
  }
  if (!(await verifyPassword(password, entry.hash)))
    throw toolErrors.loginFailed(`Invalid password for user '${username}'`);
  if (!entry.enabled) throw toolErrors.loginFailed('This user is disabled');
  return { user: username, fileRoles: entry.roles };
}

/** A hash of a password nobody has, with the default cost: verified for unknown users so every failure costs alike. */
const DUMMY_HASH = 'scrypt$32768$8$1$c2FsdHNhbHRzYWx0c2FsdA==$Tm9ib2R5IGhhcyB0aGlzIHBhc3N3b3JkLCBub2JvZHkgYXQgYWxs';
