/**
 * The user store on PostgreSQL (`pg.Pool`), in the zone store's database, for several processes sharing it.
 *
 * - Tables in one schema (option `schema`, default `public`; tests make one per file), named explicitly in every
 *   statement, so nothing depends on `search_path`.
 * - Migrations under an advisory lock, so processes starting together do not race.
 * - User writes take a transaction-scoped advisory lock of their own: the last-admin rule and "first user only"
 *   hold when several processes write at once. Signing keys likewise, so replicas agree on one key.
 */
import pg from 'pg';
import {
  SchemaTooNewError,
  inTransaction,
  isConnectionError,
  isSchemaName,
  migratePostgres,
  quoteIdent,
  redactUrl,
  sqlFailure,
} from '../../../../platform/sql';
import { IdentityError } from '../errors';
import {
  KEY_COLUMNS,
  NEW_KEY_COLUMNS,
  newKeyValues,
  USER_COLUMNS,
  USER_MIGRATIONS,
  checkKeepsAnAdmin,
  patchAssignments,
  patched,
  toSigningKey,
  toStoredUser,
  tooNew,
  usernameTaken,
  type KeyRowIn,
  type UserRowIn,
} from './schema';
import type { NewUser, SigningKey, StoredUser, UserPatch, UserStore } from './types';

export interface PostgresUserStoreOptions {
  /** `postgres://user:password@host:port/database` */
  url: string;
  /** Schema holding the tables (created when missing); default `public`. */
  schema?: string;
  /** Pool size (default 5: logins and token checks are short queries). */
  poolSize?: number;
}

function mapError(err: unknown): unknown {
  if (err instanceof IdentityError) return err;
  if (err instanceof SchemaTooNewError) return tooNew(err);
  const failure = sqlFailure(err);
  if (failure?.kind === 'unavailable') {
    return new IdentityError('UNAVAILABLE', `PostgreSQL is unavailable: ${failure.message}`);
  }
  return err;
}

export async function openPostgresUserStore(options: PostgresUserStoreOptions): Promise<UserStore> {
  const schema = options.schema ?? 'public';
  if (!isSchemaName(schema)) {
    throw new IdentityError(
      'INVALID',
      `schema ${JSON.stringify(schema)} must be a plain identifier (letters, digits, _; at most 63)`,
      { field: 'schema' },
    );
  }
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? 5,
    connectionTimeoutMillis: 10_000,
    application_name: 'user-store',
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const store = new PostgresUserStore(pool, schema);
  try {
    (await pool.connect()).release(); // reachable at all? (the raw driver error for the message below)
    await store.migrate();
  } catch (err) {
    await store.close().catch(() => {});
    if (err instanceof IdentityError) throw err;
    const message = err instanceof Error ? err.message : String(err);
    const where = redactUrl(options.url);
    throw new IdentityError(
      'UNAVAILABLE',
      isConnectionError(err)
        ? `PostgreSQL at ${where} is unreachable or refused the connection: ${message}`
        : `cannot prepare the user tables in PostgreSQL at ${where} (schema ${schema}): ${message}`,
    );
  }
  return store;
}

class PostgresUserStore implements UserStore {
  readonly kind = 'postgres' as const;
  private closed = false;
  private readonly users: string;
  private readonly keys: string;

  constructor(
    private readonly pool: pg.Pool,
    private readonly schema: string,
  ) {
    this.users = `${quoteIdent(schema)}.api_users`;
    this.keys = `${quoteIdent(schema)}.api_signing_keys`;
  }

  async migrate(): Promise<void> {
    await this.tx((c) => migratePostgres(c, USER_MIGRATIONS, this.schema, `user-store-migrate:${this.schema}`), false);
  }

  /** Runs `fn` in one transaction; run again (up to 3 attempts) on serialization failures and deadlocks. */
  private tx<T>(fn: (c: pg.PoolClient) => Promise<T>, checkOpen = true): Promise<T> {
    return inTransaction(this.pool, fn, {
      mapError,
      beforeAttempt: () => {
        if (checkOpen && this.closed) throw new IdentityError('UNAVAILABLE', 'the user store is closed');
      },
    });
  }

  /** A transaction holding the lock that serialises writes of `what` in this schema, across processes. */
  private locked<T>(what: 'users' | 'keys', fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    return this.tx(async (c) => {
      await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`user-store-${what}:${this.schema}`]);
      return fn(c);
    });
  }

  private async query<R extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<R[]> {
    if (this.closed) throw new IdentityError('UNAVAILABLE', 'the user store is closed');
    try {
      return (await this.pool.query<R>(sql, params)).rows;
    } catch (err) {
      throw mapError(err);
    }
  }

  private async byId(c: pg.Pool | pg.PoolClient, id: string): Promise<StoredUser | null> {
    const row = (await c.query<UserRowIn>(`SELECT ${USER_COLUMNS} FROM ${this.users} WHERE id = $1`, [id])).rows[0];
    return row ? toStoredUser(row) : null;
  }

  private async otherEnabledAdmins(c: pg.PoolClient, id: string): Promise<number> {
    const rows = await c.query<{ n: number }>(
      `SELECT count(*)::integer AS n FROM ${this.users} WHERE role = 'admin' AND NOT disabled AND id <> $1`,
      [id],
    );
    return rows.rows[0]?.n ?? 0;
  }

  private async insert(c: pg.PoolClient, user: NewUser): Promise<StoredUser> {
    // ON CONFLICT: a duplicate must not abort the transaction (the caller gets CONFLICT, not a driver error).
    const rows = await c.query<UserRowIn>(
      `INSERT INTO ${this.users} (${USER_COLUMNS})
       VALUES ($1, $2, $3, $4, $5, false, $6, $6, NULL, 0) ON CONFLICT DO NOTHING RETURNING ${USER_COLUMNS}`,
      [user.id, user.username, user.email, user.role, user.passwordHash, user.createdAt],
    );
    const row = rows.rows[0];
    if (!row) throw usernameTaken(user.username);
    return toStoredUser(row);
  }

  async countUsers(): Promise<number> {
    const rows = await this.query<{ n: number }>(`SELECT count(*)::integer AS n FROM ${this.users}`);
    return rows[0]?.n ?? 0;
  }

  async listUsers(): Promise<StoredUser[]> {
    return (await this.query<UserRowIn>(`SELECT ${USER_COLUMNS} FROM ${this.users} ORDER BY username`)).map(
      toStoredUser,
    );
  }

  async getUser(id: string): Promise<StoredUser | null> {
    const row = (await this.query<UserRowIn>(`SELECT ${USER_COLUMNS} FROM ${this.users} WHERE id = $1`, [id]))[0];
    return row ? toStoredUser(row) : null;
  }

  async getUserByUsername(username: string): Promise<StoredUser | null> {
    const rows = await this.query<UserRowIn>(`SELECT ${USER_COLUMNS} FROM ${this.users} WHERE username = $1`, [
      username,
    ]);
    const row = rows[0];
    return row ? toStoredUser(row) : null;
  }

  createUser(user: NewUser): Promise<StoredUser> {
    return this.locked('users', (c) => this.insert(c, user));
  }

  createFirstUser(user: NewUser): Promise<StoredUser | null> {
    return this.locked('users', async (c) => {
      const any = await c.query(`SELECT 1 FROM ${this.users} LIMIT 1`);
      return any.rowCount === 0 ? this.insert(c, user) : null;
    });
  }

  updateUser(id: string, patch: UserPatch): Promise<StoredUser | null> {
    return this.locked('users', async (c) => {
      const before = await this.byId(c, id);
      if (!before) return null;
      checkKeepsAnAdmin(before, patched(before, patch), await this.otherEnabledAdmins(c, id));
      const { sql, values } = patchAssignments(
        patch,
        (i) => `$${i}`,
        (b) => b,
      );
      const rows = await c.query<UserRowIn>(
        `UPDATE ${this.users} SET ${sql} WHERE id = $${values.length + 1} RETURNING ${USER_COLUMNS}`,
        [...values, id],
      );
      const row = rows.rows[0];
      return row ? toStoredUser(row) : null;
    });
  }

  deleteUser(id: string): Promise<boolean> {
    return this.locked('users', async (c) => {
      const before = await this.byId(c, id);
      if (!before) return false;
      checkKeepsAnAdmin(before, null, await this.otherEnabledAdmins(c, id));
      return (await c.query(`DELETE FROM ${this.users} WHERE id = $1`, [id])).rowCount === 1;
    });
  }

  async recordLogin(id: string, at: string, rehashed?: string): Promise<void> {
    if (rehashed === undefined) await this.query(`UPDATE ${this.users} SET last_login = $1 WHERE id = $2`, [at, id]);
    else {
      await this.query(`UPDATE ${this.users} SET last_login = $1, password_hash = $2 WHERE id = $3`, [
        at,
        rehashed,
        id,
      ]);
    }
  }

  async signingKeys(): Promise<SigningKey[]> {
    return (await this.query<KeyRowIn>(`SELECT ${KEY_COLUMNS} FROM ${this.keys} ORDER BY created_at, kid`)).map(
      toSigningKey,
    );
  }

  private async currentKey(c: pg.PoolClient, algorithm: string): Promise<SigningKey | null> {
    const row = (
      await c.query<KeyRowIn>(
        `SELECT ${KEY_COLUMNS} FROM ${this.keys} WHERE algorithm = $1 AND retired_at IS NULL
         ORDER BY created_at DESC, kid DESC LIMIT 1`,
        [algorithm],
      )
    ).rows[0];
    return row ? toSigningKey(row) : null;
  }

  private async insertKey(c: pg.PoolClient, key: SigningKey): Promise<void> {
    await c.query(`INSERT INTO ${this.keys} (${NEW_KEY_COLUMNS}) VALUES ($1, $2, $3, $4, $5)`, newKeyValues(key));
  }

  ensureSigningKey(candidate: SigningKey): Promise<SigningKey> {
    return this.locked('keys', async (c) => {
      const existing = await this.currentKey(c, candidate.algorithm);
      if (existing) return existing;
      await this.insertKey(c, candidate);
      return candidate;
    });
  }

  rotateSigningKey(expectedKid: string | null, candidate: SigningKey, at: string): Promise<SigningKey> {
    return this.locked('keys', async (c) => {
      const current = await this.currentKey(c, candidate.algorithm);
      if ((current?.kid ?? null) !== expectedKid && current) return current;
      await c.query(`UPDATE ${this.keys} SET retired_at = $1 WHERE algorithm = $2 AND retired_at IS NULL`, [
        at,
        candidate.algorithm,
      ]);
      await this.insertKey(c, candidate);
      return candidate;
    });
  }

  async replaceSigningKeyPrivate(kid: string, from: string, to: string): Promise<boolean> {
    const rows = await this.query(
      `UPDATE ${this.keys} SET private_jwk = $1 WHERE kid = $2 AND private_jwk = $3 RETURNING kid`,
      [to, kid, from],
    );
    return rows.length === 1;
  }

  async deleteRetiredSigningKey(kid: string): Promise<boolean> {
    const rows = await this.query(`DELETE FROM ${this.keys} WHERE kid = $1 AND retired_at IS NOT NULL RETURNING kid`, [
      kid,
    ]);
    return rows.length === 1;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }
}
