/**
 * Rules both zone stores (SQLite, PostgreSQL) share: the SOA serial, input validation, and the in-memory planner
 * that applies a batch of record changes to the affected rows and checks the zone rules on the state AFTER the
 * whole batch. The dialect modules only load the rows the planner needs and write its result in one transaction,
 * so both stores accept and refuse exactly the same inputs with the same codes, messages and indexes.
 */
import { randomUUID } from 'node:crypto';
import {
  MAX_TTL,
  RECORD_TYPES,
  type RecordData,
  type RecordType,
  type StoredRecord,
  type Zone,
  type ZoneSettings,
} from '../model';
import { serialAdd, serialGreater } from '../serial';
import {
  StoreError,
  type ChangeResult,
  type RecordChange,
  type ZoneChangeDetail,
  type ZoneChangeEvent,
  type ZoneChangeListener,
} from './types';

/** Most changes one `change()` call may hold. */
export const MAX_CHANGES_PER_CALL = 10_000;
/** Most records `createZone` accepts at once (an imported master file). */
export const MAX_RECORDS_PER_CREATE = 1_000_000;
/** Longest record value (presentation text) the store keeps. */
export const MAX_VALUE_LENGTH = 65_535;
/** Longest record id the store accepts when one is given (UUIDs are 36). */
export const MAX_ID_LENGTH = 255;
/** Longest name (RFC 1035: 253 characters in presentation form without the trailing dot). */
export const MAX_NAME_LENGTH = 253;
/** Longest text setting (admin e-mail, primary NS). */
export const MAX_SETTING_TEXT_LENGTH = 320;

/**
 * Most records one RRset (name and type) may hold after a write, by default: BIND 9's `max-records-per-type` default
 * (100 since 9.18.28; `named -C` shows it). An RRset far beyond it cannot be served whole (over 65 535 bytes) and
 * makes every answer from it expensive. 0 = no limit.
 */
export const DEFAULT_MAX_RECORDS_PER_RRSET = 100;

/** Limits a store applies to every write (createZone and change alike). */
export interface StoreLimits {
  /** Most records at one name of one type after a write that adds to that RRset; 0 = no limit. */
  maxRecordsPerRrset: number;
}

export const DEFAULT_STORE_LIMITS: StoreLimits = { maxRecordsPerRrset: DEFAULT_MAX_RECORDS_PER_RRSET };

/** A store's limits from its options: defaults for what is not given; a bad value is INVALID, naming it. */
export function storeLimits(options: Partial<StoreLimits>): StoreLimits {
  const limits = { ...DEFAULT_STORE_LIMITS };
  const max = options.maxRecordsPerRrset;
  if (max !== undefined) {
    if (!Number.isInteger(max) || max < 0)
      throw invalid(`maxRecordsPerRrset must be an integer of 0 (no limit) or more (got ${show(max)})`);
    limits.maxRecordsPerRrset = max;
  }
  return limits;
}

/** The store's clock; tests inject one. */
export type Clock = () => Date;
export const systemClock: Clock = () => new Date();

// ---------------------------------------------------------------------------------------------------------------
// Serial

/** `YYYYMMDD00` of the clock's UTC date. */
export function dateSerial(now: Date): number {
  return (now.getUTCFullYear() * 10_000 + (now.getUTCMonth() + 1) * 100 + now.getUTCDate()) * 100;
}

/** Serial of a new zone: today·100. */
export function initialSerial(now: Date): number {
  return dateSerial(now);
}

/**
 * Serial after a change, as BIND's `serial-update-method date` computes it (lib/dns/update.c
 * `dns_update_soaserial`): today's `YYYYMMDD00` when that is newer than the current serial in RFC 1982 arithmetic,
 * else current + 1. So after `YYYYMMDD99` the serial simply keeps counting by one (no longer reading as a date) until
 * the date overtakes it; it never goes backwards, and at 2^32 it wraps, skipping 0 as BIND does.
 */
export function nextSerial(current: number, now: Date): number {
  const date = dateSerial(now);
  if (serialGreater(date, current)) return date;
  const next = serialAdd(current, 1);
  return next === 0 ? 1 : next;
}

/** ISO 8601 UTC with Z, millisecond precision. */
export function timestamp(now: Date): string {
  return now.toISOString();
}

// ---------------------------------------------------------------------------------------------------------------
// Validation

const STORED_TYPES: ReadonlySet<string> = new Set(RECORD_TYPES.filter((t) => t !== 'SOA'));
const ALL_TYPES: ReadonlySet<string> = new Set(RECORD_TYPES);

const invalid = (message: string, index?: number) => new StoreError('INVALID', message, index);

function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined)
    return String(value);
  return typeof value;
}

/**
 * A name in model form: a string, lower case, no leading or trailing dot, no empty label, at most 253
 * characters; "" is the root. The store does not judge the characters (another module validates names).
 */
export function checkName(name: unknown, what: string, index?: number): asserts name is string {
  if (typeof name !== 'string') throw invalid(`${what} must be a string (got ${show(name)})`, index);
  if (name === '') return;
  if (name.length > MAX_NAME_LENGTH)
    throw invalid(`${what} ${show(name)} is longer than ${MAX_NAME_LENGTH} characters`, index);
  if (
    name !== name.toLowerCase() ||
    name.startsWith('.') ||
    name.endsWith('.') ||
    name.includes('..') ||
    /\s/.test(name)
  ) {
    throw invalid(`${what} ${show(name)} is not an absolute lower-case name without trailing dot`, index);
  }
  checkText(name, what, index);
}

/** True when `name` is the zone's apex or below it. */
export function inZone(name: string, zone: string): boolean {
  return zone === '' ? true : name === zone || name.endsWith(`.${zone}`);
}

export function checkRecordName(name: unknown, zone: string, index?: number): asserts name is string {
  checkName(name, 'record name', index);
  if (!inZone(name, zone)) throw invalid(`record name ${name || '(root)'} is not in zone ${zone || '(root)'}`, index);
}

export function checkTtl(ttl: unknown, index?: number, what = 'TTL'): asserts ttl is number {
  if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 0 || ttl > MAX_TTL) {
    throw invalid(`${what} must be an integer from 0 to ${MAX_TTL} (got ${show(ttl)})`, index);
  }
}

/** A type the store keeps as a row: one of RECORD_TYPES except SOA. */
export function checkStoredType(type: unknown, index?: number): asserts type is RecordType {
  if (type === 'SOA') {
    throw invalid(`SOA is not stored as a record: the zone's SOA comes from its settings and serial`, index);
  }
  if (typeof type !== 'string' || !STORED_TYPES.has(type)) {
    throw invalid(
      `record type ${show(type)} is not one of ${RECORD_TYPES.filter((t) => t !== 'SOA').join(', ')}`,
      index,
    );
  }
}

/** A type to filter or match by: any of RECORD_TYPES (SOA simply matches no row). */
export function checkAnyType(type: unknown, index?: number): asserts type is RecordType {
  if (typeof type !== 'string' || !ALL_TYPES.has(type)) {
    throw invalid(`record type ${show(type)} is not one of ${RECORD_TYPES.join(', ')}`, index);
  }
}

/**
 * The `names` filter of listRecords: an array of strings (else INVALID); returns those a database can compare
 * (see `isKey`; the others match nothing), each once.
 */
export function checkNamesFilter(names: unknown): string[] {
  if (!Array.isArray(names) || !names.every((n) => typeof n === 'string'))
    throw invalid('names filter must be an array of strings');
  return [...new Set(names.filter(isKey))];
}

export function checkValue(value: unknown, index?: number): asserts value is string {
  if (typeof value !== 'string') throw invalid(`record value must be a string (got ${show(value)})`, index);
  if (value.length === 0) throw invalid('record value must not be empty', index);
  if (value.length > MAX_VALUE_LENGTH) {
    throw invalid(`record value is ${value.length} characters long; the limit is ${MAX_VALUE_LENGTH}`, index);
  }
  checkText(value, 'record value', index);
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * True for a string both databases can take as a key: no NUL (PostgreSQL text cannot hold it), no lone surrogate
 * (not UTF-8), at most 255 characters. Lookups by anything else find nothing without asking the database.
 */
export function isKey(text: unknown): text is string {
  return (
    typeof text === 'string' && text.length <= MAX_ID_LENGTH && !text.includes('\u0000') && !LONE_SURROGATE.test(text)
  );
}

/** Text both databases keep unchanged: no NUL (PostgreSQL text cannot hold it), no lone surrogate (not UTF-8). */
function checkText(text: string, what: string, index?: number): void {
  if (text.includes('\u0000')) throw invalid(`${what} must not contain NUL characters`, index);
  if (LONE_SURROGATE.test(text)) throw invalid(`${what} is not valid Unicode (lone surrogate)`, index);
}

export function checkId(id: unknown, index?: number): asserts id is string {
  if (typeof id !== 'string' || id.length === 0 || id.length > MAX_ID_LENGTH) {
    throw invalid(
      `record id must be a non-empty string of at most ${MAX_ID_LENGTH} characters (got ${show(id)})`,
      index,
    );
  }
  checkText(id, 'record id', index);
}

export function checkRecord(record: unknown, zone: string, index?: number): asserts record is RecordData {
  if (typeof record !== 'object' || record === null)
    throw invalid('record must be an object with name, type, ttl and value', index);
  const r = record as Record<string, unknown>;
  checkRecordName(r.name, zone, index);
  checkStoredType(r.type, index);
  checkTtl(r.ttl, index);
  checkValue(r.value, index);
}

const SETTING_NUMBERS = ['refresh', 'retry', 'expire', 'minimum', 'defaultTtl'] as const;
const SETTING_TEXTS = ['adminEmail', 'primaryNs'] as const;
export const SETTING_KEYS: readonly (keyof ZoneSettings)[] = [...SETTING_TEXTS, ...SETTING_NUMBERS];

function checkSetting(key: keyof ZoneSettings, value: unknown): void {
  if ((SETTING_NUMBERS as readonly string[]).includes(key)) {
    checkTtl(value, undefined, key);
  } else if (typeof value !== 'string' || value.length === 0 || value.length > MAX_SETTING_TEXT_LENGTH) {
    throw invalid(
      `${key} must be a non-empty string of at most ${MAX_SETTING_TEXT_LENGTH} characters (got ${show(value)})`,
    );
  } else {
    checkText(value, key);
  }
}

/** Complete settings for a new zone; returns a clean copy (only the known keys). */
export function checkSettings(settings: unknown): ZoneSettings {
  if (typeof settings !== 'object' || settings === null) throw invalid('zone settings must be an object');
  const s = settings as Record<string, unknown>;
  for (const key of SETTING_KEYS) checkSetting(key, s[key]);
  return Object.fromEntries(SETTING_KEYS.map((k) => [k, s[k]])) as unknown as ZoneSettings;
}

/** A settings patch: known keys only (an unknown key such as `serial` is refused, not silently ignored). */
export function checkSettingsPatch(patch: unknown): Partial<ZoneSettings> {
  if (typeof patch !== 'object' || patch === null) throw invalid('zone settings patch must be an object');
  const out: Partial<Record<keyof ZoneSettings, unknown>> = {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (!(SETTING_KEYS as readonly string[]).includes(key)) {
      throw invalid(`${show(key)} is not a zone setting (settings: ${SETTING_KEYS.join(', ')})`);
    }
    checkSetting(key as keyof ZoneSettings, value);
    out[key as keyof ZoneSettings] = value;
  }
  return out as Partial<ZoneSettings>;
}

export function checkChangeCount(changes: unknown): asserts changes is RecordChange[] {
  if (!Array.isArray(changes)) throw invalid('changes must be an array');
  if (changes.length > MAX_CHANGES_PER_CALL) {
    throw invalid(`a change() call may hold at most ${MAX_CHANGES_PER_CALL} changes (got ${changes.length})`);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Planner

/** A record row as both stores keep it. */
export type RecordRow = StoredRecord;

/** What the planner needs loaded before it runs (see `collectKeys`). */
export interface ChangeKeys {
  /** Ids named by update/delete, and ids given to add. */
  ids: string[];
  /** Names of added records and of deleteMatching. */
  names: string[];
}

/**
 * The ids and names a batch touches, read defensively (the batch is not validated yet). The store loads
 * (1) the rows with these ids (any zone), then (2) every row of the zone at these names and at the names of the
 * rows found in (1), and hands both to `planChanges`.
 */
export function collectKeys(changes: readonly unknown[]): ChangeKeys {
  const ids = new Set<string>();
  const names = new Set<string>();
  for (const c of changes) {
    if (typeof c !== 'object' || c === null) continue;
    const ch = c as Record<string, unknown>;
    // Only strings the databases can compare; anything else fails validation in planChanges.
    if (isKey(ch.id)) ids.add(ch.id);
    if (ch.op === 'add' && typeof ch.record === 'object' && ch.record !== null) {
      const name = (ch.record as Record<string, unknown>).name;
      if (isKey(name)) names.add(name);
    }
    if (ch.op === 'deleteMatching' && isKey(ch.name)) names.add(ch.name);
  }
  return { ids: [...ids], names: [...names] };
}

export interface PlanInput {
  zone: string;
  changes: readonly RecordChange[];
  /**
   * Rows of this zone: every row at the names the batch touches (see `collectKeys`) and every row with an id it
   * names. Rows of other zones must not be passed here but as `foreignIds`.
   */
  rows: Iterable<RecordRow>;
  /** Ids from `collectKeys` that exist in another zone. */
  foreignIds: ReadonlySet<string>;
  now: Date;
  newId?: () => string;
  limits?: StoreLimits;
}

export interface Plan {
  results: ChangeResult[];
  /** False when nothing changes (only deleteMatching that matched nothing): no write, no serial, no event. */
  effective: boolean;
  /** Ids to delete (removed rows, and rows whose id was deleted and added again in the batch). */
  deletes: string[];
  inserts: RecordRow[];
  /** Rows whose ttl/value changed (same id, name, type, createdAt). */
  updates: RecordRow[];
  /** Owner names of the rows deleted, inserted or updated: what a reader of the zone must read again. */
  names: string[];
}

interface WorkRow extends RecordRow {
  /** Not loaded: added by this batch. */
  fresh: boolean;
  dirty: boolean;
  /** False once deleted by this batch. */
  live: boolean;
  /** Index of the last change that added or updated this row. */
  origin: number;
}

const key = (r: { type: string; value: string }) => `${r.type}\u0000${r.value}`;

function compareRows(a: RecordRow, b: RecordRow): number {
  return cmp(a.name, b.name) || cmp(a.type, b.type) || cmp(a.value, b.value) || cmp(a.id, b.id);
}

/**
 * Byte-order comparison of strings (UTF-8 order = code point order), the order of SQLite's BINARY and
 * PostgreSQL's "C" collation, which the stores' ORDER BY use.
 */
export function cmp(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x < y ? -1 : 1;
    if (x > 0xffff) i++;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

function stored(r: WorkRow): RecordRow {
  return {
    id: r.id,
    zone: r.zone,
    name: r.name,
    type: r.type,
    ttl: r.ttl,
    value: r.value,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

/**
 * Applies the batch in memory, in order, to the loaded rows, then checks the zone rules on the state after the
 * whole batch. Throws the StoreError of the first failing change (with its index) and has no side effects, so
 * the caller's transaction simply rolls back.
 *
 * Error order: per-change errors (malformed change, bad name/type/TTL/value, unknown id, id taken) are raised
 * at the first change that has one; the rules on the final state (duplicate record, CNAME beside other data)
 * are checked only when every change applied, and name the change that completed the violation (the latest
 * change that added or updated one of the rows involved; the smallest such index when there are several).
 */
export function planChanges(input: PlanInput): Plan {
  const { zone, changes, foreignIds, now } = input;
  const limits = input.limits ?? DEFAULT_STORE_LIMITS;
  const newId = input.newId ?? randomUUID;
  const ts = timestamp(now);

  // byId holds the rows an id can reach (loaded rows and adds with a given id): a generated UUID is new, and
  // nobody can name it before this batch returns. byName holds every live row at the names loaded or touched.
  const byId = new Map<string, WorkRow>();
  const byName = new Map<string, { rows: WorkRow[]; touched: boolean }>();
  const originals: WorkRow[] = [];
  const place = (r: WorkRow, indexed: boolean) => {
    if (indexed) byId.set(r.id, r);
    const entry = byName.get(r.name);
    if (entry) entry.rows.push(r);
    else byName.set(r.name, { rows: [r], touched: false });
  };
  const touch = (name: string) => {
    byName.get(name)!.touched = true;
  };
  const remove = (r: WorkRow) => {
    r.live = false;
    if (byId.get(r.id) === r) byId.delete(r.id);
    const rows = byName.get(r.name)?.rows;
    const at = rows ? rows.indexOf(r) : -1;
    if (at >= 0) rows!.splice(at, 1);
  };
  for (const r of input.rows) {
    if (byId.has(r.id)) continue;
    const row: WorkRow = { ...r, fresh: false, dirty: false, live: true, origin: -1 };
    originals.push(row);
    place(row, true);
  }

  const results: ChangeResult[] = [];
  let effective = false;

  changes.forEach((change, index) => {
    if (typeof change !== 'object' || change === null) {
      throw invalid('change must be an object with op add, update, delete or deleteMatching', index);
    }
    switch (change.op) {
      case 'add': {
        checkRecord(change.record, zone, index);
        let id: string;
        if (change.id !== undefined) {
          checkId(change.id, index);
          id = change.id;
          if (byId.has(id) || foreignIds.has(id))
            throw new StoreError('CONFLICT', `record id ${id} already exists`, index);
        } else {
          id = newId();
        }
        const { name, type, ttl, value } = change.record;
        const row: WorkRow = {
          id,
          zone,
          name,
          type,
          ttl,
          value,
          createdAt: ts,
          updatedAt: ts,
          fresh: true,
          dirty: false,
          live: true,
          origin: index,
        };
        place(row, change.id !== undefined);
        touch(name);
        effective = true;
        results.push({ op: 'add', ids: [id], record: stored(row) });
        return;
      }
      case 'update': {
        checkId(change.id, index);
        const row = byId.get(change.id);
        if (!row) throw new StoreError('NOT_FOUND', `no record ${change.id} in zone ${zone}`, index);
        if (change.ttl === undefined && change.value === undefined) {
          throw invalid(`update of record ${change.id} names neither ttl nor value`, index);
        }
        if (change.ttl !== undefined) checkTtl(change.ttl, index);
        if (change.value !== undefined) checkValue(change.value, index);
        if (change.ttl !== undefined) row.ttl = change.ttl;
        if (change.value !== undefined) row.value = change.value;
        row.updatedAt = ts;
        row.dirty = true;
        row.origin = index;
        touch(row.name);
        effective = true;
        results.push({ op: 'update', ids: [row.id], record: stored(row) });
        return;
      }
      case 'delete': {
        checkId(change.id, index);
        const row = byId.get(change.id);
        if (!row) throw new StoreError('NOT_FOUND', `no record ${change.id} in zone ${zone}`, index);
        remove(row);
        effective = true;
        results.push({ op: 'delete', ids: [row.id] });
        return;
      }
      case 'deleteMatching': {
        checkRecordName(change.name, zone, index);
        if (change.type !== undefined) checkAnyType(change.type, index);
        if (change.value !== undefined) checkValue(change.value, index);
        const matched = (byName.get(change.name)?.rows ?? [])
          .filter(
            (r) =>
              (change.type === undefined || r.type === change.type) &&
              (change.value === undefined || r.value === change.value),
          )
          .sort(compareRows);
        for (const r of matched) remove(r);
        if (matched.length > 0) effective = true;
        results.push({ op: 'deleteMatching', ids: matched.map((r) => r.id) });
        return;
      }
      default:
        throw invalid(
          `change has unknown op ${show((change as { op?: unknown }).op)} (add, update, delete, deleteMatching)`,
          index,
        );
    }
  });

  // Rules on the state after the batch, at the names where rows were added or updated.
  let failure: StoreError | undefined;
  for (const [name, { rows, touched }] of byName) {
    if (!touched || rows.length < 2) continue;
    const err = nameViolation(zone, name, rows, limits);
    if (err && (!failure || err.index! < failure.index!)) failure = err;
  }
  if (failure) throw failure;

  const deletes: string[] = [];
  const names = new Set<string>();
  for (const r of originals) {
    if (r.live) continue;
    deletes.push(r.id);
    names.add(r.name);
  }
  const inserts: RecordRow[] = [];
  const updates: RecordRow[] = [];
  for (const [name, { rows }] of byName) {
    for (const r of rows) {
      if (r.fresh) inserts.push(r);
      else if (r.dirty) updates.push(r);
      else continue;
      names.add(name);
    }
  }
  return { results, effective, deletes, inserts, updates, names: [...names] };
}

/**
 * The rules on the final state of one name with 2 or more rows: no duplicate (type, value), at most one CNAME
 * and nothing beside it, and no RRset that gained records holding more than `limits.maxRecordsPerRrset` (an RRset
 * already over it, stored before the limit, may still shrink or change). The error's index is the change that
 * completed the violation (the latest `origin` of the rows involved; for the RRset limit, of the rows added); of
 * several violations, the one with the smallest index.
 */
function nameViolation(
  zone: string,
  name: string,
  rows: readonly { type: string; value: string; origin: number; fresh: boolean }[],
  limits: StoreLimits,
): StoreError | undefined {
  let failure: StoreError | undefined;
  const fail = (err: StoreError) => {
    if (!failure || err.index! < failure.index!) failure = err;
  };
  const blame = (group: readonly { origin: number }[]) => group.reduce((max, r) => Math.max(max, r.origin), 0);
  const groups = new Map<string, (typeof rows)[number][]>();
  for (const r of rows) {
    const k = key(r);
    const g = groups.get(k);
    if (g) g.push(r);
    else groups.set(k, [r]);
  }
  for (const g of groups.values()) {
    if (g.length > 1) {
      const r = g[0]!;
      fail(
        new StoreError('CONFLICT', `${name} ${r.type} ${r.value} already exists in zone ${zone || '(root)'}`, blame(g)),
      );
    }
  }
  const max = limits.maxRecordsPerRrset;
  if (max > 0 && rows.length > max) {
    const byType = new Map<string, (typeof rows)[number][]>();
    for (const r of rows) {
      const g = byType.get(r.type);
      if (g) g.push(r);
      else byType.set(r.type, [r]);
    }
    for (const [type, g] of byType) {
      const added = g.filter((r) => r.fresh);
      if (g.length > max && added.length > 0) {
        fail(
          invalid(
            `too many records: ${name} ${type} would hold ${g.length}; the limit is ${max} records per name and type (RRset)`,
            blame(added),
          ),
        );
      }
    }
  }
  const cnames = rows.filter((r) => r.type === 'CNAME');
  if (cnames.length > 1) {
    fail(invalid(`a name may have only one CNAME (${name} has ${cnames.length})`, blame(cnames)));
  }
  if (cnames.length > 0) {
    const others = [...new Set(rows.filter((r) => r.type !== 'CNAME').map((r) => r.type))].sort(cmp);
    if (others.length > 0) {
      fail(
        invalid(`CNAME may not share its name with any other record (${name} has ${others.join(', ')})`, blame(rows)),
      );
    }
  }
  return failure;
}

/**
 * Validates the initial records of a new zone (errors name the record's index) and makes their rows: the same
 * rules as `planChanges` with only adds, without its per-row maps (an imported zone may have 100 000s of
 * records): rows sorted by name, then each name with several rows is checked.
 */
export function planCreate(
  zone: string,
  records: unknown,
  now: Date,
  newId: () => string = randomUUID,
  limits: StoreLimits = DEFAULT_STORE_LIMITS,
): Plan {
  if (!Array.isArray(records)) throw invalid('records must be an array');
  if (records.length > MAX_RECORDS_PER_CREATE) {
    throw invalid(`a new zone may hold at most ${MAX_RECORDS_PER_CREATE} records (got ${records.length})`);
  }
  const ts = timestamp(now);
  const rows: RecordRow[] = new Array(records.length);
  for (let i = 0; i < records.length; i++) {
    const record: unknown = records[i];
    checkRecord(record, zone, i);
    rows[i] = {
      id: newId(),
      zone,
      name: record.name,
      type: record.type,
      ttl: record.ttl,
      value: record.value,
      createdAt: ts,
      updatedAt: ts,
    };
  }
  const order = Array.from({ length: rows.length }, (_, i) => i).sort((a, b) => {
    const x = rows[a]!.name;
    const y = rows[b]!.name;
    return x < y ? -1 : x > y ? 1 : a - b;
  });
  let failure: StoreError | undefined;
  for (let start = 0; start < order.length;) {
    const name = rows[order[start]!]!.name;
    let end = start + 1;
    while (end < order.length && rows[order[end]!]!.name === name) end++;
    if (end - start > 1) {
      const group = order
        .slice(start, end)
        .map((i) => ({ type: rows[i]!.type, value: rows[i]!.value, origin: i, fresh: true }));
      const err = nameViolation(zone, name, group, limits);
      if (err && (!failure || err.index! < failure.index!)) failure = err;
    }
    start = end;
  }
  if (failure) throw failure;
  return { results: [], effective: rows.length > 0, deletes: [], inserts: rows, updates: [], names: [] };
}

// ---------------------------------------------------------------------------------------------------------------
// Events

/** Listeners of one store. A listener that throws does not disturb the store or the other listeners. */
export class ChangeEmitter {
  private readonly listeners = new Set<ZoneChangeListener>();

  on(listener: ZoneChangeListener): () => void {
    // Wrapped so the same function may be registered twice and unsubscribed independently.
    const wrapped: ZoneChangeListener = (e, detail) => listener(e, detail);
    this.listeners.add(wrapped);
    return () => {
      this.listeners.delete(wrapped);
    };
  }

  /** `names`: the owner names a records-changed event touched, when known (listeners share one frozen array). */
  emit(event: ZoneChangeEvent, names?: readonly string[]): void {
    const detail: ZoneChangeDetail | undefined = names
      ? Object.freeze({ names: Object.freeze([...names]) })
      : undefined;
    for (const l of [...this.listeners]) {
      try {
        l({ ...event }, detail);
      } catch {
        // A faulty listener must not turn a committed change into an error.
      }
    }
  }

  clear(): void {
    this.listeners.clear();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Zone rows

/** The settings part of a zone. */
export function pickSettings(zone: Zone): ZoneSettings {
  const { adminEmail, primaryNs, refresh, retry, expire, minimum, defaultTtl } = zone;
  return { adminEmail, primaryNs, refresh, retry, expire, minimum, defaultTtl };
}

export function closedError(): StoreError {
  return new StoreError('UNAVAILABLE', 'the zone store is closed');
}

/** Sorts rows the way listRecords returns them: name, type, value (byte order), then id. */
export function sortRecords<T extends RecordRow>(rows: T[]): T[] {
  return rows.sort(compareRows);
}
