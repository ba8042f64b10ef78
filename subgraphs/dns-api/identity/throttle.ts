/**
 * Login throttling: failed logins are counted per username and per client address in a sliding window; a key at
 * its limit refuses further attempts (THROTTLED, with the seconds until the oldest counted failure leaves the
 * window) — even with the right password, else the limit would only slow guessing down.
 *
 * - An attempt counts as a failure from the moment it starts (before the slow password check), so many attempts
 *   sent at once cannot all pass the check; a success takes its count back and clears the username's failures.
 * - State lives in memory, per process, in two maps of at most `maxTrackedKeys` keys each: spraying usernames or
 *   addresses evicts the least recently failed keys instead of growing memory (one address can spray at most
 *   `maxFailuresPerAddress` names per window, so evicting a targeted username takes many addresses).
 * - IPv6 clients are counted per /64 (one host usually holds a whole /64); IPv4-mapped IPv6 counts as IPv4.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { IdentityError } from './errors';

export interface ThrottleOptions {
  /** Failed logins of one username within the window before further attempts are refused (default 5). */
  maxFailuresPerUsername?: number;
  /** Failed logins from one client address within the window before further attempts are refused (default 20). */
  maxFailuresPerAddress?: number;
  /** The window, in seconds (default 900: 15 minutes). */
  windowSeconds?: number;
  /** Most usernames, and most addresses, tracked at once (default 10 000 each). */
  maxTrackedKeys?: number;
}

export const THROTTLE_DEFAULTS: Readonly<Required<ThrottleOptions>> = Object.freeze({
  maxFailuresPerUsername: 5,
  maxFailuresPerAddress: 20,
  windowSeconds: 900,
  maxTrackedKeys: 10_000,
});

/** One attempt in progress: report how it ended exactly once. */
export interface LoginAttempt {
  succeeded(): void;
  failed(): void;
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

  /** Milliseconds until `key` may try again, or 0 when it may now. */
  waitMs(key: string, now: number): number {
    const times = this.live(key, now);
    if (times.length < this.limit) return 0;
    const oldestCounted = times[times.length - this.limit] ?? now;
    return Math.max(1, oldestCounted + this.windowMs - now);
  }

  add(key: string, now: number): void {
    const times = this.live(key, now);
    this.keys.delete(key); // re-inserted last: the map stays ordered by most recent failure
    times.push(now);
    if (times.length > this.limit) times.splice(0, times.length - this.limit);
    this.evict();
    this.keys.set(key, times);
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

  /**
   * Makes room for one key by dropping the least recently failed keys; the map is ordered by last failure, so
   * keys whose failures have all left the window go first.
   */
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

export class LoginThrottle {
  private readonly usernames: FailureWindow;
  private readonly addresses: FailureWindow;

  constructor(
    options: ThrottleOptions = {},
    private readonly now: () => Date = () => new Date(),
  ) {
    const o = { ...THROTTLE_DEFAULTS, ...options };
    const windowMs = positiveInteger(o.windowSeconds, 'windowSeconds') * 1000;
    const maxKeys = positiveInteger(o.maxTrackedKeys, 'maxTrackedKeys');
    this.usernames = new FailureWindow(
      positiveInteger(o.maxFailuresPerUsername, 'maxFailuresPerUsername'),
      windowMs,
      maxKeys,
    );
    this.addresses = new FailureWindow(
      positiveInteger(o.maxFailuresPerAddress, 'maxFailuresPerAddress'),
      windowMs,
      maxKeys,
    );
  }

  /** Keys tracked now (usernames, addresses): for tests and metrics. */
  get tracked(): { usernames: number; addresses: number } {
    return { usernames: this.usernames.size, addresses: this.addresses.size };
  }

  /**
   * Starts an attempt for `username` (already lower-cased) from `clientAddress`: THROTTLED when either is at its
   * limit, else the attempt is counted as a failure until `succeeded()` is called.
   */
  begin(username: string, clientAddress: string): LoginAttempt {
    const t = this.now().getTime();
    const address = addressKey(clientAddress);
    const userWait = this.usernames.waitMs(username, t);
    const addressWait = this.addresses.waitMs(address, t);
    if (userWait > 0 || addressWait > 0) {
      const retryAfterSeconds = Math.max(1, Math.ceil(Math.max(userWait, addressWait) / 1000));
      const which =
        userWait > 0 && addressWait > 0
          ? 'this username and from this address'
          : userWait > 0
            ? 'this username'
            : 'this address';
      throw new IdentityError(
        'THROTTLED',
        `too many failed logins for ${which}; try again in ${retryAfterSeconds} seconds`,
        { retryAfterSeconds },
      );
    }
    this.usernames.add(username, t);
    this.addresses.add(address, t);
    let done = false;
    return {
      succeeded: () => {
        if (done) return;
        done = true;
        this.usernames.clear(username);
        this.addresses.remove(address, t);
      },
      failed: () => {
        done = true;
      },
    };
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
