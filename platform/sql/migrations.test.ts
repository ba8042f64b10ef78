/** The migration runner on SQLite (in memory): order, once, bookkeeping, and a database newer than the code. */
import Database from 'better-sqlite3';
import { SQLITE_DIALECT, postgresDialect } from './dialect';
import { SchemaTooNewError, latestVersion, pendingStatements, type Migration, type MigrationList } from './migrations';
import { migrateSqlite } from './sqlite';

const first: Migration = {
  version: 1,
  name: 'first',
  statements: (d) => [`CREATE TABLE ${d.table('t')} (id ${d.key} NOT NULL PRIMARY KEY)${d.tableSuffix}`],
};
const second: Migration = {
  version: 2,
  name: "second's",
  statements: (d) => [`ALTER TABLE ${d.table('t')} ADD COLUMN note ${d.text}`],
};
const list = (...migrations: Migration[]): MigrationList => ({ table: 'kit_migrations', migrations });

const applied = (db: Database.Database) =>
  db.prepare('SELECT version, name, applied_at AS appliedAt FROM kit_migrations ORDER BY version').all() as {
    version: number;
    name: string;
    appliedAt: string;
  }[];

test('pendingStatements: every missing migration in version order, each followed by its bookkeeping row', () => {
  const statements = pendingStatements([], postgresDialect('"s"'), list(second, first));
  expect(statements.map((s) => s.replace(/\s+/g, ' '))).toEqual([
    'CREATE TABLE "s".t (id text COLLATE "C" NOT NULL PRIMARY KEY)',
    `INSERT INTO "s".kit_migrations (version, name, applied_at) VALUES (1, 'first', now())`,
    'ALTER TABLE "s".t ADD COLUMN note text',
    `INSERT INTO "s".kit_migrations (version, name, applied_at) VALUES (2, 'second''s', now())`,
  ]);
  expect(pendingStatements([1], SQLITE_DIALECT, list(first, second))).toHaveLength(2);
  expect(pendingStatements([1, 2], SQLITE_DIALECT, list(first, second))).toEqual([]);
  expect(latestVersion([first, second])).toBe(2);
  expect(latestVersion([])).toBe(0);
});

describe('migrateSqlite', () => {
  let db: Database.Database;
  beforeEach(() => {
    db = new Database(':memory:');
  });
  afterEach(() => db.close());

  test('applies the migrations in version order, records each, and runs nothing the second time', () => {
    migrateSqlite(db, list(second, first));
    expect(applied(db).map(({ version, name }) => ({ version, name }))).toEqual([
      { version: 1, name: 'first' },
      { version: 2, name: "second's" },
    ]);
    for (const { appliedAt } of applied(db)) expect(appliedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    db.prepare(`INSERT INTO t VALUES ('a', 'kept')`).run();
    migrateSqlite(db, list(first, second)); // would fail (table t exists) if it ran anything again
    expect(applied(db)).toHaveLength(2);
    expect(db.prepare('SELECT * FROM t').all()).toEqual([{ id: 'a', note: 'kept' }]);
  });

  test('a database at an older version gets only the migrations it lacks', () => {
    migrateSqlite(db, list(first));
    expect(applied(db).map((m) => m.version)).toEqual([1]);
    migrateSqlite(db, list(first, second));
    expect(applied(db).map((m) => m.version)).toEqual([1, 2]);
  });

  test('a database newer than the code is refused, naming both versions, and left as it was', () => {
    migrateSqlite(db, list(first, second));
    const before = applied(db);
    let error: unknown;
    try {
      migrateSqlite(db, list(first));
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(SchemaTooNewError);
    expect(error).toMatchObject({
      found: 2,
      known: 1,
      message: 'the database has schema version 2, newer than this software knows (1)',
    });
    expect(applied(db)).toEqual(before);
  });

  test('a failing migration leaves nothing behind: neither its changes nor its row', () => {
    const broken: Migration = { version: 2, name: 'broken', statements: () => ['CREATE TABLE u (x)', 'NOT SQL'] };
    expect(() => migrateSqlite(db, list(first, broken))).toThrow();
    expect(db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).pluck().all()).toEqual([]);
  });

  test('appliedAtDefault: a row written without applied_at gets the current time', () => {
    migrateSqlite(db, { ...list(first), appliedAtDefault: true });
    db.prepare(`INSERT INTO kit_migrations (version, name) VALUES (7, 'by hand')`).run();
    expect(applied(db)[1]).toMatchObject({ version: 7, appliedAt: expect.stringMatching(/^\d{4}-.*Z$/) });
  });
});
