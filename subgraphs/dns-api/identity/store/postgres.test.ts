// @needs postgres
/**
 * The user store contract on PostgreSQL (a schema per database), plus what only PostgreSQL has: schemas, the
 * zone store's database shared, unreachable servers.
 *
 * Needs a running PostgreSQL: TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test. When it is
 * unreachable these tests FAIL (they do not skip) and say so. Every schema made is dropped at the end.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openPostgresStore } from '../../../../dns/store';
import { dropSchemas } from '../../../../dns/testing/postgres';
import { expectIdentityError } from '../testing/index';
import { openUserStore } from './index';
import { openPostgresUserStore } from './postgres';
import type { UserStore } from './types';
import { describeUserStoreContract } from './user-store.contract';

const url = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const tag = `${process.pid}_${randomBytes(4).toString('hex')}`;
const schemas: string[] = [];
const newSchema = (label: string) => {
  const s = `us_${label}_${tag}_${schemas.length}`;
  schemas.push(s);
  return s;
};

/** Opens a store; an unreachable database fails the test with a message that says so. */
async function openOrFail(schema: string): Promise<UserStore> {
  try {
    return await openPostgresUserStore({ url, schema });
  } catch (err) {
    throw new Error(
      `PostgreSQL test database unreachable at ${url} (start PostgreSQL or set TEST_DATABASE_URL); ` +
        `the PostgreSQL user store tests cannot run: ${(err as Error).message}`,
      { cause: err },
    );
  }
}

describeUserStoreContract(
  'postgres',
  async () => {
    const schema = newSchema('contract');
    return { open: () => openOrFail(schema) };
  },
  () => dropSchemas(url, schemas),
);

describe('PostgreSQL user store specifics', () => {
  afterAll(() => dropSchemas(url, schemas));

  async function query<R extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<R[]> {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      return (await c.query<R>(sql, params)).rows;
    } finally {
      await c.end();
    }
  }

  test('shares the zone store database: api_ tables beside the zone tables in the same schema', async () => {
    const schema = newSchema('shared');
    const zones = await openPostgresStore({ url, schema, listen: false });
    const users = await openUserStore({ dataDir: '/nonexistent', databaseUrl: url, schema });
    try {
      expect(users.kind).toBe('postgres');
      const tables = await query<{ table_name: string }>(
        'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name',
        [schema],
      );
      expect(tables.map((t) => t.table_name)).toEqual([
        'api_schema_migrations',
        'api_signing_keys',
        'api_users',
        'dnssec_denial',
        'dnssec_keys',
        'records',
        'schema_migrations',
        'sealed_secrets',
        'secondary_zones',
        'zone_changes',
        'zones',
      ]);
    } finally {
      await users.close();
      await zones.close();
    }
  });

  test('several stores opening a new schema at once migrate it once', async () => {
    const schema = newSchema('race');
    const stores = await Promise.all([1, 2, 3].map(() => openOrFail(schema)));
    try {
      const versions = await query<{ version: number }>(`SELECT version FROM "${schema}".api_schema_migrations`);
      expect(versions).toEqual([{ version: 1 }, { version: 2 }]);
    } finally {
      for (const s of stores) await s.close();
    }
  });

  test('the database of newer software is refused with a message saying so', async () => {
    const schema = newSchema('newer');
    await (await openOrFail(schema)).close();
    await query(`INSERT INTO "${schema}".api_schema_migrations (version, name) VALUES (99, 'future')`);
    await expectIdentityError(openPostgresUserStore({ url, schema }), 'UNAVAILABLE', {
      message: 'the user tables have schema version 99, newer than this software knows (2)',
    });
  });

  test('a schema name that is not a plain identifier is INVALID', async () => {
    await expectIdentityError(openPostgresUserStore({ url, schema: 'a"; DROP TABLE x; --' }), 'INVALID', {
      field: 'schema',
      message: /must be a plain identifier/,
    });
  });

  test('an unreachable server is UNAVAILABLE, with the password masked in the message', async () => {
    const err = await expectIdentityError(
      openPostgresUserStore({ url: 'postgres://u:hunter2secret@127.0.0.1:1/x', schema: 'x' }),
      'UNAVAILABLE',
      { message: /^PostgreSQL at postgres:\/\/u:\*\*\*@127\.0\.0\.1:1\/x is unreachable/ },
    );
    expect(err.message).not.toContain('hunter2secret');
  });
});
