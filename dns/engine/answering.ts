import {
  type AnswerCacheLimits,
  type DnsServer,
  type ExtraHandlers,
  Responder,
  type RrlOptions,
  ServerCookies,
  startDnsServer,
  type TcpLimits,
} from '../server';
import { DnssecAnswerSigner } from '../dnssec';
import type { TsigKey } from '../tsig';
import type { ZoneIndex } from '../zone';

export interface AnsweringOptions {
  index: ZoneIndex;
  /** What needs more than the zones: UPDATE, zone transfers. */
  handlers: ExtraHandlers;
  keys: ReadonlyMap<string, TsigKey>;
  cookieSecret: Buffer;
  answerCache?: Partial<AnswerCacheLimits>;
  host: string;
  port: number;
  tcp?: Partial<TcpLimits>;
  udpBatch?: boolean;
  /** Response rate limiting of UDP answers (absent: off). */
  rrl?: RrlOptions;
  onError: (err: unknown) => void;
  warn: (obj: object, msg: string) => void;
  info: (obj: object, msg: string) => void;
}

/**
 * The DNS server as the engine runs it, on the answer thread or (answerThread: false) on the engine's own loop: a
 * responder over the index with signed answers and server cookies, on UDP and TCP.
 */
export function startAnswering(o: AnsweringOptions): Promise<DnsServer> {
  const responder = new Responder(o.index, o.handlers, o.keys, o.onError, {
    answerCache: o.answerCache,
    cookies: new ServerCookies(o.cookieSecret),
    signer: new DnssecAnswerSigner(),
    ...(o.rrl ? { rrl: o.rrl, log: { warn: o.warn, info: o.info } } : {}),
  });
  return startDnsServer({
    host: o.host,
    port: o.port,
    responder,
    tcp: o.tcp,
    ...(o.udpBatch === undefined ? {} : { udpBatch: o.udpBatch }),
    onError: o.onError,
    onConnectionRefused: (info) => o.warn(info, 'DNS TCP connection limit reached: new connections are closed at once'),
  });
}
