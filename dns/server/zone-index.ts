import type { Answer, OptAnswer, SoaAnswer } from 'dns-packet';

/** A resource record as dns-packet encodes it (every answer kind except the EDNS OPT pseudo-record). */
export type RR = Exclude<Answer, OptAnswer>;

/** Records of one owner name, by type (upper-case mnemonic). */
export type Node = Map<string, RR[]>;

/**
 * One zone in memory, ready to answer from: every lookup the server makes is a Map access. Built from the store
 * (and rebuilt on change), never queried per packet.
 */
export class ZoneData {
  /** Owner name (lower case) → records. */
  readonly nodes = new Map<string, Node>();
  /** Every name that exists in the tree, including empty non-terminals (they give NODATA, not NXDOMAIN). */
  readonly names = new Set<string>();
  /** Names below the apex with NS (zone cuts) or DNAME records: the only ones a lookup must check on its way down. */
  readonly cutsAndDnames = new Set<string>();
  /** Set when the index replaced or dropped this copy: answers computed from it (cached ones) are stale. */
  retired = false;

  constructor(readonly name: string, readonly soa: SoaAnswer, records: readonly RR[]) {
    this.add(soa);
    for (const r of records) this.add(r);
  }

  private add(record: RR): void {
    const owner = record.name.toLowerCase();
    let node = this.nodes.get(owner);
    if (!node) {
      node = new Map();
      this.nodes.set(owner, node);
    }
    const list = node.get(record.type);
    if (list) list.push(record);
    else node.set(record.type, [record]);
    if ((record.type === 'NS' || record.type === 'DNAME') && owner !== this.name) this.cutsAndDnames.add(owner);
    // the owner and every ancestor down from the apex exist
    for (let n = owner; ; n = parentOf(n)) {
      this.names.add(n);
      if (n === this.name || n === '') break;
    }
  }

  /** TTL of negative answers: the SOA's TTL capped by its minimum field (RFC 2308 §5). */
  get negativeTtl(): number {
    return Math.min(this.soa.ttl ?? 0, this.soa.data.minimum ?? 0);
  }

  /** The SOA as NXDOMAIN and NODATA answers carry it: with the negative TTL (one object per zone copy). */
  get negativeSoa(): RR {
    return (this.negative ??= { ...this.soa, ttl: this.negativeTtl });
  }

  private negative?: RR;
}

export function parentOf(name: string): string {
  const dot = name.indexOf('.');
  return dot < 0 ? '' : name.slice(dot + 1);
}

/** All zones this server is authoritative for; finds the closest enclosing zone of a name. */
export class ZoneIndex {
  private readonly zones = new Map<string, ZoneData>();
  /**
   * Raised whenever a zone is added or removed (which zone encloses a name may change); replacing a zone's data
   * retires the old copy instead. Cached answers are valid while both their layout and their zone are current.
   */
  layout = 0;

  set(zone: ZoneData): void {
    const previous = this.zones.get(zone.name);
    this.zones.set(zone.name, zone);
    if (previous === zone) return;
    if (previous) previous.retired = true;
    else this.layout++;
  }

  delete(name: string): void {
    const previous = this.zones.get(name);
    if (!previous) return;
    this.zones.delete(name);
    previous.retired = true;
    this.layout++;
  }

  get(name: string): ZoneData | undefined {
    return this.zones.get(name);
  }

  get size(): number {
    return this.zones.size;
  }

  /** The longest zone name that is the name itself or one of its ancestors. */
  find(lowerName: string): ZoneData | undefined {
    for (let n = lowerName; ; n = parentOf(n)) {
      const zone = this.zones.get(n);
      if (zone) return zone;
      if (n === '') return undefined;
    }
  }
}
