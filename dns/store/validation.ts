/**
 * Input validation both zone stores share, so that they accept and refuse exactly the same inputs with the same
 * codes, messages and indexes.
 */
import { isInZone, MAX_TTL, RECORD_TYPES, type RecordData, type RecordType, type ZoneSettings } from '../model';
import { invalid, show } from './errors';
import {
  DEFAULT_STORE_LIMITS,
  MAX_CHANGES_PER_CALL,
  MAX_DNSSEC_KEY_BITS,
  MAX_DNSSEC_KEY_TEXT_LENGTH,
  MAX_DNSSEC_KEYS_PER_CALL,
  MAX_ID_LENGTH,
  MAX_NAME_LENGTH,
  MAX_SETTING_TEXT_LENGTH,
  MAX_VALUE_LENGTH,
  type StoreLimits,
} from './limits';
import { isIP } from 'node:net';
import type {
  DnssecDenial,
  DnssecKey,
  DnssecKeyChange,
  DnssecKeyTimings,
  RecordChange,
  SecondaryZoneRow,
} from './types';

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

const STORED_TYPES: ReadonlySet<string> = new Set(RECORD_TYPES.filter((t) => t !== 'SOA'));
const ALL_TYPES: ReadonlySet<string> = new Set(RECORD_TYPES);

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

export function checkRecordName(name: unknown, zone: string, index?: number): asserts name is string {
  checkName(name, 'record name', index);
  if (!isInZone(name, zone)) throw invalid(`record name ${name || '(root)'} is not in zone ${zone || '(root)'}`, index);
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

export function checkId(id: unknown, index?: number, what = 'record id'): asserts id is string {
  if (typeof id !== 'string' || id.length === 0 || id.length > MAX_ID_LENGTH) {
    throw invalid(`${what} must be a non-empty string of at most ${MAX_ID_LENGTH} characters (got ${show(id)})`, index);
  }
  checkText(id, what, index);
}

export function checkRecord(record: unknown, zone: string, index?: number): asserts record is RecordData {
  if (typeof record !== 'object' || record === null)
    throw invalid('record must be an object with name, type, ttl and value', index);
  const r = record as Record<string, unknown>;
  checkRecordName(r.name, zone, index);
  checkStoredType(r.type, index);
  checkTtl(r.ttl, index);
  checkValue(r.value, index);
  checkGiven(r.givenName, r.name, 'givenName', index);
  checkGiven(r.givenValue, r.value, 'givenValue', index);
}

/**
 * A name or value as given (see `RecordData.givenName`): absent, or the model form in other letter case — never other
 * text, so what answers say and what the store matches by cannot drift apart.
 */
function checkGiven(given: unknown, model: string, field: string, index?: number): void {
  if (given === undefined) return;
  if (typeof given !== 'string' || given.toLowerCase() !== model.toLowerCase())
    throw invalid(`${field} must be ${show(model)} in any letter case (got ${show(given)})`, index);
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

// -- DNSSEC keys --------------------------------------------------------------------------------------------------

/** RSA/SHA-256, ECDSA P-256/SHA-256, ECDSA P-384/SHA-384, Ed25519. */
const DNSSEC_ALGORITHMS: ReadonlySet<unknown> = new Set([8, 13, 14, 15]);
const ISO_UTC = /^(\d{4})-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z$/;

/**
 * An ISO 8601 UTC timestamp with Z, of a real date and time (years 0001 to 9999: PostgreSQL has no year 0), in the
 * store's form (`toISOString`): both databases then keep and return it alike, at millisecond precision.
 */
export function checkTimestamp(value: unknown, what: string): string {
  const match = typeof value === 'string' ? ISO_UTC.exec(value) : null;
  if (match && match[1] !== '0000') {
    const ms = Date.parse(match[0]);
    // Date.parse rolls 2024-02-30 over to March 1 and 24:00 to the next day: the fields must survive as written.
    const iso = Number.isNaN(ms) ? '' : new Date(ms).toISOString();
    if (iso.slice(0, 19) === match[0].slice(0, 19)) return iso;
  }
  throw invalid(`${what} must be an ISO 8601 UTC timestamp such as 2024-03-05T10:00:00.000Z (got ${show(value)})`);
}

function checkKeyText(value: unknown, what: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_DNSSEC_KEY_TEXT_LENGTH)
    throw invalid(
      `${what} must be a non-empty string of at most ${MAX_DNSSEC_KEY_TEXT_LENGTH} characters (got ${
        typeof value === 'string' ? `${value.length} characters` : show(value)
      })`,
    );
  checkText(value, what);
  return value;
}

/** A timing that may be unset: null (or absent, when adding) is none. */
const optionalTimestamp = (value: unknown, what: string): string | null =>
  value === null || value === undefined ? null : checkTimestamp(value, what);

/** A key to add to `zone`; returns a clean copy (known fields only, timestamps in the store's form). */
function checkDnssecKey(key: unknown, zone: string, at: string): DnssecKey {
  if (typeof key !== 'object' || key === null || Array.isArray(key)) throw invalid(`${at} must be a DNSSEC key`);
  const k = key as Partial<Record<keyof DnssecKey, unknown>>;
  checkId(k.id, undefined, `${at} id`);
  if (k.zone !== zone) throw invalid(`${at} zone ${show(k.zone)} is not the zone changed, ${show(zone)}`);
  if (!DNSSEC_ALGORITHMS.has(k.algorithm))
    throw invalid(`${at} algorithm must be one of ${[...DNSSEC_ALGORITHMS].join(', ')} (got ${show(k.algorithm)})`);
  if (k.flags !== 256 && k.flags !== 257)
    throw invalid(`${at} flags must be 256 (ZSK) or 257 (KSK) (got ${show(k.flags)})`);
  const bits = k.bits;
  if (typeof bits !== 'number' || !Number.isInteger(bits) || bits < 1 || bits > MAX_DNSSEC_KEY_BITS)
    throw invalid(`${at} bits must be an integer from 1 to ${MAX_DNSSEC_KEY_BITS} (got ${show(bits)})`);
  return {
    id: k.id,
    zone,
    algorithm: k.algorithm as number,
    flags: k.flags,
    bits,
    publicKey: checkKeyText(k.publicKey, `${at} publicKey`),
    privateKey: checkKeyText(k.privateKey, `${at} privateKey`),
    createdAt: checkTimestamp(k.createdAt, `${at} createdAt`),
    publishAt: checkTimestamp(k.publishAt, `${at} publishAt`),
    activateAt: checkTimestamp(k.activateAt, `${at} activateAt`),
    inactiveAt: optionalTimestamp(k.inactiveAt, `${at} inactiveAt`),
    deleteAt: optionalTimestamp(k.deleteAt, `${at} deleteAt`),
    expiresAt: checkTimestamp(k.expiresAt, `${at} expiresAt`),
    cdsAt: optionalTimestamp(k.cdsAt ?? null, `${at} cdsAt`),
    cdsUntil: optionalTimestamp(k.cdsUntil ?? null, `${at} cdsUntil`),
    dsSeenAt: optionalTimestamp(k.dsSeenAt ?? null, `${at} dsSeenAt`),
  };
}

const TIMINGS = ['inactiveAt', 'deleteAt', 'cdsAt', 'cdsUntil', 'dsSeenAt'] as const;
const TIMING_KEYS: ReadonlySet<string> = new Set(['id', ...TIMINGS]);

/** New timings of a key: unknown fields are refused (a timing this store cannot change must not pass silently). */
function checkTimings(timings: unknown, at: string): DnssecKeyTimings {
  if (typeof timings !== 'object' || timings === null || Array.isArray(timings))
    throw invalid(`${at} must be an object with id and one or more of ${TIMINGS.join(', ')}`);
  for (const [key, value] of Object.entries(timings))
    if (value !== undefined && !TIMING_KEYS.has(key))
      throw invalid(`${at}: ${show(key)} cannot be changed (only ${TIMINGS.join(', ')})`);
  const t = timings as Partial<Record<keyof DnssecKeyTimings, unknown>>;
  if (typeof t.id !== 'string') throw invalid(`${at} id must be a string (got ${show(t.id)})`);
  const clean: DnssecKeyTimings = { id: t.id };
  // Absent (or undefined): unchanged; null: cleared.
  for (const field of TIMINGS) if (t[field] !== undefined) clean[field] = optionalTimestamp(t[field], `${at} ${field}`);
  return clean;
}

/** A DNSSEC key change, checked whole; its parts as lists (absent: empty). */
export interface CheckedDnssecKeyChange {
  add: DnssecKey[];
  update: DnssecKeyTimings[];
  remove: string[] | 'all';
  denial?: DnssecDenial;
}

const CHANGE_KEYS: ReadonlySet<string> = new Set(['add', 'update', 'remove', 'denial']);

/** A denial choice well-formed (INVALID otherwise): NSEC or NSEC3, Opt-Out a boolean and only with NSEC3. */
function checkDenial(value: unknown): DnssecDenial {
  const d = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  if (d.denial !== 'NSEC' && d.denial !== 'NSEC3')
    throw invalid(`denial.denial must be NSEC or NSEC3 (got ${show(d.denial)})`);
  if (typeof d.optOut !== 'boolean') throw invalid(`denial.optOut must be a boolean (got ${show(d.optOut)})`);
  if (d.optOut && d.denial !== 'NSEC3') throw invalid('denial.optOut goes only with NSEC3');
  return { denial: d.denial, optOut: d.optOut };
}

/** A change of `zone`'s DNSSEC keys: every part well-formed (INVALID otherwise); returns a clean copy. */
export function checkDnssecKeyChange(change: unknown, zone: string): CheckedDnssecKeyChange {
  if (typeof change !== 'object' || change === null || Array.isArray(change))
    throw invalid('a DNSSEC key change must be an object with add, update, remove and/or denial');
  for (const [key, value] of Object.entries(change))
    if (value !== undefined && !CHANGE_KEYS.has(key))
      throw invalid(`${show(key)} is not part of a DNSSEC key change (add, update, remove, denial)`);
  const c = change as Partial<Record<keyof DnssecKeyChange, unknown>>;
  const list = (value: unknown, what: string, max: number): unknown[] => {
    if (value === undefined) return [];
    if (!Array.isArray(value)) throw invalid(`${what} must be an array`);
    if (value.length > max) throw invalid(`${what} may hold at most ${max} keys (got ${value.length})`);
    return value;
  };
  const add = list(c.add, 'add', MAX_DNSSEC_KEYS_PER_CALL).map((k, i) => checkDnssecKey(k, zone, `add[${i}]`));
  const update = list(c.update, 'update', MAX_CHANGES_PER_CALL).map((t, i) => checkTimings(t, `update[${i}]`));
  const denial = c.denial === undefined ? {} : { denial: checkDenial(c.denial) };
  if (c.remove === 'all') return { add, update, remove: 'all', ...denial };
  const remove = list(c.remove, "remove (an array of key ids, or 'all')", MAX_CHANGES_PER_CALL).map((id, i) => {
    if (typeof id !== 'string') throw invalid(`remove[${i}] must be a key id (got ${show(id)})`);
    return id;
  });
  return { add, update, remove, ...denial };
}

/** A secondary zone as `addSecondaryZone` takes it: its name, an IP address and port, an optional key name. */
export function checkSecondaryZone(zone: unknown): Omit<SecondaryZoneRow, 'createdAt'> {
  if (typeof zone !== 'object' || zone === null)
    throw invalid(`a secondary zone must be an object (got ${show(zone)})`);
  const { name, primaryHost, primaryPort, tsigKey } = zone as Record<string, unknown>;
  checkName(name, 'secondary zone name');
  if (typeof primaryHost !== 'string' || isIP(primaryHost) === 0)
    throw invalid(`primaryHost must be an IP address (got ${show(primaryHost)})`);
  if (typeof primaryPort !== 'number' || !Number.isInteger(primaryPort) || primaryPort < 1 || primaryPort > 65535)
    throw invalid(`primaryPort must be an integer from 1 to 65535 (got ${show(primaryPort)})`);
  if (tsigKey !== null) checkName(tsigKey, 'tsigKey');
  return { name, primaryHost, primaryPort, tsigKey: tsigKey === '' ? null : tsigKey };
}
