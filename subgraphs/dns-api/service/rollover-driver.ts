import { GraphQLError } from 'graphql';
import { seconds } from '../../../dns/dnssec';
import { StoreError, type DnssecKey, type ZoneStore } from '../../../dns/store';
import type { ChangeFeed } from './changes';
import type { DnssecService } from './dnssec';
import { dsAtParentServers, dsMatches, dsValue, parentAmong, type DsCheckOptions } from './parent-ds';
import { currentKey, type KeyKind, kskRollover, rolloverViews } from './rollovers';
import type { DnsServing } from './serving';

export interface RolloverDriverLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface RolloverDriverOptions {
  /** How often zones are looked at (ms; 0: never by itself — tests call `tick`). */
  everyMs: number;
  /** Start a rollover when a key's lifetime (`expires_at`) is over. */
  autoRollover: boolean;
  /** How the parent's servers are asked for a DS (a parent zone that is not ours). */
  dsCheck: DsCheckOptions;
  log?: RolloverDriverLogger;
}

const isConflict = (err: unknown): boolean =>
  err instanceof GraphQLError && (err.extensions as { code?: unknown }).code === 'CONFLICT';

/** Whether `work` succeeded; false when it was a 409 (another replica did it first). */
async function notConflict(work: Promise<unknown>): Promise<boolean> {
  try {
    await work;
    return true;
  } catch (err) {
    if (isConflict(err)) return false;
    throw err;
  }
}

/** Who the feed names for the changes the scheduled part makes. */
const BY = 'dnssec-scheduler';

const cdsNow = (k: DnssecKey, now: number): boolean =>
  k.cdsAt !== null &&
  (seconds(k.cdsAt) ?? 0) <= now &&
  (k.cdsUntil === null || (seconds(k.cdsUntil) ?? 0) > now) &&
  (seconds(k.publishAt) ?? 0) <= now &&
  (k.deleteAt === null || (seconds(k.deleteAt) ?? 0) > now);

/**
 * The scheduled part of rollovers, on every replica: each check looks at every signed zone and
 * - as the parent of a zone of ours that publishes CDS, makes the parent's DS RRset for it what the CDS say
 *   (RFC 7344 §4: the CDS are our own keys', all in the child's DNSKEY RRset);
 * - for a KSK rollover that is ready, looks for the parent's DS for the new KSK — in the parent zone when it is ours,
 *   else at the parent's servers — and when it is there, records it (the old KSK then retires);
 * - starts a rollover of a key whose lifetime is over (`DNSSEC_AUTO_ROLLOVER`).
 * Every write is conditional (the zone's serial, its key set), so of replicas checking at once one writes and the
 * others find the work done; a check still running when the next is due makes that one skip.
 */
export class RolloverDriver {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    private readonly store: ZoneStore,
    private readonly dnssec: DnssecService,
    private readonly serving: DnsServing,
    private readonly feed: ChangeFeed,
    private readonly options: RolloverDriverOptions,
    private readonly now: () => number = () => Math.floor(Date.now() / 1000),
  ) {}

  start(): void {
    if (this.options.everyMs <= 0 || this.timer) return;
    this.timer = setInterval(() => {
      if (!this.running) void this.tick();
    }, this.options.everyMs);
    this.timer.unref();
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One check of every zone (what the timer runs); failures are logged, never thrown. */
  tick(): Promise<void> {
    this.running ??= this.checkAll().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async checkAll(): Promise<void> {
    let zones: string[];
    try {
      zones = (await this.store.listZones()).map((z) => z.name);
    } catch (err) {
      this.options.log?.warn({ err }, 'DNSSEC rollovers: the zones could not be read; trying again at the next check');
      return;
    }
    const names = new Set(zones);
    for (const zone of zones) {
      try {
        await this.check(zone, parentAmong(zone, names));
      } catch (err) {
        this.options.log?.warn({ err, zone }, 'DNSSEC rollovers: the zone could not be checked');
      }
    }
  }

  private async check(zone: string, parent: string | null): Promise<void> {
    const keys = await this.store.listDnssecKeys(zone).catch(() => [] as DnssecKey[]);
    if (keys.length === 0) return;
    const now = this.now();
    if (parent !== null) await this.syncParentDs(parent, zone, keys, now);
    const r = kskRollover(keys, now);
    if (r?.step === 'ready') {
      const ttl =
        parent !== null
          ? await this.dsInOurParent(parent, zone, r.fresh)
          : await dsAtParentServers(zone, r.fresh, this.options.dsCheck);
      // another replica recording it first is a 409 here: nothing to do
      if (ttl !== null && (await notConflict(this.dnssec.confirmDs(zone, { keyId: r.fresh.id, parentDsTtl: ttl }, BY))))
        this.options.log?.info(
          { zone, key: r.fresh.id, parent: parent ?? 'elsewhere', dsTtl: ttl },
          "DNSSEC: the parent's DS for the new KSK is there; the old KSK retires",
        );
    }
    if (this.options.autoRollover) await this.autoRollovers(zone, keys, now);
  }

  /** Starts the rollover of each kind whose current key's lifetime is over (none of that kind in progress). */
  private async autoRollovers(zone: string, keys: readonly DnssecKey[], now: number): Promise<void> {
    const busy = new Set(rolloverViews(keys, now).map((v) => v.keyType));
    for (const kind of ['ZSK', 'KSK'] as KeyKind[]) {
      const key = currentKey(keys, kind, now);
      if (!key || busy.has(kind) || (seconds(key.expiresAt) ?? Infinity) > now) continue;
      const started = await this.dnssec.rotate(zone, BY, kind).catch((err: unknown) => {
        if (isConflict(err)) return null; // another replica started it first
        throw err;
      });
      if (!started) return;
      this.options.log?.info(
        { zone, keyType: kind, oldKey: started.oldKeyId, newKey: started.newKeyId, expiredAt: key.expiresAt },
        `DNSSEC: a ${kind} reached the end of its lifetime; ${kind} rollover started`,
      );
      return; // one rollover per check: the next sees the keys this one wrote
    }
  }

  /**
   * The parent's DS RRset for `child` made what the child's CDS say, when the child publishes CDS (none: no change,
   * RFC 7344 §4.1). Written only onto the parent as read (its serial), then waited for over DNS.
   */
  private async syncParentDs(parent: string, child: string, keys: readonly DnssecKey[], now: number): Promise<void> {
    const cds = keys.filter((k) => k.flags === 257 && cdsNow(k, now));
    if (cds.length === 0) return;
    const wanted = cds.map((k) => dsValue(child, k)).sort();
    const zone = await this.store.getZone(parent);
    if (!zone) return;
    const present = await this.store.listRecords(parent, { name: child, type: 'DS' });
    const have = present.map((r) => r.value.toUpperCase()).sort();
    if (have.length === wanted.length && have.every((v, i) => v === wanted[i]?.toUpperCase())) return;
    const ttl = present[0]?.ttl ?? zone.defaultTtl;
    try {
      const { zone: after } = await this.store.change(
        parent,
        [
          { op: 'deleteMatching', name: child, type: 'DS' },
          ...wanted.map((value) => ({ op: 'add' as const, record: { name: child, type: 'DS' as const, ttl, value } })),
        ],
        { ifSerial: zone.serial },
      );
      this.feed.attribute(parent, after.serial, BY);
      this.options.log?.info({ zone: parent, child, ds: wanted }, "DNSSEC: the child's CDS changed its DS RRset here");
      await this.serving.served(parent, after.serial);
    } catch (err) {
      if (!(err instanceof StoreError && err.code === 'SERIAL_MISMATCH')) throw err;
    }
  }

  /** The TTL of the parent's DS RRset for `child` when it points at `key` (the parent is ours), else null. */
  private async dsInOurParent(parent: string, child: string, key: DnssecKey): Promise<number | null> {
    const ds = await this.store.listRecords(parent, { name: child, type: 'DS' });
    return dsMatches(
      child,
      key,
      ds.map((r) => r.value),
    )
      ? Math.max(...ds.map((r) => r.ttl))
      : null;
  }
}
