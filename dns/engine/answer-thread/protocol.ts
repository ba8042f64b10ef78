import type { AnswerCacheLimits, DnsStatsSnapshot, RrlOptions, TcpLimits, TransferAccess } from '../../server';
import type { TsigKey } from '../../tsig';
import type { ZoneImage } from '../../zone';

/**
 * The messages between the DNS engine (the control plane, on the main thread) and its answer thread, over a
 * worker_threads port. Zone versions cross as images (bytes); everything else is small.
 */

/** What the answer thread is started with (workerData). */
export interface AnswerThreadInit {
  host: string;
  port: number;
  tcp?: Partial<TcpLimits>;
  udpBatch?: boolean;
  /** Response rate limiting of UDP answers (absent: off): the thread keeps accounts of its own. */
  rrl?: RrlOptions;
  answerCache?: Partial<AnswerCacheLimits>;
  /** The server cookie secret: a cookie the thread issued is good in the answer workers too, and the other way round. */
  cookieSecret: Uint8Array;
  /** TSIG keys, to check signed requests and sign the answers to them (UPDATE goes on to the engine). */
  keys: Array<Pick<TsigKey, 'name' | 'algorithm'> & { secret: Uint8Array }>;
  /** Who may transfer which zone: transfers are streamed here, from the thread's own copy of the zone. */
  access?: TransferAccess;
  /** NOTIFY goes on to the engine too (it serves secondary zones, whose refresh a NOTIFY starts). */
  handOverNotify?: boolean;
}

/** How a request handed over was received: its TSIG check as the key's name. */
export interface HandedRemote {
  address: string;
  port: number;
  transport: 'udp' | 'tcp';
  /** The name of the key that signed the request, when it verified. */
  signedBy?: string;
}

/** Engine → answer thread. */
export type ToAnswerThread =
  /** A zone version: answer from it once it is read (in steps), then say so (`at`). */
  | { t: 'image'; image: ZoneImage; version: number }
  /** The zone is served no more. */
  | { t: 'drop'; zone: string; version: number }
  /** Every zone is there: open the sockets. */
  | { t: 'listen' }
  /** The engine's answer to an UPDATE handed over (`failed`: none; SERVFAIL). */
  | { t: 'reply'; id: number; message?: Uint8Array; failed?: boolean }
  /** A UDP message an answer worker process handed over: answer it as received here. */
  | { t: 'udp'; message: Uint8Array; address: string; port: number }
  /** What the thread counted so far (metrics are being scraped): answered with `stats`. */
  | { t: 'stats'; id: number }
  | { t: 'close' };

/** Answer thread → engine. */
export type FromAnswerThread =
  /** Started: waiting for zones. */
  | { t: 'started' }
  | { t: 'listening'; port: number; batched: boolean }
  /** It answers for `zone` from the version numbered `version` now (or no more, when that was a drop). */
  | { t: 'at'; zone: string; version: number }
  /** An image could not be read: ship the zone whole again. */
  | { t: 'unreadable'; zone: string; message: string }
  /** An UPDATE (it needs the store) or a NOTIFY (secondary zones): the engine answers with `reply`. */
  | { t: 'handover'; id: number; raw: Uint8Array; remote: HandedRemote }
  | { t: 'log'; level: 'warn' | 'info'; obj: object; msg: string }
  | { t: 'error'; message: string; stack?: string }
  | { t: 'stats'; id: number; snapshot: DnsStatsSnapshot }
  | { t: 'closed' };
