/** SOA + records → an RFC 1035 master file that BIND's named-checkzone accepts. */
import { isInZone, normalizeName, type RecordData, relativeName, toFqdn } from '../model';
import { RecordValueError, formatSoa, formatValueRelative, validateRecord, validateTtl } from '../records';
import type { ZoneSoa } from './parse';
import { nextTurn } from '../../platform/async';

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
  const steps = formatSteps(input, 0);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * {@link formatZoneFile} in steps of STEP_RECORDS records, each on its own turn of the event loop (a zone of 100 000
 * records is most of a second of work), stopping between them once `signal` fires (with its reason).
 */
export async function formatZoneFileInSteps(input: ZoneFileInput, signal?: AbortSignal): Promise<string> {
  const steps = formatSteps(input, STEP_RECORDS);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await nextTurn();
    signal?.throwIfAborted();
  }
}

/** The formatting, pausing (a `yield`) after every `every` records of each pass; 0: never. */
function* formatSteps(input: ZoneFileInput, every: number): Generator<void, string> {
  const origin = normalizeName(
    input.origin.endsWith('.') || input.origin === '' ? input.origin || '.' : `${input.origin}.`,
  );
  const pause = (i: number) => every > 0 && (i + 1) % every === 0;
  const records: RecordData[] = [];
  for (const [i, r] of input.records.entries()) {
    if (r.type === 'SOA') throw new RecordValueError('An SOA record goes into `soa`, not among the records', 'type');
    if (!isInZone(r.name, origin)) {
      throw new RecordValueError(
        `Name ${JSON.stringify(toFqdn(r.name))} is not inside zone ${JSON.stringify(toFqdn(origin))}`,
        'name',
      );
    }
    records.push(validateRecord({ ...r, name: toFqdn(r.name) }, origin, { syntax: 'master' }));
    if (pause(i)) yield;
  }
  records.sort(compareRecords);
  const ttl = validateTtl(input.ttl ?? mostCommonTtl(records) ?? input.soa?.ttl ?? 3600);
  const lines = [`$ORIGIN ${toFqdn(origin)}`, `$TTL ${ttl}`];
  const line = (owner: string, recordTtl: number, type: string, value: string): string =>
    [owner, recordTtl === ttl ? '' : String(recordTtl), 'IN', type, value].join('\t');
  if (input.soa) {
    const soaTtl = validateTtl(input.soa.ttl);
    lines.push(line('@', soaTtl, 'SOA', formatValueRelative('SOA', formatSoa(input.soa), origin)));
  }
  let previous: string | undefined = input.soa ? origin : undefined;
  for (const [i, r] of records.entries()) {
    const owner = r.name === previous ? '' : relativeName(r.name, origin);
    previous = r.name;
    lines.push(line(owner, r.ttl, r.type, formatValueRelative(r.type, r.value, origin)));
    if (pause(i)) yield;
  }
  return `${lines.join('\n')}\n`;
}
