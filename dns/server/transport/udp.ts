import type { Socket } from 'node:dgram';
import { lookup, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import type { Remote, Responder } from '../pipeline/respond';
import { answerAtOnce, answerLater, sendable, type Report } from './serve';
import { UDP } from '../stats/dns-stats';

/**
 * Where a UDP socket sends a reply: always the literal address a query came from, so no resolver round (dgram's
 * default lookup defers every send to the next tick); names still go through dns.lookup. One per socket.
 */
export class ReplyLookup {
  /** Set when `lookup` had to resolve a name: that send happens later, not within `send()`. */
  deferred = false;
  /** The address last sent to (clients send many queries in a row): no need to check it is a literal again. */
  private lastHost = '';
  private lastFamily = 0;

  readonly lookup = (
    host: string,
    options: LookupOptions | number,
    callback: (err: NodeJS.ErrnoException | null, address: string, family: number) => void,
  ): void => {
    if (host === this.lastHost) return callback(null, host, this.lastFamily);
    const family = isIP(host);
    if (family !== 0) {
      this.lastHost = host;
      this.lastFamily = family;
      return callback(null, host, family);
    }
    this.deferred = true;
    lookup(host, typeof options === 'number' ? { family: options } : options, (err, address, fam) =>
      callback(err, typeof address === 'string' ? address : '', fam),
    );
  };
}

/** Answers one UDP message from `address`:`port` (and sends the answers on the socket). */
export type UdpAnswer = (message: Buffer, address: string, port: number) => void;

/**
 * A UDP message that needs more than `answerNow` (UPDATE, signed, NOTIFY): handed to `later` when given (an answer
 * worker hands it to the primary), else answered with `send` once `handle` is done. `message` must be the caller's
 * to keep.
 */
export function answerUdpLater(
  responder: Responder,
  report: Report,
  later: UdpAnswer | undefined,
  message: Buffer,
  address: string,
  port: number,
  send: (reply: Buffer) => void,
): void {
  if (later) return later(message, address, port);
  const remote: Remote = { address, port, transport: 'udp' };
  void answerLater(message, { responder, remote, send, report });
}

/**
 * Answers the UDP messages `udp` receives with `responder`: plain queries at once, the rest (UPDATE, signed
 * messages, NOTIFY) when `handle` is done — or, when `later` is given (an answer worker), by handing the message to
 * it. Returns the function that answers one message, for messages received elsewhere.
 */
export function serveUdp(
  udp: Socket,
  replyLookup: ReplyLookup | undefined,
  responder: Responder,
  report: Report,
  later?: UdpAnswer,
): UdpAnswer {
  const sendUdp = (reply: Buffer, port: number, address: string): void => {
    try {
      if (replyLookup) replyLookup.deferred = false;
      udp.send(sendable(reply, report), port, address);
      // the answer may be the cache's own buffer: a send not done by now still reads it later
      if (!replyLookup || replyLookup.deferred || udp.getSendQueueCount() > 0) responder.detach();
    } catch (err) {
      report(err);
    }
  };
  const answer: UdpAnswer = (msg, address, port) => {
    const started = performance.now();
    const now = answerAtOnce(responder, msg, 'udp', report, address);
    if (now) {
      sendUdp(now, port, address);
      return responder.stats.duration(UDP, (performance.now() - started) / 1000, 1);
    }
    if (now === null) return;
    answerUdpLater(responder, report, later, msg, address, port, (reply) => sendUdp(reply, port, address));
  };
  udp.on('message', (msg, rinfo) => {
    // port 0 cannot be answered (dgram throws for it)
    if (rinfo.port !== 0) answer(msg, rinfo.address, rinfo.port);
  });
  return answer;
}
