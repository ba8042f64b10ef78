/** PostgreSQL helpers both stores share: schema names, masked URLs, the migration runner. The kit loads no driver. */
import type { ClientBase } from 'pg';
import { postgresDialect } from './dialect';
import { appliedVersionsSql, migrationsTableSql, pendingStatements, type MigrationList } from './migrations';

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** Whether `name` is a plain identifier a schema may have (letters, digits, _; at most 63). */
export const isSchemaName = (name: string): boolean => SCHEMA_NAME.test(name);

/** An identifier in double quotes, for statements. */
export const quoteIdent = (id: string): string => `"${id.replace(/"/g, '""')}"`;

/** Query parameters of a connection URL that carry a credential (libpq's password, sslpassword, …). */
const SECRET_PARAM = /pass|secret|token|auth|key/i;

/** The URL with every credential masked (user-info password and credential parameters), for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    for (const name of [...u.searchParams.keys()]) if (SECRET_PARAM.test(name)) u.searchParams.set(name, '***');
    return u.toString().replace(/%2A%2A%2A/g, '***');
  } catch {
    return '(unparseable database URL)';
  }
}

/**
 * Brings `schema` up to date with `list`: creates the schema when missing, then the bookkeeping table, then runs
 * what is pending. Call it inside a transaction: the advisory lock on `lockKey` is held until that ends, so processes
 * starting together apply each migration once. Throws SchemaTooNewError (nothing changed) for a newer database.
 */
export async function migratePostgres(
  c: ClientBase,
  list: MigrationList,
  schema: string,
  lockKey: string,
): Promise<void> {
  // a connection may bound its lock waits (lock_timeout): a migration waits for the one another process runs
  await c.query('SET LOCAL lock_timeout = 0');
  await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [lockKey]);
  // Only when missing: CREATE SCHEMA needs the CREATE privilege on the database even with IF NOT EXISTS.
  const present = await c.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
  if (present.rowCount === 0) await c.query(`CREATE SCHEMA ${quoteIdent(schema)}`);
  const d = postgresDialect(quoteIdent(schema));
  await c.query(migrationsTableSql(d, list.table, list.appliedAtDefault));
  const applied = (await c.query<{ version: number }>(appliedVersionsSql(d, list.table))).rows.map((r) => r.version);
  for (const sql of pendingStatements(applied, d, list)) await c.query(sql);
}
