import type { Zone } from './model';
import { rnameToEmail } from './records';
import type { ZoneStore } from './store/types';
import { formatZoneFile, parseZoneFile } from './zonefile';
import { wireName } from './names';
import { soaNames } from './zone-names';

/**
 * Moving zones in and out of the store as RFC 1035 master files, so a BIND zone comes in and goes out unchanged.
 * The SOA's fields become the zone's settings; its TTL the zone's default TTL; its serial the zone's serial, so
 * secondaries that hold the zone already see no change (later changes raise it as usual).
 */
export async function importZoneFile(store: ZoneStore, name: string, text: string): Promise<Zone> {
  const parsed = parseZoneFile(text, { origin: name });
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

export async function exportZoneFile(store: ZoneStore, name: string): Promise<string> {
  const zone = await store.getZone(name);
  if (!zone) throw new Error(`no zone ${name}`);
  const records = await store.listRecords(name);
  // ZoneNameError for a zone stored before its names were checked: its SOA cannot be written.
  const { rname } = soaNames(zone.name, zone);
  return formatZoneFile({
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
  });
}
