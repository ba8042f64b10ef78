/** A bounded look at the store for health checks. */
import { withDeadline } from '../../platform/async';
import type { ZoneStore } from './types';

/** How long a health check waits for the store: a stalled database makes a part degraded, never a hung probe. */
export const STORE_PROBE_MS = 2_000;

/** The number of zones, or why the store did not tell within `ms` (one cheap statement: no record counts). */
export async function probeStore(
  store: ZoneStore,
  ms = STORE_PROBE_MS,
): Promise<{ zones: number; problem?: undefined } | { zones: null; problem: string }> {
  try {
    return {
      zones: (await withDeadline(store.zoneSerials(), ms, `the zone store did not answer within ${ms} ms`)).size,
    };
  } catch (err) {
    return { zones: null, problem: err instanceof Error ? err.message : String(err) };
  }
}
