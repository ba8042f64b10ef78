/**
 * Driver errors (pg, better-sqlite3) sorted into a few kinds that mean the same on both databases; each store maps
 * a kind to its own error (or passes the driver error on).
 */

export type SqlFailureKind =
  /** PostgreSQL cannot be reached, refused the login, or dropped the connection. */
  | 'unavailable'
  /** SQLite: another connection holds the lock beyond the busy timeout. */
  | 'busy'
  /** A unique or primary key constraint refused the row. */
  | 'unique'
  /** A foreign key constraint refused the row (a parent is missing). */
  | 'foreign-key'
  /** PostgreSQL serialization failure or deadlock: the transaction may succeed when run again. */
  | 'retryable';

export interface SqlFailure {
  kind: SqlFailureKind;
  /** The driver's message. */
  message: string;
}

const CONNECTION_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'EAI_AGAIN',
]);

/** SQLSTATEs of serialization failures and deadlocks. */
const RETRYABLE = new Set(['40001', '40P01']);

const codeOf = (err: unknown): unknown =>
  typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;

/** Whether a pg error means the server is out of reach (network, shutdown, too many clients, login, database). */
export function isConnectionError(err: unknown): boolean {
  const code = codeOf(err);
  if (typeof code === 'string') {
    if (CONNECTION_ERRNOS.has(code)) return true;
    // 08: connection exception; 57P: operator intervention (shutdown, …); 53300: too many connections.
    if (code.startsWith('08') || code.startsWith('57P') || code === '53300') return true;
    if (code === '28P01' || code === '28000' || code === '3D000') return true; // authentication, unknown database
  }
  const message = err instanceof Error ? err.message : '';
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(
    message,
  );
}

/** Whether a pg error is a serialization failure or deadlock (worth running the transaction again). */
export function isRetryable(err: unknown): boolean {
  const code = codeOf(err);
  return typeof code === 'string' && RETRYABLE.has(code);
}

/** The kind of a driver error, or undefined for anything else (a bug, a check constraint, a store's own error). */
export function sqlFailure(err: unknown): SqlFailure | undefined {
  const message = err instanceof Error ? err.message : String(err);
  const code = codeOf(err);
  if (isConnectionError(err)) return { kind: 'unavailable', message };
  if (isRetryable(err)) return { kind: 'retryable', message };
  if (typeof code !== 'string') return undefined;
  // 55P03: lock_not_available (a lock_timeout ran out)
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED') || code === '55P03')
    return { kind: 'busy', message };
  if (code === '23505' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE')
    return { kind: 'unique', message };
  if (code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return { kind: 'foreign-key', message };
  return undefined;
}
