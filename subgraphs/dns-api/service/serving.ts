import type { ProgressReport } from './operations';

/** What the API needs of the DNS engine: to return only once DNS already answers with a change. */
export interface DnsServing {
  /**
   * Resolves once the DNS server answers for `zone` as of `serial` or later (`null`: no longer answers for it).
   * `progress` is told how far the engine is (e.g. records signed), when it tells.
   */
  served(zone: string, serial: number | null, progress?: ProgressReport): Promise<void>;
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
