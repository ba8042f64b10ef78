import type { ProgressReport } from './operations';

/** What the API needs of the DNS engine: to return only once DNS already answers with a change. */
export interface DnsServing {
  /**
   * Resolves once the DNS server answers for `zone` as of `serial` or later (`null`: no longer answers for it).
   * `progress` is told how far the engine is (e.g. records signed), when it tells.
   */
  served(zone: string, serial: number | null, progress?: ProgressReport): Promise<void>;
  /** The primary of `zone` when the DNS server serves it as a secondary (not the store's to create), else null. */
  secondaryOf?(zone: string): string | null;
}

/**
 * A write whose request has been checked (its own values: no store read yet), and the work that does it: run at once
 * by the synchronous form, started as a background operation by the asynchronous one. `progress` hears how far it is.
 */
export interface PreparedWrite<T> {
  /** The zone it writes (lower case, no trailing dot). */
  zone: string;
  run(progress?: ProgressReport): Promise<T>;
}

export { KeyedQueue } from '../../../platform/async';

/** What `servingOf` needs of the DNS engine. */
export interface ServingEngine {
  served(zone: string, serial: number | null): Promise<void>;
  /** How far signing the zone whole has got, or null when it is not being signed whole. */
  signingProgress(zone: string): { done: number; total: number } | null;
  secondaryPrimary?(zone: string): string | null;
}

/** How often a background operation's progress is read from the DNS engine while it waits for it (ms). */
const PROGRESS_POLL_MS = 250;

/**
 * The engine as the API waits for it: `served`, and meanwhile, for a caller that wants progress (a background
 * operation), how far the engine's signing of the zone has got (names signed, of how many), read every `pollMs`.
 */
export function servingOf(engine: ServingEngine, pollMs = PROGRESS_POLL_MS): DnsServing {
  return {
    secondaryOf: (zone) => engine.secondaryPrimary?.(zone) ?? null,
    served: async (zone, serial, progress) => {
      if (!progress) return engine.served(zone, serial);
      const poll = setInterval(() => {
        const now = engine.signingProgress(zone);
        if (now) progress(now.done, now.total);
      }, pollMs);
      try {
        await engine.served(zone, serial);
      } finally {
        clearInterval(poll);
      }
    },
  };
}
