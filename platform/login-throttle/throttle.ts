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
 * The counts live in a ledger (ledger.ts): by default in memory, per process, in maps of at most `maxTrackedKeys`
 * keys each (memory-ledger.ts); with Redis, shared by every replica, each check and count one script run, so N
 * replicas allow what one does (redis-ledger.ts). While Redis is unreachable that ledger counts in memory, per
 * process, until it answers again. This class makes the messages, the refusals and the log lines; how an attempt
 * ended is recorded in the background, so `succeeded()` and `failed()` never wait nor throw.
 * IPv6 clients are counted per /64 (one host usually holds a whole /64); IPv4-mapped IPv6 counts as IPv4.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  THROTTLE_DEFAULTS,
  type FailureCounts,
  type LedgerFactory,
  type ThrottleKeys,
  type ThrottleLedger,
  type ThrottleOptions,
  type TrackedKeys,
} from './ledger';
import { memoryLedger } from './memory-ledger';

/** Where the throttle reports failed logins and limits reached (user name and address; never a password). */
export interface ThrottleLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

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
  /** Where the counts live (default: this process's memory; `redisLedger` shares them between replicas). */
  ledger?: LedgerFactory;
}

function positiveInteger(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`login throttle ${name} must be a positive integer`);
  return value;
}

const REFUSED_WHICH = {
  both: 'for this username and from this address',
  pair: 'for this username from this address',
  address: 'from this address',
} as const;

export class LoginThrottle {
  private readonly o: Required<ThrottleOptions>;
  private readonly ledger: ThrottleLedger;
  private readonly now: () => Date;
  private readonly wait: (ms: number) => Promise<void>;
  private readonly what: string;
  /** Outcomes still being recorded. */
  private readonly pending = new Set<Promise<void>>();

  constructor(
    options: ThrottleOptions = {},
    private readonly deps: ThrottleDeps,
  ) {
    const o = { ...THROTTLE_DEFAULTS, ...options };
    for (const key of Object.keys(THROTTLE_DEFAULTS) as Array<keyof ThrottleOptions>) positiveInteger(o[key], key);
    this.o = o;
    this.what = deps.what ?? 'login';
    this.ledger = (deps.ledger ?? memoryLedger)(Object.freeze({ ...o }), {
      what: this.what,
      ...(deps.log ? { log: deps.log } : {}),
    });
    this.now = deps.now ?? (() => new Date());
    this.wait = deps.wait ?? ((ms) => sleep(ms).then(() => undefined));
  }

  /** Keys tracked in this process's memory: for tests and metrics. */
  get tracked(): TrackedKeys {
    return this.ledger.tracked;
  }

  /**
   * Starts an attempt for `username` (already normalised) from `clientAddress`: refused (the error `deps.refuse`
   * makes) when its address, or its address for this username, is at its limit, or when a slowed username's turn is
   * too far away; else held until its turn, and counted as a failure until `succeeded()` is called.
   */
  async begin(username: string, clientAddress: string): Promise<LoginAttempt> {
    const t = this.now().getTime();
    const keys: ThrottleKeys = { username, address: addressKey(clientAddress) };
    const decision = await this.ledger.begin(keys, t);
    if (decision.kind === 'refused')
      throw this.refusal(`too many failed logins ${REFUSED_WHICH[decision.limit]}`, decision.waitMs);
    if (decision.kind === 'slowed')
      throw this.refusal(
        'too many failed logins for this username from many addresses: its attempts are slowed down',
        decision.waitMs,
      );
    if (decision.holdMs > 0) await this.wait(decision.holdMs);
    const { id } = decision;
    let done = false;
    return {
      succeeded: () => {
        if (done) return;
        done = true;
        const trustUntil = this.now().getTime() + this.o.trustSeconds * 1000;
        this.record(keys, this.ledger.succeeded(keys, t, id, trustUntil));
      },
      failed: () => {
        if (done) return;
        done = true;
        if (!this.deps.log) return; // counted already: what is left is the log line
        this.record(
          keys,
          this.ledger.failed(keys, t, id).then((counts) => this.reportFailure(keys, counts)),
        );
      },
    };
  }

  /** Resolves once every outcome reported so far is recorded (tests; a shutdown that waits for them). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all(this.pending);
  }

  /** Records an outcome in the background: the caller goes on, and an error is logged, never thrown. */
  private record(keys: ThrottleKeys, work: Promise<void>): void {
    const recorded: Promise<void> = work
      .catch((err: unknown) =>
        this.deps.log?.warn(
          { username: keys.username, address: keys.address, err: err instanceof Error ? err.message : String(err) },
          `${this.what}: the login throttle could not record how an attempt ended`,
        ),
      )
      .finally(() => this.pending.delete(recorded));
    this.pending.add(recorded);
  }

  private refusal(why: string, waitMs: number): Error {
    const retryAfterSeconds = Math.max(1, Math.ceil(waitMs / 1000));
    return this.deps.refuse({ message: `${why}; try again in ${retryAfterSeconds} seconds`, retryAfterSeconds });
  }

  /** Logs a failure, and once each when a limit is reached (an attacker's refused attempts are not logged again). */
  private reportFailure({ username, address }: ThrottleKeys, counts: FailureCounts): void {
    const { what } = this;
    const log = this.deps.log;
    if (!log) return;
    const { perPair, perAddress, perUsername } = counts;
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
