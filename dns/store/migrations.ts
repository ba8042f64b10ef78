/**
 * The zone store's schema: one ordered list of migrations for both SQL dialects, and the one runner logic that
 * decides what a database still needs. The stores only execute the statements it returns, in one transaction
 * under their own lock (SQLite `BEGIN IMMEDIATE`, PostgreSQL an advisory lock), so both reach the same version by
 * the same steps.
 */
import { StoreError } from './types';

/** How a dialect spells what the migrations need. */
export interface Dialect {
  /** A table as statements must name it (schema-qualified on PostgreSQL). */
  table(name: string): string;
  /** Text that is sorted or compared: byte order, like SQLite's BINARY (PostgreSQL: `COLLATE "C"`). */
  key: string;
  text: string;
  integer: string;
  /** An unsigned 32-bit number (the SOA serial): beyond a PostgreSQL `integer`. */
  uint32: string;
  timestamp: string;
  /** The current time as an expression, stored in the form the dialect keeps timestamps in. */
  now: string;
  /** After a table's closing parenthesis (SQLite: ` STRICT`). */
  tableSuffix: string;
}

export const SQLITE_DIALECT: Dialect = {
  table: (name) => name,
  key: 'TEXT',
  text: 'TEXT',
  integer: 'INTEGER',
  uint32: 'INTEGER',
  timestamp: 'TEXT',
  // ISO 8601 UTC with milliseconds, as Date.prototype.toISOString writes it (the store's own timestamps).
  now: `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`,
  tableSuffix: ' STRICT',
};

/** `quotedSchema`: the schema identifier, already quoted. */
export function postgresDialect(quotedSchema: string): Dialect {
  return {
    table: (name) => `${quotedSchema}.${name}`,
    key: 'text COLLATE "C"',
    text: 'text',
    integer: 'integer',
    uint32: 'bigint',
    timestamp: 'timestamptz',
    now: 'now()',
    tableSuffix: '',
  };
}

export interface Migration {
  version: number;
  name: string;
  statements(d: Dialect): string[];
}

/** Schema versions of the zone store, for both dialects. Append new ones; never edit an applied one. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'zones and records',
    // No unique index on (zone, name, type, value): values may be 65 535 characters (beyond a PostgreSQL B-tree
    // entry), and duplicates are judged on the state after a whole batch, under the zone's write lock.
    statements: (d) => [
      `CREATE TABLE ${d.table('zones')} (
        name        ${d.key} NOT NULL PRIMARY KEY,
        admin_email ${d.text} NOT NULL,
        primary_ns  ${d.text} NOT NULL,
        refresh     ${d.integer} NOT NULL,
        retry       ${d.integer} NOT NULL,
        expire      ${d.integer} NOT NULL,
        minimum     ${d.integer} NOT NULL,
        default_ttl ${d.integer} NOT NULL,
        serial      ${d.uint32} NOT NULL,
        created_at  ${d.timestamp} NOT NULL,
        updated_at  ${d.timestamp} NOT NULL
      )${d.tableSuffix}`,
      `CREATE TABLE ${d.table('records')} (
        id         ${d.key} NOT NULL PRIMARY KEY,
        zone       ${d.key} NOT NULL REFERENCES ${d.table('zones')}(name) ON DELETE CASCADE,
        name       ${d.key} NOT NULL,
        type       ${d.key} NOT NULL,
        ttl        ${d.integer} NOT NULL CHECK (ttl BETWEEN 0 AND 2147483647),
        value      ${d.key} NOT NULL,
        created_at ${d.timestamp} NOT NULL,
        updated_at ${d.timestamp} NOT NULL
      )${d.tableSuffix}`,
      `CREATE INDEX records_zone_name_type ON ${d.table('records')} (zone, name, type)`,
    ],
  },
  {
    version: 2,
    name: 'names as given',
    // `name` and `value` stay the lower-case model form every lookup, uniqueness check and ordering uses; these hold
    // the owner name and the value in the letter case a master file or UPDATE gave them, which answers and zone
    // transfers use (as BIND does). NULL: the same as the model form — what every record written before this
    // version was stored as, so existing rows need no rewrite and answer exactly as before.
    statements: (d) => [
      `ALTER TABLE ${d.table('records')} ADD COLUMN given_name ${d.text}`,
      `ALTER TABLE ${d.table('records')} ADD COLUMN given_value ${d.text}`,
    ],
  },
  {
    version: 3,
    name: 'dnssec keys',
    // A key's state follows from its timestamps (RFC 7583 timing); NULL inactive_at/delete_at: not scheduled.
    statements: (d) => [
      `CREATE TABLE ${d.table('dnssec_keys')} (
        id          ${d.key} NOT NULL PRIMARY KEY,
        zone        ${d.key} NOT NULL REFERENCES ${d.table('zones')}(name) ON DELETE CASCADE,
        algorithm   ${d.integer} NOT NULL,
        flags       ${d.integer} NOT NULL,
        bits        ${d.integer} NOT NULL,
        public_key  ${d.text} NOT NULL,
        private_key ${d.text} NOT NULL,
        created_at  ${d.timestamp} NOT NULL,
        publish_at  ${d.timestamp} NOT NULL,
        activate_at ${d.timestamp} NOT NULL,
        inactive_at ${d.timestamp},
        delete_at   ${d.timestamp},
        expires_at  ${d.timestamp} NOT NULL
      )${d.tableSuffix}`,
      `CREATE INDEX dnssec_keys_zone ON ${d.table('dnssec_keys')} (zone)`,
    ],
  },
];

/** The version a database has once every migration ran. */
export const SCHEMA_VERSION = Math.max(...MIGRATIONS.map((m) => m.version));

/** The table of applied versions; created (when missing) before anything else is read. */
export function migrationsTableSql(d: Dialect): string {
  return `CREATE TABLE IF NOT EXISTS ${d.table('schema_migrations')} (
    version    ${d.integer} NOT NULL PRIMARY KEY,
    name       ${d.text} NOT NULL,
    applied_at ${d.timestamp} NOT NULL
  )${d.tableSuffix}`;
}

/** Reads the applied versions (one column, `version`). */
export function appliedVersionsSql(d: Dialect): string {
  return `SELECT version FROM ${d.table('schema_migrations')}`;
}

const literal = (text: string): string => `'${text.replace(/'/g, "''")}'`;

/**
 * Everything a database with the `applied` versions still has to run, in order, each migration followed by the
 * row that records it: nothing when it is up to date. A database with a version newer than this software knows is
 * refused (UNAVAILABLE): its tables may mean something this code does not.
 */
export function pendingStatements(
  applied: Iterable<number>,
  d: Dialect,
  migrations: readonly Migration[] = MIGRATIONS,
): string[] {
  const done = new Set(applied);
  const known = Math.max(0, ...migrations.map((m) => m.version));
  const newest = Math.max(0, ...done);
  if (newest > known)
    throw new StoreError(
      'UNAVAILABLE',
      `the database has schema version ${newest}, newer than this software knows (${known})`,
    );
  return [...migrations]
    .sort((a, b) => a.version - b.version)
    .filter((m) => !done.has(m.version))
    .flatMap((m) => [
      ...m.statements(d),
      `INSERT INTO ${d.table('schema_migrations')} (version, name, applied_at)
        VALUES (${m.version}, ${literal(m.name)}, ${d.now})`,
    ]);
}
