/**
 * Input validation both zone stores share, so that they accept and refuse exactly the same inputs with the same
 * codes, messages and indexes.
 */
import { MAX_TTL, RECORD_TYPES, type RecordData, type RecordType, type ZoneSettings } from '../model';
import { invalid, show } from './errors';
import {
  DEFAULT_STORE_LIMITS,
  MAX_CHANGES_PER_CALL,
  MAX_ID_LENGTH,
  MAX_NAME_LENGTH,
  MAX_SETTING_TEXT_LENGTH,
  MAX_VALUE_LENGTH,
  type StoreLimits,
} from './limits';
import type { RecordChange } from './types';
import { isInZone } from '../names';

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
