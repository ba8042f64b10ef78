// @needs postgres
/**
 * The kit on a real PostgreSQL: the migration runner in a schema of its own (order, once, concurrent openers, a
 * newer database) and a serialization failure raised by the server, retried then given up on.
 *
 * Needs a running PostgreSQL: TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test (fails, never
 * skips, when it is unreachable). Drops its schemas at the end.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { SchemaTooNewError, type Migration, type MigrationList } from './migrations';
import { migratePostgres, quoteIdent } from './postgres';
import { inTransaction } from './transaction';

const url = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `kit_sql_${process.pid}_${randomBytes(4).toString('hex')}`;
const pool = new pg.Pool({ connectionString: url, max: 4 });

const first: Migration = {
  version: 1,
  name: 'first',
  statements: (d) => [`CREATE TABLE ${d.table('t')} (id ${d.key} NOT NULL PRIMARY KEY)`],
};
const second: Migration = {
  version: 2,
  name: 'second',
  statements: (d) => [`ALTER TABLE ${d.table('t')} ADD COLUMN note ${d.text}`],
};
const list = (...migrations: Migration[]): MigrationList => ({ table: 'kit_migrations', migrations });
const mapError = (err: unknown) => err;

const migrate = (l: MigrationList) =>
  inTransaction(pool, (c: pg.PoolClient) => migratePostgres(c, l, schema, `kit-test:${schema}`), { mapError });

const versions = async () =>
  (
    await pool.query<{ version: number }>(`SELECT version FROM ${quoteIdent(schema)}.kit_migrations ORDER BY 1`)
  ).rows.map((r) => r.version);

afterAll(async () => {
  await pool.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`).catch(() => {});
  await pool.end();
});

test('creates the schema, applies in order and once, also when several open it at the same time', async () => {
  await Promise.all([migrate(list(second, first)), migrate(list(first, second)), migrate(list(first, second))]);
  expect(await versions()).toEqual([1, 2]);
  await migrate(list(first, second));
  expect(await versions()).toEqual([1, 2]);
});

test('a schema newer than the code is refused and left as it was', async () => {
  await expect(migrate(list(first))).rejects.toThrow(SchemaTooNewError);
  await expect(migrate(list(first))).rejects.toMatchObject({ found: 2, known: 1 });
  expect(await versions()).toEqual([1, 2]);
});

test('a serialization failure from the server is retried, then given up on with that error', async () => {
  let attempts = 0;
  const error = await inTransaction(
    pool,
    async (c: pg.PoolClient) => {
      attempts++;
      await c.query(`DO $$ BEGIN RAISE EXCEPTION 'try again' USING ERRCODE = 'serialization_failure'; END $$`);
    },
    { mapError },
  ).catch((err: unknown) => err);
  expect(attempts).toBe(3);
  expect(error).toMatchObject({ code: '40001', message: 'try again' });
});
