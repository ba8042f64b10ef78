/**
 * A catalog zone (RFC 9432, version 2) of the zones we serve as primary, kept as an ordinary zone of the store: so it
 * is answered, transferred, NOTIFYed and followed by every replica like any zone, and a secondary that knows catalog
 * zones (BIND 9's `catalog-zones`, Knot, PowerDNS) adds and drops member zones by itself.
 *
 * `syncCatalog` makes the catalog say what the store holds: it creates the catalog when missing, adds a member PTR
 * for every other zone and deletes those of zones that are gone. It is idempotent, so it runs at start and after
 * every zone created or deleted, by each replica (a replica that finds the work done changes nothing).
 */
import { createHash } from 'node:crypto';
import type { RecordChange, ZoneStore } from '../store';
import { StoreError } from '../store';

/** The member label of `zone`: a hash of its name, stable across restarts and replicas (RFC 9432 §4.2). */
export function memberLabel(zone: string): string {
  return createHash('sha1').update(zone.toLowerCase()).digest('hex');
}

/** The catalog's settings: RFC 9432 §4.1 wants NS "invalid." as its only NS; nothing else of the SOA matters. */
function catalogSettings(catalog: string) {
  return {
    adminEmail: `hostmaster@${catalog}`,
    primaryNs: 'invalid',
    refresh: 3600,
    retry: 600,
    expire: 2419200,
    minimum: 60,
    defaultTtl: 0,
  };
}

/** Brings the catalog zone `catalog` in line with the store's zones; the number of records it changed. */
export async function syncCatalog(store: ZoneStore, catalog: string): Promise<number> {
  const zones = (await store.listZones()).map((z) => z.name).filter((name) => name !== catalog);
  const members = `zones.${catalog}`;
  if (!(await store.getZone(catalog))) {
    try {
      await store.createZone(catalog, catalogSettings(catalog), [
        { name: catalog, type: 'NS', ttl: 0, value: 'invalid' },
        { name: `version.${catalog}`, type: 'TXT', ttl: 0, value: '"2"' },
      ]);
    } catch (err) {
      // another replica created it meanwhile: go on with theirs
      if (!(err instanceof StoreError && err.code === 'CONFLICT')) throw err;
    }
  }
  const held = (await store.listRecords(catalog, { type: 'PTR' })).filter((r) => r.name.endsWith(`.${members}`));
  const wanted = new Map(zones.map((zone) => [`${memberLabel(zone)}.${members}`, zone]));
  const changes: RecordChange[] = [];
  const present = new Set<string>();
  for (const r of held) {
    const zone = wanted.get(r.name);
    if (zone === undefined || r.value.toLowerCase() !== zone || present.has(r.name))
      changes.push({ op: 'delete', id: r.id });
    else present.add(r.name);
  }
  for (const [name, zone] of wanted)
    if (!present.has(name)) changes.push({ op: 'add', record: { name, type: 'PTR', ttl: 0, value: zone } });
  if (changes.length > 0) await store.change(catalog, changes);
  return changes.length;
}
