import type { OpenZoneStoreOptions, ZoneChangeDetail, ZoneChangeEvent } from '../../store';
import type { SigningPolicy } from '../../zone';
import type { AnswerCacheLimits, DnsStatsSnapshot, RrlOptions } from '../../server';

/**
 * The messages between the DNS engine (the primary process) and its answer workers, over the IPC channel of
 * child_process.fork with `serialization: 'advanced'` (Buffers pass as they are).
 */

/** Primary → worker. */
export type ToWorker =
  /** First message: where the zones are and how to answer. */
  | {
      t: 'init';
      store: Pick<OpenZoneStoreOptions, 'dataDir' | 'databaseUrl' | 'schema'>;
      answerCache?: Partial<AnswerCacheLimits>;
      /** Response rate limiting (absent: off): each worker keeps accounts of its own. */
      rrl?: RrlOptions;
      /** The server cookie secret, so that a cookie one process issued is good in every other. */
      cookieSecret: Buffer;
      /** DNSSEC: the key vault's master key and the signing policy (absent: zones are served unsigned). */
      /** `keptDir`: the engine's signed zone files (signed-zone-files.ts), read instead of signing. */
      dnssec?: { secret: Buffer; policy: SigningPolicy; keptDir?: string };
    }
  /**
   * Once the worker has loaded every zone: answer from the UDP socket sent as the handle, or (batched UDP) from a
   * socket of its own bound to `reusePort` in the port's SO_REUSEPORT group.
   */
  | { t: 'socket'; reusePort?: { host: string; port: number } }
  /** A committed change of the store: read again what it touched. */
  | { t: 'change'; event: ZoneChangeEvent; detail?: ZoneChangeDetail }
  /** Answer `served` once the worker answers for `zone` as of `serial` (null: no longer answers for it). */
  | { t: 'served'; id: number; zone: string; serial: number | null }
  /** What the worker counted so far (metrics are being scraped): answered with `stats`. */
  | { t: 'stats'; id: number };

/** Worker → primary. */
export type FromWorker =
  /** Every zone is loaded: the worker may be given the socket. */
  | { t: 'loaded'; zones: number }
  /** The worker answers from the socket now. */
  | { t: 'ready' }
  | { t: 'served'; id: number }
  /** After reading a change: the zone's serial the worker now answers with (null: it answers no more for it). */
  | { t: 'at'; zone: string; serial: number | null }
  /** A UDP message that needs the primary (UPDATE, a signed message, NOTIFY): answer it from there. */
  | { t: 'udp'; message: Buffer; address: string; port: number }
  | { t: 'stats'; id: number; snapshot: DnsStatsSnapshot }
  /** A line for the primary's log (RRL starts or stops limiting a network). */
  | { t: 'log'; level: 'warn' | 'info'; obj: object; msg: string }
  /** A failure while answering (the message got SERVFAIL) or reloading: for the primary's log. */
  | { t: 'error'; message: string; stack?: string };

/**
 * `send` with at most `max` messages handed to it and not yet written to the channel (`written` not called yet):
 * past that the message is dropped and the function gives false. A flood of UPDATEs or signed queries must not pile
 * up in the channel's queue without bound: a busy server drops datagrams, and the client asks again.
 */
export function boundedSender<T>(
  send: (message: T, written: () => void) => void,
  max: number,
): (message: T) => boolean {
  let pending = 0;
  return (message) => {
    if (pending >= max) return false;
    pending++;
    let done = false;
    send(message, () => {
      // once per message, whatever the channel calls back
      if (done) return;
      done = true;
      pending--;
    });
    return true;
  };
}
