/**
 * Opens the zone store the configuration asks for: PostgreSQL when a database URL is given, else SQLite at
 * `<dataDir>/zones.sqlite` (the directory is created when missing).
 */
import { join } from 'node:path';
import type { PostgresStoreOptions } from './postgres';
import type { Clock } from './clock';
import { openSqliteStore } from './sqlite';
import { securePrivateDir } from '../../platform/files';
import { StoreError, type ZoneStore } from './types';

export interface OpenZoneStoreOptions {
  /** Data directory; the SQLite file lives here. */
  dataDir: string;
  /** `postgres://…` (e.g. DATABASE_URL): use PostgreSQL instead of SQLite. */
  databaseUrl?: string;
  /** PostgreSQL schema (default `public`). */
  schema?: string;
  /** Clock for serials and timestamps (tests). */
  now?: Clock;
  /** Most records per name and type a write may leave (default DEFAULT_MAX_RECORDS_PER_RRSET; 0 = no limit). */
  maxRecordsPerRrset?: number;
}

export const SQLITE_FILE_NAME = 'zones.sqlite';

export async function openZoneStore(options: OpenZoneStoreOptions): Promise<ZoneStore> {
  const url = options.databaseUrl?.trim();
  if (url)
    return openPostgresStore({
      url,
      schema: options.schema,
      now: options.now,
      maxRecordsPerRrset: options.maxRecordsPerRrset,
    });
  try {
    securePrivateDir(options.dataDir);
  } catch (err) {
    throw new StoreError('UNAVAILABLE', (err as Error).message);
  }
  return openSqliteStore({
    file: join(options.dataDir, SQLITE_FILE_NAME),
    now: options.now,
    maxRecordsPerRrset: options.maxRecordsPerRrset,
  });
}

/** Opens the PostgreSQL store; its driver is loaded only then (a SQLite-only process starts without it). */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<ZoneStore> {
  const { openPostgresStore: open } = await import('./postgres');
  return open(options);
}
