/**
 * The conditions a write may carry (`ifRecord`, `ifVersion`, `ifKeys`), checked by both stores inside the write's
 * transaction, after the zone is locked: so a check and its write are one step for every process on the database,
 * not only for callers that share an in-process queue. A condition that does not hold is PRECONDITION_FAILED and
 * nothing is written; a malformed one is INVALID.
 */
import { invalid, show } from './errors';
import type { StoredRecord, Zone } from '../model';
import { StoreError, type DnssecKey, type DnssecKeyTimings, type RecordVersion, type ZoneVersion } from './types';

const failed = (message: string): StoreError => new StoreError('PRECONDITION_FAILED', message);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** INVALID unless `version` (when given) is a zone version: an integer serial and a string update time. */
export function checkZoneVersion(version: unknown): ZoneVersion | undefined {
  if (version === undefined) return undefined;
  if (!isObject(version) || !Number.isSafeInteger(version.serial) || typeof version.updatedAt !== 'string')
    throw invalid(`ifVersion must be {serial: integer, updatedAt: string} (got ${show(version)})`);
  return version as unknown as ZoneVersion;
}

/** INVALID unless `version` (when given) is a record version (id, ttl, value, updatedAt). */
export function checkRecordVersion(version: unknown): RecordVersion | undefined {
  if (version === undefined) return undefined;
  if (
    !isObject(version) ||
    typeof version.id !== 'string' ||
    !Number.isSafeInteger(version.ttl) ||
    typeof version.value !== 'string' ||
    typeof version.updatedAt !== 'string'
  )
    throw invalid(`ifRecord must be {id, ttl, value, updatedAt} of a record (got ${show(version)})`);
  return version as unknown as RecordVersion;
}

/** INVALID unless `ids` (when given) is a list of key ids. */
export function checkKeyIds(ids: unknown): readonly string[] | undefined {
  if (ids === undefined) return undefined;
  if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string'))
    throw invalid(`ifKeys must be a list of DNSSEC key ids (got ${show(ids)})`);
  return ids;
}

/** PRECONDITION_FAILED unless the zone (null: gone) is still `expected`. */
export function holdZoneVersion(name: string, expected: ZoneVersion | undefined, zone: Zone | null): void {
  if (!expected) return;
  if (!zone) throw failed(`zone ${name} was deleted since it was read`);
  if (zone.serial !== expected.serial || zone.updatedAt !== expected.updatedAt)
    throw failed(`zone ${name} changed since it was read (serial ${zone.serial}, not ${expected.serial})`);
}

/** PRECONDITION_FAILED unless the record (null: gone) is still `expected`. */
export function holdRecordVersion(
  zone: string,
  expected: RecordVersion | undefined,
  record: StoredRecord | null,
): void {
  if (!expected) return;
  if (!record || record.zone !== zone)
    throw failed(`record ${expected.id} of zone ${zone} was deleted since it was read`);
  if (record.ttl !== expected.ttl || record.value !== expected.value || record.updatedAt !== expected.updatedAt)
    throw failed(`record ${expected.id} of zone ${zone} changed since it was read`);
}

/**
 * PRECONDITION_FAILED unless each key named in `expected` still has the timings given there (null: still unset): a
 * step of a rollover (the DS seen) is taken once, however many replicas take it at once.
 */
export function holdTimings(
  zone: string,
  expected: readonly DnssecKeyTimings[] | undefined,
  keys: readonly DnssecKey[],
): void {
  for (const { id, ...timings } of expected ?? []) {
    const key = keys.find((k) => k.id === id);
    const same = (a: string | null | undefined, b: string | null) =>
      a === undefined || (a === null ? b === null : b !== null && Date.parse(a) === Date.parse(b));
    if (!key || !Object.entries(timings).every(([field, value]) => same(value, key[field as keyof typeof timings])))
      throw failed(`the DNSSEC key ${id} of zone ${zone} changed since it was read`);
  }
}

/** PRECONDITION_FAILED unless the zone's keys are exactly the ids `expected` (in any order). */
export function holdKeySet(zone: string, expected: readonly string[] | undefined, keys: readonly DnssecKey[]): void {
  if (!expected) return;
  const want = new Set(expected);
  if (keys.length === want.size && keys.every((k) => want.has(k.id))) return;
  throw failed(
    `the DNSSEC keys of zone ${zone} changed since they were read (${keys.length} key(s) now, ${want.size} expected)`,
  );
}
