/** What the API needs of the DNS engine: to return only once DNS already answers with a change. */
export interface DnsServing {
  /** Resolves once the DNS server answers for `zone` as of `serial` or later (`null`: no longer answers for it). */
  served(zone: string, serial: number | null): Promise<void>;
}

export { KeyedQueue } from '../../../platform/async';
