import type { Socket } from 'node:net';
import type { Remote, Responder } from '../pipeline/respond';
import { answerAtOnce, answerLater, sendable, type Report } from './serve';
import { add, G, TCP } from '../stats/dns-stats';

/** Bounds of DNS over TCP (RFC 7766 §6.2: servers must protect themselves from clients holding connections). */
export interface TcpLimits {
  /** Most connections open at once; one more is closed as soon as it is accepted. */
  maxConnections: number;
  /** A connection with nothing in progress (no partial message, no query being answered, nothing to send) is closed after this long. */
  idleMs: number;
  /** Once the first byte of a message came, the whole message must be there within this long (a client trickling bytes is cut). */
  messageMs: number;
  /** Reading stops while more than this many bytes of answers wait to be sent (a client that does not read). */
  maxBufferedBytes: number;
}

/** BIND 9's `tcp-clients` default (150); idle and message deadlines on the order of seconds (RFC 7766 §6.2.3). */
export const DEFAULT_TCP_LIMITS: TcpLimits = {
  maxConnections: 150,
  idleMs: 10_000,
  messageMs: 10_000,
  maxBufferedBytes: 256 * 1024,
};

/** Queries of one connection being answered at once (pipelined: RFC 7766 §6.2.1.1); reading waits beyond. */
const MAX_IN_FLIGHT = 32;

const EMPTY = Buffer.alloc(0);

/**
 * One DNS connection: a 2-byte length before each message (RFC 1035 §4.2.2), several messages, pipelined, answered
 * in any order. One timer holds whichever deadline applies now (see `arm`); nothing the client does postpones a
 * deadline it has not earned: bytes of an unfinished message do not extend the message deadline, and a client that
 * stops reading its answers is cut once its answers stop draining.
 */
export class TcpConnection {
  private input: Buffer = EMPTY;
  /** When the first byte of the unfinished message in `input` came. */
  private messageStart = 0;
  /** When the connection last did something that earns it more idle time (a whole message came, an answer went). */
  private lastActive = Date.now();
  /** When a write last completed, or output started to wait (answers waiting must keep going out). */
  private lastWritten = Date.now();
  private inFlight = 0;
  private paused = false;
  private ended = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly socket: Socket,
    private readonly responder: Responder,
    private readonly limits: TcpLimits,
    private readonly report: Report,
  ) {
    socket.on('data', (chunk: Buffer) => this.guarded(() => this.receive(chunk)));
    socket.on('end', () =>
      this.guarded(() => {
        this.ended = true;
        this.pump();
      }),
    );
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      clearTimeout(this.timer);
      add(responder.stats.counts, G.tcpClosed);
    });
    add(responder.stats.counts, G.tcpAccepted);
    this.arm();
  }

  /** Runs `fn` from an event or callback: what it throws (a bug) is reported and ends this connection, not the process. */
  private guarded(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.report(err);
      this.socket.destroy();
    }
  }

  private receive(chunk: Buffer): void {
    if (this.input.length === 0) this.messageStart = Date.now();
    this.input = this.input.length ? Buffer.concat([this.input, chunk]) : chunk;
    this.pump();
  }

  /** Whether `input` holds a whole message (else what it holds, if anything, is still arriving). */
  private wholeMessage(): boolean {
    return this.input.length >= 2 && this.input.length >= 2 + this.input.readUInt16BE(0);
  }

  /** Reading stops while answers pile up unsent or too many queries are being answered. */
  private blocked(): boolean {
    return this.socket.writableLength > this.limits.maxBufferedBytes || this.inFlight >= MAX_IN_FLIGHT;
  }

  /** Answers the whole messages received while not blocked, pauses or resumes reading, and sets the deadline. */
  private pump(): void {
    const socket = this.socket;
    if (socket.destroyed) return;
    while (!this.blocked() && this.wholeMessage()) {
      const end = 2 + this.input.readUInt16BE(0);
      const message = this.input.subarray(2, end);
      this.input = this.input.length === end ? EMPTY : this.input.subarray(end);
      const now = Date.now();
      this.lastActive = now;
      this.messageStart = now; // the rest, if any, is the next message's start
      this.serve(message);
      if (socket.destroyed) return;
    }
    const blocked = this.blocked();
    if (blocked !== this.paused) {
      this.paused = blocked;
      if (blocked) socket.pause();
      else socket.resume();
    }
    // the client finished sending: close once every answer went (a cut-off message never completes)
    if (this.ended && this.inFlight === 0 && !this.wholeMessage() && !socket.writableEnded) socket.end();
    this.arm();
  }

  private serve(message: Buffer): void {
    const started = performance.now();
    const now = answerAtOnce(this.responder, message, 'tcp', this.report, this.socket.remoteAddress);
    if (now) {
      this.send(now);
      return this.responder.stats.duration(TCP, (performance.now() - started) / 1000, 1);
    }
    if (now === null) return;
    this.inFlight++;
    const remote: Remote = {
      address: this.socket.remoteAddress ?? '',
      port: this.socket.remotePort ?? 0,
      transport: 'tcp',
    };
    void answerLater(message, {
      responder: this.responder,
      remote,
      send: (reply) => this.send(reply, true),
      report: this.report,
      ready: () => this.drained(),
      gone: () => this.socket.destroyed || this.socket.writableEnded,
    }).then(() =>
      this.guarded(() => {
        this.inFlight--;
        this.lastActive = Date.now();
        this.pump();
      }),
    );
  }

  /** `owned`: the reply is this connection's to keep (not the answer cache's buffer, which the next query reuses). */
  private send(reply: Buffer, owned = false): void {
    const socket = this.socket;
    if (socket.destroyed || socket.writableEnded) return;
    const message = sendable(reply, this.report);
    if (socket.writableLength === 0) this.lastWritten = Date.now();
    if (owned) {
      // no copy: a zone transfer is megabytes of messages, and copying them all made the answer thread's loop stall
      const length = Buffer.allocUnsafe(2);
      length.writeUInt16BE(message.length, 0);
      socket.cork();
      socket.write(length);
      socket.write(message, () => this.guarded(() => this.written()));
      socket.uncork();
      return;
    }
    const framed = Buffer.allocUnsafe(message.length + 2);
    framed.writeUInt16BE(message.length, 0);
    message.copy(framed, 2);
    socket.write(framed, () => this.guarded(() => this.written()));
  }

  /** Once the socket takes more, when its queue is over its mark now (else undefined): it drained, or closed. */
  private drained(): Promise<void> | undefined {
    const socket = this.socket;
    if (socket.destroyed || !socket.writableNeedDrain) return undefined;
    return new Promise((resolve) => {
      const done = (): void => {
        socket.off('drain', done).off('close', done);
        resolve();
      };
      socket.on('drain', done).on('close', done);
    });
  }

  private written(): void {
    const now = Date.now();
    this.lastWritten = now;
    this.lastActive = now;
    if (this.paused) this.pump();
  }

  /**
   * The earliest deadline that applies now: answers waiting to be sent must keep going out (`idleMs` since the last
   * write completed); a message still arriving must be whole `messageMs` after its first byte; with neither, and no
   * query being answered (RFC 7766 §6.2.3: not while one is processed), idle: `idleMs` after the last activity.
   */
  private deadline(): number | undefined {
    let due = Infinity;
    const writing = this.socket.writableLength > 0;
    if (writing) due = this.lastWritten + this.limits.idleMs;
    if (this.input.length > 0 && !this.wholeMessage()) due = Math.min(due, this.messageStart + this.limits.messageMs);
    else if (!writing && this.inFlight === 0 && this.input.length === 0)
      due = Math.min(due, this.lastActive + this.limits.idleMs);
    return due === Infinity ? undefined : due;
  }

  private arm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const due = this.deadline();
    if (due === undefined) return;
    this.timer = setTimeout(() => this.guarded(() => this.expire()), Math.max(0, due - Date.now()));
    this.timer.unref();
  }

  private expire(): void {
    this.timer = undefined;
    if (this.socket.destroyed) return;
    const due = this.deadline();
    if (due !== undefined && Date.now() >= due) {
      add(this.responder.stats.counts, G.tcpTimeouts);
      this.socket.destroy();
    } else this.arm();
  }
}
