import { randomUUID } from 'node:crypto';
import { createClient, type RedisClientType } from '@redis/client';
import type { Quote, Ticker } from '../model';
import type { LiveLogger } from './local-ticker';
import type { PriceHub, TickDriver } from './price-hub';

export interface SharedTickerOptions {
  redisUrl: string;
  /** Key and channel prefix, so several deployments (or test runs) can share one Redis. */
  prefix: string;
  intervalMs: number;
  log?: LiveLogger;
  /** This replica's name in Redis (default: a random UUID). */
  replicaId?: string;
}

/** What the leader publishes per tick. */
interface TickMessage {
  sequence: number;
  at: string;
  quotes: Array<[Ticker, Quote]>;
}

/** Takes the lease when it is free, renews it when it is ours; 1 when we hold it afterwards. */
const HOLD_LEASE = `
local v = redis.call('GET', KEYS[1])
if v == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
if not v then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end
return 0`;
const RELEASE_LEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/**
 * One poller across every gateway replica that shares a Redis. Each replica with watchers runs a step timer
 * (`min(interval, 1 s)`): it writes the tickers it watches into a hash (with an expiry instant, so a dead replica's
 * entry ages out) and tries to take or renew a lease. The lease holder — the leader — polls the union of every
 * replica's tickers once per interval in one batched provider call and publishes the tick; every replica (the
 * leader too) delivers ticks from the channel. When the leader dies its lease runs out after three steps and the
 * next replica to step takes over; sequence numbers come from a Redis counter, so they keep rising across leaders.
 */
export class SharedTicker implements TickDriver {
  private readonly cmd: RedisClientType;
  private readonly sub: RedisClientType;
  private readonly id: string;
  private readonly stepMs: number;
  private readonly leaseMs: number;
  private readonly keys: { leader: string; watch: string; sequence: string; channel: string };
  private timer?: NodeJS.Timeout;
  private watched: readonly Ticker[] = [];
  private leader = false;
  private stepping = false;
  private polling = false;
  private nextPollAt = 0;
  private readonly ready: Promise<void>;

  constructor(private readonly hub: PriceHub, private readonly options: SharedTickerOptions) {
    this.id = options.replicaId ?? randomUUID();
    this.stepMs = Math.min(options.intervalMs, 1_000);
    this.leaseMs = this.stepMs * 3;
    const p = `${options.prefix}:live`;
    this.keys = { leader: `${p}:leader`, watch: `${p}:watch`, sequence: `${p}:sequence`, channel: `${p}:ticks` };
    const cmd = createClient({ url: options.redisUrl }) as RedisClientType;
    const sub = cmd.duplicate();
    for (const client of [cmd, sub]) client.on('error', (err: unknown) => options.log?.warn({ err }, 'live: Redis error'));
    this.cmd = cmd;
    this.sub = sub;
    const channel = this.keys.channel;
    this.ready = (async () => {
      await Promise.all([cmd.connect(), sub.connect()]);
      await sub.subscribe(channel, (message) => this.onMessage(message));
    })();
    this.ready.catch((err: unknown) => options.log?.warn({ err }, 'live: cannot reach Redis; retrying'));
  }

  /** Resolves once both Redis connections are up and the tick channel is subscribed. */
  whenReady(): Promise<void> {
    return this.ready;
  }

  get timers(): number {
    return this.timer ? 1 : 0;
  }

  get role(): string {
    if (!this.timer) return 'idle';
    return this.leader ? 'leader' : 'follower';
  }

  get replica(): string {
    return this.id;
  }

  watch(tickers: ReadonlySet<Ticker>): void {
    this.watched = [...tickers];
    if (this.watched.length > 0) {
      this.timer ??= setInterval(() => void this.step(), this.stepMs);
      void this.step(); // publish the new list now: the leader polls it at its next interval
      return;
    }
    if (this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
      void this.retire();
    }
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.ready.catch(() => undefined);
    await this.retire();
    for (const client of [this.sub, this.cmd]) {
      if (client.isOpen) await client.close().catch(() => client.destroy());
    }
  }

  /** Leaves the watch hash and gives up the lease, so another replica takes over at once. */
  private async retire(): Promise<void> {
    const wasLeader = this.leader;
    this.leader = false;
    if (!this.cmd.isReady) return;
    try {
      await this.cmd.hDel(this.keys.watch, this.id);
      if (wasLeader) await this.cmd.eval(RELEASE_LEASE, { keys: [this.keys.leader], arguments: [this.id] });
    } catch (err) {
      this.options.log?.warn({ err }, 'live: leaving the shared poller failed');
    }
  }

  private async step(): Promise<void> {
    if (this.stepping || !this.cmd.isReady || this.watched.length === 0) return;
    this.stepping = true;
    try {
      const now = Date.now();
      await this.cmd.hSet(this.keys.watch, this.id, JSON.stringify({ tickers: this.watched, until: now + this.leaseMs }));
      const held = (await this.cmd.eval(HOLD_LEASE, { keys: [this.keys.leader], arguments: [this.id, String(this.leaseMs)] })) === 1;
      if (held !== this.leader) this.options.log?.info({ replica: this.id }, held ? 'live: this replica now polls for all' : 'live: another replica polls now');
      this.leader = held;
      // Poll due (with half a step of slack for timer jitter), and not still busy with the last one.
      if (held && !this.polling && now >= this.nextPollAt - this.stepMs / 2) {
        this.nextPollAt = now + this.options.intervalMs;
        void this.pollAndPublish();
      }
    } catch (err) {
      this.options.log?.warn({ err }, 'live: shared poller step failed');
    } finally {
      this.stepping = false;
    }
  }

  private async pollAndPublish(): Promise<void> {
    this.polling = true;
    try {
      const now = Date.now();
      const entries = await this.cmd.hGetAll(this.keys.watch);
      const tickers = new Set<Ticker>();
      const expired: string[] = [];
      for (const [replica, value] of Object.entries(entries)) {
        const entry = JSON.parse(value) as { tickers: Ticker[]; until: number };
        if (entry.until < now) expired.push(replica);
        else for (const t of entry.tickers) tickers.add(t);
      }
      if (expired.length) await this.cmd.hDel(this.keys.watch, expired);
      if (tickers.size === 0) return;
      const at = new Date();
      const { quotes, failed } = await this.hub.poll([...tickers]);
      if (failed) this.options.log?.warn({ err: failed, tickers: tickers.size }, 'live poll failed for some tickers');
      if (quotes.size === 0) return;
      const sequence = await this.cmd.incr(this.keys.sequence);
      const message: TickMessage = { sequence, at: at.toISOString(), quotes: [...quotes] };
      await this.cmd.publish(this.keys.channel, JSON.stringify(message));
    } catch (err) {
      this.options.log?.warn({ err }, 'live: shared poll failed');
    } finally {
      this.polling = false;
    }
  }

  private onMessage(message: string): void {
    try {
      const tick = JSON.parse(message) as TickMessage;
      this.hub.deliver({ sequence: tick.sequence, at: new Date(tick.at), quotes: new Map(tick.quotes) });
    } catch (err) {
      this.options.log?.warn({ err }, 'live: unreadable tick message');
    }
  }
}
