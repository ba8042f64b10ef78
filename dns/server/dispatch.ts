/**
 * Which path a decoded query takes: UPDATE and zone transfers to their handlers, other opcodes and malformed
 * questions to an error answer, everything else to a lookup.
 */
import type { DecodedPacket, Question } from 'dns-packet';
import { wireName } from '../names';
import type { VerifyResult } from '../tsig/tsig';
import type { Answerer } from './answer';
import { encodeResponse, optOf, udpLimit } from './encode';
import type { ZoneIndex } from './zone-index';
import { FLAG_AA, OPCODE, opcodeOf, RCODE } from './wire';

export interface Remote {
  address: string;
  port: number;
  transport: 'udp' | 'tcp';
  /** The request's TSIG check (status 'ok' names the key that signed it). */
  tsig?: VerifyResult;
}

/** Handles opcodes and transfer queries beyond plain lookups (dynamic update, zone transfer, notify). */
export interface ExtraHandlers {
  /** RFC 2136 UPDATE: returns the encoded response. */
  update?(query: DecodedPacket, raw: Buffer, remote: Remote): Promise<Buffer>;
  /** AXFR/IXFR over TCP: returns the encoded response messages, in order. */
  transfer?(query: DecodedPacket, raw: Buffer, remote: Remote): Promise<Buffer[]>;
}

/** What dispatching needs from its responder. */
export interface DispatchContext {
  index: ZoneIndex;
  answerer: Answerer;
  handlers: ExtraHandlers;
}

/** The messages that answer `query` (without its TSIG record; `raw` is the message as received). */
export async function dispatch(
  ctx: DispatchContext,
  query: DecodedPacket,
  raw: Buffer,
  remote: Remote,
): Promise<Buffer[]> {
  const opcode = opcodeOf(raw);
  if (opcode === OPCODE.UPDATE) {
    return ctx.handlers.update
      ? [await ctx.handlers.update(query, raw, remote)]
      : [encodeResponse(query, {}, RCODE.REFUSED)];
  }
  // An error answer repeats at most one question: echoing many could exceed the 512-byte UDP limit.
  const oneQuestion = (query.questions?.length ?? 0) > 1 ? { ...query, questions: [] } : query;
  if (opcode !== OPCODE.QUERY) return [encodeResponse(oneQuestion, {}, RCODE.NOTIMP)];
  const opt = optOf(query);
  if (opt && opt.ednsVersion > 0) return [encodeResponse(query, {}, 16)]; // BADVERS (RFC 6891 §6.1.3)
  const questions = query.questions ?? [];
  const question = questions[0];
  if (questions.length !== 1 || question === undefined) return [encodeResponse(oneQuestion, {}, RCODE.FORMERR)];
  if ((question.class ?? 'IN') !== 'IN') return [encodeResponse(query, {}, RCODE.REFUSED)];
  if (question.type === 'IXFR' && remote.transport === 'udp') {
    // RFC 1995 §2: over UDP an IXFR gets our SOA alone, which tells the client to come back over TCP
    const zone = ctx.index.get(wireName(question.name));
    return [
      zone
        ? encodeResponse(query, { answers: [zone.soa] }, RCODE.NOERROR, FLAG_AA)
        : encodeResponse(query, {}, RCODE.NOTAUTH),
    ];
  }
  if (question.type === 'AXFR' || question.type === 'IXFR') {
    if (remote.transport !== 'tcp' || !ctx.handlers.transfer) return [encodeResponse(query, {}, RCODE.REFUSED)];
    return ctx.handlers.transfer(query, raw, remote);
  }
  return [lookupFor(ctx.answerer, query, question, remote)];
}

/** A lookup's answer as the transport takes it: over UDP, the truncated form when the full one is too large. */
function lookupFor(answerer: Answerer, query: DecodedPacket, question: Question, remote: Remote): Buffer {
  const answer = answerer.lookup(query, question, remote.tsig?.status === 'ok');
  return remote.transport === 'udp' && answer.full.length > udpLimit(query)
    ? (answer.truncated as Buffer)
    : answer.full;
}
