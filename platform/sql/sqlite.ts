/** The migration runner on SQLite (better-sqlite3, passed in: the kit loads no driver itself). */
import type Database from 'better-sqlite3';
import { SQLITE_DIALECT } from './dialect';
import { appliedVersionsSql, migrationsTableSql, pendingStatements, type MigrationList } from './migrations';

/**
 * Brings the database up to date with `list` in one `BEGIN IMMEDIATE` transaction, so processes opening the file
 * together apply each migration once. Throws SchemaTooNewError (nothing changed) for a newer database.
 */
export function migrateSqlite(db: Database.Database, list: MigrationList): void {
  db.transaction(() => {
    db.exec(migrationsTableSql(SQLITE_DIALECT, list.table, list.appliedAtDefault));
    const applied = db
      .prepare(appliedVersionsSql(SQLITE_DIALECT, list.table))
      .pluck()
      .all()
      .map((v) => Number(v));
    for (const sql of pendingStatements(applied, SQLITE_DIALECT, list)) db.exec(sql);
  }).immediate();
}
