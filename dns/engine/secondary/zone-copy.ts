import type { SoaAnswer } from 'dns-packet';
import { readFile, rm, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import type { ClientRecord, IxfrStep } from '../../client';
import { type RecordData, toFqdn } from '../../model';
import { formatSoa, parseSoa, RecordValueError, validateRecord } from '../../records';
import { cmp } from '../../store';
import { type RR, toAnswers, ZoneBuilder, type ZoneData } from '../../zone';
import { formatZoneFileInSteps, parseZoneFileInSteps, type ZoneSoa } from '../../zonefile';
import { writePrivateFile } from '../../../platform/files';

/**
 * A secondary zone's content as transferred from its primary: its SOA and every other record in model form. It
 * becomes a zone copy the server answers from (`zoneData`) and a master file on disk (`saveCopy`), read back at
 * the next start (`loadCopy`) so the zone is served at once, before the primary is asked, as BIND does.
 */
export interface Transferred {
  zone: string;
  soa: ZoneSoa;
  records: RecordData[];
  /** Records of types this server cannot hold (DNSSEC records of a signed primary, unknown types): left out. */
  skipped: number;
}

/** Collects a transfer's records (DnsClient.transferEach hands them one by one) into a Transferred. */
export class TransferCollector {
  readonly records: RecordData[] = [];
  skipped = 0;

  constructor(private readonly zone: string) {}

  readonly add = (record: ClientRecord): void => {
    const model = modelForm(this.zone, record);
    if (model) return void this.records.push(model);
    this.skipped += 1;
  };

  finish(soa: ClientRecord): Transferred {
    return { zone: this.zone, soa: soaOf(soa), records: this.records, skipped: this.skipped };
  }
}

/** The SOA record of a transfer or an answer as the zone file's SOA (fields and TTL). */
export function soaOf(record: ClientRecord): ZoneSoa {
  return { ...parseSoa(record.value), ttl: record.ttl };
}

/** The SOA as the server answers it (names without the trailing dot, as soaAnswer gives them). */
function soaAnswer(zone: string, soa: ZoneSoa): SoaAnswer {
  const { ttl, ...data } = soa;
  return { name: zone || '.', type: 'SOA', class: 'IN', ttl, data };
}

/** The store's order (name, type, value in byte order): ZoneBuilder takes records grouped by owner, as the store lists them. */
function storeOrder(a: RecordData, b: RecordData): number {
  return cmp(a.name, b.name) || cmp(a.type, b.type) || cmp(a.value, b.value);
}

/** The zone copy the server answers from, built as the engine builds a zone of the store. */
export function zoneData(copy: Transferred): ZoneData {
  const builder = new ZoneBuilder(copy.zone, soaAnswer(copy.zone, copy.soa));
  for (const record of [...copy.records].sort(storeOrder)) builder.add(record);
  return builder.finish();
}

/**
 * The zone copy for `copy` made from `current` (the copy of the version the IXFR started from) by replacing the
 * owner names the steps `touched`: no rebuild of the whole zone, and the answer thread gets a patch image.
 */
export function patchedData(current: ZoneData, copy: Transferred, touched: ReadonlySet<string>): ZoneData {
  const owners = new Map<string, RR[]>();
  const rows = new Map<string, RecordData[]>();
  for (const name of touched) rows.set(name, []);
  for (const record of copy.records) rows.get(record.name)?.push(record);
  for (const [name, records] of rows) owners.set(name === '' ? '.' : name, toAnswers(records.sort(storeOrder)));
  return current.patched(soaAnswer(copy.zone, copy.soa), owners);
}

/** The owner names (model form) the steps of an IXFR delete or add records at. */
export function touchedNames(zone: string, steps: readonly IxfrStep[]): Set<string> {
  const names = new Set<string>();
  for (const step of steps)
    for (const record of [...step.deleted, ...step.added]) {
      const model = modelForm(zone, record);
      if (model) names.add(model.name);
    }
  return names;
}

/** Where a zone's copy is kept in `dir`: one master file per zone, named after it. */
export function copyFile(dir: string, zone: string): string {
  return join(dir, `${encodeURIComponent(zone || '.')}.zone`);
}

/** Writes the copy as a master file, whole or not at all (a temporary file renamed over the old one). */
export async function saveCopy(dir: string, copy: Transferred): Promise<void> {
  const text = await formatZoneFileInSteps({ origin: copy.zone, soa: copy.soa, records: copy.records });
  writePrivateFile(copyFile(dir, copy.zone), text);
}

/**
 * The copy kept in `dir` and when it was last known current (the file's modification time: a refresh that finds
 * the primary's serial unchanged touches it, as BIND does), or undefined when there is none.
 */
export async function loadCopy(dir: string, zone: string): Promise<{ copy: Transferred; since: number } | undefined> {
  const file = copyFile(dir, zone);
  let text: string;
  let since: number;
  try {
    [text, since] = await Promise.all([readFile(file, 'utf8'), stat(file).then((s) => s.mtimeMs)]);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const parsed = await parseZoneFileInSteps(text, { origin: zone });
  if (!parsed.soa) throw new Error(`${file} has no SOA record`);
  return { copy: { zone, soa: parsed.soa, records: parsed.records, skipped: 0 }, since };
}

/** The copy was found current now: its file says so (see loadCopy). */
export async function touchCopy(dir: string, zone: string, at: Date): Promise<void> {
  await utimes(copyFile(dir, zone), at, at).catch(() => undefined); // no file yet: the next transfer writes one
}

/** Removes the copy kept in `dir` (none: nothing to do). */
export async function removeCopy(dir: string, zone: string): Promise<void> {
  await rm(copyFile(dir, zone), { force: true });
}

/** The copy's SOA as a client record: what an IXFR request carries (RFC 1995 §3). */
export function soaRecord(copy: Transferred): ClientRecord {
  const { ttl, ...fields } = copy.soa;
  return { name: copy.zone, type: 'SOA', ttl, value: formatSoa(fields) };
}

/** What makes a record the same one for IXFR's deletions: owner, type and value (normalised), not the TTL. */
const identity = (r: RecordData): string => `${r.name}\u0000${r.type}\u0000${r.value}`;

/**
 * `copy` with the steps of an IXFR applied (RFC 1995 §4): each step's deletions, then its additions; undefined
 * when the steps do not fit the copy (they start from another serial, or delete a record it does not hold): the
 * caller transfers the zone whole instead.
 */
export function applySteps(
  copy: Transferred,
  steps: readonly IxfrStep[],
  final: ClientRecord,
): Transferred | undefined {
  const records = new Map(copy.records.map((r) => [identity(r), r]));
  let serial = copy.soa.serial;
  let skipped = copy.skipped;
  for (const step of steps) {
    if (soaOf(step.from).serial !== serial) return undefined;
    for (const gone of step.deleted) {
      const record = modelForm(copy.zone, gone);
      // a record of a type we do not hold was left out when it came: its deletion has nothing to remove
      if (record === undefined) continue;
      if (!records.delete(identity(record))) return undefined;
    }
    for (const come of step.added) {
      const record = modelForm(copy.zone, come);
      if (record === undefined) skipped += 1;
      else records.set(identity(record), record);
    }
    serial = soaOf(step.to).serial;
  }
  const soa = soaOf(final);
  if (soa.serial !== serial) return undefined;
  return { zone: copy.zone, soa, records: [...records.values()], skipped };
}

/** A transferred record in model form; undefined for one of a type this server does not hold. */
function modelForm(zone: string, record: ClientRecord): RecordData | undefined {
  try {
    return validateRecord({ ...record, name: toFqdn(record.name) }, zone, { syntax: 'master' });
  } catch (err) {
    if (err instanceof RecordValueError) return undefined;
    throw err;
  }
}
