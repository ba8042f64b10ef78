/**
 * Versioned migrations, one list per store written once for both dialects, and the logic that decides what a
 * database still needs. Each applied version is a row `(version, name, applied_at)` in the store's bookkeeping
 * table; the runners (sqlite.ts, postgres.ts) execute what `pendingStatements` returns in one transaction.
 */
import type { SqlDialect } from './dialect';

export interface Migration {
  version: number;
  name: string;
  statements(d: SqlDialect): string[];
}

/** A store's migrations and the table recording which of them a database has. */
export interface MigrationList {
  /** The bookkeeping table (unqualified; the dialect qualifies it). */
  table: string;
  migrations: readonly Migration[];
  /**
   * `applied_at` has a default (the current time) in a newly made table: a store whose table was first made so keeps
   * it, for code that inserts rows without it.
   */
  appliedAtDefault?: boolean;
}

/** A database with a version newer than the code knows: its tables may mean something this code does not. */
export class SchemaTooNewError extends Error {
  constructor(
    /** The newest version the database has. */
    readonly found: number,
    /** The newest version the code knows. */
    readonly known: number,
  ) {
    super(`the database has schema version ${found}, newer than this software knows (${known})`);
    this.name = 'SchemaTooNewError';
  }
}

/** The version a database has once every migration of `migrations` ran (0 for none). */
export function latestVersion(migrations: readonly Migration[]): number {
  return Math.max(0, ...migrations.map((m) => m.version));
}

/** The bookkeeping table; created (when missing) before anything else is read. */
export function migrationsTableSql(d: SqlDialect, table: string, appliedAtDefault = false): string {
  return `CREATE TABLE IF NOT EXISTS ${d.table(table)} (
    version    ${d.integer} NOT NULL PRIMARY KEY,
    name       ${d.text} NOT NULL,
    applied_at ${d.timestamp} NOT NULL${appliedAtDefault ? ` DEFAULT (${d.now})` : ''}
  )${d.tableSuffix}`;
}

/** Reads the applied versions (one column, `version`). */
export function appliedVersionsSql(d: SqlDialect, table: string): string {
  return `SELECT version FROM ${d.table(table)}`;
}

const literal = (text: string): string => `'${text.replace(/'/g, "''")}'`;

/**
 * Everything a database with the `applied` versions still has to run, in version order, each migration followed by
 * the row that records it: nothing when it is up to date. Throws SchemaTooNewError for a database newer than
 * `list` knows.
 */
export function pendingStatements(applied: Iterable<number>, d: SqlDialect, list: MigrationList): string[] {
  const done = new Set(applied);
  const known = latestVersion(list.migrations);
  const newest = Math.max(0, ...done);
  if (newest > known) throw new SchemaTooNewError(newest, known);
  return [...list.migrations]
    .sort((a, b) => a.version - b.version)
    .filter((m) => !done.has(m.version))
    .flatMap((m) => [
      ...m.statements(d),
      `INSERT INTO ${d.table(list.table)} (version, name, applied_at)
        VALUES (${m.version}, ${literal(m.name)}, ${d.now})`,
    ]);
}
