import type { DecodedPacket } from 'dns-packet';
import { randomBytes } from 'node:crypto';
import {
  type AnswerCacheLimits,
  DEFAULT_RRL,
  type DnsServer,
  type DnsStatsSnapshot,
  mergeSnapshots,
  encodeResponse,
  type ExtraHandlers,
  notifyAnswer,
  notifyReply,
  type NotifyTarget,
  processUpdate,
  type Remote,
  type RrlOptions,
  sendNotify,
  type TcpLimits,
  type TransferAccess,
  transferHandler,
  ZoneTransfers,
} from '../server';
import { RCODE, type WireRecord } from '../wire';
import { type SigningPolicy, ZoneIndex } from '../zone';
import { SignedZoneFiles } from './signed-zone-files';
import { AnswerWorkers, type AnswerWorkersOptions } from './workers/answer-workers';
import { AnswerThread } from './answer-thread/answer-thread';
import { startAnswering } from './answering';
import { syncCatalog } from './catalog';
import { KeyedQueue } from '../../platform/async';
import { wireName } from '../model';
import { StoreError, type SecondaryZoneRow, type ZoneChangeEvent, type ZoneStore } from '../store';
import type { TsigKey } from '../tsig';
import { refreshFor, ZoneLoader, type ZoneDrift } from './zone-loader';
import { ReplicaCheck, type ReplicaStatus } from './replica-check';
import { type KeyVault, SigningScheduler, storeSigning, type ZoneSigning } from '../dnssec';
import { SecondaryZones, type SecondaryStatus } from './secondary/secondary-zones';
import { hostPort, type SecondaryZone } from './secondary/spec';

export interface DnsAccessOptions extends TransferAccess {
  /** Zone → key names allowed to update it; a zone not listed may be updated by every configured key. */
  updateKeys?: Record<string, string[]>;
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
  /**
   * Name of a catalog zone (RFC 9432) listing every other zone of the store, kept by this engine as a zone of the
   * store (catalog.ts): secondaries that read catalogs follow zones created and deleted. Unset: none.
   */
  catalog?: string;
  /**
   * Key to sign NOTIFY messages with: the name of one of `keys`, or a key of its own (which then signs NOTIFY only:
   * it is not accepted on requests). Unset: NOTIFY goes out unsigned.
   */
  notifyKey?: string | TsigKey;
  log?: DnsEngineLogger;
  /** Bounds of DNS over TCP (connections, deadlines, buffered answers); defaults: DEFAULT_TCP_LIMITS. */
  tcp?: Partial<TcpLimits>;
  /** Batched UDP through the native addon when it is built (the default); false: Node's dgram. */
  udpBatch?: boolean;
  /**
   * Answer from a thread of its own (the default): its loop answers and swaps zone versions in, nothing else, so
   * imports, listings, signing and the HTTP APIs never hold an answer up. false: answer on the caller's loop.
   */
  answerThread?: boolean;
  /** Limits of the answer cache (defaults: DEFAULT_ANSWER_CACHE; `maxEntries: 0` turns it off). */
  answerCache?: Partial<AnswerCacheLimits>;
  /**
   * Response rate limiting of UDP answers (DEFAULT_RRL when absent; false: off), in the answer thread and in every
   * worker, each with accounts of its own (docs/dns-server.md#response-rate-limiting).
   */
  rrl?: RrlOptions | false;
  /**
   * Answer workers: processes that answer UDP queries from the same socket, each with an index of its own read
   * from the same store (which must be a file or a database). Absent or count 0: this process answers alone.
   */
  workers?: { count: number; store: AnswerWorkersOptions['store'] };
  /**
   * DNSSEC: zones with keys in the store are served signed; private keys open with `vault`. `now` (seconds) is
   * the signing clock (tests move it).
   */
  dnssec?: {
    vault: KeyVault;
    policy?: Partial<SigningPolicy>;
    now?: () => number;
    /**
     * Where signed zones are kept on disk (signed-zone-files.ts), so a restart and the answer workers serve them at
     * once instead of signing them whole again. Absent: every start signs every signed zone whole.
     */
    keptDir?: string;
  };
  /**
   * Compare every zone served with the store at this interval and catch up what differs (replica-check.ts): for a
   * store other processes write too. Absent or `everyMs` 0: changes are known from the store's events only.
   */
  replicaCheck?: { everyMs: number; timeoutMs?: number };
  /**
   * Zones served as a secondary of another server (secondary/secondary-zones.ts): not in the store, transferred
   * from their primary, kept as master files in `dir`. None may be a zone of the store; answer workers cannot serve
   * them (they read the store), so `workers` must be 0 with any.
   */
  secondary?: { zones: readonly SecondaryZone[]; dir?: string; timeoutMs?: number };
}

/** What `DnsEngine.stats` gives: the figures of /metrics. Zone names as the index holds them ("" the root). */
export interface DnsEngineStats {
  /** Where it answers, as CoreDNS's `server` label: dns://host:port. */
  server: string;
  answering: DnsStatsSnapshot;
  /** Answer worker processes running. */
  workers: number;
  updates: Array<{ zone: string; rcode: number; count: number }>;
  notifiesSent: Array<{ zone: string; result: string; count: number }>;
  secondary: Array<{ zone: string; result: string; count: number }>;
}

/** The RRL settings of the answering loops: the defaults unless turned off. */
function rrlOf(options: DnsEngineOptions): { rrl?: RrlOptions } {
  return options.rrl === false ? {} : { rrl: options.rrl ?? DEFAULT_RRL };
}

/** How long after the answer thread ended by itself another is started. */
const THREAD_RESTART_MS = 1000;

export { soaAnswer } from './zone-loader';

/**
 * The DNS engine: keeps an in-memory index of every zone in the store (patched per zone on each change with what
 * the change touched, before the change's caller hears back when it came through DNS UPDATE), answers queries,
 * dynamic updates and zone transfers over UDP and TCP, and sends NOTIFY to secondaries after changes.
 */
export class DnsEngine {
  readonly index = new ZoneIndex();
  server?: DnsServer;
  workers?: AnswerWorkers;
  thread?: AnswerThread;
  private readonly keys: Map<string, TsigKey>;
  private readonly loader: ZoneLoader;
  private readonly keptFiles?: SignedZoneFiles;
  private readonly notifyKey: TsigKey | undefined;
  private readonly updates = new KeyedQueue();
  private unsubscribe?: () => void;
  private replicaCheck?: ReplicaCheck;
  private readonly signing?: ZoneSigning;
  private readonly scheduler?: SigningScheduler;
  private readonly secondaries: SecondaryZones;
  /** Response rate limiting of UDP answers: on, log-only (counts and logs, limits nothing) or off. */
  get rrlMode(): 'on' | 'log-only' | 'off' {
    const rrl = this.options.rrl;
    return rrl === false ? 'off' : (rrl ?? DEFAULT_RRL).mode;
  }
  /** Secondary zones of the configuration (DNS_SECONDARY_ZONES); the others come from the store. */
  private readonly configuredSecondaries: ReadonlySet<string>;
  /** The store's secondary zones this server serves, and those it cannot (with why). */
  private readonly storeSecondaries = new Set<string>();
  private readonly unservedSecondaries = new Map<string, SecondaryZoneRow>();
  private secondarySync?: Promise<void>;
  /** Syncs asked for and not done yet (the timer adds none while there is one). */
  private secondarySyncing = 0;
  private secondaryTimer?: NodeJS.Timeout;
  /** Set while the answer thread that ended by itself is not replaced yet: nothing answers DNS then. */
  private threadDown = false;
  /** The counts of answer threads that ended by themselves, as they last sent them, added up. */
  private threadsGone?: DnsStatsSnapshot;
  /** UPDATEs answered ("zone rcode" → count) and NOTIFYs sent ("zone result" → count), for metrics. */
  private readonly updateCounts = new Map<string, number>();
  private readonly notifyCounts = new Map<string, number>();

  private constructor(private readonly options: DnsEngineOptions) {
    this.keys = new Map((options.keys ?? []).map((k) => [k.name, k]));
    const secondary = options.secondary;
    if (secondary && secondary.zones.length > 0 && (options.workers?.count ?? 0) > 0)
      throw new Error('secondary zones are served by this process alone: answer workers (DNS_WORKERS) must be 0');
    // always there: zones added through the API (the store's secondary_zones) join the configured ones at run time
    this.secondaries = new SecondaryZones({
      zones: secondary?.zones ?? [],
      index: this.index,
      keys: this.keys,
      ...(secondary?.dir === undefined ? {} : { dir: secondary.dir }),
      ...(secondary?.timeoutMs === undefined ? {} : { timeoutMs: secondary.timeoutMs }),
      ...(options.log ? { log: options.log } : {}),
      onTransferred: (zone) => this.notifySecondaries(zone),
    });
    this.configuredSecondaries = new Set(secondary?.zones.map((z) => z.zone));
    this.handleTransfer = transferHandler(this.index, new ZoneTransfers(), options.access, (zone, remote) =>
      options.log?.warn({ zone, from: remote.address }, 'zone transfer refused'),
    );
    if (options.dnssec) {
      const signing = storeSigning(options.store, options.dnssec.vault, options.dnssec);
      this.signing = signing;
      this.scheduler = new SigningScheduler(
        // conditional on the serial this copy has: of the replicas due at once, one bumps it (the rest see it
        // moved on, and look again when the new serial's copy arrives)
        async (zone, serial) => {
          try {
            await options.store.changeDnssecKeys(zone, {}, serial === undefined ? {} : { ifSerial: serial });
            return true;
          } catch (err) {
            if (err instanceof StoreError && err.code === 'SERIAL_MISMATCH') return false;
            throw err;
          }
        },
        () => signing.now(),
        options.log,
      );
    }
    this.keptFiles =
      options.dnssec?.keptDir === undefined
        ? undefined
        : new SignedZoneFiles(options.dnssec.keptDir, { write: true, log: options.log });
    this.loader = new ZoneLoader(
      options.store,
      this.index,
      options.log,
      this.signing,
      this.secondaries.names(),
      this.keptFiles && { files: this.keptFiles },
    );
    this.notifyKey = DnsEngine.findNotifyKey(options.notifyKey, this.keys);
  }

  /** The NOTIFY key the options name; a name not among the keys is an error now, not unsigned NOTIFY later. */
  private static findNotifyKey(key: string | TsigKey | undefined, keys: Map<string, TsigKey>): TsigKey | undefined {
    if (key === undefined || typeof key === 'object') return key;
    const found = keys.get(wireName(key));
    if (!found) throw new Error(`NOTIFY key "${key}" is not one of the configured TSIG keys`);
    return found;
  }

  static async start(options: DnsEngineOptions): Promise<DnsEngine> {
    const engine = new DnsEngine(options);
    if (options.catalog !== undefined) await syncCatalog(options.store, options.catalog);
    const zones = await options.store.listZones();
    const both = zones.filter((z) => engine.secondaries.has(z.name)).map((z) => z.name || '.');
    if (both.length > 0)
      throw new Error(
        `zone(s) ${both.join(', ')} are in the zone store and configured as secondary: a zone is either the store's (primary) or transferred (secondary)`,
      );
    for (const zone of zones) await engine.reload(zone.name);
    // the copies on disk are in the index before the server opens: served at once, before the primaries answer
    await engine.secondaries.start();
    await engine.syncSecondaryZones();
    engine.unsubscribe = options.store.onChange((event, detail) => {
      // the reload first: a whole one marks the zone busy at once, and workers told then wait for its signed file
      const reloaded = engine.loader.reload(event.zone, refreshFor(event, detail));
      engine.workers?.changed(event, detail);
      if ((event.kind === 'zone-created' || event.kind === 'zone-deleted') && event.zone !== options.catalog)
        engine.catalogChanged();
      engine.afterReload(event.zone, reloaded);
    });
    const check = options.replicaCheck;
    if (check && check.everyMs > 0) {
      engine.replicaCheck = new ReplicaCheck(options.store, engine.loader, {
        everyMs: check.everyMs,
        timeoutMs: check.timeoutMs ?? Math.max(2_000, check.everyMs),
        onDrift: (drift) => engine.drifted(drift),
        log: options.log,
      });
      engine.replicaCheck.start();
      // other replicas' secondary zones (added or removed through their API) within the same period
      // (a tick while a read is still under way is skipped: a stalled store must not pile reads up behind it)
      engine.secondaryTimer = setInterval(() => {
        if (!engine.secondarySyncing) void engine.syncSecondaryZones().catch(() => undefined);
      }, check.everyMs);
      engine.secondaryTimer.unref();
    }
    if (options.listen !== false) {
      const onError = (err: unknown): void => options.log?.warn({ err }, 'dns server error');
      // one secret for the engine and its workers: a cookie one process issued is good in every other
      const cookieSecret = randomBytes(32);
      if (options.answerThread !== false) engine.server = await engine.startThread(cookieSecret);
      else
        engine.server = await startAnswering({
          index: engine.index,
          handlers: {
            update: (q, _raw, remote) => engine.handleUpdate(q, remote),
            transfer: engine.handleTransfer,
            notify: (q, _raw, remote) => engine.handleNotify(q, remote),
          },
          keys: engine.keys,
          cookieSecret,
          answerCache: options.answerCache,
          host: options.host,
          port: options.port,
          tcp: options.tcp,
          ...(options.udpBatch === undefined ? {} : { udpBatch: options.udpBatch }),
          ...rrlOf(options),
          onError,
          warn: (obj, msg) => options.log?.warn(obj, msg),
          info: (obj, msg) => options.log?.info(obj, msg),
        });
      options.log?.info(
        { host: options.host, port: engine.server.port, zones: engine.index.size, rrl: engine.rrlMode },
        `DNS server listening on ${options.host}:${engine.server.port} (UDP and TCP)`,
      );
      if (options.workers && options.workers.count > 0) {
        try {
          const udp = engine.server.udp;
          if (!udp)
            throw new Error(
              'answer worker processes share the DNS port through the batched UDP addon when DNS answers from its thread: build it (npm run build) or set DNS_WORKERS=0',
            );
          await engine.loader.filesWritten(); // workers read the signed zones from them instead of signing
          engine.workers = await AnswerWorkers.start({
            count: options.workers.count,
            store: options.workers.store,
            udp,
            answerUdp: engine.server.answerUdp,
            cookieSecret,
            answerCache: options.answerCache,
            ...rrlOf(options),
            dnssec: engine.signing &&
              options.dnssec && {
                secret: options.dnssec.vault.secret,
                policy: engine.signing.policy,
                ...(options.dnssec.keptDir === undefined ? {} : { keptDir: options.dnssec.keptDir }),
              },
            log: options.log,
          });
        } catch (err) {
          await engine.close();
          throw err;
        }
      }
    }
    return engine;
  }

  /**
   * Resolves once the DNS server answers for `zone` as of `serial` or later — or, with `serial` null, no longer
   * answers for it. An API write awaits it after committing, so it answers only when DNS already serves the change.
   */
  /** The primary (`host:port`) of `zone` when this server is its secondary (DNS_SECONDARY_ZONES), else null. */
  secondaryPrimary(zone: string): string | null {
    const primary = this.secondaries.primaryOf(zone);
    if (!primary) return null;
    return hostPort(primary.host, primary.port);
  }

  async served(zone: string, serial: number | null): Promise<void> {
    await Promise.all([this.loader.served(zone, serial), this.workers?.served(zone, serial)]);
    await this.thread?.current(zone); // the thread answers from what the index holds now
  }

  /** Starts the answer thread on the index as it is (every zone loaded) and gives the server it stands for. */
  private async startThread(cookieSecret: Buffer, port = this.options.port): Promise<DnsServer> {
    const o = this.options;
    const thread = await AnswerThread.start({
      host: o.host,
      port,
      init: { tcp: o.tcp, udpBatch: o.udpBatch, answerCache: o.answerCache, ...rrlOf(o) },
      cookieSecret,
      keys: [...this.keys.values()],
      index: this.index,
      update: (q, remote) => this.handleUpdate(q, remote),
      notify: (q: DecodedPacket, remote: Remote) => this.handleNotify(q, remote),
      access: o.access,
      log: o.log,
      onExit: () => {
        this.threadDown = true;
        this.restartThread(cookieSecret, thread.port);
      },
    });
    this.thread = thread;
    return {
      host: o.host,
      port: thread.port,
      ...(thread.udp ? { udp: thread.udp } : {}),
      answerUdp: thread.answerUdp,
      stats: async () => {
        const now = await thread.stats();
        const all = [this.threadsGone, now].filter((s): s is DnsStatsSnapshot => s !== undefined);
        return all.length === 1 && all[0] ? all[0] : mergeSnapshots(all);
      },
      close: () => thread.close(),
    };
  }

  /** After a reload for a change: the signing timers looked at again, secondaries told (not of a deletion). */
  private afterReload(zone: string, reload: Promise<void>): void {
    reload
      .then(() => {
        this.scheduler?.check(zone, this.index.get(zone));
        if (this.index.get(zone)) this.notifySecondaries(zone);
      })
      .catch((err: unknown) => this.options.log?.warn({ err, zone }, 'after a change: reload or NOTIFY failed'));
  }

  /**
   * The replica check found `zone` other than the store has it and started bringing it in line: the answer workers
   * are told as of a change (without names: they follow the change log too), and after the reload as after one.
   */
  private drifted(drift: ZoneDrift): void {
    const { zone } = drift;
    const event: ZoneChangeEvent =
      drift.store === null
        ? { zone, serial: drift.served ?? 0, kind: 'zone-deleted' }
        : { zone, serial: drift.store, kind: drift.action === 'catch-up' ? 'records-changed' : 'zone-created' };
    this.workers?.changed(event);
    this.options.log?.info(drift, 'zone differed from the store (a change not heard of): catching up');
    // joins the reload check() queued (a queued reload takes later requests in), to act once it is done
    this.afterReload(
      zone,
      this.loader.reload(zone, { catchUp: true, ...(drift.store === null ? {} : { serial: drift.store }) }),
    );
  }

  /**
   * Whether DNS is answered now: the server listens on UDP and TCP with every zone loaded (start() resolves only
   * then) and its answer thread is not being replaced after a crash. True without a server (`listen: false`).
   */
  get answering(): boolean {
    if (this.options.listen === false) return true;
    return this.server !== undefined && !this.threadDown && this.closed === undefined;
  }

  /** What the replica check found (null when it does not run: a store no other process writes). */
  replication(): (ReplicaStatus & { current: boolean }) | null {
    return this.replicaCheck ? { ...this.replicaCheck.status(), current: this.replicaCheck.current() } : null;
  }

  /**
   * Why this server cannot serve the store's secondary zone `row` (null: it can): answer workers answer from the
   * store, which holds no secondary zone's records; a TSIG key must be one configured here.
   */
  secondaryProblem(row: Pick<SecondaryZoneRow, 'name' | 'tsigKey'>): string | null {
    const workers = this.options.workers?.count ?? 0;
    if (workers > 0)
      return `answer workers are on here (DNS_WORKERS ${workers}): they answer from the zone store, which holds no secondary zone; set DNS_WORKERS=0 to serve secondary zones`;
    if (row.tsigKey !== null && !this.keys.has(wireName(row.tsigKey)))
      return `TSIG key "${row.tsigKey}" is not configured here (TSIG_KEYFILE)`;
    return null;
  }

  /** Where a secondary zone comes from: the configuration, the store (added through the API), or it is none. */
  secondaryOrigin(zone: string): 'configuration' | 'store' | null {
    if (this.configuredSecondaries.has(zone)) return 'configuration';
    if (this.storeSecondaries.has(zone) || this.unservedSecondaries.has(zone)) return 'store';
    return null;
  }

  /**
   * Brings the secondary zones from the store in line with it: ones added (through the API, on any replica) are
   * served — transferred from their primary — and ones removed are dropped. Runs at start, after the API's own
   * changes, and on PostgreSQL with the replica check's period (other replicas' changes). One run at a time.
   */
  syncSecondaryZones(): Promise<void> {
    this.secondarySyncing++;
    const run = (this.secondarySync ?? Promise.resolve())
      .then(() => this.syncSecondariesOnce())
      .finally(() => this.secondarySyncing--);
    const tail = run.catch((err: unknown) =>
      this.options.log?.warn({ err }, 'secondary zones: the store could not be read; trying again'),
    );
    this.secondarySync = tail;
    return run;
  }

  private async syncSecondariesOnce(): Promise<void> {
    const rows = await this.options.store.listSecondaryZones();
    const wanted = new Map(rows.filter((r) => !this.configuredSecondaries.has(r.name)).map((r) => [r.name, r]));
    for (const zone of [...this.storeSecondaries])
      if (!wanted.has(zone)) {
        this.storeSecondaries.delete(zone);
        await this.secondaries.remove(zone);
        this.options.log?.info({ zone }, 'secondary zone removed from the store: no longer served');
      }
    for (const zone of [...this.unservedSecondaries.keys()])
      if (!wanted.has(zone)) this.unservedSecondaries.delete(zone);
    for (const row of wanted.values()) {
      if (this.storeSecondaries.has(row.name)) continue;
      const problem = this.secondaryProblem(row);
      if (problem !== null) {
        if (!this.unservedSecondaries.has(row.name))
          this.options.log?.warn({ zone: row.name, reason: problem }, 'secondary zone of the store not served here');
        this.unservedSecondaries.set(row.name, row);
        continue;
      }
      this.unservedSecondaries.delete(row.name);
      this.storeSecondaries.add(row.name);
      await this.secondaries.add({
        zone: row.name,
        primary: { host: row.primaryHost, port: row.primaryPort },
        ...(row.tsigKey === null ? {} : { key: wireName(row.tsigKey) }),
      });
    }
  }

  /** Every secondary zone's state (serial, last refresh, expired, last error); empty without secondary zones. */
  secondaryStatus(): SecondaryStatus[] {
    const unserved = [...this.unservedSecondaries.values()].map((row) => ({
      zone: row.name,
      primary: hostPort(row.primaryHost, row.primaryPort),
      key: row.tsigKey,
      serial: null,
      refreshedAt: null,
      expired: true,
      error: this.secondaryProblem(row) ?? 'not served here',
    }));
    return [...this.secondaries.status(), ...unserved];
  }

  /** How far signing `zone` whole has got (names signed of how many), or null when it is not being signed whole. */
  signingProgress(zone: string): { done: number; total: number } | null {
    return this.loader.progress(zone);
  }

  /** Reads one zone of the index again, whole, from the store (see ZoneLoader.reload). */
  async reload(name: string): Promise<void> {
    await this.loader.reload(name);
    this.scheduler?.check(name, this.index.get(name));
  }

  /** Looks at every signed zone's timers again now (after the signing clock moved: tests). */
  checkSigning(): void {
    for (const name of this.index.names()) this.scheduler?.check(name, this.index.get(name));
  }

  /**
   * The answer thread ended by itself (a crash): another is started on the same port with every zone, after
   * THREAD_RESTART_MS and then at most once per that delay, doubling up to a minute while starting fails.
   */
  private restartThread(cookieSecret: Buffer, port: number, delay = THREAD_RESTART_MS): void {
    // what the thread that ended counted stays counted (as it last sent it; a new one starts from zero)
    const last = this.thread?.lastStats;
    if (last && delay === THREAD_RESTART_MS)
      this.threadsGone = {
        ...mergeSnapshots(this.threadsGone ? [this.threadsGone, last] : [last]),
        cacheEntries: 0,
      };
    const timer = setTimeout(() => {
      if (this.closed) return;
      this.startThread(cookieSecret, port).then(
        (server) => {
          if (this.closed) return void server.close();
          this.server = server;
          this.threadDown = false;
          this.options.log?.info({ port }, 'DNS answer thread started again');
        },
        (err: unknown) => {
          this.options.log?.warn({ err, port }, 'DNS answer thread could not be started again');
          this.restartThread(cookieSecret, port, Math.min(delay * 2, 60_000));
        },
      );
    }, delay);
    timer.unref();
  }

  private catalogSync?: Promise<void>;
  private catalogAgain = false;

  /** A zone came or went: the catalog follows (one sync at a time; changes meanwhile make one more). */
  private catalogChanged(): void {
    const catalog = this.options.catalog;
    if (catalog === undefined || this.closed) return;
    if (this.catalogSync) return void (this.catalogAgain = true);
    const run = async (): Promise<void> => {
      do {
        this.catalogAgain = false;
        try {
          await syncCatalog(this.options.store, catalog);
        } catch (err) {
          // another replica changed it meanwhile, or the store is away: the next zone created or deleted, or the
          // next start, brings it in line
          this.options.log?.warn({ err, zone: catalog }, 'the catalog zone could not be brought up to date');
        }
      } while (this.catalogAgain && !this.closed);
    };
    this.catalogSync = run().finally(() => (this.catalogSync = undefined));
  }

  private notifySecondaries(zone: string): void {
    const key = this.notifyKey;
    const counted = (result: string): void => {
      const k = `${zone} ${result}`;
      this.notifyCounts.set(k, (this.notifyCounts.get(k) ?? 0) + 1);
    };
    for (const target of this.options.notify ?? []) {
      void sendNotify(zone, target, { key }).then(
        (acked) => {
          counted(acked ? 'acked' : 'unacknowledged');
          if (!acked) this.options.log?.warn({ zone, target }, 'secondary did not acknowledge NOTIFY');
        },
        (err: unknown) => {
          counted('failed');
          this.options.log?.warn({ zone, target, err }, 'NOTIFY could not be sent');
        },
      );
    }
  }

  /**
   * What the DNS server counted (answer thread or this loop, and every answer worker, added up; asked of each at
   * once, none waits for the others or holds an answer up), UPDATEs answered and NOTIFYs sent, and the secondary
   * zones' refreshes. Null without a server.
   */
  async stats(): Promise<DnsEngineStats | null> {
    const server = this.server;
    if (!server) return null;
    const [own, workers] = await Promise.all([server.stats(), this.workers?.stats() ?? []]);
    return {
      server: `dns://${server.host.includes(':') ? `[${server.host}]` : server.host}:${server.port}`,
      answering: workers.length === 0 ? own : mergeSnapshots([own, ...workers]),
      workers: this.workers?.size ?? 0,
      updates: [...this.updateCounts].map(([k, n]) => {
        const [zone = '.', rcode = '0'] = k.split(' ');
        return { zone, rcode: Number(rcode), count: n };
      }),
      notifiesSent: [...this.notifyCounts].map(([k, n]) => {
        const [zone = '.', result = ''] = k.split(' ');
        return { zone, result, count: n };
      }),
      secondary: this.secondaries.refreshCounts(),
    };
  }

  private keyAllowed(list: Record<string, string[]> | undefined, zone: string, key: string): boolean {
    const allowed = list?.[zone];
    return allowed === undefined || allowed.includes(key);
  }

  /** An UPDATE answered, counted by zone (served, else ".") and rcode. */
  private async handleUpdate(query: DecodedPacket, remote: Remote): Promise<Buffer> {
    const answer = await this.updateAnswer(query, remote);
    const name = query.questions?.[0]?.name;
    const zone = name !== undefined && this.index.get(wireName(name)) ? wireName(name) : '.';
    const key = `${zone} ${(answer[3] ?? 0) & 0xf}`;
    this.updateCounts.set(key, (this.updateCounts.get(key) ?? 0) + 1);
    return answer;
  }

  private async updateAnswer(query: DecodedPacket, remote: Remote): Promise<Buffer> {
    const question = query.questions?.[0];
    if (query.questions?.length !== 1 || !question || question.type !== 'SOA')
      return encodeResponse(query, {}, RCODE.FORMERR);
    const zone = wireName(question.name);
    if (!this.index.get(zone)) return encodeResponse(query, {}, RCODE.NOTAUTH);
    if (this.secondaries.has(zone)) {
      // as BIND answers an UPDATE for a zone it is secondary for (no update-forwarding): the primary takes writes
      this.options.log?.warn({ zone, from: remote.address }, 'dynamic update of a secondary zone refused');
      return encodeResponse(query, {}, RCODE.REFUSED);
    }
    // Updates need a valid TSIG key allowed for the zone; with no keys configured nothing may update.
    if (remote.tsig?.status !== 'ok' || !this.keyAllowed(this.options.access?.updateKeys, zone, remote.tsig.key.name)) {
      this.options.log?.warn(
        { zone, from: remote.address, key: remote.tsig?.status === 'ok' ? remote.tsig.key.name : null },
        'dynamic update refused',
      );
      return encodeResponse(query, {}, RCODE.REFUSED);
    }
    // One update of a zone at a time, as BIND does: concurrent ones would only conflict on the serial and retry.
    const outcome = await this.updates.run(zone, () =>
      processUpdate(this.options.store, {
        zone,
        prerequisites: (query.answers ?? []) as unknown as WireRecord[],
        updates: (query.authorities ?? []) as unknown as WireRecord[],
      }),
    );
    // The store announced the change after committing it, which started a reload that reads it: wait for that one.
    if (outcome.serial !== undefined) {
      await Promise.all([this.loader.caughtUp(zone, outcome.serial), this.workers?.served(zone, outcome.serial)]);
      await this.thread?.current(zone);
    }
    this.options.log?.info(
      { zone, key: remote.tsig.key.name, rcode: outcome.rcode, reason: outcome.reason },
      'dynamic update',
    );
    return encodeResponse(query, {}, outcome.rcode);
  }

  /** A NOTIFY: for a secondary zone, checked and acted on (secondary-zones.ts); for any other, as a primary answers. */
  private handleNotify(query: DecodedPacket, remote: Remote): Promise<Buffer> {
    const question = query.questions?.length === 1 ? query.questions[0] : undefined;
    const zone = question?.type === 'SOA' ? wireName(question.name) : undefined;
    if (zone === undefined || !this.secondaries.has(zone)) return Promise.resolve(notifyAnswer(this.index, query));
    return Promise.resolve(notifyReply(query, this.secondaries.notify(zone, remote)));
  }

  /** Transfers answered on the engine's own loop (answerThread: false); the answer thread streams its own. */
  private readonly handleTransfer: NonNullable<ExtraHandlers['transfer']>;

  private closed?: Promise<void>;

  /** Stops answering (workers first, then the server) and waits for reloads in flight; a second call waits too. */
  close(): Promise<void> {
    this.closed ??= this.shutDown();
    return this.closed;
  }

  private async shutDown(): Promise<void> {
    this.unsubscribe?.();
    clearInterval(this.secondaryTimer);
    await this.secondarySync;
    await this.secondaries.close();
    await this.replicaCheck?.stop();
    await this.catalogSync; // its store writes end before the store is closed
    this.scheduler?.close();
    await this.workers?.close();
    await this.server?.close();
    await this.loader.idle();
    await this.loader.close();
  }
}
