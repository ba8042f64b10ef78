import type { DecodedPacket } from 'dns-packet';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { DnsStatsSnapshot, Remote, TransferAccess, UdpAnswer, UdpShare } from '../../server';
import { StatsRequests } from '../stats-requests';
import type { TsigKey } from '../../tsig';
import { decodeMessage, OPCODE, opcodeOf } from '../../wire';
import { encodeSteps, encodeZoneImage, type ZoneData, type ZoneIndex } from '../../zone';
import type { AnswerThreadInit, FromAnswerThread, HandedRemote, ToAnswerThread } from './protocol';

/**
 * The engine's side of the answer thread (answer-thread-main.ts): starts it, ships it every zone version the
 * engine's index takes (as an image: a patch of the version shipped before when that is known cheaply), knows which
 * serial it answers with, and answers the UPDATEs it hands over with the engine's handler (transfers it streams
 * itself, from its own copies).
 * The thread's loop does nothing but answer and swap versions in, so DNS answers never wait for the control plane:
 * imports, listings, signing and the HTTP APIs run on this side.
 */

export interface AnswerThreadOptions {
  host: string;
  port: number;
  init: Omit<AnswerThreadInit, 'host' | 'port' | 'keys' | 'cookieSecret'>;
  cookieSecret: Buffer;
  keys: readonly TsigKey[];
  index: ZoneIndex;
  update(query: DecodedPacket, remote: Remote): Promise<Buffer>;
  /** Answers the NOTIFYs the thread hands over (absent: the thread answers NOTIFY itself, as a primary). */
  notify?(query: DecodedPacket, remote: Remote): Promise<Buffer>;
  /** Who may transfer which zone (the thread streams transfers from its own copies). */
  access?: TransferAccess;
  log?: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  /** Told when the thread ends without being closed (it crashed): nothing answers until another is started. */
  onExit?: (code: number) => void;
}

/** How long the thread may take to stop before it is terminated. */
const CLOSE_MS = 5000;

/** The compiled thread entry (from the TypeScript sources, as tests run them, the build's copy). */
function threadEntry(): string {
  const file = __filename.endsWith('.ts')
    ? resolve(__dirname, '..', '..', '..', 'dist', 'dns', 'engine', 'answer-thread', 'answer-thread-main.js')
    : join(__dirname, 'answer-thread-main.js');
  if (!existsSync(file)) throw new Error(`the DNS answer thread ${file} is missing: run \`npm run build\` first`);
  return file;
}

interface Waiter {
  zone: string;
  version: number;
  done: () => void;
}

export class AnswerThread {
  port = 0;
  /** How answer worker processes read the port (only with batched UDP: a socket of their own in its group). */
  udp?: UdpShare;
  /** The thread (tests end it to see it replaced). */
  readonly worker: Worker;
  /** Per zone, the version the thread was sent last (it answers from it once read). */
  private readonly shipped = new Map<string, ZoneData>();
  /** Per zone, the shipping in progress, and zones changed again meanwhile. */
  private readonly shipping = new Map<string, Promise<void>>();
  private readonly dirty = new Set<string>();
  /**
   * Versions: each change of a zone in the index is numbered (`changed`); an image carries the number of the
   * index's state it was made from, and the thread says which number it answers from (`at`).
   */
  private readonly changed = new Map<string, number>();
  private readonly at = new Map<string, number>();
  private counter = 0;
  private readonly waiters = new Set<Waiter>();
  private closing = false;
  /** The asks for the thread's counts, and what it sent last (kept when it is gone). */
  private readonly statsAsked = new StatsRequests();
  private readonly stopped: Promise<void>;
  private unwatch?: () => void;

  private constructor(private readonly options: AnswerThreadOptions) {
    const init: AnswerThreadInit = {
      ...options.init,
      host: options.host,
      port: options.port,
      cookieSecret: options.cookieSecret,
      ...(options.access ? { access: options.access } : {}),
      ...(options.notify ? { handOverNotify: true } : {}),
      keys: options.keys.map((k) => ({ name: k.name, algorithm: k.algorithm, secret: k.secret })),
    };
    this.worker = new Worker(threadEntry(), { workerData: init, name: 'dns-answers' });
    this.stopped = new Promise((done) => this.worker.once('exit', () => done()));
  }

  /** Starts the thread, ships it every zone of `index`, waits until it answers from them all, then opens the port. */
  static async start(options: AnswerThreadOptions): Promise<AnswerThread> {
    const thread = new AnswerThread(options);
    try {
      await thread.next('started');
      thread.worker.on('message', (m: FromAnswerThread) => thread.received(m));
      thread.worker.on('error', (err) => options.log?.warn({ err }, 'DNS answer thread failed'));
      thread.worker.on('exit', (code) => {
        thread.releaseAll();
        if (thread.closing) return;
        thread.closing = true;
        thread.unwatch?.();
        options.log?.warn({ code }, 'DNS answer thread stopped');
        options.onExit?.(code);
      });
      thread.unwatch = options.index.watch((zone) => thread.ship(zone));
      const zones = options.index.names();
      for (const zone of zones) thread.ship(zone);
      await Promise.all(zones.map((zone) => thread.current(zone)));
      const listening = thread.next('listening');
      thread.send({ t: 'listen' });
      const { port, batched } = await listening;
      thread.port = port;
      if (batched) thread.udp = { reusePort: { host: options.host, port } };
      return thread;
    } catch (err) {
      await thread.close();
      throw err;
    }
  }

  /** The next message of kind `t`, or the thread's failure or exit before it. */
  private next<T extends FromAnswerThread['t']>(t: T): Promise<Extract<FromAnswerThread, { t: T }>> {
    return new Promise((resolve, reject) => {
      const onMessage = (m: FromAnswerThread): void => {
        if (m.t === 'error') return void stop(new Error(`DNS answer thread: ${m.message}`));
        if (m.t !== t) return;
        stop();
        resolve(m as Extract<FromAnswerThread, { t: T }>);
      };
      const onError = (err: Error): void => stop(err);
      const onExit = (code: number): void => stop(new Error(`DNS answer thread exited (${code}) while starting`));
      const stop = (err?: Error): void => {
        this.worker.off('message', onMessage).off('error', onError).off('exit', onExit);
        if (err) reject(err);
      };
      this.worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    });
  }

  private send(message: ToAnswerThread, transfer?: ArrayBuffer[]): void {
    if (!this.closing || message.t === 'close') this.worker.postMessage(message, transfer);
  }

  /** Ships the index's current version of `zone` (one shipping per zone at a time; changes meanwhile join the next). */
  private ship(zone: string): void {
    this.changed.set(zone, ++this.counter);
    if (this.shipping.has(zone)) return void this.dirty.add(zone);
    const run = async (): Promise<void> => {
      do {
        this.dirty.delete(zone);
        const version = this.changed.get(zone) ?? 0;
        const data = this.options.index.get(zone);
        const shipped = this.shipped.get(zone);
        if (!data) {
          this.shipped.delete(zone);
          this.send({ t: 'drop', zone, version });
          continue;
        }
        const image = await encodeZoneImage(data, shipped);
        // the steps from the copy shipped before, as this index's journal diffed them: the thread's loop, which
        // does nothing but answer, takes them instead of diffing the copies again
        const steps = shipped
          ? this.options.index.journal(zone)?.since(shipped.soa.data.serial ?? 0, data.soa.data.serial ?? 0)
          : undefined;
        if (steps) image.journal = encodeSteps(steps);
        // moved, not copied; a shared buffer (a whole image's nodes) is shared as it is
        const transfer = [image.nodes, image.chain, image.journal].flatMap((b) =>
          b && b.buffer instanceof ArrayBuffer ? [b.buffer] : [],
        );
        this.send({ t: 'image', image, version }, transfer);
        this.shipped.set(zone, data);
      } while (this.dirty.has(zone));
    };
    const shipping = run()
      .catch((err: unknown) => {
        this.options.log?.warn({ err, zone }, 'a zone version could not be shipped to the DNS answer thread');
        this.release(zone); // whoever waits for it hears now; the thread answers from the version before
      })
      .finally(() => this.shipping.delete(zone));
    this.shipping.set(zone, shipping);
  }

  private received(m: FromAnswerThread): void {
    switch (m.t) {
      case 'at':
        this.at.set(m.zone, m.version);
        for (const w of this.waiters) if (w.zone === m.zone && m.version >= w.version) this.resolve(w);
        return;
      case 'unreadable':
        this.options.log?.warn(
          { zone: m.zone, reason: m.message },
          'the DNS answer thread could not read a zone version: shipping it whole',
        );
        this.shipped.delete(m.zone);
        return this.ship(m.zone);
      case 'handover':
        return void this.answer(m.id, Buffer.from(m.raw), m.remote);
      case 'log':
        return m.level === 'warn' ? this.options.log?.warn(m.obj, m.msg) : this.options.log?.info(m.obj, m.msg);
      case 'error':
        return this.options.log?.warn({ err: { message: m.message, stack: m.stack } }, 'dns server error');
      case 'stats':
        return this.statsAsked.received(m.id, m.snapshot);
      default:
        return;
    }
  }

  /** Answers an UPDATE or a NOTIFY the thread handed over (its TSIG checked there). */
  private async answer(id: number, raw: Buffer, handed: HandedRemote): Promise<void> {
    try {
      const query = decodeMessage(raw) as unknown as DecodedPacket;
      const key = handed.signedBy === undefined ? undefined : this.options.keys.find((k) => k.name === handed.signedBy);
      const remote: Remote = {
        address: handed.address,
        port: handed.port,
        transport: handed.transport,
        // what the handler reads of the check: the key that signed (the thread verified it)
        tsig: key ? ({ status: 'ok', key } as Remote['tsig']) : { status: 'unsigned' },
      };
      const isNotify = opcodeOf(raw) === OPCODE.NOTIFY && this.options.notify !== undefined;
      const message = isNotify ? await this.options.notify!(query, remote) : await this.options.update(query, remote);
      this.send({ t: 'reply', id, message });
    } catch (err) {
      this.options.log?.warn({ err }, 'a message handed over by the DNS answer thread failed');
      this.send({ t: 'reply', id, failed: true });
    }
  }

  /**
   * What the thread counted so far, asked of it (one message each way); when it does not answer within `timeoutMs`
   * (a long step in its loop), what it sent last. Undefined when it never sent any.
   */
  stats(timeoutMs = 1000): Promise<DnsStatsSnapshot | undefined> {
    if (this.closing) return Promise.resolve(this.lastStats);
    return this.statsAsked.ask((id) => this.send({ t: 'stats', id }), timeoutMs);
  }

  /** The thread's counts as it last sent them (kept when it is gone). */
  get lastStats(): DnsStatsSnapshot | undefined {
    return this.statsAsked.last;
  }

  /** Answers, in the thread, a UDP message an answer worker process handed over. */
  readonly answerUdp: UdpAnswer = (message, address, port) => this.send({ t: 'udp', message, address, port });

  /**
   * Resolves once the thread answers for `zone` from the copy the engine's index holds now, or a later one (no
   * longer answers for it, when the index has dropped it).
   */
  current(zone: string): Promise<void> {
    const version = this.changed.get(zone);
    if (this.closing || version === undefined || (this.at.get(zone) ?? 0) >= version) return Promise.resolve();
    return new Promise((done) => this.waiters.add({ zone, version, done }));
  }

  private resolve(w: Waiter): void {
    this.waiters.delete(w);
    w.done();
  }

  private release(zone: string): void {
    for (const w of this.waiters) if (w.zone === zone) this.resolve(w);
  }

  private releaseAll(): void {
    for (const w of this.waiters) this.resolve(w);
  }

  /** Stops answering: the thread closes its sockets and ends (terminated if it does not within CLOSE_MS). */
  async close(): Promise<void> {
    if (this.closing) return this.stopped;
    this.closing = true;
    this.unwatch?.();
    this.releaseAll();
    this.send({ t: 'close' });
    const timer = setTimeout(() => void this.worker.terminate(), CLOSE_MS);
    await this.stopped;
    clearTimeout(timer);
  }
}
