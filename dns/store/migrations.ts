/**
 * The zone store's schema: one ordered list of migrations for both SQL dialects (platform/sql decides what a
 * database still needs). The stores run the pending statements in one transaction under their own lock (SQLite
 * `BEGIN IMMEDIATE`, PostgreSQL an advisory lock), so both reach the same version by the same steps.
 */
import {
  SchemaTooNewError,
  migrationsTableSql as kitMigrationsTableSql,
  pendingStatements as kitPendingStatements,
  type Migration,
  type MigrationList,
  type SqlDialect,
} from '../../platform/sql';
import { StoreError } from './types';

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
  {
    version: 4,
    name: 'sealed secrets',
    // Secrets every replica of one database shares (the DNS tool's token and TSIG key, a check value of the master
    // key), each sealed by the caller under the master key: the database alone gives none of them away.
    statements: (d) => [
      `CREATE TABLE ${d.table('sealed_secrets')} (
        name       ${d.key} NOT NULL PRIMARY KEY,
        sealed     ${d.text} NOT NULL,
        created_at ${d.timestamp} NOT NULL
      )${d.tableSuffix}`,
    ],
  },
  {
    version: 5,
    name: 'change log',
    // One row per committed change, written in its transaction: a replica that missed changes of a zone follows the
    // chain of serials (`previous` → `serial`) from the one it serves and reads again only the names they touched.
    // No foreign key: a deleted zone's changes stay until pruned by age. `names` NULL: the change's extent is the
    // whole zone (creation) or the zone row (settings, DNSSEC keys).
    statements: (d) => [
      `CREATE TABLE ${d.table('zone_changes')} (
        position     ${d.rowNumber},
        zone         ${d.key} NOT NULL,
        serial       ${d.uint32} NOT NULL,
        previous     ${d.uint32},
        kind         ${d.key} NOT NULL,
        names        ${d.text},
        committed_at ${d.timestamp} NOT NULL
      )${d.tableSuffix}`,
      `CREATE INDEX zone_changes_zone ON ${d.table('zone_changes')} (zone, position)`,
      `CREATE INDEX zone_changes_time ON ${d.table('zone_changes')} (committed_at)`,
    ],
  },
  {
    version: 6,
    name: 'secondary zones',
    // Zones served as a secondary of another server, added through the API: every replica reads this list and
    // transfers each from its primary. A name is either here or in `zones`, never both (checked by the writes).
    statements: (d) => [
      `CREATE TABLE ${d.table('secondary_zones')} (
        name         ${d.key} NOT NULL PRIMARY KEY,
        primary_host ${d.key} NOT NULL,
        primary_port ${d.uint32} NOT NULL,
        tsig_key     ${d.key},
        created_at   ${d.timestamp} NOT NULL
      )${d.tableSuffix}`,
    ],
  },
  {
    version: 7,
    name: 'ksk rollovers',
    // A KSK rollover's state beside the key's times: when its CDS/CDNSKEY are published (RFC 7344) and when the
    // parent's DS for it was seen. NULL: never / not yet.
    statements: (d) =>
      ['cds_at', 'cds_until', 'ds_seen_at'].map(
        (column) => `ALTER TABLE ${d.table('dnssec_keys')} ADD COLUMN ${column} ${d.timestamp}`,
      ),
  },
  {
    version: 8,
    name: 'dnssec denial',
    // How a signed zone denies existence, per zone: a row only for NSEC3 (RFC 9276 parameters, fixed, so not kept),
    // with Opt-Out or not; no row: NSEC. Written with the keys (changeDnssecKeys), gone with them or the zone.
    statements: (d) => [
      `CREATE TABLE ${d.table('dnssec_denial')} (
        zone    ${d.key} NOT NULL PRIMARY KEY REFERENCES ${d.table('zones')}(name) ON DELETE CASCADE,
        denial  ${d.key} NOT NULL,
        opt_out ${d.integer} NOT NULL
      )${d.tableSuffix}`,
    ],
  },
];

/** The version a database has once every migration ran. */
export const SCHEMA_VERSION = Math.max(...MIGRATIONS.map((m) => m.version));

/** The table of applied versions: `schema_migrations(version, name, applied_at)`. */
export const MIGRATIONS_TABLE = 'schema_migrations';

/** The zone store's migrations as the kit's runners take them. */
export const ZONE_MIGRATIONS: MigrationList = { table: MIGRATIONS_TABLE, migrations: MIGRATIONS };

/** The zone store's error for a database newer than this code. */
export const tooNew = (err: SchemaTooNewError): StoreError => new StoreError('UNAVAILABLE', err.message);

/** The table of applied versions; created (when missing) before anything else is read. */
export const migrationsTableSql = (d: SqlDialect): string => kitMigrationsTableSql(d, MIGRATIONS_TABLE);

/**
 * Everything a database with the `applied` versions still has to run, in order, each migration followed by the
 * row that records it: nothing when it is up to date. A database with a version newer than this software knows is
 * refused (UNAVAILABLE): its tables may mean something this code does not.
 */
export function pendingStatements(
  applied: Iterable<number>,
  d: SqlDialect,
  migrations: readonly Migration[] = MIGRATIONS,
): string[] {
  try {
    return kitPendingStatements(applied, d, { table: MIGRATIONS_TABLE, migrations });
  } catch (err) {
    throw err instanceof SchemaTooNewError ? tooNew(err) : err;
  }
}
