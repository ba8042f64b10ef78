import { randomUUID } from 'node:crypto';
import type { Quote, Ticker } from '../model';
import { REDIS_TIMEOUT_DEFAULTS, RedisLink, redisKey } from '../../../platform/redis';
import { LocalTicker } from './local-ticker';
import type { DriverHealth, LiveLogger, PriceHub, TickDriver } from './price-hub';

export interface SharedTickerOptions {
  redisUrl: string;
  /** Key and channel prefix, so several deployments (or test runs) can share one Redis. */
  prefix: string;
  intervalMs: number;
  log?: LiveLogger;
  /** This replica's name in Redis (default: a random UUID). */
  replicaId?: string;
  /** Bound of one Redis connection attempt (default 1000 ms). */
  connectTimeoutMs?: number;
  /** Bound of one Redis command (default 500 ms). */
  commandTimeoutMs?: number;
}

/** What the leader publishes per tick. */
interface TickMessage {
  sequence: number;
  at: string;
  quotes: Array<[Ticker, Quote]>;
}

/**
 * One step of a replica, in one round trip: publish its watch entry, raise the shared sequence counter to at least
 * the replica's own last number (so the leader's next number is above every replica's, after an outage or a Redis
 * restart that lost the counter), then take the lease when it is free or renew it when it is ours. 1 when we hold it.
 * KEYS: watch hash, lease, counter. ARGV: replica id, watch entry, lease ms, the replica's last sequence.
 */
const STEP = `
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if tonumber(redis.call('GET', KEYS[3]) or '0') < tonumber(ARGV[4]) then redis.call('SET', KEYS[3], ARGV[4]) end
local v = redis.call('GET', KEYS[2])
if v == ARGV[1] then redis.call('PEXPIRE', KEYS[2], ARGV[3]) return 1 end
if not v then redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[3]) return 1 end
return 0`;
const RELEASE_LEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

const NOTHING: ReadonlySet<Ticker> = new Set();

/**
 * One poller across every gateway replica that shares a Redis. Each replica with watchers runs a step timer
 * (`min(interval, 1 s)`): it writes the tickers it watches into a hash (with an expiry instant, so a dead replica's
 * entry ages out) and tries to take or renew a lease. The lease holder — the leader — polls the union of every
 * replica's tickers once per interval in one batched provider call and publishes the tick; every replica (the
 * leader too) delivers ticks from the channel. When the leader dies its lease runs out after three steps and the
 * next replica to step takes over; sequence numbers come from a Redis counter, so they keep rising across leaders.
 *
 * While Redis is away (either connection down, or a command that times out) each replica polls for its own
 * subscribers with a LocalTicker — degraded (more provider calls), shown in health, but no stream stops — and goes
 * back to the shared poller at the first step after Redis answers again. The hub keeps every stream's sequence
 * rising through all of it (see PriceHub.deliver), and the STEP script lifts the shared counter above it.
 */
export class SharedTicker implements TickDriver {
  private readonly cmd: RedisLink;
  private readonly sub: RedisLink;
  private readonly local: LocalTicker;
  private readonly id: string;
  private readonly stepMs: number;
  private readonly leaseMs: number;
  private readonly keys: { leader: string; watch: string; sequence: string; channel: string };
  private timer?: NodeJS.Timeout;
  private watched: readonly Ticker[] = [];
  private leader = false;
  private subscribed = false;
  private subscribing?: Promise<void>;
  private stepping = false;
  private polling = false;
  private nextPollAt = 0;
  /** The counter value of the last message delivered (the same message twice is delivered once). */
  private lastMessage = -1;

  constructor(
    private readonly hub: PriceHub,
    private readonly options: SharedTickerOptions,
  ) {
    this.id = options.replicaId ?? randomUUID();
    this.stepMs = Math.min(options.intervalMs, 1_000);
    this.leaseMs = this.stepMs * 3;
    const p = redisKey(options.prefix, 'live');
    this.keys = { leader: `${p}:leader`, watch: `${p}:watch`, sequence: `${p}:sequence`, channel: `${p}:ticks` };
    this.cmd = new RedisLink({
      url: options.redisUrl,
      purpose: 'live prices',
      fallback: 'each replica polls the provider for its own subscribers',
      connectTimeoutMs: options.connectTimeoutMs ?? REDIS_TIMEOUT_DEFAULTS.connectTimeoutMs,
      commandTimeoutMs: options.commandTimeoutMs ?? REDIS_TIMEOUT_DEFAULTS.commandTimeoutMs,
      log: options.log,
    });
    this.sub = this.cmd.duplicate('live prices (tick channel)', true);
    this.local = new LocalTicker(hub, options.intervalMs, options.log);
    // Switch over as soon as a link changes, not at the next step.
    this.sub.onChange((up) => {
      if (up) void this.subscribe();
      void this.step();
    });
    this.cmd.onChange(() => void this.step());
  }

  get timers(): number {
    return (this.timer ? 1 : 0) + this.local.timers;
  }

  get role(): string {
    if (!this.timer) return 'idle';
    if (this.local.timers > 0) return 'local';
    return this.leader ? 'leader' : 'follower';
  }

  get replica(): string {
    return this.id;
  }

  health(): DriverHealth {
    if (this.shared) return { status: 'ok' };
    const down = [this.cmd.health(), this.sub.health()].find((h) => h.state === 'down');
    if (!down) return { status: 'ok' }; // still connecting at start: nothing is lost yet
    return {
      status: 'degraded',
      reason: `Redis unreachable since ${down.since} (${down.error}): each replica polls the provider for its own live subscribers`,
    };
  }

  watch(tickers: ReadonlySet<Ticker>): void {
    this.watched = [...tickers];
    if (this.watched.length > 0) {
      this.timer ??= setInterval(() => void this.step(), this.stepMs);
      void this.step(); // publish the new list now: the leader polls it at its next interval
      return;
    }
    this.local.watch(NOTHING);
    if (this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
      void this.retire();
    }
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.local.close();
    await this.retire();
    await Promise.all([this.sub.close(), this.cmd.close()]);
  }

  /** Both connections up and the channel subscribed: ticks can travel through Redis. */
  private get shared(): boolean {
    return this.cmd.up && this.sub.up && this.subscribed;
  }

  /** Subscribes once (one listener); the client subscribes again by itself after every reconnect. */
  private subscribe(): Promise<void> {
    this.subscribing ??= this.sub
      .run((c) => c.subscribe(this.keys.channel, (message) => this.onMessage(message)))
      .then(() => {
        this.subscribed = true;
        void this.step();
      })
      .catch((err: unknown) => {
        if (this.sub.up)
          this.options.log?.warn({ err }, 'live: subscribing to the tick channel failed; retrying at the next step');
        this.subscribing = undefined;
      });
    return this.subscribing;
  }

  /** Leaves the watch hash and gives up the lease, so another replica takes over at once. */
  private async retire(): Promise<void> {
    const wasLeader = this.leader;
    this.leader = false;
    if (!this.cmd.up) return;
    try {
      await this.cmd.run((c) => c.hDel(this.keys.watch, this.id));
      if (wasLeader)
        await this.cmd.run((c) => c.eval(RELEASE_LEASE, { keys: [this.keys.leader], arguments: [this.id] }));
    } catch (err) {
      this.options.log?.warn({ err }, 'live: leaving the shared poller failed');
    }
  }

  private async step(): Promise<void> {
    if (this.stepping || this.watched.length === 0) return;
    this.stepping = true;
    try {
      if (!this.shared) {
        this.leader = false;
        if (this.sub.up && !this.subscribed) void this.subscribe();
        this.local.watch(new Set(this.watched)); // Redis away: poll for our own subscribers meanwhile
        return;
      }
      const now = Date.now();
      const entry = JSON.stringify({ tickers: this.watched, until: now + this.leaseMs });
      const args = [this.id, entry, String(this.leaseMs), String(this.hub.stats.sequence)];
      const held =
        (await this.cmd.run((c) =>
          c.eval(STEP, { keys: [this.keys.watch, this.keys.leader, this.keys.sequence], arguments: args }),
        )) === 1;
      this.local.watch(NOTHING); // Redis answers again: the shared poller serves us
      if (held !== this.leader)
        this.options.log?.info(
          { replica: this.id },
          held ? 'live: this replica now polls for all' : 'live: another replica polls now',
        );
      this.leader = held;
      // Poll due (with half a step of slack for timer jitter), and not still busy with the last one.
      if (held && !this.polling && now >= this.nextPollAt - this.stepMs / 2) {
        this.nextPollAt = now + this.options.intervalMs;
        void this.pollAndPublish();
      }
    } catch (err) {
      // A Redis fault marks its link down: the next step polls locally. Anything else is worth a line.
      if (this.cmd.up) this.options.log?.warn({ err }, 'live: shared poller step failed');
    } finally {
      this.stepping = false;
    }
  }

  private async pollAndPublish(): Promise<void> {
    this.polling = true;
    try {
      const now = Date.now();
      const entries = await this.cmd.run((c) => c.hGetAll(this.keys.watch));
      const tickers = new Set<Ticker>();
      const expired: string[] = [];
      for (const [replica, value] of Object.entries(entries)) {
        const entry = JSON.parse(value) as { tickers: Ticker[]; until: number };
        if (entry.until < now) expired.push(replica);
        else for (const t of entry.tickers) tickers.add(t);
      }
      if (expired.length) await this.cmd.run((c) => c.hDel(this.keys.watch, expired));
      if (tickers.size === 0) return;
      const at = new Date();
      const { quotes, failed } = await this.hub.poll([...tickers]);
      if (failed) this.options.log?.warn({ err: failed, tickers: tickers.size }, 'live poll failed for some tickers');
      if (quotes.size === 0) return;
      const sequence = await this.cmd.run((c) => c.incr(this.keys.sequence));
      const message: TickMessage = { sequence, at: at.toISOString(), quotes: [...quotes] };
      await this.cmd.run((c) => c.publish(this.keys.channel, JSON.stringify(message)));
    } catch (err) {
      if (this.cmd.up) this.options.log?.warn({ err }, 'live: shared poll failed');
    } finally {
      this.polling = false;
    }
  }

  private onMessage(message: string): void {
    try {
      const tick = JSON.parse(message) as TickMessage;
      if (tick.sequence === this.lastMessage) return;
      this.lastMessage = tick.sequence;
      this.hub.deliver({ sequence: tick.sequence, at: new Date(tick.at), quotes: new Map(tick.quotes) });
    } catch (err) {
      this.options.log?.warn({ err }, 'live: unreadable tick message');
    }
  }
}
