/**
 * The zone store on PostgreSQL (`pg.Pool`), chosen when a database URL is configured; for several server
 * processes sharing one database.
 *
 * - All tables live in one schema (option `schema`, default `public`); every statement names it explicitly,
 *   so the store does not depend on `search_path`.
 * - Numbered migrations in `<schema>.schema_migrations`, the list both dialects share (migrations.ts), applied
 *   under an advisory lock so processes starting together do not race.
 * - Every write is one transaction that first locks the zone row (`SELECT … FOR UPDATE`): concurrent changes
 *   of one zone, from this process or others, run one after the other and the serial rises once per change.
 * - Change events: each committed write also sends `NOTIFY zone_changes` (in the same transaction, so it is
 *   delivered only on commit) with `{schema, origin, zone, serial, kind}`, plus `names` (the owner names a
 *   records change touched) when they fit the payload limit. Every store instance LISTENs on a
 *   connection of its own and relays to its `onChange` listeners the events of OTHER instances (another process,
 *   or another store object in this one) on the same schema; its own changes it reports directly, right after
 *   the commit and before the call resolves. If the listening connection drops, it reconnects with backoff;
 *   events committed while it was down are not replayed (a listener that must not miss any re-reads the zones
 *   it cares about, e.g. comparing serials, after a reconnect).
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import {
  SchemaTooNewError,
  inTransaction,
  isConnectionError,
  isSchemaName,
  migratePostgres,
  quoteIdent,
  redactUrl,
  sqlFailure,
} from '../../platform/sql';
import { RecordCounts } from './counts';
import { toZone, type ZoneRow } from './rows';
import type { RecordData, StoredRecord, Zone, ZoneSettings } from '../model';
import { checkSealed, checkSecretName, isSecretName } from './sealed-secrets';
import { systemClock, timestamp, type Clock } from './clock';
import { closedError, secondaryConflict } from './errors';
import { ChangeEmitter } from './events';
import { chainFrom, LogPruning, logNames, MAX_CHAIN, toLogEntry, type ChangeLogRow } from './change-log';
import type { StoreLimits } from './limits';
import { ZONE_MIGRATIONS, tooNew } from './migrations';
import { denialAfter, planDnssecKeyChange, storedDenial } from './dnssec-keys';
import {
  checkKeyIds,
  checkRecordVersion,
  checkZoneVersion,
  holdKeySet,
  holdTimings,
  holdRecordVersion,
  holdZoneVersion,
} from './conditions';
import { collectKeys, planChanges, planCreateInSteps, type Plan } from './plan';
import { pickSettings, withGiven, type RecordRow } from './rows';

import { initialSerial, nextSerial } from './serial-policy';
import {
  checkAnyType,
  checkChangeCount,
  checkDnssecKeyChange,
  checkName,
  checkNamesFilter,
  checkSettings,
  checkSecondaryZone,
  checkSettingsPatch,
  isKey,
  storeLimits,
} from './validation';
import {
  StoreError,
  type ChangeOutcome,
  type DnssecDenial,
  type DnssecKey,
  type ChangeOptions,
  type DnssecKeyChange,
  type DnssecKeyChangeOptions,
  type ZoneWriteOptions,
  type RecordChange,
  type CreateZoneOptions,
  type RecordFilter,
  type SecondaryZoneRow,
  type ZoneChangeEvent,
  type ZoneChangeListener,
  type ZoneLogEntry,
  type ZoneMark,
  type ZoneStore,
} from './types';
import { checkCreationSerial, checkPage } from './page';

/** A record row as PostgreSQL returns it: the name and value as given are NULL where they equal the model form. */
type DbRecordRow = Omit<RecordRow, 'givenName' | 'givenValue'> & {
  givenName: string | null;
  givenValue: string | null;
};

function fromDb({ givenName, givenValue, ...row }: DbRecordRow): RecordRow {
  return withGiven(row, givenName, givenValue);
}

export interface PostgresStoreOptions {
  /** `postgres://user:password@host:port/database` */
  url: string;
  /** Schema holding the tables (created when missing); default `public`. */
  schema?: string;
  /** Clock for serials and timestamps (tests inject one). */
  now?: Clock;
  /** Relay other processes' changes to onChange listeners (default true; uses one extra connection). */
  listen?: boolean;
  /** Pool size (default 10). */
  poolSize?: number;
  /** Most records per name and type a write may leave (default DEFAULT_MAX_RECORDS_PER_RRSET; 0 = no limit). */
  maxRecordsPerRrset?: number;
  /**
   * Longest wait for a lock (a zone row another transaction writes, a table someone locked) before a statement fails
   * with UNAVAILABLE and nothing is written; default LOCK_TIMEOUT_MS, below the gateway's subgraph timeout, so a
   * client never hears "timed out" of a write that commits later. 0: wait as long as it takes.
   */
  lockTimeoutMs?: number;
}

/** The default `lockTimeoutMs`. */
export const LOCK_TIMEOUT_MS = 5_000;

/** The NOTIFY channel; the payload names the schema, so stores on different schemas ignore each other. */
export const NOTIFY_CHANNEL = 'zone_changes';

const iso = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const INSERT_CHUNK = 5_000;

/** A zone row with its version for record counts (see zoneSql). */
type VersionedRow = ZoneRow & { version: string };
interface Versioned {
  zone: Zone;
  version: string;
}
/** NOTIFY payloads must stay under 8000 bytes: beyond this, `names` is left out (listeners then read everything). */
const MAX_PAYLOAD_BYTES = 7_800;

/** Translates driver errors; StoreErrors pass through. */
function mapError(err: unknown): unknown {
  if (err instanceof StoreError) return err;
  if (err instanceof SchemaTooNewError) return tooNew(err);
  const failure = sqlFailure(err);
  if (failure?.kind === 'unavailable')
    return new StoreError('UNAVAILABLE', `PostgreSQL is unavailable: ${failure.message}`);
  if (failure?.kind === 'unique') return new StoreError('CONFLICT', failure.message);
  if (failure?.kind === 'busy')
    return new StoreError(
      'UNAVAILABLE',
      `the zone store is busy (a lock held elsewhere did not come free in time); nothing was written: ${failure.message}`,
    );
  if (failure?.kind === 'foreign-key') return new StoreError('NOT_FOUND', failure.message);
  return err;
}

export async function openPostgresStore(options: PostgresStoreOptions): Promise<ZoneStore> {
  const schema = options.schema ?? 'public';
  storeLimits(options); // a bad limit fails before connecting
  if (!isSchemaName(schema)) {
    throw new StoreError(
      'INVALID',
      `schema ${JSON.stringify(schema)} must be a plain identifier (letters, digits, _; at most 63)`,
    );
  }
  const where = redactUrl(options.url);
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: 10_000,
    application_name: 'zone-store',
    options: `-c lock_timeout=${Math.max(0, Math.floor(options.lockTimeoutMs ?? LOCK_TIMEOUT_MS))}`,
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const store = new PostgresZoneStore(pool, options, schema);
  try {
    (await pool.connect()).release(); // reachable at all? (raw driver error for the message below)
    await store.migrate();
    if (options.listen !== false) await store.startListening();
  } catch (err) {
    await store.close().catch(() => {});
    if (err instanceof StoreError) throw err;
    const message = err instanceof Error ? err.message : String(err);
    if (isConnectionError(err)) {
      throw new StoreError(
        'UNAVAILABLE',
        `PostgreSQL at ${where} is unreachable or refused the connection: ${message}`,
      );
    }
    throw new StoreError(
      'UNAVAILABLE',
      `cannot prepare the zone store in PostgreSQL at ${where} (schema ${schema}): ${message}`,
    );
  }
  return store;
}

class PostgresZoneStore implements ZoneStore {
  readonly kind = 'postgres' as const;
  private readonly events = new ChangeEmitter();
  private readonly counts = new RecordCounts();
  private readonly origin = randomUUID();
  private readonly clock: Clock;
  private readonly limits: StoreLimits;
  private readonly s: string;
  private closed = false;
  private listener: pg.Client | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private reconnectDelay = 250;
  private readonly pruning = new LogPruning((before) =>
    this.query(`DELETE FROM ${this.s}.zone_changes WHERE committed_at < $1`, [before.toISOString()]),
  );

  constructor(
    private readonly pool: pg.Pool,
    private readonly options: PostgresStoreOptions,
    private readonly schema: string,
  ) {
    this.clock = options.now ?? systemClock;
    this.limits = storeLimits(options);
    this.s = quoteIdent(schema);
  }

  // -- setup --------------------------------------------------------------------------------------------------

  async migrate(): Promise<void> {
    await this.tx((c) => migratePostgres(c, ZONE_MIGRATIONS, this.schema, `zone-store:${this.schema}`), false);
  }

  async startListening(): Promise<void> {
    const client = new pg.Client({ connectionString: this.options.url, application_name: 'zone-store-listener' });
    client.on('notification', (msg) => {
      if (msg.channel !== NOTIFY_CHANNEL || !msg.payload) return;
      let parsed: unknown;
      try {
        parsed = JSON.parse(msg.payload);
      } catch {
        return;
      }
      if (typeof parsed !== 'object' || parsed === null) return;
      const p: Partial<Record<'schema' | 'origin' | 'zone' | 'serial' | 'previous' | 'kind' | 'names', unknown>> =
        parsed;
      if (p.schema !== this.schema || p.origin === this.origin) return;
      if (typeof p.zone !== 'string' || typeof p.serial !== 'number' || typeof p.kind !== 'string') return;
      const names =
        Array.isArray(p.names) && p.names.every((n): n is string => typeof n === 'string') ? p.names : undefined;
      // A kind this version does not know (a newer process's) is passed on unchecked.
      const event: ZoneChangeEvent = { zone: p.zone, serial: p.serial, kind: p.kind as ZoneChangeEvent['kind'] };
      if (typeof p.previous === 'number') event.previous = p.previous;
      this.events.emit(event, names);
    });
    const lost = () => {
      if (this.listener !== client) return;
      this.listener = null;
      client.end().catch(() => {});
      this.scheduleReconnect();
    };
    client.on('error', lost);
    client.on('end', lost);
    this.listener = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${NOTIFY_CHANNEL}`);
    } catch (err) {
      this.listener = null;
      client.end().catch(() => {});
      throw err;
    }
    this.reconnectDelay = 250;
  }

  private scheduleReconnect(): void {
    if (this.closed || this.reconnectTimer) return;
    const delay = this.reconnectDelay;
    this.reconnectDelay = Math.min(this.reconnectDelay * 2, 30_000);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (this.closed) return;
      this.startListening().catch(() => this.scheduleReconnect());
    }, delay);
    this.reconnectTimer.unref();
  }

  // -- plumbing -----------------------------------------------------------------------------------------------

  /** Runs `fn` in one transaction; run again (up to 3 attempts) on serialization failures and deadlocks. */
  private tx<T>(fn: (c: pg.PoolClient) => Promise<T>, checkOpen = true): Promise<T> {
    return inTransaction(this.pool, fn, {
      mapError,
      beforeAttempt: () => {
        if (checkOpen && this.closed) throw closedError();
      },
    });
  }

  private async query<R extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<R[]> {
    if (this.closed) throw closedError();
    try {
      return (await this.pool.query<R>(sql, params)).rows;
    } catch (err) {
      throw mapError(err);
    }
  }

  /**
   * Zone rows, with their record count unless `count` is false, and their version for record counts: the row's
   * xmin (the transaction that wrote this version of it: every committed change of a zone writes its row).
   */
  private zoneSql(where: string, count = true): string {
    return `SELECT z.name, z.admin_email, z.primary_ns, z.refresh, z.retry, z.expire, z.minimum, z.default_ttl, z.serial,
      ${iso('z.created_at')} AS created_at, ${iso('z.updated_at')} AS updated_at, z.xmin::text AS version
      ${count ? `, (SELECT count(*) FROM ${this.s}.records r WHERE r.zone = z.name)::integer AS records_count` : ''}
      FROM ${this.s}.zones z ${where}`;
  }

  private get recordColumns(): string {
    return `id, zone, name, type, ttl, value, ${iso('created_at')} AS "createdAt", ${iso('updated_at')} AS "updatedAt",
      given_name AS "givenName", given_value AS "givenValue"`;
  }

  private get dnssecKeyColumns(): string {
    return `id, zone, algorithm, flags, bits, public_key AS "publicKey", private_key AS "privateKey",
      ${iso('created_at')} AS "createdAt", ${iso('publish_at')} AS "publishAt", ${iso('activate_at')} AS "activateAt",
      ${iso('inactive_at')} AS "inactiveAt", ${iso('delete_at')} AS "deleteAt", ${iso('expires_at')} AS "expiresAt",
      ${iso('cds_at')} AS "cdsAt", ${iso('cds_until')} AS "cdsUntil", ${iso('ds_seen_at')} AS "dsSeenAt"`;
  }

  /** The zone's DNSSEC keys, oldest first. */
  private async dnssecKeys(c: pg.Pool | pg.PoolClient, zone: string): Promise<DnssecKey[]> {
    return (
      await c.query<DnssecKey>(
        `SELECT ${this.dnssecKeyColumns} FROM ${this.s}.dnssec_keys WHERE zone = $1 ORDER BY created_at, id`,
        [zone],
      )
    ).rows;
  }

  /**
   * The zone with its record count: the count known for this version of the row (`count`: one the caller knows), else
   * counted along with the row in one statement, and kept when `remember` (only for committed state: a version
   * written by a transaction that then rolls back could be committed later with other rows).
   */
  private async readZone(
    c: pg.Pool | pg.PoolClient,
    name: string,
    remember: boolean,
    count?: number,
  ): Promise<Versioned | null> {
    const row = (await c.query<Omit<VersionedRow, 'records_count'>>(this.zoneSql('WHERE z.name = $1', false), [name]))
      .rows[0];
    if (!row) return null;
    const known = count ?? this.counts.get(name, row.version);
    if (known !== undefined) return { zone: toZone({ ...row, records_count: known }), version: row.version };
    const full = (await c.query<VersionedRow>(this.zoneSql('WHERE z.name = $1'), [name])).rows[0];
    if (!full) return null;
    if (remember) this.counts.set(name, full.version, full.records_count);
    return { zone: toZone(full), version: full.version };
  }

  /** Remembers the count of a committed zone version. */
  private committed({ zone, version }: Versioned): Zone {
    this.counts.set(zone.name, version, zone.recordsCount);
    return zone;
  }

  /** Writes the change's log row and sends its NOTIFY, both in the change's transaction (so only on commit). */
  private async notify(c: pg.PoolClient, event: ZoneChangeEvent, names?: readonly string[]): Promise<void> {
    await c.query(
      `INSERT INTO ${this.s}.zone_changes (zone, serial, previous, kind, names, committed_at)
       VALUES ($1, $2, $3, $4, $5, now())`,
      [event.zone, event.serial, event.previous ?? null, event.kind, logNames(event.kind, names)],
    );
    const base = { schema: this.schema, origin: this.origin, ...event };
    let payload = JSON.stringify(names ? { ...base, names } : base);
    if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES) payload = JSON.stringify(base);
    await c.query('SELECT pg_notify($1, $2)', [NOTIFY_CHANNEL, payload]);
    this.pruning.afterWrite();
  }

  /**
   * Inserts rows in chunks of one statement each (column arrays through unnest). Chunks of a few thousand rows
   * keep the set-returning function's tuple store in work_mem, which measured faster than one huge statement.
   */
  private async insert(c: pg.PoolClient, rows: readonly RecordRow[]): Promise<void> {
    for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
      const chunk = rows.slice(i, i + INSERT_CHUNK);
      await c.query(
        `INSERT INTO ${this.s}.records (id, zone, name, type, ttl, value, created_at, updated_at, given_name, given_value)
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::integer[], $6::text[], $7::timestamptz[], $8::timestamptz[], $9::text[], $10::text[])`,
        [
          chunk.map((r) => r.id),
          chunk.map((r) => r.zone),
          chunk.map((r) => r.name),
          chunk.map((r) => r.type),
          chunk.map((r) => r.ttl),
          chunk.map((r) => r.value),
          chunk.map((r) => r.createdAt),
          chunk.map((r) => r.updatedAt),
          chunk.map((r) => r.givenName ?? null),
          chunk.map((r) => r.givenValue ?? null),
        ],
      );
    }
  }

  private async apply(c: pg.PoolClient, plan: Plan): Promise<void> {
    if (plan.deletes.length > 0)
      await c.query(`DELETE FROM ${this.s}.records WHERE id = ANY($1::text[])`, [plan.deletes]);
    await this.insert(c, plan.inserts);
    if (plan.updates.length > 0) {
      await c.query(
        `UPDATE ${this.s}.records r SET ttl = u.ttl, value = u.value, updated_at = u.updated_at, given_value = u.given_value,
           given_name = u.given_name
         FROM unnest($1::text[], $2::integer[], $3::text[], $4::timestamptz[], $5::text[], $6::text[])
           AS u(id, ttl, value, updated_at, given_value, given_name)
         WHERE r.id = u.id`,
        [
          plan.updates.map((r) => r.id),
          plan.updates.map((r) => r.ttl),
          plan.updates.map((r) => r.value),
          plan.updates.map((r) => r.updatedAt),
          plan.updates.map((r) => r.givenValue ?? null),
          plan.updates.map((r) => r.givenName ?? null),
        ],
      );
    }
  }

  // -- ZoneStore ----------------------------------------------------------------------------------------------

  async listZones(): Promise<Zone[]> {
    return (await this.query<VersionedRow>(this.zoneSql('ORDER BY z.name'))).map((r) =>
      this.committed({ zone: toZone(r), version: r.version }),
    );
  }

  async getZone(name: string): Promise<Zone | null> {
    if (!isKey(name)) return null;
    if (this.closed) throw closedError();
    try {
      return (await this.readZone(this.pool, name, true))?.zone ?? null;
    } catch (err) {
      throw mapError(err);
    }
  }

  async createZone(
    name: string,
    settings: ZoneSettings,
    records: RecordData[] = [],
    options: CreateZoneOptions = {},
  ): Promise<Zone> {
    checkName(name, 'zone name');
    const clean = checkSettings(settings);
    const serial = checkCreationSerial(options.serial);
    const now = this.clock();
    const plan = await planCreateInSteps(name, records, now, this.limits);
    const ts = timestamp(now);
    const written = await this.tx(async (c) => {
      await this.holdZoneName(c, name);
      if ((await c.query(`SELECT 1 FROM ${this.s}.secondary_zones WHERE name = $1`, [name])).rowCount)
        throw secondaryConflict(name);
      const inserted = await c.query(
        `INSERT INTO ${this.s}.zones (name, admin_email, primary_ns, refresh, retry, expire, minimum, default_ttl, serial, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10) ON CONFLICT (name) DO NOTHING`,
        [
          name,
          clean.adminEmail,
          clean.primaryNs,
          clean.refresh,
          clean.retry,
          clean.expire,
          clean.minimum,
          clean.defaultTtl,
          serial ?? initialSerial(now),
          ts,
        ],
      );
      if (inserted.rowCount === 0) throw new StoreError('CONFLICT', `zone ${name} already exists`);
      await this.insert(c, plan.inserts);
      const z = (await this.readZone(c, name, false, plan.inserts.length))!;
      await this.notify(c, { zone: name, serial: z.zone.serial, kind: 'zone-created' });
      return z;
    });
    const zone = this.committed(written);
    this.events.emit({ zone: name, serial: zone.serial, kind: 'zone-created' });
    return zone;
  }

  async updateZone(name: string, patch: Partial<ZoneSettings>, options: ZoneWriteOptions = {}): Promise<Zone> {
    const clean = checkSettingsPatch(patch);
    const ifVersion = checkZoneVersion(options.ifVersion);
    const now = this.clock();
    const written = await this.tx(async (c) => {
      const locked = isKey(name)
        ? (await c.query<{ serial: string }>(`SELECT serial FROM ${this.s}.zones WHERE name = $1 FOR UPDATE`, [name]))
            .rows[0]
        : undefined;
      if (!locked) throw new StoreError('NOT_FOUND', `no zone ${name}`);
      const current = (await this.readZone(c, name, false))!.zone;
      holdZoneVersion(name, ifVersion, current);
      const next: ZoneSettings = { ...pickSettings(current), ...clean };
      await c.query(
        `UPDATE ${this.s}.zones SET admin_email = $2, primary_ns = $3, refresh = $4, retry = $5, expire = $6, minimum = $7,
           default_ttl = $8, serial = $9, updated_at = $10 WHERE name = $1`,
        [
          name,
          next.adminEmail,
          next.primaryNs,
          next.refresh,
          next.retry,
          next.expire,
          next.minimum,
          next.defaultTtl,
          nextSerial(Number(locked.serial), now),
          timestamp(now),
        ],
      );
      const z = (await this.readZone(c, name, false, current.recordsCount))!; // settings only: the same records
      const event = {
        zone: name,
        serial: z.zone.serial,
        previous: Number(locked.serial),
        kind: 'zone-updated',
      } as const;
      await this.notify(c, event);
      return { z, event };
    });
    const zone = this.committed(written.z);
    this.events.emit(written.event);
    return zone;
  }

  async deleteZone(name: string, options: ZoneWriteOptions = {}): Promise<boolean> {
    const ifVersion = checkZoneVersion(options.ifVersion);
    if (!isKey(name)) {
      holdZoneVersion(name, ifVersion, null);
      return false;
    }
    const serial = await this.tx(async (c) => {
      if (ifVersion) {
        // the row locked first: the version checked is the one deleted
        await c.query(`SELECT 1 FROM ${this.s}.zones WHERE name = $1 FOR UPDATE`, [name]);
        holdZoneVersion(name, ifVersion, (await this.readZone(c, name, false))?.zone ?? null);
      }
      const row = (
        await c.query<{ serial: string }>(`DELETE FROM ${this.s}.zones WHERE name = $1 RETURNING serial`, [name])
      ).rows[0];
      if (!row) return null;
      await this.notify(c, { zone: name, serial: Number(row.serial), kind: 'zone-deleted' });
      return Number(row.serial);
    });
    if (serial === null) return false;
    this.counts.delete(name);
    this.events.emit({ zone: name, serial, kind: 'zone-deleted' });
    return true;
  }

  async listRecords(zone: string, filter: RecordFilter = {}): Promise<StoredRecord[]> {
    if (filter.type !== undefined) checkAnyType(filter.type);
    if (filter.name !== undefined && typeof filter.name !== 'string')
      throw new StoreError('INVALID', 'name filter must be a string');
    const names = filter.names === undefined ? undefined : checkNamesFilter(filter.names);
    checkPage(filter.limit, filter.after);
    if (!isKey(zone) || (await this.query(`SELECT 1 FROM ${this.s}.zones WHERE name = $1`, [zone])).length === 0) {
      throw new StoreError('NOT_FOUND', `no zone ${zone}`);
    }
    if (filter.name !== undefined && !isKey(filter.name)) return [];
    if (names?.length === 0) return [];
    const params: unknown[] = [zone];
    let where = 'zone = $1';
    if (filter.name !== undefined) where += ` AND name = $${params.push(filter.name)}`;
    if (names !== undefined) where += ` AND name = ANY($${params.push(names)}::text[])`;
    if (filter.type !== undefined) where += ` AND type = $${params.push(filter.type)}`;
    if (filter.after !== undefined) {
      const { name, type, value, id } = filter.after;
      where += ` AND (name, type, value, id) > ($${params.push(name)}, $${params.push(type)}, $${params.push(value)}, $${params.push(id)})`;
    }
    const limit = filter.limit === undefined ? '' : ` LIMIT $${params.push(filter.limit)}`;
    return (
      await this.query<DbRecordRow>(
        `SELECT ${this.recordColumns} FROM ${this.s}.records WHERE ${where} ORDER BY name, type, value, id${limit}`,
        params,
      )
    ).map(fromDb);
  }

  async eachRecord(zone: string, visit: (record: RecordData) => void): Promise<void> {
    // One statement: the rows of one snapshot (without a cursor they come at once, but as four columns only).
    // A zone without records gives one row of NULLs; an unknown zone none.
    const rows = isKey(zone)
      ? await this.query<{ [K in keyof RecordData]-?: RecordData[K] | null }>(
          `SELECT r.name, r.type, r.ttl, r.value, r.given_name AS "givenName", r.given_value AS "givenValue"
         FROM (SELECT name FROM ${this.s}.zones WHERE name = $1) z LEFT JOIN ${this.s}.records r ON r.zone = z.name
         ORDER BY r.name, r.type, r.value, r.id`,
          [zone],
        )
      : [];
    if (rows.length === 0) throw new StoreError('NOT_FOUND', `no zone ${zone}`);
    for (const { givenName, givenValue, ...r } of rows) {
      if (r.name === null) continue;
      const record = r as RecordData;
      if (givenName !== null) record.givenName = givenName;
      if (givenValue !== null) record.givenValue = givenValue;
      visit(record);
    }
  }

  async getRecord(zone: string, id: string): Promise<StoredRecord | null> {
    if (!isKey(zone) || !isKey(id)) return null;
    const rows = await this.query<DbRecordRow>(
      `SELECT ${this.recordColumns} FROM ${this.s}.records WHERE zone = $1 AND id = $2`,
      [zone, id],
    );
    return rows[0] ? fromDb(rows[0]) : null;
  }

  /** Locks the zone's row for the transaction; NOT_FOUND, or SERIAL_MISMATCH when `ifSerial` is not its serial. */
  private async lockZone(
    c: pg.PoolClient,
    zone: string,
    ifSerial: number | undefined,
  ): Promise<{ locked: { serial: string; version: string }; serial: number }> {
    const locked = isKey(zone)
      ? (
          await c.query<{ serial: string; version: string }>(
            `SELECT serial, xmin::text AS version FROM ${this.s}.zones WHERE name = $1 FOR UPDATE`,
            [zone],
          )
        ).rows[0]
      : undefined;
    if (!locked) throw new StoreError('NOT_FOUND', `no zone ${zone}`);
    const serial = Number(locked.serial);
    if (ifSerial !== undefined && ifSerial !== serial) {
      throw new StoreError('SERIAL_MISMATCH', `zone ${zone} has serial ${serial}, not ${ifSerial}`);
    }
    return { locked, serial };
  }

  async change(zone: string, changes: RecordChange[], options: ChangeOptions = {}): Promise<ChangeOutcome> {
    checkChangeCount(changes);
    const ifRecord = checkRecordVersion(options.ifRecord);
    const now = this.clock();
    const outcome = await this.tx(async (c) => {
      const { locked, serial } = await this.lockZone(c, zone, options.ifSerial);
      if (ifRecord) {
        const row = isKey(ifRecord.id)
          ? (
              await c.query<DbRecordRow>(
                `SELECT ${this.recordColumns} FROM ${this.s}.records WHERE zone = $1 AND id = $2`,
                [zone, ifRecord.id],
              )
            ).rows[0]
          : undefined;
        holdRecordVersion(zone, ifRecord, row ? fromDb(row) : null);
      }
      const keys = collectKeys(changes);
      const rows = new Map<string, RecordRow>();
      const foreignIds = new Set<string>();
      const names = new Set(keys.names);
      if (keys.ids.length > 0) {
        const found = await c.query<DbRecordRow>(
          `SELECT ${this.recordColumns} FROM ${this.s}.records WHERE id = ANY($1::text[])`,
          [keys.ids],
        );
        for (const r of found.rows.map(fromDb)) {
          if (r.zone === zone) {
            rows.set(r.id, r);
            names.add(r.name);
          } else foreignIds.add(r.id);
        }
      }
      if (names.size > 0) {
        const found = await c.query<DbRecordRow>(
          `SELECT ${this.recordColumns} FROM ${this.s}.records WHERE zone = $1 AND name = ANY($2::text[])`,
          [zone, [...names]],
        );
        for (const r of found.rows.map(fromDb)) rows.set(r.id, r);
      }
      const plan = planChanges({ zone, changes, rows: rows.values(), foreignIds, now, limits: this.limits });
      if (!plan.effective) return { plan, zone: (await this.readZone(c, zone, false))!, event: undefined };
      await this.apply(c, plan);
      await c.query(`UPDATE ${this.s}.zones SET serial = $2, updated_at = $3 WHERE name = $1`, [
        zone,
        nextSerial(serial, now),
        timestamp(now),
      ]);
      const before = this.counts.get(zone, locked.version);
      const count = before === undefined ? undefined : before + plan.inserts.length - plan.deletes.length;
      const z = (await this.readZone(c, zone, false, count))!;
      const event = { zone, serial: z.zone.serial, previous: serial, kind: 'records-changed' } as const;
      await this.notify(c, event, plan.names);
      return { plan, zone: z, event };
    });
    if (outcome.event) {
      this.committed(outcome.zone);
      this.events.emit(outcome.event, outcome.plan.names);
    }
    return { zone: outcome.zone.zone, results: outcome.plan.results };
  }

  async listDnssecKeys(zone: string): Promise<DnssecKey[]> {
    // One statement: a zone without keys gives one row of NULLs, an unknown zone none.
    const rows = isKey(zone)
      ? await this.query<{ [K in keyof DnssecKey]: DnssecKey[K] | null }>(
          `SELECT ${this.dnssecKeyColumns} FROM (SELECT name FROM ${this.s}.zones WHERE name = $1) z
           LEFT JOIN ${this.s}.dnssec_keys k ON k.zone = z.name ORDER BY k.created_at, k.id`,
          [zone],
        )
      : [];
    if (rows.length === 0) throw new StoreError('NOT_FOUND', `no zone ${zone}`);
    return rows.filter((r): r is DnssecKey => r.id !== null);
  }

  async getDnssecDenial(zone: string): Promise<DnssecDenial> {
    // One statement: an unknown zone gives no row, a zone on NSEC one of NULLs.
    const rows = isKey(zone)
      ? await this.query<{ denial: string | null; optOut: number | null }>(
          `SELECT d.denial, d.opt_out AS "optOut" FROM (SELECT name FROM ${this.s}.zones WHERE name = $1) z
           LEFT JOIN ${this.s}.dnssec_denial d ON d.zone = z.name`,
          [zone],
        )
      : [];
    const row = rows[0];
    if (!row) throw new StoreError('NOT_FOUND', `no zone ${zone}`);
    return storedDenial(row.denial === null ? undefined : { denial: row.denial, optOut: row.optOut ?? 0 });
  }

  async changeDnssecKeys(zone: string, change: DnssecKeyChange, options: DnssecKeyChangeOptions = {}): Promise<Zone> {
    const now = this.clock();
    const ifKeys = checkKeyIds(options.ifKeys);
    const written = await this.tx(async (c) => {
      const { locked, serial } = await this.lockZone(c, zone, options.ifSerial);
      const keys = await this.dnssecKeys(c, zone);
      holdKeySet(zone, ifKeys, keys);
      holdTimings(zone, options.ifTimings, keys);
      const checked = checkDnssecKeyChange(change, zone);
      const ids = checked.add.map((k) => k.id);
      const taken = ids.length
        ? (await c.query<{ id: string }>(`SELECT id FROM ${this.s}.dnssec_keys WHERE id = ANY($1::text[])`, [ids])).rows
        : [];
      const plan = planDnssecKeyChange(zone, checked, keys, new Set(taken.map((r) => r.id)));
      const { inserts, updates, deletes } = plan;
      if (inserts.length > 0)
        await c.query(
          `INSERT INTO ${this.s}.dnssec_keys (id, zone, algorithm, flags, bits, public_key, private_key, created_at,
             publish_at, activate_at, inactive_at, delete_at, expires_at, cds_at, cds_until, ds_seen_at)
           SELECT * FROM unnest($1::text[], $2::text[], $3::integer[], $4::integer[], $5::integer[], $6::text[], $7::text[],
             $8::timestamptz[], $9::timestamptz[], $10::timestamptz[], $11::timestamptz[], $12::timestamptz[], $13::timestamptz[],
             $14::timestamptz[], $15::timestamptz[], $16::timestamptz[])`,
          [
            inserts.map((k) => k.id),
            inserts.map((k) => k.zone),
            inserts.map((k) => k.algorithm),
            inserts.map((k) => k.flags),
            inserts.map((k) => k.bits),
            inserts.map((k) => k.publicKey),
            inserts.map((k) => k.privateKey),
            inserts.map((k) => k.createdAt),
            inserts.map((k) => k.publishAt),
            inserts.map((k) => k.activateAt),
            inserts.map((k) => k.inactiveAt),
            inserts.map((k) => k.deleteAt),
            inserts.map((k) => k.expiresAt),
            inserts.map((k) => k.cdsAt),
            inserts.map((k) => k.cdsUntil),
            inserts.map((k) => k.dsSeenAt),
          ],
        );
      if (updates.length > 0)
        await c.query(
          `UPDATE ${this.s}.dnssec_keys k SET inactive_at = u.inactive_at, delete_at = u.delete_at, cds_at = u.cds_at,
             cds_until = u.cds_until, ds_seen_at = u.ds_seen_at
           FROM unnest($1::text[], $2::timestamptz[], $3::timestamptz[], $4::timestamptz[], $5::timestamptz[],
             $6::timestamptz[]) AS u(id, inactive_at, delete_at, cds_at, cds_until, ds_seen_at)
           WHERE k.id = u.id`,
          [
            updates.map((k) => k.id),
            updates.map((k) => k.inactiveAt),
            updates.map((k) => k.deleteAt),
            updates.map((k) => k.cdsAt),
            updates.map((k) => k.cdsUntil),
            updates.map((k) => k.dsSeenAt),
          ],
        );
      if (deletes.length > 0) await c.query(`DELETE FROM ${this.s}.dnssec_keys WHERE id = ANY($1::text[])`, [deletes]);
      const denial = denialAfter(checked, plan, keys);
      if (denial === null) await c.query(`DELETE FROM ${this.s}.dnssec_denial WHERE zone = $1`, [zone]);
      else if (denial)
        await c.query(
          `INSERT INTO ${this.s}.dnssec_denial (zone, denial, opt_out) VALUES ($1, $2, $3)
           ON CONFLICT (zone) DO UPDATE SET denial = excluded.denial, opt_out = excluded.opt_out`,
          [zone, denial.denial, denial.optOut ? 1 : 0],
        );
      await c.query(`UPDATE ${this.s}.zones SET serial = $2, updated_at = $3 WHERE name = $1`, [
        zone,
        nextSerial(serial, now),
        timestamp(now),
      ]);
      // the records are untouched: the count of the version before carries over
      const z = (await this.readZone(c, zone, false, this.counts.get(zone, locked.version)))!;
      const event = { zone, serial: z.zone.serial, previous: serial, kind: 'dnssec-changed' } as const;
      await this.notify(c, event);
      return { z, event };
    });
    const after = this.committed(written.z);
    this.events.emit(written.event);
    return after;
  }

  async zoneSerials(): Promise<Map<string, ZoneMark>> {
    const rows = await this.query<{ name: string; serial: string; created_at: string }>(
      `SELECT name, serial, ${iso('created_at')} AS created_at FROM ${this.s}.zones`,
    );
    return new Map(rows.map((r) => [r.name, { serial: Number(r.serial), createdAt: r.created_at }]));
  }

  async changesSince(zone: string, serial: number): Promise<ZoneLogEntry[] | null> {
    if (!isKey(zone)) return null;
    // one statement: the zone's serial and its log rows from one snapshot
    const rows = await this.query<ChangeLogRow & { current: string }>(
      `SELECT z.serial AS current, c.position, c.zone, c.serial, c.previous, c.kind, c.names,
         ${iso('c.committed_at')} AS committed_at
       FROM ${this.s}.zones z LEFT JOIN ${this.s}.zone_changes c ON c.zone = z.name AND c.position >
         COALESCE((SELECT max(position) FROM ${this.s}.zone_changes WHERE zone = $1 AND serial = $2), 0)
       WHERE z.name = $1 ORDER BY c.position LIMIT $3`,
      [zone, serial, MAX_CHAIN + 1],
    );
    if (rows.length === 0) return null;
    const entries = rows.filter((r) => r.position !== null).map(toLogEntry);
    return chainFrom(serial, Number(rows[0]!.current), entries);
  }

  async getSealedSecret(name: string): Promise<string | null> {
    if (!isSecretName(name)) return null;
    const rows = await this.query<{ sealed: string }>(`SELECT sealed FROM ${this.s}.sealed_secrets WHERE name = $1`, [
      name,
    ]);
    return rows[0]?.sealed ?? null;
  }

  async putSealedSecretIfAbsent(name: string, sealed: string): Promise<string> {
    checkSecretName(name);
    checkSealed(sealed);
    const inserted = await this.query<{ sealed: string }>(
      `INSERT INTO ${this.s}.sealed_secrets (name, sealed, created_at) VALUES ($1, $2, $3)
       ON CONFLICT (name) DO NOTHING RETURNING sealed`,
      [name, sealed, timestamp(this.clock())],
    );
    // Another replica's row won: read it in a statement of its own (a new snapshot sees that commit).
    const held = inserted[0]?.sealed ?? (await this.getSealedSecret(name));
    if (held === null) throw new StoreError('UNAVAILABLE', `secret ${name} vanished while it was kept`);
    return held;
  }

  /**
   * Holds `name` until the transaction ends: a zone and a secondary zone of one name, created at once on two
   * replicas, would each find the other's table without it (neither row committed yet).
   */
  private async holdZoneName(c: pg.PoolClient, name: string): Promise<void> {
    await c.query(`SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))`, [`${this.s}.zone-name`, name]);
  }

  async listSecondaryZones(): Promise<SecondaryZoneRow[]> {
    return this.query<SecondaryZoneRow>(
      `SELECT name, primary_host AS "primaryHost", primary_port::int AS "primaryPort", tsig_key AS "tsigKey",
              ${iso('created_at')} AS "createdAt" FROM ${this.s}.secondary_zones ORDER BY name`,
    );
  }

  async addSecondaryZone(zone: Omit<SecondaryZoneRow, 'createdAt'>): Promise<SecondaryZoneRow> {
    const row = { ...checkSecondaryZone(zone), createdAt: timestamp(this.clock()) };
    const label = row.name || '.';
    return this.tx(async (c) => {
      await this.holdZoneName(c, row.name);
      if ((await c.query(`SELECT 1 FROM ${this.s}.zones WHERE name = $1`, [row.name])).rowCount)
        throw new StoreError('CONFLICT', `zone ${label} is a zone of the store (served as its primary)`);
      const inserted = await c.query(
        `INSERT INTO ${this.s}.secondary_zones (name, primary_host, primary_port, tsig_key, created_at)
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (name) DO NOTHING`,
        [row.name, row.primaryHost, row.primaryPort, row.tsigKey, row.createdAt],
      );
      if (inserted.rowCount === 0) throw new StoreError('CONFLICT', `zone ${label} is a secondary zone already`);
      return row;
    });
  }

  async removeSecondaryZone(name: string): Promise<boolean> {
    if (!isKey(name)) return false;
    const rows = await this.query(`DELETE FROM ${this.s}.secondary_zones WHERE name = $1 RETURNING name`, [name]);
    return rows.length > 0;
  }

  async resealAll(reseal: (sealed: string, kind: string) => string): Promise<number> {
    return this.tx(async (c) => {
      // Locked for the rotation: a key or secret written meanwhile waits, then is read sealed under the new key.
      const secrets = await c.query<{ name: string; sealed: string }>(
        `SELECT name, sealed FROM ${this.s}.sealed_secrets ORDER BY name FOR UPDATE`,
      );
      const keys = await c.query<{ id: string; private_key: string }>(
        `SELECT id, private_key FROM ${this.s}.dnssec_keys ORDER BY id FOR UPDATE`,
      );
      const names = secrets.rows.map((r) => r.name);
      const sealed = secrets.rows.map((r) => reseal(r.sealed, `secret:${r.name}`));
      sealed.forEach((s) => checkSealed(s));
      await c.query(
        `UPDATE ${this.s}.sealed_secrets t SET sealed = u.sealed FROM unnest($1::text[], $2::text[]) AS u(name, sealed)
         WHERE t.name = u.name`,
        [names, sealed],
      );
      await c.query(
        `UPDATE ${this.s}.dnssec_keys k SET private_key = u.private_key
         FROM unnest($1::text[], $2::text[]) AS u(id, private_key) WHERE k.id = u.id`,
        [keys.rows.map((r) => r.id), keys.rows.map((r) => reseal(r.private_key, 'dnssec-key'))],
      );
      return secrets.rows.length + keys.rows.length;
    });
  }

  onChange(listener: ZoneChangeListener): () => void {
    return this.events.on(listener);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.events.clear();
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    const listener = this.listener;
    this.listener = null;
    await Promise.all([listener?.end().catch(() => {}), this.pool.end().catch(() => {})]);
  }
}
