/**
 * What one answering loop counts (the answer thread, an answer worker, or the engine's own loop): plain numbers in a
 * Float64Array at fixed offsets, added to on the answer path with no allocation, no string and no clock, and read
 * whole (`snapshot`) when metrics are scraped — the loop never waits for a scrape. Zones get a block of counters each
 * (a slot), found once per zone copy and cached answer, never per query by name.
 *
 * The names and buckets follow CoreDNS's metrics (docs/operations.md lists them); the host turns snapshots into
 * Prometheus metrics. Rare events (zone transfers, NOTIFY received) are counted by key in a Map.
 */

/** Question types counted by name (as CoreDNS's monitored types, and a few more); every other one is "other". */
export const COUNTED_TYPES = [
  'other',
  'A',
  'NS',
  'CNAME',
  'SOA',
  'PTR',
  'MX',
  'TXT',
  'AAAA',
  'SRV',
  'NAPTR',
  'DNAME',
  'DS',
  'SSHFP',
  'RRSIG',
  'NSEC',
  'DNSKEY',
  'NSEC3',
  'NSEC3PARAM',
  'TLSA',
  'CDS',
  'CDNSKEY',
  'SVCB',
  'HTTPS',
  'CAA',
  'IXFR',
  'AXFR',
  'ANY',
] as const;
const TYPE_CODES: Record<string, number> = {
  A: 1,
  NS: 2,
  CNAME: 5,
  SOA: 6,
  PTR: 12,
  MX: 15,
  TXT: 16,
  AAAA: 28,
  SRV: 33,
  NAPTR: 35,
  DNAME: 39,
  DS: 43,
  SSHFP: 44,
  RRSIG: 46,
  NSEC: 47,
  DNSKEY: 48,
  NSEC3: 50,
  NSEC3PARAM: 51,
  TLSA: 52,
  CDS: 59,
  CDNSKEY: 60,
  SVCB: 64,
  HTTPS: 65,
  CAA: 257,
  IXFR: 251,
  AXFR: 252,
  ANY: 255,
};
const TYPES = COUNTED_TYPES.length;
/** Question type number → index in COUNTED_TYPES (0: other). */
const TYPE_INDEX = new Uint8Array(65_536);
COUNTED_TYPES.forEach((name, i) => {
  const code = TYPE_CODES[name];
  if (code !== undefined) TYPE_INDEX[code] = i;
});

/** Adds `n` to counter `i` (an index within `c`, always: `?? 0` only satisfies strict indexing). */
export function add(c: Float64Array, i: number, n = 1): void {
  c[i] = (c[i] ?? 0) + n;
}

/** The index of question type `code` among COUNTED_TYPES. */
export function typeIndex(code: number): number {
  return TYPE_INDEX[code & 0xffff] ?? 0;
}

/** Who made a response (CoreDNS's `plugin` label): the answer cache, the zone data, a transfer, UPDATE, NOTIFY, none. */
export const PLUGINS = ['', 'cache', 'file', 'transfer', 'update', 'notify'] as const;
export const PLUGIN = { none: 0, cache: 1, file: 2, transfer: 3, update: 4, notify: 5 } as const;
const PLUGIN_COUNT = PLUGINS.length;

export const RCODE_NAMES = [
  'NOERROR',
  'FORMERR',
  'SERVFAIL',
  'NXDOMAIN',
  'NOTIMP',
  'REFUSED',
  'YXDOMAIN',
  'YXRRSET',
  'NXRRSET',
  'NOTAUTH',
  'NOTZONE',
  'RCODE11',
  'RCODE12',
  'RCODE13',
  'RCODE14',
  'RCODE15',
] as const;

/** CoreDNS's size buckets (bytes) of coredns_dns_request_size_bytes and coredns_dns_response_size_bytes. */
export const SIZE_BUCKETS = [0, 100, 200, 300, 400, 511, 1023, 2047, 4095, 8291, 16e3, 32e3, 48e3, 64e3] as const;
/** CoreDNS's time buckets (seconds) of coredns_dns_request_duration_seconds: 0.25 ms doubling up to 8.192 s. */
export const TIME_BUCKETS = Array.from({ length: 16 }, (_, i) => 0.00025 * 2 ** i);
/** Each histogram: one count per bucket, one for +Inf, then the sum. */
const SIZE_SLOTS = SIZE_BUCKETS.length + 2;
const TIME_SLOTS = TIME_BUCKETS.length + 2;
/** Message length → its size bucket (the first whose bound it does not exceed; SIZE_BUCKETS.length: +Inf). */
const SIZE_INDEX = new Uint8Array(65_536);
for (let n = 0, b = 0; n < 65_536; n++) {
  while (b < SIZE_BUCKETS.length && n > (SIZE_BUCKETS[b] ?? 0)) b++;
  SIZE_INDEX[n] = b;
}

export const PROTOS = ['udp', 'tcp'] as const;
export type Proto = 0 | 1;
export const UDP: Proto = 0;
export const TCP: Proto = 1;

/** Why a message got no answer at all. */
export const DROP_REASONS = ['malformed', 'response', 'handover-full'] as const;
export const DROP = { malformed: 0, response: 1, handoverFull: 2 } as const;

// The counters of one zone (its block): requests by proto, family and type; responses by rcode and plugin; request
// and response sizes by proto.
const REQUESTS = 0;
const RESPONSES = REQUESTS + 2 * 2 * TYPES;
const REQUEST_SIZE = RESPONSES + 16 * PLUGIN_COUNT;
const RESPONSE_SIZE = REQUEST_SIZE + 2 * SIZE_SLOTS;
export const ZONE_BLOCK = RESPONSE_SIZE + 2 * SIZE_SLOTS;

/** Offsets of the counters that belong to no zone (the start of the array). */
export const G = {
  cacheHitsSuccess: 0,
  cacheHitsDenial: 1,
  cacheMisses: 2,
  truncated: 3,
  tcpAccepted: 4,
  tcpClosed: 5,
  tcpRefused: 6,
  tcpTimeouts: 7,
  rrlDropped: 8, // response rate limiting: responses not sent (log-only: that would not have been)
  rrlSlipped: 9, // and sent truncated in their place (log-only: that would have been)
  dropped: 10, // DROP_REASONS.length of them
  duration: 10 + DROP_REASONS.length, // per proto, TIME_SLOTS each
} as const;
const GLOBAL = G.duration + 2 * TIME_SLOTS;

/** Offsets within a zone block (for whoever reads a snapshot). */
export const ZONE_OFFSETS = {
  REQUESTS,
  RESPONSES,
  REQUEST_SIZE,
  RESPONSE_SIZE,
  TYPES,
  PLUGINS: PLUGIN_COUNT,
  SIZE_SLOTS,
};
export const TIME_SLOT_COUNT = TIME_SLOTS;

/** What one loop counted so far: a copy, to be sent to the thread that serves metrics. */
export interface DnsStatsSnapshot {
  /** The counters that belong to no zone (see G). */
  global: Float64Array;
  /** Per zone (its name, "" the root), its block of counters (see ZONE_OFFSETS). */
  zones: Array<[zone: string, block: Float64Array]>;
  /** Zone transfers over TCP by the rcode of their first message: "zone type rcode" → count. */
  transfers: Array<[key: string, count: number]>;
  /** NOTIFY received: "zone rcode" → count. */
  notifies: Array<[key: string, count: number]>;
  /** Answers the answer cache holds now. */
  cacheEntries: number;
}

/** The zone slot of messages for no zone we serve (their `zone` label is "."). */
export const NO_ZONE = -1;

export class DnsStats {
  /** The counters: GLOBAL of their own, then a block per zone slot. */
  counts = new Float64Array(GLOBAL + 8 * ZONE_BLOCK);
  private readonly slots = new Map<string, number>();
  private readonly names: string[] = [];
  private readonly transfers = new Map<string, number>();
  private readonly notifies = new Map<string, number>();
  /** Read at snapshot time: the answer cache's size. */
  cacheEntries: () => number = () => 0;

  /**
   * The offset of `zone`'s block (undefined, or a zone never seen: a new block). Messages for no zone we serve count
   * in the block of the name "." — which is also the root zone's when we serve it.
   */
  zoneBase(zone: string | undefined): number {
    const name = zone ?? '.';
    let slot = this.slots.get(name);
    if (slot === undefined) {
      slot = this.names.length;
      this.names.push(name);
      this.slots.set(name, slot);
      const need = GLOBAL + (slot + 1) * ZONE_BLOCK;
      if (need > this.counts.length) {
        const grown = new Float64Array(Math.max(need, this.counts.length * 2));
        grown.set(this.counts);
        this.counts = grown;
      }
    }
    return GLOBAL + slot * ZONE_BLOCK;
  }

  /**
   * One answered request: `base` its zone's block (zoneBase), `type` its question type (typeIndex), `response` the
   * message sent first. `family` 1 IPv4, 2 IPv6.
   */
  answered(
    base: number,
    type: number,
    proto: Proto,
    family: number,
    requestLength: number,
    response: Buffer,
    plugin: number,
  ): void {
    const c = this.counts;
    add(c, base + REQUESTS + (proto * 2 + family - 1) * TYPES + type);
    add(c, base + RESPONSES + ((response[3] ?? 0) & 0xf) * PLUGIN_COUNT + plugin);
    let at = base + REQUEST_SIZE + proto * SIZE_SLOTS;
    add(c, at + (SIZE_INDEX[requestLength] ?? 0));
    add(c, at + SIZE_SLOTS - 1, requestLength);
    const length = response.length;
    at = base + RESPONSE_SIZE + proto * SIZE_SLOTS;
    add(c, at + (SIZE_INDEX[length] ?? 0));
    add(c, at + SIZE_SLOTS - 1, length);
    if (proto === UDP && ((response[2] ?? 0) & 0x02) !== 0) add(c, G.truncated);
  }

  /** `count` requests took `seconds` each (a batch's answers all go out at its end). */
  duration(proto: Proto, seconds: number, count: number): void {
    const c = this.counts;
    const at = G.duration + proto * TIME_SLOTS;
    let b = 0;
    while (b < TIME_BUCKETS.length && seconds > (TIME_BUCKETS[b] ?? 0)) b++;
    add(c, at + b, count);
    add(c, at + TIME_SLOTS - 1, seconds * count);
  }

  dropped(reason: number): void {
    add(this.counts, G.dropped + reason);
  }

  /** A zone transfer answered with `rcode` (NOERROR: streamed). */
  transfer(zone: string, type: string, rcode: number): void {
    const key = `${zone} ${type} ${RCODE_NAMES[rcode & 0xf]}`;
    this.transfers.set(key, (this.transfers.get(key) ?? 0) + 1);
  }

  /** A NOTIFY received, answered with `rcode`. */
  notify(zone: string, rcode: number): void {
    const key = `${zone} ${RCODE_NAMES[rcode & 0xf]}`;
    this.notifies.set(key, (this.notifies.get(key) ?? 0) + 1);
  }

  snapshot(): DnsStatsSnapshot {
    const c = this.counts;
    return {
      global: c.slice(0, GLOBAL),
      zones: this.names.map((name, slot) => [
        name,
        c.slice(GLOBAL + slot * ZONE_BLOCK, GLOBAL + (slot + 1) * ZONE_BLOCK),
      ]),
      transfers: [...this.transfers],
      notifies: [...this.notifies],
      cacheEntries: this.cacheEntries(),
    };
  }
}

/** The family of a client address as transports give it (1 IPv4, 2 IPv6; IPv4-mapped IPv6 counts as IPv6). */
export function familyOf(address: string | undefined): number {
  return address !== undefined && address.indexOf(':') >= 0 ? 2 : 1;
}

/** The snapshots of several loops added up (zones by name; keyed counts by key). */
export function mergeSnapshots(snapshots: readonly DnsStatsSnapshot[]): DnsStatsSnapshot {
  const global = new Float64Array(GLOBAL);
  const zones = new Map<string, Float64Array>();
  const transfers = new Map<string, number>();
  const notifies = new Map<string, number>();
  let cacheEntries = 0;
  const add = (into: Float64Array, from: Float64Array): void => {
    for (let i = 0; i < into.length; i++) into[i] = (into[i] ?? 0) + (from[i] ?? 0);
  };
  for (const s of snapshots) {
    add(global, s.global);
    for (const [zone, block] of s.zones) {
      let sum = zones.get(zone);
      if (!sum) zones.set(zone, (sum = new Float64Array(ZONE_BLOCK)));
      add(sum, block);
    }
    for (const [k, n] of s.transfers) transfers.set(k, (transfers.get(k) ?? 0) + n);
    for (const [k, n] of s.notifies) notifies.set(k, (notifies.get(k) ?? 0) + n);
    cacheEntries += s.cacheEntries;
  }
  return { global, zones: [...zones], transfers: [...transfers], notifies: [...notifies], cacheEntries };
}
