/**
 * Login throttling (OWASP authentication guidance, NIST SP 800-63B §5.2.2), built so that nobody can lock a user
 * out by failing on their behalf:
 *
 * - **per (username, address)**: after `maxFailuresPerUsername` failures in the window, that address is refused for
 *   that username (THROTTLED with the seconds to wait) — even with the right password, else it would only slow
 *   guessing down. Other addresses are not affected.
 * - **per address**: after `maxFailuresPerAddress` failures in the window (any usernames), the address is refused.
 * - **per username, from all addresses together**: once the username has `maxFailuresPerUsername` failures in the
 *   window, its password checks are spaced out — each attempt waits its turn, the spacing doubling with each further
 *   failure up to `slowdownMaxMs` — so guessing from many addresses gets slower and slower; an attempt whose turn
 *   would come later than `maxHoldMs` is refused with the wait. Never a hard lock: an address that has logged in
 *   as the user before (within `trustSeconds`) skips the queue, and any other one is only ever delayed.
 *
 * An attempt counts as a failure from the moment it starts (before the slow password check), so attempts sent at once
 * cannot all pass the check; a success takes its own count back and clears the failures of its (username, address).
 * State lives in memory, per process, in maps of at most `maxTrackedKeys` keys each (least recently failed evicted).
 * IPv6 clients are counted per /64 (one host usually holds a whole /64); IPv4-mapped IPv6 counts as IPv4.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { LRUCache } from 'lru-cache';

/** Where the throttle reports failed logins and limits reached (user name and address; never a password). */
export interface ThrottleLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}
import { setTimeout as sleep } from 'node:timers/promises';

export interface ThrottleOptions {
  /**
   * Failed logins of one username from one address within the window before that address is refused for it; from
   * all addresses together, the failures after which the username's attempts are slowed down (default 5).
   */
  maxFailuresPerUsername?: number;
  /** Failed logins from one client address within the window before further attempts are refused (default 20). */
  maxFailuresPerAddress?: number;
  /** The window, in seconds (default 900: 15 minutes). */
  windowSeconds?: number;
  /** Most keys tracked at once in each map (default 10 000). */
  maxTrackedKeys?: number;
  /** Spacing of a slowed username's attempts at its first failure over the limit, doubled with each more (250 ms). */
  slowdownBaseMs?: number;
  /** Largest spacing of a slowed username's attempts (default 30 000 ms). */
  slowdownMaxMs?: number;
  /** Longest an attempt waits for its turn; one that would wait longer is refused with the wait (default 5 000 ms). */
  maxHoldMs?: number;
  /** How long an address that logged in as a user skips that user's slow-down (default 30 days). */
  trustSeconds?: number;
}

export const THROTTLE_DEFAULTS: Readonly<Required<ThrottleOptions>> = Object.freeze({
  maxFailuresPerUsername: 5,
  maxFailuresPerAddress: 20,
  windowSeconds: 900,
  maxTrackedKeys: 10_000,
  slowdownBaseMs: 250,
  slowdownMaxMs: 30_000,
  maxHoldMs: 5_000,
  trustSeconds: 30 * 86_400,
});

/** One attempt in progress: report how it ended exactly once. */
export interface LoginAttempt {
  succeeded(): void;
  failed(): void;
}

/** Why an attempt is refused, and for how long: the caller turns it into its own error (429 with Retry-After). */
export interface ThrottleRefusal {
  message: string;
  retryAfterSeconds: number;
}

export interface ThrottleDeps {
  /** Turns a refusal into the error thrown (e.g. the identity's THROTTLED, the DNS tool's `Login failed`). */
  refuse: (refusal: ThrottleRefusal) => Error;
  now?: () => Date;
  /** Where failures and limits reached are reported (never a password). */
  log?: ThrottleLog;
  /** Waits `ms` (tests replace it). */
  wait?: (ms: number) => Promise<void>;
  /** What the log calls the login (`DNS API`, `DNS tool token`…). */
  what?: string;
}

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

function positiveInteger(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`login throttle ${name} must be a positive integer`);
  return value;
}

/** Failures of a username counted at most (its slow-down has reached its largest spacing long before). */
const MAX_COUNTED_PER_USERNAME = 64;

export class LoginThrottle {
  private readonly o: Required<ThrottleOptions>;
  /** Failures per (username, address). */
  private readonly pairs: FailureWindow;
  private readonly addresses: FailureWindow;
  /** Failures per username from every address. */
  private readonly usernames: FailureWindow;
  /** The earliest time (ms) the next password check of a slowed username may run. */
  private readonly turns: LRUCache<string, number>;
  /** (username, address) pairs that logged in, and until when (ms) they skip the username's slow-down. */
  private readonly trusted: LRUCache<string, number>;
  private readonly now: () => Date;
  private readonly wait: (ms: number) => Promise<void>;

  constructor(
    options: ThrottleOptions = {},
    private readonly deps: ThrottleDeps,
  ) {
    const o = { ...THROTTLE_DEFAULTS, ...options };
    for (const key of Object.keys(THROTTLE_DEFAULTS) as Array<keyof ThrottleOptions>) positiveInteger(o[key], key);
    this.o = o;
    const windowMs = o.windowSeconds * 1000;
    this.pairs = new FailureWindow(o.maxFailuresPerUsername, windowMs, o.maxTrackedKeys);
    this.addresses = new FailureWindow(o.maxFailuresPerAddress, windowMs, o.maxTrackedKeys);
    this.usernames = new FailureWindow(MAX_COUNTED_PER_USERNAME, windowMs, o.maxTrackedKeys);
    this.turns = new LRUCache({ max: o.maxTrackedKeys });
    this.trusted = new LRUCache({ max: o.maxTrackedKeys });
    this.now = deps.now ?? (() => new Date());
    this.wait = deps.wait ?? ((ms) => sleep(ms).then(() => undefined));
  }

  /** Keys tracked now: for tests and metrics. */
  get tracked(): { usernames: number; addresses: number; pairs: number } {
    return { usernames: this.usernames.size, addresses: this.addresses.size, pairs: this.pairs.size };
  }

  /**
   * Starts an attempt for `username` (already normalised) from `clientAddress`: refused (the error `deps.refuse`
   * makes) when its address, or its address for this username, is at its limit, or when a slowed username's turn is
   * too far away; else held until its turn, and counted as a failure until `succeeded()` is called.
   */
  async begin(username: string, clientAddress: string): Promise<LoginAttempt> {
    const t = this.now().getTime();
    const address = addressKey(clientAddress);
    const pair = `${username}\n${address}`;
    const pairWait = this.pairs.waitMs(pair, t);
    const addressWait = this.addresses.waitMs(address, t);
    if (pairWait > 0 || addressWait > 0) {
      const which =
        pairWait > 0 && addressWait > 0
          ? 'for this username and from this address'
          : pairWait > 0
            ? 'for this username from this address'
            : 'from this address';
      throw this.refusal(`too many failed logins ${which}`, Math.max(pairWait, addressWait));
    }
    const hold = this.takeTurn(username, pair, t);
    this.pairs.add(pair, t);
    this.addresses.add(address, t);
    this.usernames.add(username, t);
    if (hold > 0) await this.wait(hold);
    let done = false;
    return {
      succeeded: () => {
        if (done) return;
        done = true;
        this.pairs.clear(pair);
        this.addresses.remove(address, t);
        this.usernames.remove(username, t);
        this.trusted.set(pair, this.now().getTime() + this.o.trustSeconds * 1000);
      },
      failed: () => {
        if (done) return;
        done = true;
        this.reportFailure(username, address, pair, t);
      },
    };
  }

  /** How long this attempt waits for its turn (0 when the username is not slowed, or the address is trusted). */
  private takeTurn(username: string, pair: string, t: number): number {
    if ((this.trusted.get(pair) ?? 0) > t) return 0;
    const over = this.usernames.count(username, t) - this.o.maxFailuresPerUsername;
    if (over < 0) return 0;
    const spacing = Math.min(this.o.slowdownBaseMs * 2 ** over, this.o.slowdownMaxMs);
    const turn = Math.max(t, this.turns.get(username) ?? 0);
    const hold = turn - t;
    if (hold > this.o.maxHoldMs) {
      throw this.refusal(
        'too many failed logins for this username from many addresses: its attempts are slowed down',
        hold,
      );
    }
    this.turns.set(username, turn + spacing);
    return hold;
  }

  private refusal(why: string, waitMs: number): Error {
    const retryAfterSeconds = Math.max(1, Math.ceil(waitMs / 1000));
    return this.deps.refuse({ message: `${why}; try again in ${retryAfterSeconds} seconds`, retryAfterSeconds });
  }

  /** Logs a failure, and once each when a limit is reached (an attacker's refused attempts are not logged again). */
  private reportFailure(username: string, address: string, pair: string, t: number): void {
    const what = this.deps.what ?? 'login';
    const log = this.deps.log;
    if (!log) return;
    const perPair = this.pairs.count(pair, t);
    const perAddress = this.addresses.count(address, t);
    const perUsername = this.usernames.count(username, t);
    log.info({ username, address, perPair, perAddress, perUsername }, `${what}: failed login`);
    if (perPair === this.o.maxFailuresPerUsername)
      log.warn(
        { username, address, failures: perPair },
        `${what}: address refused for this username until failures leave the window`,
      );
    if (perAddress === this.o.maxFailuresPerAddress)
      log.warn({ address, failures: perAddress }, `${what}: address refused until its failures leave the window`);
    if (perUsername === this.o.maxFailuresPerUsername)
      log.warn(
        { username, failures: perUsername },
        `${what}: logins of this username slowed down (failures from many addresses)`,
      );
  }
}

/** The key a client address is counted under: IPv4 as is, IPv6 by its /64, anything else as given (bounded). */
export function addressKey(clientAddress: string): string {
  let a = clientAddress.trim();
  if (a.startsWith('[') && a.endsWith(']')) a = a.slice(1, -1);
  const zone = a.indexOf('%');
  if (zone >= 0) a = a.slice(0, zone);
  if (a === '') return 'unknown';
  if (isIPv4(a)) return a;
  const groups = isIPv6(a) ? ipv6Groups(a) : null;
  if (!groups) return `other:${a.slice(0, 100)}`;
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [number, number, number, number, number, number, number, number];
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0xffff) {
    return `${g6 >> 8}.${g6 & 0xff}.${g7 >> 8}.${g7 & 0xff}`;
  }
  return `${[g0, g1, g2, g3].map((g) => g.toString(16)).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (embedded IPv4 tail included). */
function ipv6Groups(address: string): number[] | null {
  let s = address.toLowerCase();
  const lastColon = s.lastIndexOf(':');
  const tail = s.slice(lastColon + 1);
  if (tail.includes('.')) {
    const o = tail.split('.').map(Number);
    if (o.length !== 4) return null;
    const [a = 0, b = 0, c = 0, d = 0] = o;
    s = `${s.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = s.split('::');
  const head = halves[0] ? halves[0].split(':') : [];
  const rest = halves.length === 2 ? (halves[1] ? halves[1].split(':') : []) : null;
  const fill = rest === null ? 0 : 8 - head.length - rest.length;
  const parts = [...head, ...new Array<string>(Math.max(0, fill)).fill('0'), ...(rest ?? [])];
  if (parts.length !== 8) return null;
  return parts.map((p) => parseInt(p, 16));
}
