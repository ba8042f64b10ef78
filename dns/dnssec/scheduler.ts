import type { ZoneData } from '../zone';
import { signingTimes } from './signing-times';
import { nextKeyEvent } from './zone-signer';

export interface SchedulerLogger {
  warn(obj: object, msg: string): void;
}

/** Longest a timer waits before looking again (setTimeout takes at most 2^31 − 1 ms). */
const MAX_WAIT_MS = 2 ** 31 - 1;

/**
 * Keeps signed zones signed as time passes: when a key is published, starts or stops signing, or leaves, and when
 * the zone's earliest signature has `signatureRefresh` left (signing-times.ts), it asks for the zone to be signed
 * afresh (`resign`: a new serial in the store, which every server of the zone then reads; the zone loader signs it
 * whole after a key event, else refreshes only the signatures near expiry). One timer per zone; the clock is the
 * engine's (`now`, seconds), so a test can move it and call `check`.
 *
 * `resign` is given the serial of the copy that was due, and must bump only a zone that still has it: every server
 * of the zone (replicas on one database) runs a scheduler and comes due at the same moment, and the first bump
 * makes the others' copies stale, so the zone is signed afresh once, not once per server.
 */
export class SigningScheduler {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private closed = false;

  constructor(
    /**
     * Asks for a new serial of `zone` if it still has `serial` (undefined: the copy has none to compare); false when
     * it had moved on and nothing was written.
     */
    private readonly resign: (zone: string, serial: number | undefined) => Promise<boolean>,
    private readonly now: () => number,
    private readonly log?: SchedulerLogger,
  ) {}

  /** When `zone` (its current copy) must be signed afresh or refreshed, in seconds; null: never (unsigned). */
  static dueAt(zone: ZoneData): number | null {
    const state = zone.signing;
    if (!state) return null;
    const refresh = state.expiresAt - signingTimes(state.policy).refresh; // the earliest signature's refresh
    const event = nextKeyEvent(state.keys, state.signedAt);
    return event === null ? refresh : Math.min(refresh, event);
  }

  /** Looks at `zone`'s current copy: signs it afresh now when due, else sets its timer. */
  check(name: string, zone: ZoneData | undefined): void {
    const existing = this.timers.get(name);
    if (existing) clearTimeout(existing);
    this.timers.delete(name);
    if (this.closed || !zone) return;
    const due = SigningScheduler.dueAt(zone);
    if (due === null) return;
    const wait = (due - this.now()) * 1000;
    if (wait <= 0) {
      this.resign(name, zone.soa.data.serial).catch((err: unknown) => {
        this.log?.warn({ err, zone: name }, 'DNSSEC: the zone could not be signed afresh; trying again in a minute');
        this.timers.set(name, unref(setTimeout(() => this.check(name, zone), 60_000)));
      });
      return;
    }
    this.timers.set(name, unref(setTimeout(() => this.check(name, zone), Math.min(wait, MAX_WAIT_MS))));
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}

const unref = (timer: NodeJS.Timeout): NodeJS.Timeout => timer.unref();
