/** SOA + records → an RFC 1035 master file that BIND's named-checkzone accepts. */
import { isInZone, normalizeName, type RecordData, relativeName, toFqdn } from '../model';
import { RecordValueError, formatSoa, formatValueRelative, validateRecord, validateTtl } from '../records';
import type { ZoneSoa } from './parse';
import { runAtOnce, runInSteps } from '../../platform/async';

export interface ZoneFileInput {
  origin: string;
  soa: ZoneSoa | null;
  records: readonly RecordData[];
  /** `$TTL`; default: the most common record TTL, else the SOA's TTL, else 3600. */
  ttl?: number;
}

function reversedLabels(name: string): string[] {
  return name === '' ? [] : name.split('.').reverse();
}

/** RFC 4034 §6.1 canonical order of (lower-case) names: label by label from the right; the apex first. */
export function compareNames(a: string, b: string): number {
  const x = reversedLabels(a);
  const y = reversedLabels(b);
  for (let i = 0; ; i++) {
    const p = x[i];
    const q = y[i];
    // One name is a suffix of the other: the shorter sorts first.
    if (p === undefined || q === undefined) return x.length - y.length;
    if (p !== q) return p < q ? -1 : 1;
  }
}

function typeRank(type: string): string {
  // NS first (after the SOA, which is written separately), then alphabetical.
  return type === 'SOA' ? '0' : type === 'NS' ? '1' : `2${type}`;
}

/** The order of records in a formatted zone: by name (apex first, canonical order), then type, then value. */
export function compareRecords(a: RecordData, b: RecordData): number {
  const n = compareNames(a.name, b.name);
  if (n !== 0) return n;
  const ta = typeRank(a.type);
  const tb = typeRank(b.type);
  if (ta !== tb) return ta < tb ? -1 : 1;
  if (a.value !== b.value) return a.value < b.value ? -1 : 1;
  return a.ttl - b.ttl;
}

function mostCommonTtl(records: readonly RecordData[]): number | undefined {
  const counts = new Map<number, number>();
  for (const r of records) counts.set(r.ttl, (counts.get(r.ttl) ?? 0) + 1);
  let best: number | undefined;
  let bestCount = 0;
  for (const [ttl, count] of counts) {
    if (count > bestCount || (count === bestCount && best !== undefined && ttl < best)) {
      best = ttl;
      bestCount = count;
    }
  }
  return best;
}

/** Records formatted between two steps of {@link formatZoneFileInSteps}: tens of milliseconds of work. */
const STEP_RECORDS = 2_000;

/**
 * Writes a master file: `$ORIGIN`, `$TTL`, the SOA, then the records sorted by {@link compareRecords}, names
 * relative to the origin where they are inside it, TTLs only where they differ from `$TTL`, a blank owner when it
 * repeats. Records are validated (a record outside the zone, or an SOA among them, is a {@link RecordValueError}).
 */
export function formatZoneFile(input: ZoneFileInput): string {
  return runAtOnce(formatSteps(input, 0));
}

/**
 * {@link formatZoneFile} in steps of STEP_RECORDS records, each on its own turn of the event loop (a zone of 100 000
 * records is most of a second of work), stopping between them once `signal` fires (with its reason).
 */
export async function formatZoneFileInSteps(input: ZoneFileInput, signal?: AbortSignal): Promise<string> {
  return runInSteps(formatSteps(input, STEP_RECORDS), { signal });
}

/** The file's origin in model form. */
function originOf(given: string): string {
  return normalizeName(given.endsWith('.') || given === '' ? given || '.' : `${given}.`);
}

/** A record as the file writes it: checked to be inside the zone and not an SOA, its name and value validated. */
function fileRecord(r: RecordData, origin: string): RecordData {
  if (r.type === 'SOA') throw new RecordValueError('An SOA record goes into `soa`, not among the records', 'type');
  if (!isInZone(r.name, origin)) {
    throw new RecordValueError(
      `Name ${JSON.stringify(toFqdn(r.name))} is not inside zone ${JSON.stringify(toFqdn(origin))}`,
      'name',
    );
  }
  return validateRecord({ ...r, name: toFqdn(r.name) }, origin, { syntax: 'master' });
}

/** One line of the file: a blank TTL where it is the `$TTL`. */
function fileLine(ttl: number, owner: string, recordTtl: number, type: string, value: string): string {
  return [owner, recordTtl === ttl ? '' : String(recordTtl), 'IN', type, value].join('\t');
}

/** `$ORIGIN`, `$TTL` and the SOA line (when there is one). */
function headLines(origin: string, ttl: number, soa: ZoneSoa | null): string[] {
  const lines = [`$ORIGIN ${toFqdn(origin)}`, `$TTL ${ttl}`];
  if (soa)
    lines.push(fileLine(ttl, '@', validateTtl(soa.ttl), 'SOA', formatValueRelative('SOA', formatSoa(soa), origin)));
  return lines;
}

/** The line of a record (sorted, validated) after the record of owner `previous`: a blank owner when it repeats. */
function recordLine(r: RecordData, origin: string, ttl: number, previous: string | undefined): string {
  const owner = r.name === previous ? '' : relativeName(r.name, origin);
  return fileLine(ttl, owner, r.ttl, r.type, formatValueRelative(r.type, r.value, origin));
}

/** The formatting, pausing (a `yield`) after every `every` records of each pass; 0: never. */
function* formatSteps(input: ZoneFileInput, every: number): Generator<void, string> {
  const origin = originOf(input.origin);
  const pause = (i: number) => every > 0 && (i + 1) % every === 0;
  const records: RecordData[] = [];
  for (const [i, r] of input.records.entries()) {
    records.push(fileRecord(r, origin));
    if (pause(i)) yield;
  }
  records.sort(compareRecords);
  const ttl = validateTtl(input.ttl ?? mostCommonTtl(records) ?? input.soa?.ttl ?? 3600);
  const lines = headLines(origin, ttl, input.soa);
  let previous: string | undefined = input.soa ? origin : undefined;
  for (const [i, r] of records.entries()) {
    lines.push(recordLine(r, origin, ttl, previous));
    previous = r.name;
    if (pause(i)) yield;
  }
  return `${lines.join('\n')}\n`;
}

/** One part of a master file written in parts ({@link formatZoneFilePart}). */
export interface ZoneFilePartInput {
  origin: string;
  /** `$TTL`: given, as every part must write the same. */
  ttl: number;
  /** The first part: the file's head (`$ORIGIN`, `$TTL`, the SOA when there is one) comes before its records. */
  head?: { soa: ZoneSoa | null };
  /**
   * This part's records. Every part holds whole owner names (no name's records split between two parts), and the
   * parts come in the order of the names ({@link compareNames}): then the parts joined are {@link formatZoneFile}'s
   * text of all the records.
   */
  records: readonly RecordData[];
  /** The owner name of the previous part's last record (none for the first part). */
  previous?: string;
}

/**
 * A part of a master file: the text {@link formatZoneFile} writes for these records (sorted here), so that a file too
 * large to hold at once can be written a part at a time. Lines end with a newline; a part without lines is empty.
 */
export function formatZoneFilePart(input: ZoneFilePartInput): string {
  return runAtOnce(partSteps(input, 0));
}

/**
 * {@link formatZoneFilePart} in steps of STEP_RECORDS records, each on its own turn of the event loop (a part of
 * 10 000 records is a quarter of a second of work), stopping between them once `signal` fires (with its reason).
 */
export async function formatZoneFilePartInSteps(input: ZoneFilePartInput, signal?: AbortSignal): Promise<string> {
  return runInSteps(partSteps(input, STEP_RECORDS), { signal });
}

function* partSteps(input: ZoneFilePartInput, every: number): Generator<void, string> {
  const origin = originOf(input.origin);
  const ttl = validateTtl(input.ttl);
  const pause = (i: number) => every > 0 && (i + 1) % every === 0;
  const records: RecordData[] = [];
  for (const [i, r] of input.records.entries()) {
    records.push(fileRecord(r, origin));
    if (pause(i)) yield;
  }
  records.sort(compareRecords);
  const lines = input.head ? headLines(origin, ttl, input.head.soa) : [];
  let previous = input.head ? (input.head.soa ? origin : undefined) : input.previous;
  for (const [i, r] of records.entries()) {
    lines.push(recordLine(r, origin, ttl, previous));
    previous = r.name;
    if (pause(i)) yield;
  }
  return lines.length ? `${lines.join('\n')}\n` : '';
}
