/**
 * The user store on SQLite (better-sqlite3), in the zone store's file (`${DATA_DIR}/zones.sqlite`) on a connection
 * of its own: WAL journal (readers never wait for the writer), a busy timeout (a write lock held by the zone store
 * or another process makes us wait, not fail), and every write in one `BEGIN IMMEDIATE` transaction, so the
 * last-admin rule and "first user only" hold against other processes on the same file.
 */
import Database from 'better-sqlite3';
import { ensurePrivateDatabaseFile } from '../../../../platform/files';
import { SchemaTooNewError, migrateSqlite, sqlFailure } from '../../../../platform/sql';
import { IdentityError } from '../errors';
import {
  KEY_COLUMNS,
  NEW_KEY_COLUMNS,
  USER_COLUMNS,
  USER_MIGRATIONS,
  checkKeepsAnAdmin,
  patchAssignments,
  patched,
  newKeyValues,
  toSigningKey,
  toStoredUser,
  tooNew,
  usernameTaken,
  type KeyRowIn,
  type UserRowIn,
} from './schema';
import type { NewUser, SigningKey, StoredUser, UserPatch, UserStore } from './types';

export interface SqliteUserStoreOptions {
  /** Database file (the zone store's), or ':memory:'. */
  file: string;
  /** How long to wait for another connection's write lock, in ms (default 5000). */
  busyTimeoutMs?: number;
}

function mapError(err: unknown): unknown {
  if (err instanceof IdentityError) return err;
  if (err instanceof SchemaTooNewError) return tooNew(err);
  const failure = sqlFailure(err);
  if (failure?.kind === 'busy')
    return new IdentityError('UNAVAILABLE', `the user database is busy: ${failure.message}`);
  return err;
}

const isUniqueViolation = (err: unknown): boolean => sqlFailure(err)?.kind === 'unique';

export async function openSqliteUserStore(options: SqliteUserStoreOptions): Promise<UserStore> {
  let db: Database.Database;
  try {
    ensurePrivateDatabaseFile(options.file);
    db = new Database(options.file);
  } catch (err) {
    throw new IdentityError('UNAVAILABLE', `cannot open the user database ${options.file}: ${(err as Error).message}`);
  }
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
    // A key replaced or deleted (a clear key once sealed, a retired key) is overwritten on disk, not left in a free page.
    db.pragma('secure_delete = ON');
    migrateSqlite(db, USER_MIGRATIONS);
  } catch (err) {
    db.close();
    throw mapError(err);
  }
  return new SqliteUserStore(db);
}

class SqliteUserStore implements UserStore {
  readonly kind = 'sqlite' as const;
  private closed = false;
  private readonly s;

  constructor(private readonly db: Database.Database) {
    const users = 'api_users';
    this.s = {
      count: db.prepare(`SELECT COUNT(*) FROM ${users}`).pluck(),
      list: db.prepare(`SELECT ${USER_COLUMNS} FROM ${users} ORDER BY username`),
      byId: db.prepare(`SELECT ${USER_COLUMNS} FROM ${users} WHERE id = ?`),
      byUsername: db.prepare(`SELECT ${USER_COLUMNS} FROM ${users} WHERE username = ?`),
      otherAdmins: db
        .prepare(`SELECT COUNT(*) FROM ${users} WHERE role = 'admin' AND disabled = 0 AND id <> ?`)
        .pluck(),
      insert: db.prepare(`INSERT INTO ${users} (${USER_COLUMNS})
        VALUES (@id, @username, @email, @role, @passwordHash, 0, @createdAt, @createdAt, NULL, 0)`),
      delete: db.prepare(`DELETE FROM ${users} WHERE id = ?`),
      login: db.prepare(`UPDATE ${users} SET last_login = ? WHERE id = ?`),
      loginRehash: db.prepare(`UPDATE ${users} SET last_login = ?, password_hash = ? WHERE id = ?`),
      keys: db.prepare(`SELECT ${KEY_COLUMNS} FROM api_signing_keys ORDER BY created_at, kid`),
      currentKey: db.prepare(
        `SELECT ${KEY_COLUMNS} FROM api_signing_keys WHERE algorithm = ? AND retired_at IS NULL
         ORDER BY created_at DESC, kid DESC LIMIT 1`,
      ),
      insertKey: db.prepare(`INSERT INTO api_signing_keys (${NEW_KEY_COLUMNS}) VALUES (?, ?, ?, ?, ?)`),
      retireKeys: db.prepare('UPDATE api_signing_keys SET retired_at = ? WHERE algorithm = ? AND retired_at IS NULL'),
      replacePrivate: db.prepare('UPDATE api_signing_keys SET private_jwk = ? WHERE kid = ? AND private_jwk = ?'),
      deleteRetired: db.prepare('DELETE FROM api_signing_keys WHERE kid = ? AND retired_at IS NOT NULL'),
    };
  }

  /** Runs `fn` (in a write transaction when `write`), translating driver errors. */
  private async run<T>(fn: () => T, write = false): Promise<T> {
    if (this.closed) throw new IdentityError('UNAVAILABLE', 'the user store is closed');
    try {
      return write ? this.db.transaction(fn).immediate() : fn();
    } catch (err) {
      throw mapError(err);
    }
  }

  private byId(id: string): StoredUser | null {
    const row = this.s.byId.get(id) as UserRowIn | undefined;
    return row ? toStoredUser(row) : null;
  }

  private insert(user: NewUser): StoredUser {
    try {
      this.s.insert.run(user);
    } catch (err) {
      if (isUniqueViolation(err)) throw usernameTaken(user.username);
      throw err;
    }
    const created = this.byId(user.id);
    if (!created) throw new Error('the user just inserted is missing');
    return created;
  }

  countUsers(): Promise<number> {
    return this.run(() => Number(this.s.count.get()));
  }

  listUsers(): Promise<StoredUser[]> {
    return this.run(() => (this.s.list.all() as UserRowIn[]).map(toStoredUser));
  }

  getUser(id: string): Promise<StoredUser | null> {
    return this.run(() => this.byId(id));
  }

  getUserByUsername(username: string): Promise<StoredUser | null> {
    return this.run(() => {
      const row = this.s.byUsername.get(username) as UserRowIn | undefined;
      return row ? toStoredUser(row) : null;
    });
  }

  createUser(user: NewUser): Promise<StoredUser> {
    return this.run(() => this.insert(user), true);
  }

  createFirstUser(user: NewUser): Promise<StoredUser | null> {
    return this.run(() => (Number(this.s.count.get()) === 0 ? this.insert(user) : null), true);
  }

  updateUser(id: string, patch: UserPatch): Promise<StoredUser | null> {
    return this.run(() => {
      const before = this.byId(id);
      if (!before) return null;
      checkKeepsAnAdmin(before, patched(before, patch), Number(this.s.otherAdmins.get(id)));
      const { sql, values } = patchAssignments(
        patch,
        () => '?',
        (b) => (b ? 1 : 0),
      );
      this.db.prepare(`UPDATE api_users SET ${sql} WHERE id = ?`).run(...values, id);
      return this.byId(id);
    }, true);
  }

  deleteUser(id: string): Promise<boolean> {
    return this.run(() => {
      const before = this.byId(id);
      if (!before) return false;
      checkKeepsAnAdmin(before, null, Number(this.s.otherAdmins.get(id)));
      return this.s.delete.run(id).changes === 1;
    }, true);
  }

  recordLogin(id: string, at: string, rehashed?: string): Promise<void> {
    return this.run(() => {
      if (rehashed === undefined) this.s.login.run(at, id);
      else this.s.loginRehash.run(at, rehashed, id);
    }, true);
  }

  signingKeys(): Promise<SigningKey[]> {
    return this.run(() => (this.s.keys.all() as KeyRowIn[]).map(toSigningKey));
  }

  private currentKey(algorithm: string): SigningKey | null {
    const row = this.s.currentKey.get(algorithm) as KeyRowIn | undefined;
    return row ? toSigningKey(row) : null;
  }

  ensureSigningKey(candidate: SigningKey): Promise<SigningKey> {
    return this.run(() => {
      const existing = this.currentKey(candidate.algorithm);
      if (existing) return existing;
      this.s.insertKey.run(...newKeyValues(candidate));
      return candidate;
    }, true);
  }

  rotateSigningKey(expectedKid: string | null, candidate: SigningKey, at: string): Promise<SigningKey> {
    return this.run(() => {
      const current = this.currentKey(candidate.algorithm);
      if ((current?.kid ?? null) !== expectedKid && current) return current;
      this.s.retireKeys.run(at, candidate.algorithm);
      this.s.insertKey.run(...newKeyValues(candidate));
      return candidate;
    }, true);
  }

  replaceSigningKeyPrivate(kid: string, from: string, to: string): Promise<boolean> {
    return this.run(() => this.s.replacePrivate.run(to, kid, from).changes === 1, true);
  }

  deleteRetiredSigningKey(kid: string): Promise<boolean> {
    return this.run(() => this.s.deleteRetired.run(kid).changes === 1, true);
  }

  async close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      this.db.close();
    }
  }
}
