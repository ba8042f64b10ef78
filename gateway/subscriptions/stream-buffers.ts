import type { ServerResponse } from 'node:http';
import type { Logger } from '../logger';

/** Bounds on the bytes outgoing event streams hold for clients that read slower than events come. */
export interface StreamBufferLimits {
  /** Unsent bytes one stream may hold; over it the stream takes no new event (its source drops the oldest). */
  maxStreamBytes: number;
  /** Unsent bytes of every stream of this server together; over it the streams holding the most are disconnected. */
  maxTotalBytes: number;
  /** A stream that stays over maxStreamBytes this long is disconnected. */
  slowClientTimeoutMs: number;
}

export const DEFAULT_STREAM_BUFFER_LIMITS: StreamBufferLimits = {
  maxStreamBytes: 1024 * 1024,
  maxTotalBytes: 256 * 1024 * 1024,
  slowClientTimeoutMs: 60_000,
};

/** The configuration key of each limit, named in logs and metrics when it disconnects a client. */
export type BufferLimitName = 'liveSlowClientTimeoutMs' | 'liveMaxBufferedBytes';

/** What a disconnect reports (one log line, one metric). */
export interface SlowClientDisconnect {
  kind: string;
  client: string;
  bytes: number;
  limit: BufferLimitName;
}

/**
 * One outgoing stream's unsent bytes: bytes taken for it (`reserve`) or written to its socket that the socket has
 * not yet handed to the kernel (a write's callback says when it has — the same bytes `writableLength` counts).
 */
export class StreamBuffer {
  private unsent = 0;
  /** Reservations waiting for room, first come first served; each takes its bytes when it is let in. */
  private waiters: Array<{ bytes: number; resolve: (open: boolean) => void }> = [];
  private slowTimer?: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly owner: StreamBuffers,
    private readonly raw: ServerResponse,
    readonly client: string,
    readonly kind: string,
  ) {}

  get bytes(): number {
    return this.unsent;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** True while the stream holds less than its bound (it may take another event). */
  get hasRoom(): boolean {
    return this.unsent < this.owner.limits.maxStreamBytes;
  }

  /**
   * Waits until the stream has room, then counts `bytes` as held by it (a message queued for it, written later with
   * `write(chunk, true)`). False when the stream closed instead: the caller must drop the message.
   */
  reserve(bytes: number): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    if (this.hasRoom && this.waiters.length === 0) {
      this.count(bytes);
      return Promise.resolve(!this.closed);
    }
    return new Promise((resolve) => this.waiters.push({ bytes, resolve }));
  }

  /** Resolves true once the stream has room, false if it closes first. */
  room(): Promise<boolean> {
    return this.reserve(0);
  }

  /**
   * Writes `chunk` to the socket; its bytes count until the socket has flushed them. `reserved`: they were counted
   * already by `reserve`. Returns what `write` returns (false: wait for 'drain').
   */
  write(chunk: string, reserved = false, bytes = Buffer.byteLength(chunk)): boolean {
    if (this.closed) return false;
    if (!reserved) this.count(bytes);
    return this.raw.write(chunk, () => {
      this.count(-bytes);
      this.wake();
    });
  }

  /** Ends the stream because of `limit`: its socket is destroyed, its bytes freed, its waiters told. */
  disconnect(limit: BufferLimitName): void {
    if (this.closed) return;
    const bytes = this.unsent;
    this.release();
    this.owner.disconnected({ kind: this.kind, client: this.client, bytes, limit });
    this.raw.destroy();
  }

  /** The stream ended: nothing it held counts any more. Idempotent. */
  release(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.slowTimer);
    this.slowTimer = undefined;
    this.owner.changed(this, -this.unsent);
    this.unsent = 0;
    for (const waiter of this.waiters.splice(0)) waiter.resolve(false);
  }

  /** Lets waiting reservations in while there is room: each counts its bytes before the next one looks. */
  private wake(): void {
    while (!this.closed && this.hasRoom && this.waiters.length > 0) {
      const waiter = this.waiters.shift() as { bytes: number; resolve: (open: boolean) => void };
      this.count(waiter.bytes);
      waiter.resolve(!this.closed);
    }
  }

  private count(delta: number): void {
    if (this.closed) return;
    // A flushed write's callback may come after a reservation it had no part in: never below zero.
    const next = Math.max(0, this.unsent + delta);
    const change = next - this.unsent;
    this.unsent = next;
    this.owner.changed(this, change);
    if (this.closed) return; // the process bound disconnected this stream
    if (this.hasRoom) {
      if (this.slowTimer) {
        clearTimeout(this.slowTimer);
        this.slowTimer = undefined;
      }
    } else if (!this.slowTimer) {
      this.slowTimer = setTimeout(() => this.disconnect('liveSlowClientTimeoutMs'), this.owner.limits.slowClientTimeoutMs);
      this.slowTimer.unref();
    }
  }
}

/**
 * The bytes every outgoing event stream of one server holds for its client (graphql-sse streams in both modes,
 * /v1/live, a subgraph's streams to its gateway): one mechanism for all of them. A stream over its own bound
 * takes no new event until its client reads (the event sources drop their oldest events meanwhile); one that
 * stays over it for slowClientTimeoutMs is disconnected; while all streams together hold more than
 * maxTotalBytes, those holding the most are disconnected first.
 */
export class StreamBuffers {
  private readonly open = new Set<StreamBuffer>();
  private held = 0;
  private disconnects = 0;

  constructor(
    readonly limits: StreamBufferLimits,
    private readonly log: Logger,
    private readonly onDisconnect?: (event: SlowClientDisconnect) => void,
  ) {}

  /** Unsent bytes of every open stream. */
  get bytes(): number {
    return this.held;
  }

  get streams(): number {
    return this.open.size;
  }

  /** Streams disconnected for falling behind, since start. */
  get slowDisconnects(): number {
    return this.disconnects;
  }

  /** Starts counting a stream's unsent bytes; it stops when the response closes. */
  attach(raw: ServerResponse, client: string, kind: string): StreamBuffer {
    const buffer = new StreamBuffer(this, raw, client, kind);
    this.open.add(buffer);
    raw.once('close', () => buffer.release());
    return buffer;
  }

  /** @internal a stream's count changed by `delta`. */
  changed(buffer: StreamBuffer, delta: number): void {
    this.held += delta;
    if (buffer.isClosed) this.open.delete(buffer);
    if (delta > 0 && this.held > this.limits.maxTotalBytes) this.shed();
  }

  /** @internal */
  disconnected(event: SlowClientDisconnect): void {
    this.disconnects++;
    const max = event.limit === 'liveMaxBufferedBytes' ? this.limits.maxTotalBytes : this.limits.maxStreamBytes;
    this.log.warn({ client: event.client, kind: event.kind, bytes: event.bytes, limit: event.limit, max, heldBytes: this.held },
      'slow live client disconnected');
    this.onDisconnect?.(event);
  }

  /** Over the process bound: disconnects the streams holding the most until the rest fit. */
  private shed(): void {
    const largest = [...this.open].sort((a, b) => b.bytes - a.bytes);
    for (const buffer of largest) {
      if (this.held <= this.limits.maxTotalBytes) break;
      buffer.disconnect('liveMaxBufferedBytes');
    }
  }
}
