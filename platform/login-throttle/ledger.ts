/**
 * Where the login throttle keeps its counts, behind a small async interface: in this process's memory
 * (memory-ledger.ts) or in Redis, shared by every replica (redis-ledger.ts). Each operation is one atomic decision,
 * so attempts sent at once — through one process or many — cannot all pass a check before any of them is counted.
 */

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
  /** Most keys tracked at once in each map of a memory ledger (default 10 000). */
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

/** The limits a ledger applies (every option given, checked by the throttle). */
export type ThrottleLimits = Readonly<Required<ThrottleOptions>>;

/** Failures of a username counted at most (its slow-down has reached its largest spacing long before). */
export const MAX_COUNTED_PER_USERNAME = 64;

/** Who is trying: the username (already normalised and bounded) and the address key (`addressKey`). */
export interface ThrottleKeys {
  readonly username: string;
  readonly address: string;
}

/** The answer to an attempt starting at time `t` (ms of the caller's clock). */
export type ThrottleDecision =
  /** Its (username, address), its address, or both are at their limit: refused for `waitMs`. */
  | { kind: 'refused'; limit: 'pair' | 'address' | 'both'; waitMs: number }
  /** The username is slowed down and its turn is more than maxHoldMs away: refused for `waitMs`. */
  | { kind: 'slowed'; waitMs: number }
  /** Counted as a failure until `succeeded`; runs after `holdMs` (its turn). `id` names it to the ledger. */
  | { kind: 'admitted'; holdMs: number; id: string };

/** Failures in the window after a failed attempt, for the log lines. */
export interface FailureCounts {
  perPair: number;
  perAddress: number;
  perUsername: number;
}

/** Keys a ledger holds in this process's memory (for tests and metrics). */
export interface TrackedKeys {
  usernames: number;
  addresses: number;
  pairs: number;
}

export interface ThrottleLedger {
  /** Checks the limits and, when admitted, counts the attempt as a failure and takes the username's turn: one step. */
  begin(keys: ThrottleKeys, t: number): Promise<ThrottleDecision>;
  /** An admitted attempt logged in: its failure is taken back, its pair cleared and trusted until `trustUntil`. */
  succeeded(keys: ThrottleKeys, t: number, id: string, trustUntil: number): Promise<void>;
  /** An admitted attempt failed (it is counted already): the counts in the window at `t`. */
  failed(keys: ThrottleKeys, t: number, id: string): Promise<FailureCounts>;
  readonly tracked: TrackedKeys;
}

/** Where a ledger reports its own state changes (a Redis ledger counting per process while Redis is away). */
export interface LedgerLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** Makes the ledger of one throttle; `what` names the login in log lines (`DNS API`, `DNS tool`). */
export type LedgerFactory = (limits: ThrottleLimits, context: { log?: LedgerLog; what: string }) => ThrottleLedger;
