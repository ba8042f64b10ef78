import { fork, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:dgram';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { serialAtLeast } from '../../model';
import type { OpenZoneStoreOptions, ZoneChangeDetail, ZoneChangeEvent } from '../../store';
import type { SigningPolicy } from '../../zone';
import {
  type AnswerCacheLimits,
  type DnsStatsSnapshot,
  mergeSnapshots,
  type RrlOptions,
  type UdpAnswer,
  type UdpShare,
} from '../../server';
import type { FromWorker, ToWorker } from './answer-worker-protocol';
import { StatsRequests } from '../stats-requests';

/**
 * The DNS engine's answer workers: processes that read the engine's UDP socket too and answer plain queries from
 * an index of their own over the same store (answer-worker-main.ts), so that every core answers. With the batched
 * UDP addon each worker binds a socket of its own in the port's SO_REUSEPORT group (the kernel spreads senders over
 * the group, as BIND's threads share a port); without it (Node 20's dgram has no SO_REUSEPORT) a dgram socket handed
 * to a child shares its descriptor, and the kernel gives each datagram to one of its readers. A change counts as served when the primary and every worker serve it. A worker that dies is replaced
 * (at most once every RESTART_MS); until then the other readers answer.
 */

export interface AnswerWorkersOptions {
  count: number;
  /** Where the zones are: the same store the engine reads (a file or a database, never ':memory:'). */
  store: Pick<OpenZoneStoreOptions, 'dataDir' | 'databaseUrl' | 'schema'>;
  udp: UdpShare;
  /** Answers, in the primary, what a worker hands over. */
  answerUdp: UdpAnswer;
  cookieSecret: Buffer;
  answerCache?: Partial<AnswerCacheLimits>;
  /** Response rate limiting (absent: off). */
  rrl?: RrlOptions;
  /** DNSSEC: the vault's master key and the signing policy, so that workers sign as the engine does. */
  dnssec?: { secret: Buffer; policy: SigningPolicy; keptDir?: string };
  log?: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
}

const RESTART_MS = 1000;

/**
 * How many answer workers `auto` starts: one per core but one from 4 cores up; none below. Measured on 2 cores
 * (npm run bench -- dns), a second process lost on every figure — queries/s with one or ten clients, sequential
 * UPDATEs (each waits for every process), start-up and memory — because the one other core is wanted by the
 * gateway, the kernel's network work and the clients; with cores to spare each worker adds a core's worth.
 */
export function autoWorkerCount(cores = availableParallelism()): number {
  return cores >= 4 ? cores - 1 : 0;
}
/** How long a worker may take to load every zone before it counts as failed. */
const LOAD_TIMEOUT_MS = 120_000;

/** The compiled worker entry (from the TypeScript sources, as tests run them, the build's copy). */
function workerEntry(): string {
  const file = __filename.endsWith('.ts')
    ? resolve(__dirname, '..', '..', '..', 'dist', 'dns', 'engine', 'workers', 'answer-worker-main.js')
    : join(__dirname, 'answer-worker-main.js');
  if (!existsSync(file)) throw new Error(`the DNS answer worker ${file} is missing: run \`npm run build\` first`);
  return file;
}

/** How long `served` trusts the worker's own reports before it asks (a report lost to a failed reload). */
const ASK_AFTER_MS = 1000;

/** A `served` call waiting for a worker's report, with the timer that asks instead when none comes. */
interface Waiter {
  zone: string;
  serial: number | null;
  done: () => void;
  timer?: NodeJS.Timeout;
}

class Worker {
  ready = false;
  /** The asks for its counts, and what it sent last. */
  private readonly statsAsked = new StatsRequests();
  private nextId = 1;
  private readonly pending = new Map<number, () => void>();
  /** The serial of each zone the worker said it answers with after a change (null: gone). */
  private readonly at = new Map<string, number | null>();
  /** Waiting for a report: resolved when a report satisfies them. */
  private readonly waiting = new Set<Waiter>();

  constructor(readonly child: ChildProcess) {}

  private satisfies(zone: string, serial: number | null): boolean {
    if (!this.at.has(zone)) return false;
    const now = this.at.get(zone);
    return serial === null ? now === null : now !== null && now !== undefined && serialAtLeast(now, serial);
  }

  /** The worker read a change of `zone`: it answers with `serial` now. */
  reported(zone: string, serial: number | null): void {
    this.at.set(zone, serial);
    for (const w of this.waiting) {
      // a zone gone satisfies every wait for it: there is nothing more to serve
      if (w.zone === zone && (serial === null || this.satisfies(zone, w.serial))) {
        this.waiting.delete(w);
        clearTimeout(w.timer);
        w.done();
      }
    }
  }

  /**
   * Resolves once the worker serves `zone` as of `serial`: from its own report after the change, or — when none
   * comes within ASK_AFTER_MS (its reload failed, or the change came before it started) — from asking it.
   */
  served(zone: string, serial: number | null): Promise<void> {
    if (!this.child.connected || this.satisfies(zone, serial)) return Promise.resolve();
    return new Promise((done) => {
      const waiter: Waiter = { zone, serial, done };
      waiter.timer = setTimeout(() => {
        if (!this.waiting.delete(waiter)) return;
        void this.ask(zone, serial).then(done);
      }, ASK_AFTER_MS).unref();
      this.waiting.add(waiter);
    });
  }

  send(message: ToWorker, handle?: Socket): void {
    if (this.child.connected) this.child.send(message, handle);
  }

  private ask(zone: string, serial: number | null): Promise<void> {
    if (!this.child.connected) return Promise.resolve();
    const id = this.nextId++;
    return new Promise((done) => {
      this.pending.set(id, done);
      this.send({ t: 'served', id, zone, serial });
    });
  }

  /** Its counts now, asked of it; what it sent last when it does not answer within `timeoutMs`. */
  stats(timeoutMs: number): Promise<DnsStatsSnapshot | undefined> {
    if (!this.child.connected || !this.ready) return Promise.resolve(this.lastStats);
    return this.statsAsked.ask((id) => this.send({ t: 'stats', id }), timeoutMs);
  }

  /** Its counts as it last sent them. */
  get lastStats(): DnsStatsSnapshot | undefined {
    return this.statsAsked.last;
  }

  statsReceived(id: number, snapshot: DnsStatsSnapshot): void {
    this.statsAsked.received(id, snapshot);
  }

  answered(id: number): void {
    this.pending.get(id)?.();
    this.pending.delete(id);
  }

  /** Gone: whatever waits on it waits no longer (a replacement reads the store as it is). */
  gone(): void {
    for (const done of this.pending.values()) done();
    this.pending.clear();
    for (const w of this.waiting) {
      clearTimeout(w.timer);
      w.done();
    }
    this.waiting.clear();
  }
}

export class AnswerWorkers {
  /** UDP messages workers handed over to be answered here (UPDATE, signed, NOTIFY). */
  forwarded = 0;
  /** The counts of workers gone, as they last sent them, added up (a replacement starts from zero). */
  private retired: DnsStatsSnapshot | undefined;
  private readonly workers = new Set<Worker>();
  private closing = false;
  private lastStart = 0;

  private constructor(
    private readonly options: AnswerWorkersOptions,
    private readonly entry: string,
  ) {}

  /** Starts `count` workers and resolves once every one answers from the socket. */
  static async start(options: AnswerWorkersOptions): Promise<AnswerWorkers> {
    const workers = new AnswerWorkers(options, workerEntry());
    try {
      await Promise.all(Array.from({ length: options.count }, () => workers.spawn()));
    } catch (err) {
      await workers.close();
      throw err;
    }
    options.log?.info({ workers: options.count }, 'DNS answer workers ready: UDP queries answered on every core');
    return workers;
  }

  get size(): number {
    return this.workers.size;
  }

  /** The process ids of the workers (tests, metrics). */
  get pids(): number[] {
    return [...this.workers].flatMap((w) => (w.child.pid === undefined ? [] : [w.child.pid]));
  }

  /** Tells every worker about a committed change. */
  changed(event: ZoneChangeEvent, detail?: ZoneChangeDetail): void {
    for (const w of this.workers) w.send(detail ? { t: 'change', event, detail } : { t: 'change', event });
  }

  /** What every worker counted (asked at once; one that does not answer within `timeoutMs`: what it sent last). */
  async stats(timeoutMs = 1000): Promise<DnsStatsSnapshot[]> {
    const now = await Promise.all([...this.workers].map((w) => w.stats(timeoutMs)));
    return [...(this.retired ? [this.retired] : []), ...now.filter((s): s is DnsStatsSnapshot => s !== undefined)];
  }

  /** Resolves once every worker answers for `zone` as of `serial` (null: no longer answers for it). */
  async served(zone: string, serial: number | null): Promise<void> {
    await Promise.all([...this.workers].map((w) => w.served(zone, serial)));
  }

  private spawn(): Promise<void> {
    this.lastStart = Date.now();
    const { udp } = this.options;
    const child = fork(this.entry, [], {
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      execArgv: [],
    });
    const worker = new Worker(child);
    this.workers.add(worker);
    const { options } = this;
    let lastError: string | undefined;
    return new Promise<void>((started, failed) => {
      const timer = setTimeout(() => {
        failed(new Error(`a DNS answer worker did not load the zones within ${LOAD_TIMEOUT_MS} ms`));
        child.kill('SIGKILL');
      }, LOAD_TIMEOUT_MS);
      child.on('message', (message: FromWorker) => {
        switch (message.t) {
          case 'loaded':
            // once loaded: a socket of its own in the port's group, or the dgram socket over IPC
            if ('reusePort' in udp) worker.send({ t: 'socket', reusePort: udp.reusePort });
            else worker.send({ t: 'socket' }, udp.socket);
            return;
          case 'ready':
            worker.ready = true;
            clearTimeout(timer);
            started();
            return;
          case 'served':
            worker.answered(message.id);
            return;
          case 'at':
            worker.reported(message.zone, message.serial);
            return;
          case 'stats':
            worker.statsReceived(message.id, message.snapshot);
            return;
          case 'udp':
            this.forwarded++;
            options.answerUdp(message.message, message.address, message.port);
            return;
          case 'log':
            options.log?.[message.level]({ pid: child.pid, ...message.obj }, message.msg);
            return;
          case 'error':
            lastError = message.message;
            options.log?.warn({ pid: child.pid, err: message }, 'DNS answer worker: error');
            return;
        }
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        this.workers.delete(worker);
        worker.gone();
        if (worker.lastStats)
          this.retired = {
            ...mergeSnapshots(this.retired ? [this.retired, worker.lastStats] : [worker.lastStats]),
            cacheEntries: 0, // its cache is gone
          };
        if (!worker.ready)
          return failed(
            new Error(
              `a DNS answer worker exited (${signal ?? code}) while starting${lastError ? `: ${lastError}` : ''}`,
            ),
          );
        if (this.closing) return;
        options.log?.warn({ pid: child.pid, code, signal }, 'DNS answer worker exited: starting another');
        const wait = Math.max(0, this.lastStart + RESTART_MS - Date.now());
        setTimeout(() => {
          if (!this.closing)
            this.spawn().catch((err: unknown) => options.log?.warn({ err }, 'DNS answer worker could not restart'));
        }, wait).unref();
      });
      child.send({
        t: 'init',
        store: options.store,
        answerCache: options.answerCache,
        rrl: options.rrl,
        cookieSecret: options.cookieSecret,
        dnssec: options.dnssec,
      } satisfies ToWorker);
    });
  }

  /** Stops every worker (their end of the channel closes: they exit). */
  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(
      [...this.workers].map(
        (w) =>
          new Promise<void>((done) => {
            if (w.child.exitCode !== null || w.child.signalCode !== null) return done();
            w.child.once('exit', () => done());
            if (w.child.connected) w.child.disconnect();
            setTimeout(() => w.child.kill('SIGKILL'), 5000).unref();
          }),
      ),
    );
  }
}
