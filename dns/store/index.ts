/** The zone store: one interface, SQLite and PostgreSQL adapters, and what both share. Only re-exports. */
export { openPostgresStore, openZoneStore, SQLITE_FILE_NAME, type OpenZoneStoreOptions } from './open';
export type { PostgresStoreOptions } from './postgres';
export { openSqliteStore, type SqliteStoreOptions } from './sqlite';
export { type Clock } from './clock';
export { DEFAULT_MAX_RECORDS_PER_RRSET, MAX_CHANGES_PER_CALL, MAX_VALUE_LENGTH } from './limits';
export { nextSerial, initialSerial } from './serial-policy';
export * from './types';
export { cmp } from './order';
export { probeStore, STORE_PROBE_MS } from './probe';
