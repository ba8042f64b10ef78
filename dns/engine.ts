import type { DecodedPacket, SoaAnswer } from 'dns-packet';
import { isIPv4, isIPv6 } from 'node:net';
import type { StoredRecord, Zone } from './model';
import { emailToRname, toPacketAnswer } from './records';
import { encodeResponse, Responder, type Remote } from './server/respond';
import { sendNotify, type NotifyTarget } from './server/notify';
import { startDnsServer, type DnsServer } from './server/server';
import { zoneTransfer } from './server/transfer';
import { processUpdate } from './server/update';
import { RCODE } from './server/wire';
import { ZoneData, ZoneIndex, type RR } from './server/zone-index';
import type { ZoneStore } from './store/types';
import type { TsigKey } from './tsig/keyfile';
import type { WireRecord } from './wire/message';

export interface DnsAccessOptions {
  /** Zone → key names allowed to update it; a zone not listed may be updated by every configured key. */
  updateKeys?: Record<string, string[]>;
  /** Zone → key names allowed to transfer it; a zone not listed may be transferred with any configured key. */
  transferKeys?: Record<string, string[]>;
  /** Unsigned zone transfers from loopback addresses (default true). */
  transferFromLoopback?: boolean;
}

export interface DnsEngineLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface DnsEngineOptions {
  store: ZoneStore;
  /** Where to answer DNS; port 0 = any free port; `listen: false` builds the index without a server. */
  host: string;
  port: number;
  listen?: boolean;
  keys?: TsigKey[];
  access?: DnsAccessOptions;
  /** Secondaries told by NOTIFY after every change of any zone. */
  notify?: NotifyTarget[];
  /** Key to sign NOTIFY messages with (by name, from `keys`). */
  notifyKey?: string;
  log?: DnsEngineLogger;
}

function isLoopback(address: string): boolean {
  const a = address.replace(/^::ffff:/, '');
  return (isIPv4(a) && a.startsWith('127.')) || (isIPv6(a) && a === '::1');
}

/**
 * Records with one TTL per RRset, the lowest of its records. RFC 2181 §5.2 gives an RRset one TTL; the store can
 * hold different ones (one record's TTL changed alone), and BIND, once it has transferred such a zone, answers
 * every record of the set with the lowest, so we serve (and transfer) exactly that.
 */
function withRrsetTtls(records: readonly StoredRecord[]): StoredRecord[] {
  const lowest = new Map<string, number>();
  for (const r of records) {
    const key = `${r.name}\u0000${r.type}`;
    const ttl = lowest.get(key);
    if (ttl === undefined || r.ttl < ttl) lowest.set(key, r.ttl);
  }
  return records.map((r) => {
    const ttl = lowest.get(`${r.name}\u0000${r.type}`) as number;
    return ttl === r.ttl ? r : { ...r, ttl };
  });
}

/** The zone's SOA as the server answers it: SOA fields from the zone settings, TTL the zone's default TTL. */
export function soaAnswer(zone: Zone): SoaAnswer {
  return {
    name: zone.name || '.', type: 'SOA', class: 'IN', ttl: zone.defaultTtl,
    data: {
      mname: zone.primaryNs, rname: emailToRname(zone.adminEmail).replace(/\.$/, ''), serial: zone.serial,
      refresh: zone.refresh, retry: zone.retry, expire: zone.expire, minimum: zone.minimum,
    },
  };
}

/**
 * The DNS engine: keeps an in-memory index of every zone in the store (rebuilt per zone on each change, before
 * the change's caller hears back when it came through DNS UPDATE), answers queries, dynamic updates and zone
 * transfers over UDP and TCP, and sends NOTIFY to secondaries after changes.
 */
export class DnsEngine {
  readonly index = new ZoneIndex();
  server?: DnsServer;
  private readonly keys: Map<string, TsigKey>;
  private readonly reloads = new Map<string, Promise<void>>();
  /** A reload queued behind the running one: later requests join it (it will read the newest state anyway). */
  private readonly queued = new Map<string, Promise<void>>();
  /** Per zone, each record's wire form by id, updatedAt and effective TTL: a reload converts only what changed. */
  private readonly converted = new Map<string, Map<string, { key: string; rr: RR }>>();
  private unsubscribe?: () => void;

  private constructor(private readonly options: DnsEngineOptions) {
    this.keys = new Map((options.keys ?? []).map((k) => [k.name, k]));
  }

  static async start(options: DnsEngineOptions): Promise<DnsEngine> {
    const engine = new DnsEngine(options);
    for (const zone of await options.store.listZones()) await engine.reload(zone.name);
    engine.unsubscribe = options.store.onChange((event) => {
      void engine.reload(event.zone).then(() => {
        if (event.kind !== 'zone-deleted') engine.notifySecondaries(event.zone);
      });
    });
    if (options.listen !== false) {
      const responder = new Responder(engine.index, {
        update: (q, _raw, remote) => engine.handleUpdate(q, remote),
        transfer: async (q, _raw, remote) => engine.handleTransfer(q, remote),
      }, engine.keys);
      engine.server = await startDnsServer({
        host: options.host, port: options.port, responder,
        onError: (err) => options.log?.warn({ err }, 'dns server error'),
      });
      options.log?.info({ host: options.host, port: engine.server.port, zones: engine.index.size }, 'DNS server listening (UDP and TCP)');
    }
    return engine;
  }

  /**
   * Rebuilds one zone of the index from the store. Reloads of a zone run one at a time; requests that arrive while
   * one runs share a single follow-up reload, so a burst of changes costs two reloads, not one per change.
   */
  reload(name: string): Promise<void> {
    const waiting = this.queued.get(name);
    if (waiting) return waiting;
    const previous = this.reloads.get(name) ?? Promise.resolve();
    const next = previous.then(async () => {
      this.queued.delete(name);
      await this.rebuild(name);
    }).catch((err: unknown) => this.options.log?.warn({ err, zone: name }, 'zone reload failed; answering from the previous copy'));
    this.queued.set(name, next);
    this.reloads.set(name, next);
    void next.finally(() => { if (this.reloads.get(name) === next) this.reloads.delete(name); });
    return next;
  }

  private async rebuild(name: string): Promise<void> {
    const zone = await this.options.store.getZone(name);
    if (!zone) {
      this.index.delete(name);
      this.converted.delete(name);
      return;
    }
    const records = withRrsetTtls(await this.options.store.listRecords(name));
    const before = this.converted.get(name) ?? new Map<string, { key: string; rr: RR }>();
    const after = new Map<string, { key: string; rr: RR }>();
    const answers = records.map((r) => {
      const key = `${r.updatedAt}\u0000${r.ttl}`;
      const known = before.get(r.id);
      const entry = known && known.key === key ? known : { key, rr: toPacketAnswer(r) as RR };
      after.set(r.id, entry);
      return entry.rr;
    });
    this.converted.set(name, after);
    this.index.set(new ZoneData(zone.name, soaAnswer(zone), answers));
  }

  private notifySecondaries(zone: string): void {
    const key = this.options.notifyKey ? this.keys.get(this.options.notifyKey) : undefined;
    for (const target of this.options.notify ?? []) {
      void sendNotify(zone, target, { key }).then((acked) => {
        if (!acked) this.options.log?.warn({ zone, target }, 'secondary did not acknowledge NOTIFY');
      });
    }
  }

  private keyAllowed(list: Record<string, string[]> | undefined, zone: string, key: string): boolean {
    const allowed = list?.[zone];
    return allowed === undefined || allowed.includes(key);
  }

  private async handleUpdate(query: DecodedPacket, remote: Remote): Promise<Buffer> {
    const question = query.questions?.[0];
    if (query.questions?.length !== 1 || !question || question.type !== 'SOA') return encodeResponse(query, {}, RCODE.FORMERR);
    const zone = question.name === '.' ? '' : question.name.toLowerCase();
    if (!this.index.get(zone)) return encodeResponse(query, {}, RCODE.NOTAUTH);
    // Updates need a valid TSIG key allowed for the zone; with no keys configured nothing may update.
    if (remote.tsig?.status !== 'ok' || !this.keyAllowed(this.options.access?.updateKeys, zone, remote.tsig.key.name)) {
      this.options.log?.warn({ zone, from: remote.address, key: remote.tsig?.status === 'ok' ? remote.tsig.key.name : null }, 'dynamic update refused');
      return encodeResponse(query, {}, RCODE.REFUSED);
    }
    const outcome = await processUpdate(this.options.store, {
      zone,
      prerequisites: (query.answers ?? []) as unknown as WireRecord[],
      updates: (query.authorities ?? []) as unknown as WireRecord[],
    });
    // The store announced the change after committing it, which started a reload that reads it: wait for that one.
    if (outcome.changed) await (this.reloads.get(zone) ?? this.reload(zone));
    this.options.log?.info({ zone, key: remote.tsig.key.name, rcode: outcome.rcode, reason: outcome.reason }, 'dynamic update');
    return encodeResponse(query, {}, outcome.rcode);
  }

  private handleTransfer(query: DecodedPacket, remote: Remote): Buffer[] {
    const question = query.questions?.[0];
    const zone = question ? (question.name === '.' ? '' : question.name.toLowerCase()) : '';
    const data = this.index.get(zone);
    if (!data) return [encodeResponse(query, {}, RCODE.NOTAUTH)];
    const signedBy = remote.tsig?.status === 'ok' ? remote.tsig.key.name : undefined;
    const allowed = signedBy !== undefined
      ? this.keyAllowed(this.options.access?.transferKeys, zone, signedBy)
      : (this.options.access?.transferFromLoopback ?? true) && isLoopback(remote.address);
    if (!allowed) {
      this.options.log?.warn({ zone, from: remote.address }, 'zone transfer refused');
      return [encodeResponse(query, {}, RCODE.REFUSED)];
    }
    return zoneTransfer(query, data);
  }

  async close(): Promise<void> {
    this.unsubscribe?.();
    await this.server?.close();
    await Promise.all(this.reloads.values());
  }
}
