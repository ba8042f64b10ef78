/**
 * Opens the user store beside the zone store: PostgreSQL when a database URL is given, else SQLite in the zone
 * store's file (`${dataDir}/zones.sqlite`).
 */
import { join } from 'node:path';
import { SQLITE_FILE_NAME } from '../../../../dns/store';
import { openSqliteUserStore } from './sqlite';
import type { UserStore } from './types';

export interface OpenUserStoreOptions {
  /** Data directory holding `zones.sqlite` (it exists once the zone store is open). */
  dataDir: string;
  /** `postgres://…` (e.g. DATABASE_URL): use PostgreSQL instead of SQLite. */
  databaseUrl?: string;
  /** PostgreSQL schema (default `public`). */
  schema?: string;
}

export async function openUserStore(options: OpenUserStoreOptions): Promise<UserStore> {
  const url = options.databaseUrl?.trim();
  if (url) {
    // The driver is loaded only then: a SQLite-only process starts without it.
    const { openPostgresUserStore } = await import('./postgres');
    return openPostgresUserStore({ url, schema: options.schema });
  }
  return openSqliteUserStore({ file: join(options.dataDir, SQLITE_FILE_NAME) });
}

export { openSqliteUserStore, type SqliteUserStoreOptions } from './sqlite';
export type { PostgresUserStoreOptions } from './postgres';
export * from './types';
