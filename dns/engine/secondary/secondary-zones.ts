import { DnsClient, DnsClientError } from '../../client';
import { serialGreater } from '../../model';
import type { Remote } from '../../server';
import type { TsigKey } from '../../tsig';
import { RCODE } from '../../wire';
import { ZoneBuilder, type ZoneIndex } from '../../zone';
import { hostPort, type SecondaryZone } from './spec';
import {
  applySteps,
  loadCopy,
  removeCopy,
  patchedData,
  saveCopy,
  soaOf,
  soaRecord,
  touchCopy,
  touchedNames,
  TransferCollector,
  zoneData,
  type Transferred,
} from './zone-copy';

/**
 * The zones this server serves as a secondary (RFC 1034 §4.3.5, RFC 1996): each is transferred from its primary
 * (SOA query, then AXFR when the primary's serial is newer, RFC 1982 order), put in the index like a zone of the
 * store (answered, transferred on, authoritative) and kept as a master file in `dir`, which the next start serves
 * at once. A NOTIFY from the primary starts a check at once; otherwise the SOA's refresh and retry timers do, and a
 * zone not refreshed for its expire time answers SERVFAIL until it is (BIND's behaviour). Guide:
 * docs/dns-server.md, "Secondary zones".
 */

export interface SecondaryLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface SecondaryZonesOptions {
  zones: readonly SecondaryZone[];
  index: ZoneIndex;
  /** The configured TSIG keys, by name: each zone's `key` is one of them. */
  keys: ReadonlyMap<string, TsigKey>;
  /** Where the copies are kept (DATA_DIR/secondary); undefined: nowhere (every start transfers afresh). */
  dir?: string;
  log?: SecondaryLogger;
  /** Per exchange with a primary (default 5 s). */
  timeoutMs?: number;
  /** Told after each transfer: the engine NOTIFYs its own secondaries, as BIND's secondaries do. */
  onTransferred?: (zone: string) => void;
}

/** What the health report says of one secondary zone. */
export interface SecondaryStatus {
  zone: string;
  primary: string;
  /** The TSIG key its transfers are signed with; null: unsigned. */
  key: string | null;
  /** The serial served; null: none yet. */
  serial: number | null;
  /** When the copy was last known current (transferred, or the primary's serial found unchanged). */
  refreshedAt: string | null;
  /** Past its expire time (or never transferred): answered with SERVFAIL. */
  expired: boolean;
  /** Why the last refresh failed; absent when it succeeded. */
  error?: string;
  errorAt?: string;
}

/** Retry delay when no SOA is known yet (nothing transferred): BIND retries a zone never loaded about as soon. */
const FIRST_RETRY_S = 15;
/** Timers below this are raised to it (a primary's SOA of 0 would make a busy loop). */
const MIN_TIMER_S = 1;
/** setTimeout's limit (about 24.8 days); longer waits are taken in pieces. */
const MAX_TIMEOUT_MS = 0x7fffffff;

interface ZoneState {
  spec: SecondaryZone;
  key: TsigKey | undefined;
  client: DnsClient;
  /** The copy served (its SOA's timers count; IXFR applies its steps to it). */
  copy?: Transferred;
  /** When the copy was last known current (ms). */
  since?: number;
  refresh?: NodeJS.Timeout;
  /** Refreshes by outcome (metrics): current, transferred, failed. */
  counts?: Map<string, number>;
  expire?: NodeJS.Timeout;
  /** A refresh under way, and whether another was asked for meanwhile (a NOTIFY during a transfer). */
  running?: Promise<void>;
  again: boolean;
  /** The copy to write to disk next, and the writing under way (see persist). */
  unsaved?: Transferred;
  saving?: Promise<void>;
  expired: boolean;
  error?: { message: string; at: number };
  /** Removed at run time: nothing of it is served or scheduled any more. */
  removed?: boolean;
}

export class SecondaryZones {
  private readonly states = new Map<string, ZoneState>();
  private closed = false;
  /** Ends transfers under way at close (a large zone's AXFR would hold the shutdown up). */
  private readonly stop = new AbortController();

  /** The zone names, live (the loader leaves these alone; zones added or removed later count at once). */
  private readonly zoneNames = new Set<string>();
  private started = false;

  constructor(private readonly options: SecondaryZonesOptions) {
    for (const spec of options.zones) this.states.set(spec.zone, this.stateFor(spec));
    for (const zone of this.states.keys()) this.zoneNames.add(zone);
  }

  /** A zone's state, its TSIG key looked up (an Error naming the key when it is not configured). */
  private stateFor(spec: SecondaryZone): ZoneState {
    const key = spec.key === undefined ? undefined : this.options.keys.get(spec.key);
    if (spec.key !== undefined && !key)
      throw new Error(`secondary zone ${spec.zone}: TSIG key "${spec.key}" is not one of the configured keys`);
    const client = new DnsClient({
      server: spec.primary,
      ...(key ? { key } : {}),
      timeoutMs: this.options.timeoutMs ?? 5000,
    });
    return { spec, key, client, again: false, expired: false };
  }

  /** Whether `zone` is one of the secondary zones (not the store's). */
  has(zone: string): boolean {
    return this.states.has(zone);
  }

  /** The primary `zone` is transferred from, when it is one of the secondary zones. */
  primaryOf(zone: string): { host: string; port: number } | undefined {
    return this.states.get(zone)?.spec.primary;
  }

  /** The zone's spec, when it is one of the secondary zones. */
  specOf(zone: string): SecondaryZone | undefined {
    return this.states.get(zone)?.spec;
  }

  /** The zone names, live: the loader leaves these alone. */
  names(): ReadonlySet<string> {
    return this.zoneNames;
  }

  /**
   * Serves one more secondary zone from now on (added at run time: through the API, or another replica's): its copy
   * on disk at once when there is one, then a refresh from its primary. A zone already served is left as it is.
   */
  async add(spec: SecondaryZone): Promise<void> {
    if (this.closed || this.states.has(spec.zone)) return;
    const state = this.stateFor(spec);
    this.states.set(spec.zone, state);
    this.zoneNames.add(spec.zone);
    if (!this.started) return; // start() serves it with the others
    await this.serve(state);
  }

  /**
   * Stops serving `zone` as a secondary: timers stopped, the transfer under way left to end, the zone out of the
   * index (REFUSED from then on) and its copy on disk removed. False when it was not one.
   */
  async remove(zone: string): Promise<boolean> {
    const state = this.states.get(zone);
    if (!state) return false;
    this.states.delete(zone);
    state.removed = true;
    clearTimeout(state.refresh);
    clearTimeout(state.expire);
    await state.running;
    await state.saving;
    this.options.index.delete(zone);
    this.zoneNames.delete(zone);
    if (this.options.dir !== undefined)
      await removeCopy(this.options.dir, zone).catch((err: unknown) =>
        this.options.log?.warn({ zone, err }, 'secondary zone: its copy on disk could not be removed'),
      );
    this.options.log?.info({ zone }, 'secondary zone removed');
    return true;
  }

  /**
   * Serves every zone's copy on disk (SERVFAIL for one without: not transferred yet), then asks every primary;
   * resolves once the copies are in the index, without waiting for the primaries.
   */
  async start(): Promise<void> {
    this.started = true;
    for (const state of [...this.states.values()]) await this.serve(state);
  }

  /** One zone served from its copy on disk (SERVFAIL without one), then refreshed from its primary. */
  private async serve(state: ZoneState): Promise<void> {
    const loaded = await this.loadFromDisk(state);
    if (state.removed) return;
    if (!loaded) this.unavailable(state, 'not transferred yet');
    this.refreshNow(state);
  }

  private async loadFromDisk(state: ZoneState): Promise<boolean> {
    const { dir, log } = this.options;
    if (dir === undefined) return false;
    const zone = state.spec.zone;
    try {
      const found = await loadCopy(dir, zone);
      if (!found) return false;
      this.install(state, found.copy, found.since);
      log?.info({ zone, serial: found.copy.soa.serial }, 'secondary zone served from its copy on disk');
      if (this.pastExpire(state)) this.markExpired(state);
      return true;
    } catch (err) {
      log?.warn({ zone, err }, 'secondary zone: the copy on disk cannot be read; transferring afresh');
      return false;
    }
  }

  /**
   * The answer to a NOTIFY for one of our secondary zones (RFC 1996 §3.7, §3.11): from the zone's primary (and
   * signed with its key when it has one) NOERROR, and a refresh starts at once; from anyone else REFUSED, as BIND
   * answers a NOTIFY its `allow-notify` does not admit.
   */
  notify(zone: string, remote: Remote): number {
    const state = this.states.get(zone);
    if (!state) return RCODE.NOTAUTH;
    const from = remote.address.replace(/^::ffff:/, '');
    const signedBy = remote.tsig?.status === 'ok' ? remote.tsig.key.name : undefined;
    if (from !== state.spec.primary.host || (state.key !== undefined && signedBy !== state.key.name)) {
      this.options.log?.warn(
        { zone, from: remote.address, key: signedBy ?? null },
        'NOTIFY refused: not from the zone primary, or not signed with its key',
      );
      return RCODE.REFUSED;
    }
    this.refreshNow(state);
    return RCODE.NOERROR;
  }

  /** Starts a refresh now, or one more right after the one under way. */
  private refreshNow(state: ZoneState): void {
    if (this.closed || state.removed) return;
    if (state.running) return void (state.again = true);
    clearTimeout(state.refresh);
    const run = async (): Promise<void> => {
      do {
        state.again = false;
        await this.refresh(state);
      } while (state.again && !this.closed);
    };
    state.running = run().finally(() => (state.running = undefined));
  }

  /** One refresh: the primary's SOA, a transfer when it is newer, then the next timer (refresh, or retry on failure). */
  private async refresh(state: ZoneState): Promise<void> {
    const { zone } = state.spec;
    const log = this.options.log;
    try {
      const answer = await state.client.query(zone, 'SOA');
      const record = answer.answers.find((r) => r.type === 'SOA' && r.name === zone);
      if (answer.rcode !== RCODE.NOERROR || !record)
        throw new Error(`the primary answered the SOA query with rcode ${answer.rcode} and no SOA`);
      const serial = soaOf(record).serial;
      const held = state.copy?.soa.serial;
      if (held !== undefined && !state.expired && !serialGreater(serial, held)) {
        if (serial !== held)
          log?.warn({ zone, held, primary: serial }, "secondary zone: the primary's serial is older");
        await this.current(state, Date.now());
        this.count(state, 'current');
      } else {
        await this.transfer(state);
        this.count(state, 'transferred');
      }
      state.error = undefined;
      this.schedule(state, state.copy?.soa.refresh ?? FIRST_RETRY_S);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      state.error = { message, at: Date.now() };
      this.count(state, 'failed');
      log?.warn({ zone, primary: where(state.spec), reason: message }, 'secondary zone could not be refreshed');
      this.schedule(state, state.copy?.soa.retry ?? FIRST_RETRY_S);
    }
  }

  /**
   * The primary's newer version, served and kept on disk: by IXFR from the copy held (RFC 1995), taken whole when
   * the primary answers in AXFR form; by AXFR when no copy is held, the primary refuses IXFR (an error RCODE) or
   * its steps do not fit the copy.
   */
  private async transfer(state: ZoneState): Promise<void> {
    const { zone } = state.spec;
    const started = Date.now();
    const held = state.copy;
    let copy: Transferred | undefined;
    /** Owner names an IXFR changed: the copy served is patched at those alone. */
    let touched: Set<string> | undefined;
    let how = 'AXFR';
    if (held && !state.expired) {
      try {
        const answer = await state.client.incrementalTransfer(zone, soaRecord(held), { signal: this.stop.signal });
        if (answer.kind === 'current') return this.current(state, Date.now());
        how = answer.kind === 'full' ? 'IXFR (whole zone)' : 'IXFR';
        if (answer.kind === 'full') {
          const collector = new TransferCollector(zone);
          for (const record of answer.records) collector.add(record);
          copy = collector.finish(answer.soa);
        } else {
          copy = applySteps(held, answer.steps, answer.soa);
          if (copy) touched = touchedNames(zone, answer.steps);
        }
        if (!copy) this.options.log?.warn({ zone }, 'secondary zone: the IXFR steps do not fit the copy held; AXFR');
      } catch (err) {
        if (!(err instanceof DnsClientError && err.kind === 'rcode')) throw err;
        this.options.log?.info({ zone, reason: err.message }, 'secondary zone: IXFR refused by the primary; AXFR');
      }
    }
    if (!copy) {
      how = 'AXFR';
      touched = undefined;
      const collector = new TransferCollector(zone);
      const { soa } = await state.client.transferEach(zone, collector.add, { signal: this.stop.signal });
      copy = collector.finish(soa);
    }
    this.install(state, copy, Date.now(), touched);
    this.options.log?.info(
      { zone, serial: copy.soa.serial, records: copy.records.length, how, ms: Date.now() - started },
      'secondary zone transferred',
    );
    this.options.onTransferred?.(zone);
    if (copy.skipped > 0)
      this.options.log?.warn(
        { zone, skipped: copy.skipped },
        'secondary zone: records of types this server does not hold (DNSSEC records, unknown types) were left out',
      );
    this.persist(state, copy);
  }

  /**
   * Writes `copy` to disk in the background: formatting a large zone takes seconds, and a NOTIFY meanwhile must not
   * wait for it. One write per zone at a time; a newer copy replaces one not written yet.
   */
  private persist(state: ZoneState, copy: Transferred): void {
    const dir = this.options.dir;
    if (dir === undefined) return;
    state.unsaved = copy;
    if (state.saving) return;
    const run = async (): Promise<void> => {
      for (let next = state.unsaved; next; next = state.unsaved) {
        state.unsaved = undefined;
        await saveCopy(dir, next).catch((err: unknown) =>
          this.options.log?.warn({ zone: next?.zone, err }, 'secondary zone: the copy could not be written to disk'),
        );
      }
    };
    state.saving = run().finally(() => (state.saving = undefined));
  }

  /**
   * Serves `copy`, known current at `since`, and sets its expire timer; `touched`: the owner names an IXFR changed
   * from the copy served (patched at those alone), else the copy is built whole.
   */
  private install(state: ZoneState, copy: Transferred, since: number, touched?: ReadonlySet<string>): void {
    if (state.removed) return;
    const current = this.options.index.get(copy.zone);
    const patchable = touched && current && !current.unavailable && !state.expired;
    this.options.index.set(patchable ? patchedData(current, copy, touched) : zoneData(copy));
    state.copy = copy;
    state.expired = false;
    this.known(state, since);
  }

  /** The copy served was found current at `since`: the expire timer starts again from then. */
  private async current(state: ZoneState, since: number): Promise<void> {
    this.known(state, since);
    if (this.options.dir !== undefined) await touchCopy(this.options.dir, state.spec.zone, new Date(since));
  }

  private known(state: ZoneState, since: number): void {
    state.since = since;
    clearTimeout(state.expire);
    const expire = state.copy?.soa.expire;
    if (expire === undefined) return;
    const wait = (): void => {
      if (this.closed) return;
      if (this.pastExpire(state)) return this.markExpired(state);
      state.expire = setTimeout(wait, Math.min(MAX_TIMEOUT_MS, since + expire * 1000 - Date.now() + 1));
      state.expire.unref();
    };
    wait();
  }

  private pastExpire(state: ZoneState): boolean {
    const expire = state.copy?.soa.expire;
    return expire !== undefined && state.since !== undefined && Date.now() >= state.since + expire * 1000;
  }

  private markExpired(state: ZoneState): void {
    if (state.expired) return;
    state.expired = true;
    this.unavailable(state, 'expired: not refreshed from the primary within the SOA expire time');
  }

  /** The zone answers SERVFAIL from now on (its records kept, for a refresh to compare with). */
  private unavailable(state: ZoneState, why: string): void {
    if (state.removed) return;
    const { zone } = state.spec;
    const current = this.options.index.get(zone);
    const copy = current
      ? current.patched(current.soa, new Map())
      : new ZoneBuilder(zone, { name: zone || '.', type: 'SOA', class: 'IN', ttl: 0, data: PLACEHOLDER_SOA }).finish();
    copy.unavailable = true;
    this.options.index.set(copy);
    this.options.log?.warn({ zone, primary: where(state.spec), why }, 'secondary zone answers SERVFAIL');
  }

  /** The next refresh in `seconds` (at least MIN_TIMER_S). */
  private schedule(state: ZoneState, seconds: number): void {
    if (this.closed || state.removed) return;
    clearTimeout(state.refresh);
    const due = Date.now() + Math.max(MIN_TIMER_S, seconds) * 1000;
    const wait = (): void => {
      const left = due - Date.now();
      if (left <= 0) return this.refreshNow(state);
      state.refresh = setTimeout(wait, Math.min(MAX_TIMEOUT_MS, left));
      state.refresh.unref();
    };
    wait();
  }

  private count(state: ZoneState, result: string): void {
    state.counts ??= new Map();
    state.counts.set(result, (state.counts.get(result) ?? 0) + 1);
  }

  /** Refreshes of every zone so far by outcome (current, transferred, failed), for metrics. */
  refreshCounts(): Array<{ zone: string; result: string; count: number }> {
    return [...this.states.values()].flatMap((s) =>
      [...(s.counts ?? [])].map(([result, count]) => ({ zone: s.spec.zone, result, count })),
    );
  }

  /** Every zone's state, for the health report. */
  status(): SecondaryStatus[] {
    return [...this.states.values()].map((s) => ({
      zone: s.spec.zone,
      primary: where(s.spec),
      key: s.spec.key ?? null,
      serial: s.copy ? s.copy.soa.serial : null,
      refreshedAt: s.since === undefined ? null : new Date(s.since).toISOString(),
      expired: s.expired || s.copy === undefined,
      ...(s.error ? { error: s.error.message, errorAt: new Date(s.error.at).toISOString() } : {}),
    }));
  }

  /** Stops the timers and waits for refreshes and disk writes under way. */
  async close(): Promise<void> {
    this.closed = true;
    this.stop.abort(new Error('the DNS engine is closing'));
    for (const s of this.states.values()) {
      clearTimeout(s.refresh);
      clearTimeout(s.expire);
    }
    for (const s of this.states.values()) {
      await s.running;
      await s.saving; // a copy transferred is on disk before the process ends
    }
  }
}

/** The SOA of a zone not transferred yet: never answered (the copy is unavailable), only a placeholder. */
const PLACEHOLDER_SOA = { mname: '.', rname: '.', serial: 0, refresh: 0, retry: 0, expire: 0, minimum: 0 };

function where(spec: SecondaryZone): string {
  return hostPort(spec.primary.host, spec.primary.port);
}
