/**
 * Creating a large zone on SQLite without holding the loop: better-sqlite3 is synchronous, and writing a 100 000-record
 * zone in one transaction took ~0.6 s of the API's loop. The rows go in through a connection of their own, in one
 * transaction written in steps of a few milliseconds: readers on the store's connection see the zone only once it
 * commits whole (WAL: they read the last committed state), and a failure rolls every row back. The store keeps its own
 * writes waiting meanwhile (`SqliteZoneStore.gate`), so they never meet this transaction's lock.
 */
import Database from 'better-sqlite3';
import { performance } from 'node:perf_hooks';
import { nextTurn } from '../../platform/async';
import type { RecordRow } from './rows';
import { logNames } from './change-log';
import { StoreError, type ZoneChangeEvent } from './types';

export const INSERT_ZONE_SQL = `INSERT INTO zones (name, admin_email, primary_ns, refresh, retry, expire, minimum,
  default_ttl, serial, created_at, updated_at) VALUES (@name, @adminEmail, @primaryNs, @refresh, @retry, @expire,
  @minimum, @defaultTtl, @serial, @createdAt, @updatedAt)`;

/** A change log row (change-log.ts), in the change's transaction. */
export const LOG_CHANGE_SQL = `INSERT INTO zone_changes (zone, serial, previous, kind, names, committed_at)
  VALUES (@zone, @serial, @previous, @kind, @names, @committedAt)`;

/** The parameters of LOG_CHANGE_SQL for a change. */
export function logRow(event: ZoneChangeEvent, committedAt: string, names?: readonly string[]) {
  return {
    zone: event.zone,
    serial: event.serial,
    previous: event.previous ?? null,
    kind: event.kind,
    names: logNames(event.kind, names),
    committedAt,
  };
}

export const INSERT_RECORD_SQL = `INSERT INTO records (id, zone, name, type, ttl, value, created_at, updated_at,
  given_name, given_value) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/** Inserts `rows` from `from` up to `to` with `stmt` (an INSERT_RECORD_SQL statement). */
export function insertRows(stmt: Database.Statement, rows: readonly RecordRow[], from = 0, to = rows.length): void {
  for (let i = from; i < to; i++) {
    const r = rows[i] as RecordRow;
    stmt.run(
      r.id,
      r.zone,
      r.name,
      r.type,
      r.ttl,
      r.value,
      r.createdAt,
      r.updatedAt,
      r.givenName ?? null,
      r.givenValue ?? null,
    );
  }
}

/** SQLite page cache of the writing connection (KiB, negative as `cache_size` takes it): 16 MiB, as the store's. */
const CACHE_KIB = -16384;

/** Rows between two looks at the clock. */
const ROWS_PER_CHECK = 256;

/**
 * Writes the zone row `zone` and its `rows` in one transaction on a new connection to `file`, in steps of `stepMs`;
 * CONFLICT when the zone exists. Resolves once committed (nothing of it is written when it rejects).
 */
export async function insertZoneInSteps(
  file: string,
  busyTimeoutMs: number,
  zone: Record<string, string | number>,
  rows: readonly RecordRow[],
  stepMs: number,
): Promise<void> {
  const db = new Database(file);
  try {
    // as the store's own connection: no fsync at each commit in WAL mode, and room for the new pages
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma(`cache_size = ${CACHE_KIB}`);
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    db.prepare('BEGIN IMMEDIATE').run();
    try {
      if (db.prepare('SELECT 1 FROM zones WHERE name = ?').get(zone.name))
        throw new StoreError('CONFLICT', `zone ${zone.name} already exists`);
      db.prepare(INSERT_ZONE_SQL).run(zone);
      const created = { zone: String(zone.name), serial: Number(zone.serial), kind: 'zone-created' } as const;
      db.prepare(LOG_CHANGE_SQL).run(logRow(created, String(zone.createdAt)));
      const insert = db.prepare(INSERT_RECORD_SQL);
      let started = performance.now();
      for (let i = 0; i < rows.length; i += ROWS_PER_CHECK) {
        insertRows(insert, rows, i, Math.min(rows.length, i + ROWS_PER_CHECK));
        if (performance.now() - started >= stepMs) {
          await nextTurn();
          started = performance.now();
        }
      }
      db.prepare('COMMIT').run();
    } catch (err) {
      if (db.inTransaction) db.prepare('ROLLBACK').run();
      throw err;
    }
  } finally {
    db.close();
  }
}

/** Rows read per statement of a scan in steps (keyset pages: no statement stays open across turns). */
const SCAN_PAGE = 2000;

/**
 * Reads every record of `zone` on a connection of its own, in one read transaction (a snapshot: writes committed
 * meanwhile are not seen), page by page in store order, letting the loop run once a step took `stepMs`. NOT_FOUND
 * when there is no such zone.
 */
export async function scanZoneInSteps(
  file: string,
  zone: string,
  visit: (row: ScanRow) => void,
  stepMs: number,
): Promise<void> {
  const db = new Database(file, { readonly: true });
  try {
    db.pragma('cache_size = -1024'); // a scan reads each page once
    db.prepare('BEGIN').run();
    try {
      if (!db.prepare('SELECT 1 FROM zones WHERE name = ?').get(zone))
        throw new StoreError('NOT_FOUND', `no zone ${zone}`);
      const first = db
        .prepare(`SELECT ${SCAN_COLUMNS} FROM records WHERE zone = ? ORDER BY name, type, value, id LIMIT ?`)
        .raw();
      const next = db
        .prepare(
          `SELECT ${SCAN_COLUMNS} FROM records WHERE zone = ? AND (name, type, value, id) > (?, ?, ?, ?)
           ORDER BY name, type, value, id LIMIT ?`,
        )
        .raw();
      let started = performance.now();
      let page = first.all(zone, SCAN_PAGE) as ScanRow[];
      for (;;) {
        for (const row of page) visit(row);
        const last = page[page.length - 1];
        if (page.length < SCAN_PAGE || !last) break;
        if (performance.now() - started >= stepMs) {
          await nextTurn();
          started = performance.now();
        }
        page = next.all(zone, last[0], last[1], last[3], last[6], SCAN_PAGE) as ScanRow[];
      }
    } finally {
      db.prepare('COMMIT').run();
    }
  } finally {
    db.close();
  }
}

const SCAN_COLUMNS = 'name, type, ttl, value, given_name, given_value, id';

/** A record as a scan reads it: name, type, ttl, value, given name, given value, id. */
export type ScanRow = [string, string, number, string, string | null, string | null, string];
