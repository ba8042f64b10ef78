/**
 * The throttle's counts in this process's memory: maps of at most `maxTrackedKeys` keys each (least recently failed
 * evicted). Every operation runs whole when called (its promise is already settled), so within one process the check
 * and the count of an attempt are one step.
 */
import { LRUCache } from 'lru-cache';
import {
  MAX_COUNTED_PER_USERNAME,
  type FailureCounts,
  type LedgerFactory,
  type ThrottleDecision,
  type ThrottleKeys,
  type ThrottleLedger,
  type ThrottleLimits,
  type TrackedKeys,
} from './ledger';

/** Failure times (ms) per key, oldest first; the map's order is the order keys last failed. */
class FailureWindow {
  private readonly keys = new Map<string, number[]>();

  constructor(
    readonly limit: number,
    private readonly windowMs: number,
    private readonly maxKeys: number,
  ) {}

  get size(): number {
    return this.keys.size;
  }

  /** The failures of `key` still in the window. */
  private live(key: string, now: number): number[] {
    const times = this.keys.get(key);
    if (!times) return [];
    const cutoff = now - this.windowMs;
    let drop = 0;
    while (drop < times.length && (times[drop] ?? Infinity) <= cutoff) drop++;
    if (drop > 0) times.splice(0, drop);
    if (times.length === 0) this.keys.delete(key);
    return times;
  }

  count(key: string, now: number): number {
    return this.live(key, now).length;
  }

  /** Milliseconds until `key` may try again, or 0 when it may now. */
  waitMs(key: string, now: number): number {
    const times = this.live(key, now);
    if (times.length < this.limit) return 0;
    const oldestCounted = times[times.length - this.limit] ?? now;
    return Math.max(1, oldestCounted + this.windowMs - now);
  }

  /** Counts a failure; returns the failures of `key` now in the window. */
  add(key: string, now: number): number {
    const times = this.live(key, now);
    this.keys.delete(key); // re-inserted last: the map stays ordered by most recent failure
    times.push(now);
    if (times.length > this.limit) times.splice(0, times.length - this.limit);
    this.evict();
    this.keys.set(key, times);
    return times.length;
  }

  /** Takes back one failure counted at `at` (the provisional count of an attempt that succeeded). */
  remove(key: string, at: number): void {
    const times = this.keys.get(key);
    if (!times) return;
    const i = times.lastIndexOf(at);
    if (i >= 0) times.splice(i, 1);
    if (times.length === 0) this.keys.delete(key);
  }

  clear(key: string): void {
    this.keys.delete(key);
  }

  /** Makes room for one key by dropping the least recently failed keys (those out of the window go first). */
  private evict(): void {
    for (const key of this.keys.keys()) {
      if (this.keys.size < this.maxKeys) return;
      this.keys.delete(key);
    }
  }
}

const pairOf = (keys: ThrottleKeys): string => `${keys.username}\n${keys.address}`;

export class MemoryLedger implements ThrottleLedger {
  /** Failures per (username, address). */
  private readonly pairs: FailureWindow;
  private readonly addresses: FailureWindow;
  /** Failures per username from every address. */
  private readonly usernames: FailureWindow;
  /** The earliest time (ms) the next password check of a slowed username may run. */
  private readonly turns: LRUCache<string, number>;
  /** (username, address) pairs that logged in, and until when (ms) they skip the username's slow-down. */
  private readonly trusted: LRUCache<string, number>;
  private attempts = 0;

  constructor(private readonly o: ThrottleLimits) {
    const windowMs = o.windowSeconds * 1000;
    this.pairs = new FailureWindow(o.maxFailuresPerUsername, windowMs, o.maxTrackedKeys);
    this.addresses = new FailureWindow(o.maxFailuresPerAddress, windowMs, o.maxTrackedKeys);
    this.usernames = new FailureWindow(MAX_COUNTED_PER_USERNAME, windowMs, o.maxTrackedKeys);
    this.turns = new LRUCache({ max: o.maxTrackedKeys });
    this.trusted = new LRUCache({ max: o.maxTrackedKeys });
  }

  get tracked(): TrackedKeys {
    return { usernames: this.usernames.size, addresses: this.addresses.size, pairs: this.pairs.size };
  }

  async begin(keys: ThrottleKeys, t: number): Promise<ThrottleDecision> {
    const pair = pairOf(keys);
    const pairWait = this.pairs.waitMs(pair, t);
    const addressWait = this.addresses.waitMs(keys.address, t);
    if (pairWait > 0 || addressWait > 0) {
      const limit = pairWait > 0 && addressWait > 0 ? 'both' : pairWait > 0 ? 'pair' : 'address';
      return { kind: 'refused', limit, waitMs: Math.max(pairWait, addressWait) };
    }
    const hold = this.takeTurn(keys.username, pair, t);
    if (hold > this.o.maxHoldMs) return { kind: 'slowed', waitMs: hold };
    this.pairs.add(pair, t);
    this.addresses.add(keys.address, t);
    this.usernames.add(keys.username, t);
    return { kind: 'admitted', holdMs: hold, id: `m${++this.attempts}` };
  }

  /** How long this attempt waits for its turn (0 when the username is not slowed, or the address is trusted). */
  private takeTurn(username: string, pair: string, t: number): number {
    if ((this.trusted.get(pair) ?? 0) > t) return 0;
    const over = this.usernames.count(username, t) - this.o.maxFailuresPerUsername;
    if (over < 0) return 0;
    const spacing = Math.min(this.o.slowdownBaseMs * 2 ** over, this.o.slowdownMaxMs);
    const turn = Math.max(t, this.turns.get(username) ?? 0);
    const hold = turn - t;
    if (hold <= this.o.maxHoldMs) this.turns.set(username, turn + spacing); // a refused attempt takes no turn
    return hold;
  }

  /** The attempt's own failure is the one counted at its start time `t` (the id is not needed in one process). */
  async succeeded(keys: ThrottleKeys, t: number, _id: string, trustUntil: number): Promise<void> {
    const pair = pairOf(keys);
    this.pairs.clear(pair);
    this.addresses.remove(keys.address, t);
    this.usernames.remove(keys.username, t);
    this.trusted.set(pair, trustUntil);
  }

  async failed(keys: ThrottleKeys, t: number): Promise<FailureCounts> {
    return {
      perPair: this.pairs.count(pairOf(keys), t),
      perAddress: this.addresses.count(keys.address, t),
      perUsername: this.usernames.count(keys.username, t),
    };
  }
}

/** The ledger of a process of its own (without Redis). */
export const memoryLedger: LedgerFactory = (limits) => new MemoryLedger(limits);
