import type { SoaAnswer } from 'dns-packet';
import { serialAtLeast, serialMax, type StoredRecord, type Zone } from '../model';
import { emailToRname } from '../records';
import {
  type JournalStep,
  type RR,
  type SigningPolicy,
  toAnswers,
  ZoneBuilder,
  type ZoneData,
  type ZoneIndex,
  type ZoneKey,
} from '../zone';
import {
  nextKeyEvent,
  refreshSignatures,
  reshapes,
  signPatch,
  signZoneInSteps,
  unsignedPatch,
  type ZoneSigning,
} from '../dnssec';
import { keyFingerprint, type SignedZoneFiles } from './signed-zone-files';
import { StoreError, type ZoneChangeDetail, type ZoneChangeEvent, type ZoneMark, type ZoneStore } from '../store';

/**
 * Keeps the engine's in-memory index in step with the zone store. A change of records re-reads only the owner
 * names it touched and patches a copy of the zone (copy-on-write: the copy replaces the old one, which is retired,
 * so cached answers of the zone go); a change of zone settings re-reads the zone row only; creation, deletion, an
 * explicit reload and anything whose extent is unknown read the whole zone.
 */

/** What a reload must read again. */
export interface ZoneRefresh {
  /** The whole zone. */
  full?: boolean;
  /** The zone row (SOA fields). */
  settings?: boolean;
  /** Owner names whose records changed. */
  names?: Iterable<string>;
  /** The zone's serial after the change (the SOA never goes below it). */
  serial?: number;
  /**
   * The serial the change started from. A patch applies only on top of it: when the copy served has another serial
   * (a change was missed) or it is unknown, the loader catches up through the store's change log instead.
   */
  previous?: number;
  /** Bring the zone to what the store has now through the change log (a check found it behind). */
  catchUp?: boolean;
  /**
   * The zone's DNSSEC keys changed, or a re-sign was asked for (the scheduler): signed whole when its keys, their
   * timings or the denial changed or a key event came; else only the signatures near expiry are refreshed.
   */
  keys?: boolean;
}

/** The refreshes requested for the reload queued behind the running one, merged. */
interface Wanted {
  full: boolean;
  settings: boolean;
  keys: boolean;
  names: Set<string>;
  /** The newest serial the changes announced (RFC 1982 order); undefined when none did. */
  serial?: number;
  /**
   * The serial the merged changes start from when they form one chain (each starting where the one before ended);
   * null when they do not or it is unknown: the reload then follows the change log from the serial it serves.
   */
  from?: number | null;
}

/** A zone whose copy served differs from the store (see ZoneLoader.check). */
export interface ZoneDrift {
  zone: string;
  /** The serial served; null: not served. */
  served: number | null;
  /** The store's serial; null: the store has no such zone. */
  store: number | null;
  /** How it is brought in line: through the change log, or read whole (or dropped). */
  action: 'catch-up' | 'whole';
  /** False when a reload was already under way (a change on its way): none was started for the drift. */
  started: boolean;
}

export interface ZoneLoaderLogger {
  warn(obj: object, msg: string): void;
}

/** What a store event asks to read again: records changes with known names are read by name. */
export function refreshFor(event: ZoneChangeEvent, detail: ZoneChangeDetail | undefined): ZoneRefresh {
  const previous = event.previous === undefined ? {} : { previous: event.previous };
  if (event.kind === 'records-changed')
    // names left out (too many for a NOTIFY payload): the change log has them
    return detail?.names
      ? { names: detail.names, serial: event.serial, ...previous }
      : { catchUp: true, serial: event.serial };
  if (event.kind === 'zone-updated') return { settings: true, serial: event.serial, ...previous };
  if (event.kind === 'dnssec-changed') return { keys: true, serial: event.serial, ...previous };
  return { full: true };
}

/** The zone's SOA as the server answers it: SOA fields from the zone settings, TTL the zone's default TTL. */
export function soaAnswer(zone: Zone): SoaAnswer {
  return {
    name: zone.name || '.',
    type: 'SOA',
    class: 'IN',
    ttl: zone.defaultTtl,
    data: {
      mname: zone.primaryNs,
      rname: emailToRname(zone.adminEmail).replace(/\.$/, ''),
      serial: zone.serial,
      refresh: zone.refresh,
      retry: zone.retry,
      expire: zone.expire,
      minimum: zone.minimum,
    },
  };
}

/** How long after a change of a signed zone its file is written again (signed-zone-files.ts). */
const KEEP_AFTER_MS = 10_000;

const serialOf = (zone: ZoneData | undefined): number => zone?.soa.data.serial ?? 0;

export class ZoneLoader {
  /** Per zone, the last reload in its chain (reloads of one zone run one at a time). */
  private readonly reloads = new Map<string, Promise<void>>();
  /** A reload queued behind the running one, and what it must read: later requests join it (merged). */
  private readonly queued = new Map<string, { promise: Promise<void>; wanted: Wanted }>();
  /** Zones whose last reload failed: what it should have read is unknown now, so the next one reads everything. */
  private readonly stale = new Set<string>();
  /** Per zone loaded, the creation time of the zone row it was read from: a zone deleted and created again differs. */
  private readonly created = new Map<string, string>();
  /** Reloads that followed the change log (a change missed, or announced without its names). */
  caughtUpFromLog = 0;
  /** Zones being signed whole: names signed so far, of how many. */
  private readonly signingProgress = new Map<string, { done: number; total: number }>();

  constructor(
    private readonly store: ZoneStore,
    private readonly index: ZoneIndex,
    private readonly log?: ZoneLoaderLogger,
    /** Keeps zones with DNSSEC keys signed (absent: every zone is served unsigned). */
    private readonly signing?: ZoneSigning,
    /** Zones of the index that are not the store's (secondary zones): never read from it, nor dropped as absent. */
    private readonly foreign: ReadonlySet<string> = new Set(),
    /**
     * Signed zones kept on disk (signed-zone-files.ts): read before signing a zone whole, written after (when
     * writable). `engine`: in an answer worker, the engine's pid, whose rebuild of a zone it waits for.
     */
    private readonly kept?: { files: SignedZoneFiles; engine?: number },
  ) {}

  /**
   * Brings one zone of the index up to date. Reloads of a zone run one at a time; requests that arrive while one
   * runs share a single follow-up reload that reads what all of them asked for, so a burst of changes costs two
   * reloads, not one per change.
   */
  reload(zone: string, refresh: ZoneRefresh = { full: true }): Promise<void> {
    if (this.foreign.has(zone)) return Promise.resolve();
    const waiting = this.queued.get(zone);
    if (waiting) {
      merge(waiting.wanted, refresh);
      return waiting.promise;
    }
    const wanted = merge({ full: false, settings: false, keys: false, names: new Set() }, refresh);
    // told at once (before the caller tells the answer workers): a worker then waits for the file this writes
    // (a change of keys may sign whole too)
    if ((refresh.full || refresh.keys) && this.signing) this.kept?.files.markBusy(zone);
    const previous = this.reloads.get(zone) ?? Promise.resolve();
    const promise = previous
      .then(async () => {
        this.queued.delete(zone);
        await this.refresh(zone, wanted);
      })
      .catch((err: unknown) => {
        this.stale.add(zone);
        this.log?.warn({ err, zone }, 'zone reload failed; answering from the previous copy');
      });
    this.queued.set(zone, { promise, wanted });
    this.reloads.set(zone, promise);
    void promise.finally(() => {
      if (this.reloads.get(zone) !== promise) return;
      this.reloads.delete(zone);
      if (this.signing) this.kept?.files.clearBusy(zone);
    });
    return promise;
  }

  /**
   * Resolves once the index holds `zone` at `serial` or later (a change committed with that serial is visible), or
   * the zone is gone; when no reload is left that would get there (one failed), after one more full reload.
   */
  async caughtUp(zone: string, serial: number): Promise<void> {
    for (;;) {
      const data = this.index.get(zone);
      if (!data || serialAtLeast(serialOf(data), serial)) return;
      const pending = this.reloads.get(zone);
      if (!pending) return this.reload(zone);
      await pending;
    }
  }

  /**
   * Resolves once the index answers for `zone` as of `serial` or later, or — with `serial` null — no longer answers
   * for it (a deletion). Unlike caughtUp it waits for a zone not loaded yet (just created): it waits for the reloads
   * of the zone in flight, and when none is left and the index is still behind, reads the zone once more from the
   * store (the source of truth: if someone changed it meanwhile, what the store says now is served).
   */
  async served(zone: string, serial: number | null): Promise<void> {
    let forced = false;
    for (;;) {
      const data = this.index.get(zone);
      if (serial === null ? !data : data && serialAtLeast(serialOf(data), serial)) return;
      const pending = this.reloads.get(zone);
      if (pending) await pending;
      else if (forced) return;
      else {
        forced = true;
        await this.reload(zone);
      }
    }
  }

  /**
   * Compares the copies served with the store's zones (`marks`: every zone's serial and creation time) and starts
   * bringing each that differs and has no reload under way in line: behind, through the change log; ahead, another
   * incarnation, new or gone, whole. Gives what differed (zones with a reload under way included).
   */
  check(marks: ReadonlyMap<string, ZoneMark>): ZoneDrift[] {
    const drift: ZoneDrift[] = [];
    for (const [zone, mark] of marks) {
      if (this.foreign.has(zone)) continue;
      const data = this.index.get(zone);
      const same = data !== undefined && this.created.get(zone) === mark.createdAt;
      if (same && serialOf(data) === mark.serial) continue;
      const action = same && !serialAtLeast(serialOf(data), mark.serial) ? 'catch-up' : 'whole';
      drift.push({ zone, served: data ? serialOf(data) : null, store: mark.serial, action, started: false });
    }
    for (const zone of this.index.names())
      if (!marks.has(zone) && !this.foreign.has(zone))
        drift.push({ zone, served: serialOf(this.index.get(zone)), store: null, action: 'whole', started: false });
    for (const d of drift) {
      if (this.reloads.has(d.zone)) continue;
      d.started = true;
      void this.reload(d.zone, d.action === 'catch-up' ? { catchUp: true, serial: d.store! } : { full: true });
    }
    return drift;
  }

  /** Whether a reload of `zone` is under way or queued. */
  busy(zone: string): boolean {
    return this.reloads.has(zone);
  }

  /** Resolves when every reload started so far has ended. */
  async idle(): Promise<void> {
    await Promise.all(this.reloads.values());
  }

  private async refresh(zone: string, wanted: Wanted): Promise<void> {
    const loaded = this.index.get(zone);
    if (wanted.full || this.stale.has(zone) || !loaded) return this.rebuild(zone);
    // already served: a later change's catch-up read what this one touched
    if (wanted.serial !== undefined && serialAtLeast(serialOf(loaded), wanted.serial)) return;
    if (wanted.from !== serialOf(loaded) && !(await this.followLog(zone, serialOf(loaded), wanted)))
      return this.rebuild(zone);
    if (wanted.keys && !(await this.onlyRefresh(zone, loaded))) return this.rebuild(zone);
    let settings: Zone | null | undefined;
    let rows: StoredRecord[] = [];
    try {
      if (wanted.settings) settings = await this.store.getZone(zone);
      if (wanted.names.size > 0) rows = await this.store.listRecords(zone, { names: [...wanted.names] });
    } catch (err) {
      if (err instanceof StoreError && err.code === 'NOT_FOUND') return this.rebuild(zone); // deleted meanwhile
      throw err;
    }
    const current = this.index.get(zone);
    if (!current || settings === null) return this.rebuild(zone);
    // The serial the events announced, never the zone row's: that may already count changes whose names are not
    // read yet, and a secondary that transferred that serial would keep their old records.
    // (RFC 1982 order: after 4294967295 comes 1)
    const serial = wanted.serial === undefined ? serialOf(current) : serialMax(serialOf(current), wanted.serial);
    const fields = settings ? soaAnswer(settings) : current.soa;
    const soa = fields.data.serial === serial ? fields : { ...fields, data: { ...fields.data, serial } };
    // every name asked for: one without rows any more goes
    const owners = new Map<string, RR[]>();
    for (const name of wanted.names) owners.set(ownerKey(name), []);
    for (const rr of toAnswers(rows)) owners.get(rr.name.toLowerCase())?.push(rr);
    const signing = current.signing;
    if (!signing) return this.index.set(current.patched(soa, owners));
    if (!reshapes(current, soa, owners)) {
      const now = this.signingNow();
      const patched = owners.size > 0 || !wanted.keys;
      let data = patched ? signPatch(current, soa, owners, now) : current;
      let steps: JournalStep[] | undefined;
      if (wanted.keys) {
        // only what nears expiry, and the SOA (in steps: a big zone has thousands due at once)
        const refreshed = await refreshSignatures(data, soa, now);
        if (!refreshed) return this.rebuild(zone); // signed by a key that stopped: whole
        data = refreshed.data;
        // the refresh alone: IXFR's change is known, not diffed
        if (!patched && data.soa.data.serial !== current.soa.data.serial) steps = [refreshed.step];
      }
      this.index.set(data, steps);
    }
    // a delegation or DNAME changed: signed whole, in steps (the zone keeps answering from `current` meanwhile)
    else {
      const signed = await this.signWhole(
        zone,
        unsignedPatch(current, soa, owners),
        signing.keys,
        signing.policy,
        this.signingNow(),
      );
      const createdAt = this.created.get(zone);
      return this.index.set(this.kept && createdAt ? await this.kept.files.keep(zone, signed, createdAt) : signed);
    }
    this.keepLater(zone);
  }

  /** Per zone, the timer of the file write a change asked for (signed-zone-files.ts). */
  private readonly keepTimers = new Map<string, NodeJS.Timeout>();

  /**
   * Writes the zone's file KEEP_AFTER_MS after a change, with whatever changes came meanwhile: one write per period
   * however many changes (a whole image each time), so a restart after a quiet spell reads a current file.
   */
  private keepLater(zone: string): void {
    const kept = this.kept;
    if (!kept || kept.engine !== undefined || this.keepTimers.has(zone)) return;
    const timer = setTimeout(() => void this.keepNow(zone), KEEP_AFTER_MS);
    timer.unref();
    this.keepTimers.set(zone, timer);
  }

  private keepNow(zone: string): Promise<void> {
    clearTimeout(this.keepTimers.get(zone));
    this.keepTimers.delete(zone);
    const data = this.index.get(zone);
    const createdAt = this.created.get(zone);
    return data?.signing && createdAt && this.kept ? this.kept.files.write(zone, data, createdAt) : Promise.resolve();
  }

  /** Writes now the files changes asked for and not written yet, and waits for every write (the engine closes). */
  async close(): Promise<void> {
    await Promise.all([...this.keepTimers.keys()].map((zone) => this.keepNow(zone)));
    await this.filesWritten();
  }

  /**
   * Adds to `wanted` what the changes from `serial` (the copy served) to the store's serial now touched, from the
   * change log; false when that takes reading the zone whole (the log cannot tell, or keys changed: re-sign).
   */
  private async followLog(zone: string, serial: number, wanted: Wanted): Promise<boolean> {
    const chain = await this.store.changesSince(zone, serial);
    const last = chain?.at(-1);
    if (!chain || !last) return false; // [] while the event announced a newer serial: another incarnation
    for (const change of chain) {
      if (change.kind === 'zone-updated') wanted.settings = true;
      // keys or a re-sign: onlyRefresh then tells whether to sign whole
      else if (change.kind === 'dnssec-changed') wanted.keys = true;
      else if (change.kind !== 'records-changed' || !change.names) return false;
      else for (const name of change.names) wanted.names.add(name);
    }
    wanted.serial = last.serial;
    this.caughtUpFromLog += 1;
    return true;
  }

  /**
   * Whether a change of `zone`'s DNSSEC keys (the store's `dnssec-changed`) may only refresh the signatures of its copy
   * `loaded`: the keys with their timings and the denial are what the copy was signed with, and no key was published,
   * started or stopped signing, or left since. Otherwise the zone is signed whole, as a new key set needs.
   */
  private async onlyRefresh(zone: string, loaded: ZoneData): Promise<boolean> {
    const state = loaded.signing;
    const signing = this.signing;
    if (!state || !signing) return false;
    const keys = await signing.keysFor(zone, loaded.soa.name);
    const nsec3 = (await signing.nsec3For?.(zone)) ?? null;
    if (keyFingerprint(keys, { ...signing.policy, nsec3 }) !== keyFingerprint(state.keys, state.policy)) return false;
    const event = nextKeyEvent(keys, state.signedAt);
    return event === null || event > signing.now();
  }

  /** How far the zone's signing whole has got (null: it is not being signed whole now). */
  progress(zone: string): { done: number; total: number } | null {
    const p = this.signingProgress.get(zone);
    return p ? { ...p } : null;
  }

  /** `signZoneInSteps` for `zone`, its progress kept for `progress`. */
  private async signWhole(zone: string, data: ZoneData, keys: readonly ZoneKey[], policy: SigningPolicy, now: number) {
    const progress = { done: 0, total: data.nodes.size };
    this.signingProgress.set(zone, progress);
    try {
      return await signZoneInSteps(data, keys, policy, now, (done, total) => {
        progress.done = done;
        progress.total = total;
      });
    } finally {
      if (this.signingProgress.get(zone) === progress) this.signingProgress.delete(zone);
    }
  }

  private signingNow(): number {
    return this.signing?.now() ?? Math.floor(Date.now() / 1000);
  }

  /** Reads the whole zone and builds its index anew (or drops it when the store has no such zone). */
  private async rebuild(zone: string): Promise<void> {
    const settings = await this.store.getZone(zone);
    const keys = settings && this.signing ? await this.signing.keysFor(zone, soaAnswer(settings).name) : [];
    let data: ZoneData | undefined;
    if (settings && this.signing && keys.length > 0) {
      // NSEC or NSEC3 as the store says now: a switch signs the zone whole, so each serial has one chain
      const nsec3 = (await this.signing.nsec3For?.(zone)) ?? null;
      const policy = { ...this.signing.policy, nsec3 };
      data = await this.keptCopy(zone, settings, keys, policy);
      if (!data) {
        const built = await buildZoneFrom(this.store, settings);
        data = await this.signWhole(zone, built, keys, policy, this.signing.now());
        if (this.kept) data = await this.kept.files.keep(zone, data, settings.createdAt);
      }
    } else {
      data = settings ? await buildZoneFrom(this.store, settings) : undefined;
      if (this.signing) void this.kept?.files.remove(zone).catch(() => undefined);
    }
    if (data) this.index.set(data);
    else this.index.delete(zone);
    if (settings) this.created.set(zone, settings.createdAt);
    else this.created.delete(zone);
    this.stale.delete(zone);
  }

  /**
   * The signed copy of `zone` kept on disk, when it is still good (signed-zone-files.ts). An answer worker that finds
   * none waits while the engine rebuilds the zone, then looks again: the engine writes the file when done.
   */
  private async keptCopy(
    zone: string,
    settings: Zone,
    keys: readonly ZoneKey[],
    policy: SigningPolicy,
  ): Promise<ZoneData | undefined> {
    const kept = this.kept;
    const signing = this.signing;
    if (!kept || !signing) return undefined;
    const read = () => kept.files.read(zone, settings, keys, policy, signing.now());
    const found = await read();
    if (found || kept.engine === undefined) return found;
    await kept.files.waitForEngine(zone, kept.engine);
    return read();
  }

  /** Resolves once the signed zone files written so far are on disk. */
  async filesWritten(): Promise<void> {
    await this.kept?.files.flushed();
  }
}

/**
 * A zone's index built afresh from the whole zone in the store; undefined when the store has no such zone.
 * `settings` is told the zone row it read.
 */
export async function buildZone(
  store: ZoneStore,
  zone: string,
  read?: (settings: Zone) => void,
): Promise<ZoneData | undefined> {
  const settings = await store.getZone(zone);
  if (!settings) return undefined;
  read?.(settings);
  return buildZoneFrom(store, settings);
}

/** A zone's index built from its zone row, read before, and its records read now. */
async function buildZoneFrom(store: ZoneStore, settings: Zone): Promise<ZoneData> {
  // the zone row first, then its records: records may be newer than the serial, never older (see refresh)
  const builder = new ZoneBuilder(settings.name, soaAnswer(settings));
  await store.eachRecord(settings.name, (r) => builder.add(r));
  return builder.finish();
}

/** The index's key of a store owner name (as the record converter names the root). */
function ownerKey(name: string): string {
  return name === '' ? '.' : name;
}

function merge(wanted: Wanted, refresh: ZoneRefresh): Wanted {
  // one chain while each change starts where the merged ones ended; anything else is caught up through the log
  const first =
    !wanted.full && !wanted.settings && !wanted.keys && wanted.names.size === 0 && wanted.from === undefined;
  if (refresh.catchUp || refresh.previous === undefined) wanted.from = null;
  else if (first) wanted.from = refresh.previous;
  else if (wanted.serial !== refresh.previous) wanted.from = null;
  if (refresh.full) wanted.full = true;
  if (refresh.settings) wanted.settings = true;
  if (refresh.keys) wanted.keys = true;
  for (const name of refresh.names ?? []) wanted.names.add(name);
  if (refresh.serial !== undefined)
    wanted.serial = wanted.serial === undefined ? refresh.serial : serialMax(wanted.serial, refresh.serial);
  return wanted;
}
