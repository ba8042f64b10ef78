import { isInZone, type RecordData, type RecordType, wireName } from '../../model';
import { fromPacketAnswer, RecordValueError } from '../../records';
import { type RecordChange, StoreError, type ZoneStore } from '../../store';
import { RCODE, type WireRecord } from '../../wire';

/**
 * RFC 2136 dynamic update against the zone store: prerequisites checked and updates applied against one snapshot,
 * then written in one transaction conditional on the serial it was computed from (so concurrent updates cannot
 * interleave); the store raises the SOA serial.
 */

export interface UpdateRequest {
  zone: string;
  prerequisites: WireRecord[];
  updates: WireRecord[];
}

/** `serial`: the zone's serial after the change, when one was committed. */
export type UpdateOutcome = { rcode: number; changed: boolean; reason?: string; serial?: number };

/** Types that only make sense in queries (RFC 2136 §3.4.1.2: FORMERR as update data). */
const META_TYPES = new Set(['ANY', 'AXFR', 'IXFR', 'MAILA', 'MAILB', 'OPT', 'TSIG']);

class UpdateRefusal extends Error {
  constructor(
    readonly rcode: number,
    message: string,
  ) {
    super(message);
  }
}

/** Current records of the names an update touches, changed in memory as the update is applied. */
class Snapshot {
  constructor(private readonly byName: Map<string, RecordData[]>) {}

  /** The records at `names`, read in one go. */
  static async read(store: ZoneStore, zone: string, names: Iterable<string>): Promise<Snapshot> {
    const byName = new Map<string, RecordData[]>();
    for (const name of names) byName.set(name, []);
    if (byName.size > 0)
      for (const r of await store.listRecords(zone, { names: [...byName.keys()] })) byName.get(r.name)?.push(r);
    return new Snapshot(byName);
  }

  at(name: string): RecordData[] {
    return this.byName.get(name) ?? [];
  }

  rrset(name: string, type: string): RecordData[] {
    return this.at(name).filter((r) => r.type === type);
  }

  set(name: string, records: RecordData[]): void {
    this.byName.set(name, records);
  }
}

function checkPrerequisite(rr: WireRecord, zone: string, snap: Snapshot, valueSets: Map<string, Set<string>>): void {
  const name = wireName(rr.name);
  if (!isInZone(name, zone))
    throw new UpdateRefusal(RCODE.NOTZONE, `prerequisite name ${name} is outside zone ${zone}`);
  if ((rr.ttl ?? 0) !== 0) throw new UpdateRefusal(RCODE.FORMERR, 'prerequisite TTL must be 0');
  const klass = rr.class;
  if (klass === 'ANY' || klass === 'NONE') {
    if (rr.rdlength !== 0)
      throw new UpdateRefusal(RCODE.FORMERR, 'prerequisite of class ANY/NONE must have empty RDATA');
    const inUse = rr.type === 'ANY' ? snap.at(name).length > 0 : snap.rrset(name, rr.type).length > 0;
    if (klass === 'ANY' && !inUse)
      throw new UpdateRefusal(rr.type === 'ANY' ? RCODE.NXDOMAIN : RCODE.NXRRSET, `${name} ${rr.type} does not exist`);
    if (klass === 'NONE' && inUse)
      throw new UpdateRefusal(rr.type === 'ANY' ? RCODE.YXDOMAIN : RCODE.YXRRSET, `${name} ${rr.type} exists`);
    return;
  }
  if (klass !== 'IN') throw new UpdateRefusal(RCODE.FORMERR, `prerequisite class ${String(klass)} is not allowed`);
  // value-dependent: collected here, compared as whole RRsets once all are read (RFC 2136 §3.2.3)
  const record = toRecord(rr);
  const key = `${record.name}\u0000${record.type}`;
  let set = valueSets.get(key);
  if (!set) valueSets.set(key, (set = new Set()));
  set.add(record.value);
}

function toRecord(rr: WireRecord): RecordData {
  try {
    return fromPacketAnswer(rr);
  } catch (err) {
    if (err instanceof RecordValueError) throw new UpdateRefusal(RCODE.FORMERR, err.message);
    throw err;
  }
}

function prescan(rr: WireRecord, zone: string): void {
  const name = wireName(rr.name);
  if (!isInZone(name, zone)) throw new UpdateRefusal(RCODE.NOTZONE, `update name ${name} is outside zone ${zone}`);
  if (rr.class === 'IN') {
    if (META_TYPES.has(rr.type)) throw new UpdateRefusal(RCODE.FORMERR, `cannot add records of type ${rr.type}`);
  } else if (rr.class === 'ANY') {
    if ((rr.ttl ?? 0) !== 0 || rr.rdlength !== 0)
      throw new UpdateRefusal(RCODE.FORMERR, 'a class ANY delete must have TTL 0 and empty RDATA');
    if (META_TYPES.has(rr.type) && rr.type !== 'ANY')
      throw new UpdateRefusal(RCODE.FORMERR, `cannot delete type ${rr.type}`);
  } else if (rr.class === 'NONE') {
    if ((rr.ttl ?? 0) !== 0) throw new UpdateRefusal(RCODE.FORMERR, 'a class NONE delete must have TTL 0');
    if (META_TYPES.has(rr.type)) throw new UpdateRefusal(RCODE.FORMERR, `cannot delete type ${rr.type}`);
  } else {
    throw new UpdateRefusal(RCODE.FORMERR, `update class ${String(rr.class)} is not allowed`);
  }
}

/** Applies one update RR to the snapshot and says which store changes that takes (RFC 2136 §3.4.2). */
function applyUpdate(rr: WireRecord, zone: string, snap: Snapshot, changes: RecordChange[]): void {
  const name = wireName(rr.name);
  const atApex = name === zone;
  const current = snap.at(name);
  if (rr.class === 'IN') {
    if (rr.type === 'SOA') return; // the serial and SOA fields are the zone's settings, managed by the store
    const record = toRecord(rr);
    const type = record.type;
    // CNAME and other data may not share a name: an add that would break that is ignored (§3.4.2.2)
    if (type === 'CNAME' ? current.some((r) => r.type !== 'CNAME') : current.some((r) => r.type === 'CNAME')) return;
    if (type === 'CNAME' && current.some((r) => r.type === 'CNAME' && r.value !== record.value)) {
      changes.push({ op: 'deleteMatching', name, type: 'CNAME' }); // a new CNAME replaces the old one
      snap.set(
        name,
        current.filter((r) => r.type !== 'CNAME'),
      );
    }
    const now = snap.at(name);
    const rrset = now.filter((r) => r.type === type);
    // RRsets have one TTL (RFC 2181 §5.2): the added record's TTL becomes the set's
    for (const r of rrset) {
      if (r.ttl !== record.ttl && 'id' in r)
        changes.push({ op: 'update', id: (r as { id: string }).id, ttl: record.ttl });
    }
    const exists = rrset.some((r) => r.value === record.value);
    if (!exists) {
      // The owner name as the UPDATE wrote it becomes its RRset's (as in BIND: the store gives the case to the
      // RRset's other records too); names inside the value come in model form.
      const given = rr.name.endsWith('.') ? rr.name.slice(0, -1) : rr.name;
      changes.push({
        op: 'add',
        record: given.toLowerCase() === record.name ? { ...record, givenName: given } : record,
      });
    }
    snap.set(name, [
      ...now.filter((r) => r.type !== type),
      ...rrset.map((r) => ({ ...r, ttl: record.ttl })),
      ...(exists ? [] : [record]),
    ]);
    return;
  }
  const protectedType = (t: RecordType): boolean => atApex && (t === 'SOA' || t === 'NS');
  if (rr.class === 'ANY') {
    if (rr.type === 'ANY') {
      const doomed = [...new Set(current.filter((r) => !protectedType(r.type)).map((r) => r.type))];
      for (const type of doomed) changes.push({ op: 'deleteMatching', name, type });
      snap.set(
        name,
        current.filter((r) => protectedType(r.type)),
      );
    } else if (!protectedType(rr.type as RecordType) && current.some((r) => r.type === rr.type)) {
      changes.push({ op: 'deleteMatching', name, type: rr.type as RecordType });
      snap.set(
        name,
        current.filter((r) => r.type !== rr.type),
      );
    }
    return;
  }
  // class NONE: delete one record; the apex SOA and the last apex NS stay (§3.4.2.4)
  if (rr.type === 'SOA') return;
  const record = toRecord(rr);
  const match = current.find((r) => r.type === record.type && r.value === record.value);
  if (!match) return;
  if (atApex && record.type === 'NS' && current.filter((r) => r.type === 'NS').length <= 1) return;
  changes.push({ op: 'deleteMatching', name, type: record.type, value: record.value });
  snap.set(
    name,
    current.filter((r) => r !== match),
  );
}

/** Runs one update against the store; retries when another change landed between read and write. */
export async function processUpdate(store: ZoneStore, request: UpdateRequest): Promise<UpdateOutcome> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const zone = await store.getZone(request.zone);
    if (!zone) return { rcode: RCODE.NOTAUTH, changed: false, reason: `not authoritative for ${request.zone}` };
    try {
      const names = [...request.prerequisites, ...request.updates]
        .map((r) => wireName(r.name))
        .filter((n) => isInZone(n, zone.name));
      const snap = await Snapshot.read(store, zone.name, names);
      const valueSets = new Map<string, Set<string>>();
      for (const rr of request.prerequisites) checkPrerequisite(rr, zone.name, snap, valueSets);
      for (const [key, values] of valueSets) {
        const [name, type] = key.split('\u0000') as [string, string];
        const actual = new Set(snap.rrset(name, type).map((r) => r.value));
        if (actual.size !== values.size || [...values].some((v) => !actual.has(v))) {
          return { rcode: RCODE.NXRRSET, changed: false, reason: `${name} ${type} differs from the prerequisite` };
        }
      }
      for (const rr of request.updates) prescan(rr, zone.name);
      const changes: RecordChange[] = [];
      for (const rr of request.updates) applyUpdate(rr, zone.name, snap, changes);
      if (changes.length === 0) return { rcode: RCODE.NOERROR, changed: false };
      const out = await store.change(zone.name, changes, { ifSerial: zone.serial });
      return { rcode: RCODE.NOERROR, changed: true, serial: out.zone.serial };
    } catch (err) {
      if (err instanceof UpdateRefusal) return { rcode: err.rcode, changed: false, reason: err.message };
      if (err instanceof StoreError && err.code === 'SERIAL_MISMATCH') continue;
      if (err instanceof StoreError) return { rcode: RCODE.SERVFAIL, changed: false, reason: err.message };
      throw err;
    }
  }
  return { rcode: RCODE.SERVFAIL, changed: false, reason: 'the zone kept changing under the update' };
}
