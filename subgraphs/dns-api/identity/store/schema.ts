/**
 * What both user stores share: the migrations (one list, written once for both SQL dialects), row mapping and
 * the last-admin rule.
 */
import type { JWK } from 'jose';
import type { Migration, MigrationList, SchemaTooNewError } from '../../../../platform/sql';
import { IdentityError } from '../errors';
import { isRole } from '../roles';
import { SigningKey, StoredUser, type UserPatch } from './types';

/** The table recording applied versions (the zone store has its own `schema_migrations`). */
export const MIGRATIONS_TABLE = 'api_schema_migrations';

/** Schema versions of the identity tables, for both dialects. Append new ones; never edit an applied one. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'users and signing keys',
    statements: (d) => [
      `CREATE TABLE ${d.table('api_users')} (
        id            ${d.key} NOT NULL PRIMARY KEY,
        username      ${d.key} NOT NULL CHECK (username = lower(username) AND length(username) BETWEEN 1 AND 64),
        email         ${d.key} NOT NULL CHECK (length(email) BETWEEN 3 AND 254),
        role          ${d.key} NOT NULL CHECK (role IN ('admin', 'operator', 'viewer')),
        password_hash ${d.key} NOT NULL,
        disabled      ${d.boolean('disabled')} NOT NULL,
        created_at    ${d.timestamp} NOT NULL,
        updated_at    ${d.timestamp} NOT NULL,
        last_login    ${d.timestamp},
        token_version ${d.integer} NOT NULL CHECK (token_version >= 0)
      )${d.tableSuffix}`,
      `CREATE UNIQUE INDEX api_users_username ON ${d.table('api_users')} (username)`,
      `CREATE TABLE ${d.table('api_signing_keys')} (
        kid         ${d.key} NOT NULL PRIMARY KEY,
        algorithm   ${d.key} NOT NULL,
        private_jwk ${d.key} NOT NULL,
        public_jwk  ${d.key} NOT NULL,
        created_at  ${d.timestamp} NOT NULL
      )${d.tableSuffix}`,
    ],
  },
  {
    version: 2,
    name: 'signing key rotation',
    // private_jwk holds the sealed key from now on (sealed by the identity library at start; SQL cannot).
    statements: (d) => [`ALTER TABLE ${d.table('api_signing_keys')} ADD COLUMN retired_at ${d.timestamp}`],
  },
];

/** The identity tables' migrations as the kit's runners take them. */
export const USER_MIGRATIONS: MigrationList = {
  table: MIGRATIONS_TABLE,
  migrations: MIGRATIONS,
  appliedAtDefault: true,
};

/** Refuses a database written by newer software (its tables may mean something this code does not know). */
export const tooNew = (err: SchemaTooNewError): IdentityError =>
  new IdentityError(
    'UNAVAILABLE',
    `the user tables have schema version ${err.found}, newer than this software knows (${err.known})`,
  );

/** The columns every user query selects, in the shape of UserRowIn. */
export const USER_COLUMNS =
  'id, username, email, role, password_hash, disabled, created_at, updated_at, last_login, token_version';

/** A user row as the drivers return it (SQLite: 0/1 and text; PostgreSQL: boolean and Date). */
export interface UserRowIn {
  id: string;
  username: string;
  email: string;
  role: string;
  password_hash: string;
  disabled: boolean | number;
  created_at: string | Date;
  updated_at: string | Date;
  last_login: string | Date | null;
  token_version: number | string;
}

const iso = (v: string | Date): string => (v instanceof Date ? v.toISOString() : v);

export function toStoredUser(row: UserRowIn): StoredUser {
  if (!isRole(row.role)) throw new Error(`user ${row.id} has an unknown role in the database`);
  return new StoredUser({
    id: row.id,
    username: row.username,
    email: row.email,
    role: row.role,
    passwordHash: row.password_hash,
    disabled: row.disabled === true || row.disabled === 1,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    lastLogin: row.last_login === null ? null : iso(row.last_login),
    tokenVersion: Number(row.token_version),
  });
}

export interface KeyRowIn {
  kid: string;
  algorithm: string;
  private_jwk: string;
  public_jwk: string;
  created_at: string | Date;
  retired_at: string | Date | null;
}

export const KEY_COLUMNS = 'kid, algorithm, private_jwk, public_jwk, created_at, retired_at';
/** The columns a new key is inserted with (not retired). */
export const NEW_KEY_COLUMNS = 'kid, algorithm, private_jwk, public_jwk, created_at';

export function toSigningKey(row: KeyRowIn): SigningKey {
  return new SigningKey({
    kid: row.kid,
    algorithm: row.algorithm,
    privateKey: row.private_jwk,
    publicJwk: JSON.parse(row.public_jwk) as JWK,
    createdAt: iso(row.created_at),
    retiredAt: row.retired_at === null ? null : iso(row.retired_at),
  });
}

/** A new key's values in NEW_KEY_COLUMNS order. */
export const newKeyValues = (k: SigningKey): string[] => [
  k.kid,
  k.algorithm,
  k.privateKey,
  JSON.stringify(k.publicJwk),
  k.createdAt,
];

/** The user after `patch`, without writing it (for the last-admin check). */
export function patched(user: StoredUser, patch: UserPatch): StoredUser {
  return new StoredUser({
    ...user.toUser(),
    email: patch.email ?? user.email,
    role: patch.role ?? user.role,
    disabled: patch.disabled ?? user.disabled,
    passwordHash: patch.passwordHash ?? user.passwordHash,
    tokenVersion: user.tokenVersion + (patch.bumpTokenVersion ? 1 : 0),
    updatedAt: patch.updatedAt,
  });
}

/**
 * CONFLICT when `before` is an enabled admin, `after` is not (or the user is deleted: `after` null) and no other
 * enabled admin exists (`otherEnabledAdmins`).
 */
export function checkKeepsAnAdmin(before: StoredUser, after: StoredUser | null, otherEnabledAdmins: number): void {
  if (!before.isEnabledAdmin || after?.isEnabledAdmin || otherEnabledAdmins > 0) return;
  const what = after === null ? 'deleted' : after.disabled ? 'disabled' : `demoted to ${after.role}`;
  throw new IdentityError(
    'CONFLICT',
    `${before.username} is the last enabled admin and cannot be ${what}; make another user an enabled admin first`,
  );
}

export const usernameTaken = (username: string): IdentityError =>
  new IdentityError('CONFLICT', `the username ${username} is already taken`);

/** The SQL `SET` list and values of a patch, in column order (placeholders made by `param`). */
export function patchAssignments(
  patch: UserPatch,
  param: (index: number) => string,
  toBoolean: (b: boolean) => boolean | number,
): { sql: string; values: unknown[] } {
  const sets: string[] = [];
  const values: unknown[] = [];
  const set = (column: string, value: unknown) => {
    values.push(value);
    sets.push(`${column} = ${param(values.length)}`);
  };
  if (patch.email !== undefined) set('email', patch.email);
  if (patch.role !== undefined) set('role', patch.role);
  if (patch.passwordHash !== undefined) set('password_hash', patch.passwordHash);
  if (patch.disabled !== undefined) set('disabled', toBoolean(patch.disabled));
  set('updated_at', patch.updatedAt);
  if (patch.bumpTokenVersion) sets.push('token_version = token_version + 1');
  return { sql: sets.join(', '), values };
}
