import type { Remote, Replies, Responder } from '../pipeline/respond';
import { headerOnlyResponse, MAX_MESSAGE, RCODE } from '../../wire';
import { TurnShare } from './turn-share';
import { DROP, TCP, UDP } from '../stats/dns-stats';

/**
 * Answering one received message without letting anything escape: whatever the responder, the encoder or the
 * transport throws or rejects is reported once (`report`) and answered with SERVFAIL when the message has a header
 * to answer, else dropped. No DNS input can throw out of the server or leave a rejected promise behind.
 */

export type Report = (err: unknown) => void;

/** `report` that itself never throws (a faulty logger must not undo the protection). */
export function safeReport(onError: Report | undefined): Report {
  return (err) => {
    try {
      onError?.(err);
    } catch {
      // nothing left to tell
    }
  };
}

/** A header-only SERVFAIL for a request that deserves an answer (a header's worth of bytes, QR clear), else undefined. */
export function servfailFor(request: Buffer): Buffer | undefined {
  return request.length >= 12 && (request.readUInt16BE(2) & 0x8000) === 0
    ? headerOnlyResponse(request, RCODE.SERVFAIL)
    : undefined;
}

/**
 * `reply` as it may go out: itself, or when longer than a DNS message can be (no path should make one: see
 * encodeResponse), a header-only SERVFAIL in its place, reported.
 */
export function sendable(reply: Buffer, report: Report): Buffer {
  if (reply.length <= MAX_MESSAGE) return reply;
  report(
    new Error(
      `an answer of ${reply.length} bytes exceeds the ${MAX_MESSAGE}-byte DNS message limit: sent SERVFAIL instead`,
    ),
  );
  return headerOnlyResponse(reply, RCODE.SERVFAIL);
}

/**
 * The answer to `message` computed at once (`answerNow`): a buffer to send; undefined when it needs `answerLater`;
 * null when answering failed and there is nothing to send (a SERVFAIL is returned when the message has a header).
 */
export function answerAtOnce(
  responder: Responder,
  message: Buffer,
  transport: 'udp' | 'tcp',
  report: Report,
  /** The client's address (a query with a DNS cookie is answered with a server cookie made for it). */
  address?: string,
): Buffer | undefined | null {
  try {
    return responder.answerNow(message, transport, address);
  } catch (err) {
    report(err);
    const servfail = servfailFor(message);
    if (!servfail) responder.stats.dropped(DROP.malformed);
    return servfail ?? null;
  }
}

export interface Exchange {
  responder: Responder;
  remote: Remote;
  /** Sends one reply (what it throws is reported). */
  send(reply: Buffer): void;
  report: Report;
  /**
   * Resolves once the transport wants more (its queue drained below its mark); undefined when it does now. A zone
   * transfer is sent no faster than the client reads it.
   */
  ready?(): Promise<void> | undefined;
  /** True once nothing can be sent any more (the connection is gone): a stream is not read further. */
  gone?(): boolean;
}

/** Bytes of a many-message answer sent before the sender lets the next one go on (or waits for the transport). */
const YIELD_BYTES = 16 * 1024;

/** What long answers may take of one turn of the loop, all together (ms). */
const TURN_MS = 1;

/** Long answers' share of each turn of the loop (per thread: each has its own module state). */
const longAnswers = new TurnShare(TURN_MS);

/** The answers of `handle`, sent when ready; settles (never rejects) once they were sent. */
export async function answerLater(message: Buffer, x: Exchange): Promise<void> {
  const started = performance.now();
  let replies: Replies;
  try {
    replies = await x.responder.handle(message, x.remote);
  } catch (err) {
    x.report(err);
    const servfail = servfailFor(message);
    replies = servfail ? [servfail] : [];
  }
  let bytes = 0;
  let holding = false; // a share of the turn (see TurnShare); the first YIELD_BYTES go without one
  try {
    for await (const reply of replies) {
      try {
        x.send(reply);
      } catch (err) {
        x.report(err);
      }
      if (x.gone?.()) break; // leaving the loop ends the stream: a transfer stops being made for nobody
      // a zone transfer is many messages: other queries get their turn between every YIELD_BYTES of them
      if ((bytes += reply.length) >= YIELD_BYTES) {
        bytes = 0;
        const drained = x.ready?.();
        if (drained) {
          if (holding) longAnswers.release();
          holding = false;
          await drained;
        }
        await longAnswers.next(holding);
        holding = true;
      }
    }
  } catch (err) {
    // a stream that failed partway (a record too large for any message): SERVFAIL ends the transfer for the client
    x.report(err);
    const servfail = servfailFor(message);
    if (servfail && !x.gone?.()) x.send(servfail);
  } finally {
    if (holding) longAnswers.release();
    // from the message's turn to its last reply sent (a zone transfer: the whole transfer)
    x.responder.stats.duration(x.remote.transport === 'udp' ? UDP : TCP, (performance.now() - started) / 1000, 1);
  }
}
