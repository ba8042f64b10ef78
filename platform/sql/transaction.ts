/** A PostgreSQL transaction run again when the database asks for it (serialization failure, deadlock). */
import { isRetryable } from './errors';

/** Attempts in all, the first included, before a retryable failure is given up on. */
export const MAX_TRANSACTION_ATTEMPTS = 3;

/** What the loop needs of a pooled client (pg.PoolClient has it). */
export interface TransactionClient {
  query(sql: string): Promise<unknown>;
  /** `true`: the connection is broken, the pool drops it. */
  release(destroy?: boolean): void;
}

export interface TransactionPool<C extends TransactionClient> {
  connect(): Promise<C>;
}

export interface TransactionOptions {
  /** The store's error for a driver error (connect, BEGIN, `fn`, COMMIT); called once, on the error given up on. */
  mapError(err: unknown): unknown;
  /** Runs before each attempt; throws to stop (e.g. the store was closed meanwhile). */
  beforeAttempt?(): void;
  /** Attempts in all (default MAX_TRANSACTION_ATTEMPTS). */
  attempts?: number;
}

/**
 * Runs `fn` in one transaction on a client of `pool`: COMMIT when it resolves, ROLLBACK when it throws. A
 * serialization failure or deadlock runs it again on a fresh client, up to `attempts` in all; then, or for any other
 * error, the (mapped) error is thrown. A client whose ROLLBACK fails is dropped from the pool.
 */
export async function inTransaction<C extends TransactionClient, T>(
  pool: TransactionPool<C>,
  fn: (client: C) => Promise<T>,
  options: TransactionOptions,
): Promise<T> {
  const attempts = options.attempts ?? MAX_TRANSACTION_ATTEMPTS;
  for (let attempt = 1; ; attempt++) {
    options.beforeAttempt?.();
    let client: C;
    try {
      client = await pool.connect();
    } catch (err) {
      throw options.mapError(err);
    }
    let broken = false;
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      try {
        await client.query('ROLLBACK');
      } catch {
        broken = true;
      }
      if (isRetryable(err) && attempt < attempts) continue;
      throw options.mapError(err);
    } finally {
      client.release(broken);
    }
  }
}
