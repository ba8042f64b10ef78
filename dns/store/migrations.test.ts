// @needs postgres
/**
 * The one migration list: the runner logic on its own, then both dialects brought to the same schema version
 * with the same tables, columns and index, and opening an up-to-date database again running nothing.
 *
 * Needs a running PostgreSQL: TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test (fails, never
 * skips, when it is unreachable). Works in a schema of its own and drops it at the end.
 */
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { dropSchemas } from '../testing/postgres';
import { SQLITE_DIALECT, postgresDialect, type Migration, type SqlDialect as Dialect } from '../../platform/sql';
import { MIGRATIONS, SCHEMA_VERSION, migrationsTableSql, pendingStatements } from './migrations';
import { openPostgresStore } from './postgres';
import { openSqliteStore } from './sqlite';
import { SETTINGS, dnssecKey, expectStoreError } from './store.contract';
import { StoreError } from './types';

const url = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `zs_migrations_${process.pid}_${randomBytes(4).toString('hex')}`;
/** A schema made at version 1 (before names as given), then opened by the store. */
const oldSchema = `${schema}_v1`;
/** A schema made at version 2 (before DNSSEC keys), then opened by the store. */
const v2Schema = `${schema}_v2`;

describe('pendingStatements', () => {
  const d = postgresDialect('"s"');

  test('a new database runs every migration in version order, each followed by the row that records it', () => {
    const later: Migration = { version: 2, name: "later's", statements: () => ['SELECT 2'] };
    const first: Migration = { version: 1, name: 'first', statements: () => ['SELECT 1a', 'SELECT 1b'] };
    const statements = pendingStatements([], d, [later, first]);
    expect(statements.map((s) => s.replace(/\s+/g, ' '))).toEqual([
      'SELECT 1a',
      'SELECT 1b',
      `INSERT INTO "s".schema_migrations (version, name, applied_at) VALUES (1, 'first', now())`,
      'SELECT 2',
      `INSERT INTO "s".schema_migrations (version, name, applied_at) VALUES (2, 'later''s', now())`,
    ]);
    expect(pendingStatements([1], d, [later, first])).toEqual(statements.slice(3));
  });

  test('an up-to-date database runs nothing', () => {
    expect(
      pendingStatements(
        MIGRATIONS.map((m) => m.version),
        d,
      ),
    ).toEqual([]);
    expect(
      pendingStatements(
        MIGRATIONS.map((m) => m.version),
        SQLITE_DIALECT,
      ),
    ).toEqual([]);
  });

  test('a database newer than this software is refused with UNAVAILABLE, naming both versions', () => {
    let error: unknown;
    try {
      pendingStatements([1, SCHEMA_VERSION + 1], SQLITE_DIALECT);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({
      code: 'UNAVAILABLE',
      message: `the database has schema version ${SCHEMA_VERSION + 1}, newer than this software knows (${SCHEMA_VERSION})`,
    });
  });

  test('versions are unique and the list is in order', () => {
    const versions = MIGRATIONS.map((m) => m.version);
    expect(versions).toEqual([...new Set(versions)].sort((a, b) => a - b));
  });
});

/** A table's columns in order: name, NOT NULL, part of the primary key. */
interface Column {
  name: string;
  notNull: boolean;
  primaryKey: boolean;
}

interface Schema {
  migrations: { version: number; name: string; appliedAt: string }[];
  columns: Record<
    'zones' | 'records' | 'dnssec_keys' | 'sealed_secrets' | 'secondary_zones' | 'dnssec_denial',
    Column[]
  >;
  indexes: string[];
}

function sqliteSchema(file: string): Schema {
  const db = new Database(file, { readonly: true });
  try {
    const columns = (table: string): Column[] =>
      (db.pragma(`table_info(${table})`) as { name: string; notnull: number; pk: number }[]).map((c) => ({
        name: c.name,
        notNull: c.notnull === 1,
        primaryKey: c.pk > 0,
      }));
    return {
      migrations: db
        .prepare('SELECT version, name, applied_at AS appliedAt FROM schema_migrations ORDER BY version')
        .all() as Schema['migrations'],
      columns: {
        zones: columns('zones'),
        records: columns('records'),
        dnssec_keys: columns('dnssec_keys'),
        sealed_secrets: columns('sealed_secrets'),
        secondary_zones: columns('secondary_zones'),
        dnssec_denial: columns('dnssec_denial'),
      },
      indexes: db
        .prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name`)
        .pluck()
        .all() as string[],
    };
  } finally {
    db.close();
  }
}

async function postgresSchema(): Promise<Schema> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const columns = async (table: string): Promise<Column[]> =>
      (
        await client.query<{ name: string; not_null: boolean; primary_key: boolean }>(
          `SELECT c.column_name AS name, c.is_nullable = 'NO' AS not_null,
                  EXISTS (SELECT 1 FROM information_schema.key_column_usage k
                          JOIN information_schema.table_constraints t USING (constraint_schema, constraint_name)
                          WHERE t.constraint_type = 'PRIMARY KEY' AND k.table_schema = c.table_schema
                            AND k.table_name = c.table_name AND k.column_name = c.column_name) AS primary_key
           FROM information_schema.columns c WHERE c.table_schema = $1 AND c.table_name = $2
           ORDER BY c.ordinal_position`,
          [schema, table],
        )
      ).rows.map((c) => ({ name: c.name, notNull: c.not_null, primaryKey: c.primary_key }));
    const migrations = await client.query<{ version: number; name: string; appliedAt: string }>(
      `SELECT version, name, applied_at::text AS "appliedAt" FROM "${schema}".schema_migrations ORDER BY version`,
    );
    const indexes = await client.query<{ indexname: string }>(
      `SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND indexname NOT LIKE '%_pkey' ORDER BY indexname`,
      [schema],
    );
    return {
      migrations: migrations.rows,
      columns: {
        zones: await columns('zones'),
        records: await columns('records'),
        dnssec_keys: await columns('dnssec_keys'),
        sealed_secrets: await columns('sealed_secrets'),
        secondary_zones: await columns('secondary_zones'),
        dnssec_denial: await columns('dnssec_denial'),
      },
      indexes: indexes.rows.map((r) => r.indexname),
    };
  } finally {
    await client.end();
  }
}

describe('both dialects, one list', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'zone-store-migrations-'));
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await dropSchemas(url, [schema, oldSchema, v2Schema]);
  });

  async function openBoth(file: string): Promise<void> {
    await (await openSqliteStore({ file })).close();
    let store;
    try {
      store = await openPostgresStore({ url, schema, listen: false });
    } catch (err) {
      throw new Error(`PostgreSQL test database unreachable at ${url}: ${(err as Error).message}`, { cause: err });
    }
    await store.close();
  }

  test('reach the same version with the same tables, columns and index; opening again runs nothing', async () => {
    const file = join(dir, 'zones.sqlite');
    await openBoth(file);
    const lite = sqliteSchema(file);
    const post = await postgresSchema();
    const expected = MIGRATIONS.map((m) => ({ version: m.version, name: m.name }));
    expect(lite.migrations.map(({ version, name }) => ({ version, name }))).toEqual(expected);
    expect(post.migrations.map(({ version, name }) => ({ version, name }))).toEqual(expected);
    expect(Math.max(...lite.migrations.map((m) => m.version))).toBe(SCHEMA_VERSION);
    expect(lite.columns).toEqual(post.columns);
    expect(lite.columns.records.map((c) => c.name)).toEqual([
      'id',
      'zone',
      'name',
      'type',
      'ttl',
      'value',
      'created_at',
      'updated_at',
      'given_name',
      'given_value',
    ]);
    expect(lite.columns.dnssec_keys).toEqual(
      [
        ['id', true],
        ['zone', true],
        ['algorithm', true],
        ['flags', true],
        ['bits', true],
        ['public_key', true],
        ['private_key', true],
        ['created_at', true],
        ['publish_at', true],
        ['activate_at', true],
        ['inactive_at', false],
        ['delete_at', false],
        ['expires_at', true],
        ['cds_at', false],
        ['cds_until', false],
        ['ds_seen_at', false],
      ].map(([name, notNull]) => ({ name, notNull, primaryKey: name === 'id' })),
    );
    expect(lite.columns.sealed_secrets).toEqual([
      { name: 'name', notNull: true, primaryKey: true },
      { name: 'sealed', notNull: true, primaryKey: false },
      { name: 'created_at', notNull: true, primaryKey: false },
    ]);
    expect(lite.columns.secondary_zones.map((c) => [c.name, c.notNull])).toEqual([
      ['name', true],
      ['primary_host', true],
      ['primary_port', true],
      ['tsig_key', false],
      ['created_at', true],
    ]);
    expect(lite.columns.dnssec_denial).toEqual([
      { name: 'zone', notNull: true, primaryKey: true },
      { name: 'denial', notNull: true, primaryKey: false },
      { name: 'opt_out', notNull: true, primaryKey: false },
    ]);
    const indexes = ['dnssec_keys_zone', 'records_zone_name_type', 'zone_changes_time', 'zone_changes_zone'];
    expect(lite.indexes).toEqual(indexes);
    expect(post.indexes).toEqual(indexes);
    expect(lite.migrations[0]?.appliedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    // Again on the same databases: no migration runs, no row is added or rewritten (applied_at unchanged).
    await openBoth(file);
    expect(sqliteSchema(file)).toEqual(lite);
    expect(await postgresSchema()).toEqual(post);
  });

  test('a newer PostgreSQL schema is refused with UNAVAILABLE, and nothing of it is changed', async () => {
    await openBoth(join(dir, 'zones.sqlite'));
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(
        `INSERT INTO "${schema}".schema_migrations (version, name, applied_at) VALUES (99, 'future', now())`,
      );
      const before = await postgresSchema();
      await expectStoreError(openPostgresStore({ url, schema, listen: false }), 'UNAVAILABLE', {
        message: /schema version 99, newer than this software knows/,
      });
      expect(await postgresSchema()).toEqual(before);
    } finally {
      await client.query(`DELETE FROM "${schema}".schema_migrations WHERE version = 99`);
      await client.end();
    }
  });
});

/** The statements that make a version-1 database holding zone `old.test` with one record (as version 1 wrote them). */
function version1Database(d: Dialect): string[] {
  const v1 = MIGRATIONS.filter((m) => m.version === 1);
  const ts = `'2026-01-02T03:04:05.000Z'`;
  return [
    migrationsTableSql(d),
    ...pendingStatements([], d, v1),
    `INSERT INTO ${d.table('zones')} VALUES ('old.test', 'hostmaster@old.test', 'ns1.old.test', 10800, 3600, 604800,
      3600, 3600, 2026010200, ${ts}, ${ts})`,
    `INSERT INTO ${d.table('records')} VALUES ('00000000-0000-4000-8000-000000000001', 'old.test', 'www.old.test', 'CNAME',
      300, 'host.old.test.', ${ts}, ${ts})`,
  ];
}

describe('names as given (version 2) on a database of version 1', () => {
  const record = {
    id: '00000000-0000-4000-8000-000000000001',
    zone: 'old.test',
    name: 'www.old.test',
    type: 'CNAME',
    ttl: 300,
    value: 'host.old.test.',
  };

  /** The old record reads back as it was (no name or value as given), and the migrated table takes them. */
  async function check(store: Awaited<ReturnType<typeof openSqliteStore>>): Promise<void> {
    try {
      const [old] = await store.listRecords('old.test');
      expect(old).toEqual({ ...record, createdAt: '2026-01-02T03:04:05.000Z', updatedAt: '2026-01-02T03:04:05.000Z' });
      const seen: unknown[] = [];
      await store.eachRecord('old.test', (r) => seen.push(r));
      expect(seen).toEqual([{ name: 'www.old.test', type: 'CNAME', ttl: 300, value: 'host.old.test.' }]);
      await store.change('old.test', [
        {
          op: 'add',
          record: {
            name: 'mail.old.test',
            type: 'MX',
            ttl: 300,
            value: '10 mx.old.test.',
            givenName: 'Mail.old.test',
            givenValue: '10 MX.Old.Test.',
          },
        },
      ]);
      expect(await store.listRecords('old.test', { name: 'mail.old.test' })).toEqual([
        expect.objectContaining({
          name: 'mail.old.test',
          value: '10 mx.old.test.',
          givenName: 'Mail.old.test',
          givenValue: '10 MX.Old.Test.',
        }),
      ]);
    } finally {
      await store.close();
    }
  }

  test('SQLite: opened, it is migrated; its records are unchanged', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'zone-store-v1-'));
    try {
      const file = join(dir, 'zones.sqlite');
      const db = new Database(file);
      for (const sql of version1Database(SQLITE_DIALECT)) db.exec(sql);
      db.close();
      await check(await openSqliteStore({ file }));
      expect(sqliteSchema(file).migrations.map((m) => m.version)).toEqual(MIGRATIONS.map((m) => m.version));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('PostgreSQL: opened, it is migrated; its records are unchanged', async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(`CREATE SCHEMA "${oldSchema}"`);
      for (const sql of version1Database(postgresDialect(`"${oldSchema}"`))) await client.query(sql);
      await check(await openPostgresStore({ url, schema: oldSchema, listen: false }));
      const versions = await client.query(`SELECT version FROM "${oldSchema}".schema_migrations ORDER BY version`);
      expect(versions.rows.map((r: { version: number }) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
    } finally {
      await client.end();
    }
  });
});

/** The statements that make a version-2 database holding zone `v2.test` with one record whose name was given in capitals. */
function version2Database(d: Dialect): string[] {
  const ts = `'2026-01-02T03:04:05.000Z'`;
  return [
    migrationsTableSql(d),
    ...pendingStatements(
      [],
      d,
      MIGRATIONS.filter((m) => m.version <= 2),
    ),
    `INSERT INTO ${d.table('zones')} VALUES ('v2.test', 'hostmaster@v2.test', 'ns1.v2.test', 10800, 3600, 604800,
      3600, 3600, 2026010205, ${ts}, ${ts})`,
    `INSERT INTO ${d.table('records')} VALUES ('00000000-0000-4000-8000-000000000002', 'v2.test', 'www.v2.test', 'A',
      300, '192.0.2.1', ${ts}, ${ts}, 'WWW.v2.test', NULL)`,
  ];
}

describe('DNSSEC keys (version 3) on a database of version 2', () => {
  const ts = '2026-01-02T03:04:05.000Z';
  const zone = {
    name: 'v2.test',
    adminEmail: 'hostmaster@v2.test',
    primaryNs: 'ns1.v2.test',
    refresh: 10800,
    retry: 3600,
    expire: 604800,
    minimum: 3600,
    defaultTtl: 3600,
    serial: 2026010205,
    recordsCount: 1,
    createdAt: ts,
    updatedAt: ts,
  };
  const record = {
    id: '00000000-0000-4000-8000-000000000002',
    zone: 'v2.test',
    name: 'www.v2.test',
    givenName: 'WWW.v2.test',
    type: 'A',
    ttl: 300,
    value: '192.0.2.1',
    createdAt: ts,
    updatedAt: ts,
  };

  /** The zone and its record read back as they were, with no keys; keys can be added, and go with the zone. */
  async function check(store: Awaited<ReturnType<typeof openSqliteStore>>): Promise<void> {
    try {
      expect(await store.getZone('v2.test')).toEqual(zone);
      expect(await store.listRecords('v2.test')).toEqual([record]);
      expect(await store.listDnssecKeys('v2.test')).toEqual([]);
      const key = dnssecKey('v2.test');
      const signed = await store.changeDnssecKeys('v2.test', { add: [key] });
      expect(signed.serial).toBeGreaterThan(zone.serial);
      expect(await store.listDnssecKeys('v2.test')).toEqual([key]);
      expect(await store.deleteZone('v2.test')).toBe(true);
      await store.createZone('v2.test', SETTINGS);
      expect(await store.listDnssecKeys('v2.test')).toEqual([]);
      // and the later versions' tables are there too (sealed secrets, version 4)
      expect(await store.putSealedSecretIfAbsent('upgraded', 'v1:a:b:c')).toBe('v1:a:b:c');
    } finally {
      await store.close();
    }
  }

  test('SQLite: opened, it is migrated; its zone and records are unchanged', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'zone-store-v2-'));
    try {
      const file = join(dir, 'zones.sqlite');
      const db = new Database(file);
      for (const sql of version2Database(SQLITE_DIALECT)) db.exec(sql);
      db.close();
      await check(await openSqliteStore({ file }));
      expect(sqliteSchema(file).migrations.map((m) => m.version)).toEqual(MIGRATIONS.map((m) => m.version));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('PostgreSQL: opened, it is migrated; its zone and records are unchanged', async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(`CREATE SCHEMA "${v2Schema}"`);
      for (const sql of version2Database(postgresDialect(`"${v2Schema}"`))) await client.query(sql);
      await check(await openPostgresStore({ url, schema: v2Schema, listen: false }));
      const versions = await client.query(`SELECT version FROM "${v2Schema}".schema_migrations ORDER BY version`);
      expect(versions.rows.map((r: { version: number }) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
    } finally {
      await client.end();
    }
  });
});
