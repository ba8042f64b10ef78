import type { Logger } from '../../../platform/log';

/**
 * Where a stream's bytes go, as far as its buffer cares: an HTTP response (event streams) or a WebSocket's connection
 * (an adapter in ws-endpoint.ts). `writableLength` is what it holds unflushed; 'drain' says it flushed below its
 * high-water mark; 'close' that it is gone.
 */
export interface StreamSink {
  write(chunk: string): boolean;
  readonly writableLength: number;
  on(event: 'drain', listener: () => void): unknown;
  once(event: 'close', listener: () => void): unknown;
  destroy(): unknown;
}

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

/** How often streams waiting for room have their sockets looked at again (besides every 'drain'). */
const SWEEP_MS = 250;

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
 * One outgoing stream's unsent bytes: messages taken for it (`reserve`) that are not written yet, plus what its
 * socket holds unflushed (`writableLength`, read whenever the stream is looked at: on reserve, write and 'drain').
 * No callback per write: with thousands of streams, a closure per message was most of the garbage collector's work.
 */
export class StreamBuffer {
  /** Bytes reserved for messages not written yet. */
  private queued = 0;
  /** The socket's unflushed bytes when last read. */
  private socket = 0;
  /** Reservations waiting for room, first come first served; each takes its bytes when it is let in. */
  private waiters: Array<{ bytes: number; resolve: (open: boolean) => void }> = [];
  private slowTimer?: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly owner: StreamBuffers,
    private readonly raw: StreamSink,
    readonly client: string,
    readonly kind: string,
    /** Ends the stream when a bound disconnects it (default: the sink destroyed at once). */
    private readonly end: (limit: BufferLimitName) => void = () => raw.destroy(),
  ) {
    raw.on('drain', () => this.refresh());
  }

  /** Unsent bytes now (the socket is read afresh: it flushes without telling anyone when it never filled up). */
  get bytes(): number {
    this.readSocket();
    return this.queued + this.socket;
  }

  /** Unsent bytes as last counted, without looking at the socket. */
  private get counted(): number {
    return this.queued + this.socket;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** True while the stream holds less than its bound (it may take another event). */
  get hasRoom(): boolean {
    return this.counted < this.owner.limits.maxStreamBytes;
  }

  /** True while reservations wait for room (the owner re-reads such streams' sockets periodically). */
  get waiting(): boolean {
    return this.waiters.length > 0;
  }

  /**
   * Waits until the stream has room, then counts `bytes` as held by it (a message queued for it, written later with
   * `write(chunk, true)`). False when the stream closed instead: the caller must drop the message.
   */
  reserve(bytes: number): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    this.readSocket();
    if (this.hasRoom && this.waiters.length === 0) {
      this.account(bytes, 0);
      return Promise.resolve(!this.closed);
    }
    this.owner.watch(this);
    return new Promise((resolve) => this.waiters.push({ bytes, resolve }));
  }

  /** Resolves true once the stream has room, false if it closes first. */
  room(): Promise<boolean> {
    return this.reserve(0);
  }

  /**
   * Writes `chunk` to the socket, where its bytes count until flushed. `reserved`: they were counted already by
   * `reserve` (they move from queued to the socket). Returns what `write` returns (false: wait for 'drain').
   */
  write(chunk: string, reserved = false, bytes = Buffer.byteLength(chunk)): boolean {
    if (this.closed) return false;
    const written = this.raw.write(chunk);
    if (reserved) this.account(-Math.min(bytes, this.queued), 0);
    this.refresh();
    return written;
  }

  /** Ends the stream because of `limit`: its socket is destroyed, its bytes freed, its waiters told. */
  disconnect(limit: BufferLimitName): void {
    if (this.closed) return;
    const bytes = this.counted;
    this.release();
    this.owner.disconnected({ kind: this.kind, client: this.client, bytes, limit });
    this.end(limit);
  }

  /** The stream ended: nothing it held counts any more. Idempotent. */
  release(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.slowTimer);
    this.slowTimer = undefined;
    this.owner.changed(this, -this.counted);
    this.queued = 0;
    this.socket = 0;
    for (const waiter of this.waiters.splice(0)) waiter.resolve(false);
  }

  /** Reads the socket's unflushed bytes again and lets waiting reservations in while there is room. */
  refresh(): void {
    if (this.closed) return;
    this.readSocket();
    while (!this.closed && this.hasRoom && this.waiters.length > 0) {
      const waiter = this.waiters.shift() as { bytes: number; resolve: (open: boolean) => void };
      this.account(waiter.bytes, 0);
      waiter.resolve(!this.closed);
    }
  }

  /** Re-reads the socket's unflushed bytes into the count. */
  readSocket(): void {
    if (this.closed) return;
    const now = this.raw.writableLength ?? 0;
    if (now !== this.socket) this.account(0, now - this.socket);
  }

  private account(queuedDelta: number, socketDelta: number): void {
    if (this.closed) return;
    this.queued += queuedDelta;
    this.socket += socketDelta;
    this.owner.changed(this, queuedDelta + socketDelta);
    if (this.closed) return; // the process bound disconnected this stream
    if (this.hasRoom) {
      if (this.slowTimer) {
        clearTimeout(this.slowTimer);
        this.slowTimer = undefined;
      }
    } else if (!this.slowTimer) {
      this.slowTimer = setTimeout(
        () => this.disconnect('liveSlowClientTimeoutMs'),
        this.owner.limits.slowClientTimeoutMs,
      );
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
  private readonly waiting = new Set<StreamBuffer>();
  private sweeper?: NodeJS.Timeout;
  private held = 0;
  /** Set while shed() re-reads sockets (a re-read that adds bytes must not start another shed). */
  private shedding = false;
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

  /**
   * Streams with waiting reservations are re-read every SWEEP_MS: a socket that flushes below the bound without
   * ever having been over its high-water mark emits no 'drain' (only possible with a bound below ~16 KiB).
   */
  watch(buffer: StreamBuffer): void {
    this.waiting.add(buffer);
    this.sweeper ??= setInterval(() => {
      for (const b of this.waiting) {
        if (!b.isClosed) b.refresh();
        if (b.isClosed || !b.waiting) this.waiting.delete(b);
      }
      if (this.waiting.size === 0) {
        clearInterval(this.sweeper);
        this.sweeper = undefined;
      }
    }, SWEEP_MS);
    this.sweeper.unref();
  }

  /**
   * Starts counting a stream's unsent bytes; it stops when the sink closes. `end`: how a bound ends the stream
   * (default: the sink destroyed; a WebSocket is closed with a code saying why).
   */
  attach(raw: StreamSink, client: string, kind: string, end?: (limit: BufferLimitName) => void): StreamBuffer {
    const buffer = new StreamBuffer(this, raw, client, kind, end);
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
    this.log.warn(
      { client: event.client, kind: event.kind, bytes: event.bytes, limit: event.limit, max, heldBytes: this.held },
      'slow live client disconnected',
    );
    this.onDisconnect?.(event);
  }

  /**
   * Over the process bound: first every socket is read afresh (counts of streams nobody looked at lately can be
   * stale by what their sockets flushed since), then the streams holding the most are disconnected until the rest fit.
   */
  private shed(): void {
    if (this.shedding) return;
    this.shedding = true;
    try {
      for (const buffer of this.open) buffer.readSocket();
    } finally {
      this.shedding = false;
    }
    if (this.held <= this.limits.maxTotalBytes) return;
    const largest = [...this.open].sort((a, b) => b.bytes - a.bytes);
    for (const buffer of largest) {
      if (this.held <= this.limits.maxTotalBytes) break;
      buffer.disconnect('liveMaxBufferedBytes');
    }
  }
}
