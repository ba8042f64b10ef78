import { type StoredRecord, wireName, type Zone } from '../model';
import { rnameToEmail, soaNames } from '../records';
import type { RecordPosition, ZoneStore } from '../store';
import { nextTurn } from '../../platform/async';
import { formatZoneFileInSteps } from './format';
import { parseZoneFileInSteps } from './parse';

/**
 * Moving zones in and out of the store as RFC 1035 master files, so a BIND zone comes in and goes out unchanged.
 * The SOA's fields become the zone's settings; its TTL the zone's default TTL; its serial the zone's serial, so
 * secondaries that hold the zone already see no change (later changes raise it as usual).
 */
export async function importZoneFile(store: ZoneStore, name: string, text: string): Promise<Zone> {
  const parsed = await parseZoneFileInSteps(text, { origin: name });
  if (!parsed.soa) throw new Error(`zone file for ${name || '.'} has no SOA record`);
  const { soa } = parsed;
  const settings = {
    adminEmail: rnameToEmail(soa.rname),
    primaryNs: soa.mname,
    refresh: soa.refresh,
    retry: soa.retry,
    expire: soa.expire,
    minimum: soa.minimum,
    defaultTtl: soa.ttl,
  };
  // The SOA is written back from the settings (answers, exports): they must make it again.
  soaNames(wireName(name), settings);
  return store.createZone(wireName(name), settings, parsed.records, { serial: soa.serial });
}

/** Records read from the store at a time by an export (a few milliseconds of SQLite). */
const EXPORT_PAGE = 5_000;

/**
 * The zone's records for an export, a page at a time, each on its own turn of the event loop and stopping between
 * pages once `signal` fires. Pages read while the zone changed show no one version (the SOA's serial would not
 * match them): then the records are read again in one statement, as the zone is now.
 */
async function recordsOf(store: ZoneStore, zone: Zone, signal: AbortSignal | undefined) {
  const records: StoredRecord[] = [];
  for (let after: RecordPosition | undefined; ;) {
    signal?.throwIfAborted();
    const page = await store.listRecords(zone.name, { limit: EXPORT_PAGE, ...(after ? { after } : {}) });
    for (const r of page) records.push(r);
    const last = page[page.length - 1];
    if (page.length < EXPORT_PAGE || !last) break;
    after = { name: last.name, type: last.type, value: last.value, id: last.id };
    await nextTurn();
  }
  const now = await store.getZone(zone.name);
  if (!now) throw new Error(`no zone ${zone.name}`);
  return now.serial === zone.serial ? { zone, records } : { zone: now, records: await store.listRecords(zone.name) };
}

/**
 * The zone as a master file. Read and written in steps (a zone of 100 000 records is about a second of work), which
 * stop once `signal` fires: its reason is thrown.
 */
export async function exportZoneFile(store: ZoneStore, name: string, signal?: AbortSignal): Promise<string> {
  const current = await store.getZone(name);
  if (!current) throw new Error(`no zone ${name}`);
  const { zone, records } = await recordsOf(store, current, signal);
  // ZoneNameError for a zone stored before its names were checked: its SOA cannot be written.
  const { rname } = soaNames(zone.name, zone);
  return formatZoneFileInSteps(
    {
      origin: zone.name,
      ttl: zone.defaultTtl,
      soa: {
        mname: zone.primaryNs,
        rname,
        serial: zone.serial,
        refresh: zone.refresh,
        retry: zone.retry,
        expire: zone.expire,
        minimum: zone.minimum,
        ttl: zone.defaultTtl,
      },
      records,
    },
    signal,
  );
}
