import type * as RedisLibrary from '@redis/client';
import type { RedisClientType } from '@redis/client';

/**
 * The Redis client library, loaded when the first link is made: a process without REDIS_URL never loads its
 * 400-odd modules (about 11 MB of memory).
 */
function redisLibrary(): typeof RedisLibrary {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, see above
  return require('@redis/client') as typeof RedisLibrary;
}

export interface RedisLinkLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface RedisLinkOptions {
  url: string;
  /** What the link serves, for logs and health ("market cache", "live poller"). */
  purpose: string;
  /** What that part does while Redis is away, for the log line: "<purpose>: Redis is unreachable, so <fallback> until it answers again". */
  fallback: string;
  /** Bound of one connection attempt (a host that drops packets must not hold requests). */
  connectTimeoutMs: number;
  /** Bound of one command, from sending it to its reply (a stalled server must not hold requests). */
  commandTimeoutMs: number;
  log?: RedisLinkLogger;
}

export interface RedisLinkHealth {
  state: 'connecting' | 'up' | 'down';
  /** While down: since when (ISO 8601), and the last error. */
  since?: string;
  error?: string;
}

/**
 * Every Redis key and channel of ours: REDIS_PREFIX, one `:`, then the parts joined by `:` (a prefix that already
 * ends in `:` gets no second one), so deployments with different prefixes never share a key on one database.
 */
export function redisKey(prefix: string, ...parts: string[]): string {
  return `${prefix.endsWith(':') ? prefix : `${prefix}:`}${parts.join(':')}`;
}

/** Bounds used when a caller gives none (REDIS_CONNECT_TIMEOUT_MS, REDIS_COMMAND_TIMEOUT_MS). */
export const REDIS_TIMEOUT_DEFAULTS = { connectTimeoutMs: 1_000, commandTimeoutMs: 500 } as const;

/** Thrown at once, without touching the network, while the link is not up. */
export class RedisUnavailableError extends Error {
  constructor(purpose: string, detail: string) {
    super(`${purpose}: Redis is unreachable (${detail})`);
    this.name = 'RedisUnavailableError';
  }
}

export class RedisTimeoutError extends Error {
  constructor(ms: number) {
    super(`Redis did not answer within ${ms} ms`);
    this.name = 'RedisTimeoutError';
  }
}

/** Reconnect backoff: 100 ms doubling to 2 s, with jitter so replicas do not retry in step. */
function backoff(retries: number): number {
  return Math.min(100 * 2 ** retries, 2_000) * (0.8 + 0.4 * Math.random());
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Rejects with RedisTimeoutError when `promise` has not settled within `ms`. */
export function bounded<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RedisTimeoutError(ms)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * One Redis connection that never holds a caller up. It connects in the background and keeps reconnecting with a
 * bounded backoff; commands sent while it is not connected fail at once (no offline queue) and every command is
 * bounded by a timeout. The link is `up` from the client's `ready` until a connection error or a command that times
 * out; while it is down, `run` throws RedisUnavailableError without touching the network, a probe (PING) brings a
 * stalled-but-connected server back, and the outage is logged once when it starts and once when it ends. The very
 * first connection gets one retry before an outage is told: a start-up that holds the event loop past the connect
 * timeout (building schemas, opening stores) makes the client time out on a Redis that answered meanwhile.
 */
export class RedisLink {
  readonly client: RedisClientType;
  private state: RedisLinkHealth['state'] = 'connecting';
  private downSince = 0;
  private lastError = '';
  private probe?: NodeJS.Timeout;
  private probing = false;
  private closed = false;
  /** Whether the link has ever been up (before that, one failed attempt is not yet an outage to tell). */
  private everUp = false;
  /** Whether the current outage was logged (its end is logged only then). */
  private reported = false;
  private readonly changeListeners = new Set<(up: boolean) => void>();

  constructor(
    private readonly options: RedisLinkOptions,
    client?: RedisClientType,
  ) {
    this.client =
      client ??
      redisLibrary().createClient({
        url: options.url,
        disableOfflineQueue: true,
        socket: { connectTimeout: options.connectTimeoutMs, reconnectStrategy: backoff },
      });
    this.client.on('ready', () => this.markUp());
    this.client.on('error', (err: unknown) => this.markDown(err));
    this.client.connect().catch((err: unknown) => this.markDown(err));
  }

  /**
   * A second connection with the same settings (a subscriber cannot send other commands). `quiet`: it goes away
   * together with this one, so this one's log lines say it all.
   */
  duplicate(purpose: string, quiet = false): RedisLink {
    const options = { ...this.options, purpose, log: quiet ? undefined : this.options.log };
    return new RedisLink(options, this.client.duplicate());
  }

  get up(): boolean {
    return this.state === 'up' && this.client.isReady;
  }

  health(): RedisLinkHealth {
    if (this.state !== 'down') return { state: this.state };
    return { state: 'down', since: new Date(this.downSince).toISOString(), error: this.lastError };
  }

  /** Told `true` when the link comes up and `false` when it goes down. */
  onChange(listener: (up: boolean) => void): void {
    this.changeListeners.add(listener);
  }

  /**
   * Runs one call on the client, bounded by the command timeout. RedisUnavailableError at once while the link is
   * not up; a timeout or connection failure marks it down. An error reply (a bad command) leaves the link up.
   */
  async run<T>(call: (client: RedisClientType) => Promise<T>): Promise<T> {
    if (!this.up) throw new RedisUnavailableError(this.options.purpose, this.lastError || this.state);
    try {
      return await bounded(call(this.client), this.options.commandTimeoutMs);
    } catch (err) {
      if (!(err instanceof redisLibrary().ErrorReply)) this.markDown(err);
      throw err;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopProbe();
    if (!this.client.isOpen) return;
    if (!this.client.isReady) {
      this.client.destroy();
      return;
    }
    await bounded(this.client.close(), this.options.commandTimeoutMs).catch(() => this.client.destroy());
  }

  private markUp(): void {
    if (this.closed || this.state === 'up') return;
    const wasDown = this.state === 'down';
    this.state = 'up';
    this.everUp = true;
    this.stopProbe();
    if (wasDown && this.reported) {
      const seconds = Math.round((Date.now() - this.downSince) / 100) / 10;
      this.options.log?.info(
        { redis: this.options.purpose, downSeconds: seconds },
        `${this.options.purpose}: Redis is back after ${seconds} s`,
      );
    }
    this.reported = false;
    for (const listener of this.changeListeners) listener(true);
  }

  private markDown(err: unknown): void {
    if (this.closed) return;
    this.lastError = describe(err);
    if (this.state === 'down') {
      // one log line per outage, not one per retry or request; a first connection that failed twice is one
      if (!this.reported) this.report();
      return;
    }
    this.state = 'down';
    this.downSince = Date.now();
    this.reported = false;
    if (this.everUp) this.report();
    this.startProbe();
    for (const listener of this.changeListeners) listener(false);
  }

  private report(): void {
    this.reported = true;
    this.options.log?.warn(
      { redis: this.options.purpose, err: this.lastError },
      `${this.options.purpose}: Redis is unreachable, so ${this.options.fallback} until it answers again`,
    );
  }

  /** While down with the socket still connected (a stalled server), a PING now and then tells when it answers again. */
  private startProbe(): void {
    this.probe ??= setInterval(() => void this.ping(), Math.max(this.options.commandTimeoutMs, 250));
    this.probe.unref();
  }

  private stopProbe(): void {
    if (this.probe) clearInterval(this.probe);
    this.probe = undefined;
  }

  private async ping(): Promise<void> {
    if (this.probing || !this.client.isReady) return; // not connected: the client's own reconnect brings `ready`
    this.probing = true;
    try {
      await bounded(this.client.ping(), this.options.commandTimeoutMs);
      this.markUp();
    } catch (err) {
      this.lastError = describe(err);
    } finally {
      this.probing = false;
    }
  }
}
