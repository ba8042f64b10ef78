/**
 * Which path a decoded query takes: UPDATE and zone transfers to their handlers, other opcodes and malformed
 * questions to an error answer, everything else to a lookup.
 */
import type { DecodedPacket, Question } from 'dns-packet';
import { wireName } from '../../model';
import type { VerifyResult } from '../../tsig';
import type { Answerer } from '../answer/answer';
import { cookieOf, withCookie, type ServerCookies } from './cookies';
import { mapReplies, type Replies } from './replies';
import { encodeResponse, optOf, udpLimit } from '../answer/encode';
import type { ZoneIndex } from '../../zone';
import { CLASSIC_UDP_SIZE, FLAG_AA, FLAG_CD, FLAG_RD, FLAG_TC, OPCODE, opcodeOf, RCODE } from '../../wire';

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
  /** AXFR/IXFR over TCP: the encoded response messages, in order. */
  transfer?(query: DecodedPacket, raw: Buffer, remote: Remote): Replies | Promise<Replies>;
  /** NOTIFY (RFC 1996) when a zone may be a secondary one (absent: answered as a primary, see notifyAnswer). */
  notify?(query: DecodedPacket, raw: Buffer, remote: Remote): Promise<Buffer>;
}

/** What dispatching needs from its responder. */
export interface DispatchContext {
  index: ZoneIndex;
  answerer: Answerer;
  handlers: ExtraHandlers;
  /** Server cookies (RFC 7873, RFC 9018): the secret they are made with. */
  cookies: ServerCookies;
}

/** Question types that get an error answer instead of a lookup, and which (as BIND 9 answers them). */
const META_QTYPE_RCODE: Record<string, number | undefined> = {
  OPT: RCODE.FORMERR,
  TSIG: RCODE.FORMERR,
  TKEY: RCODE.FORMERR,
  MAILA: RCODE.NOTIMP,
  MAILB: RCODE.NOTIMP,
  UNKNOWN_253: RCODE.NOTIMP,
  UNKNOWN_254: RCODE.NOTIMP,
};

/**
 * The answer to a NOTIFY (RFC 1996) for a zone we are primary for: there is nothing to fetch; as BIND answers a
 * NOTIFY for a zone it is primary for: NOERROR, AA, the question echoed. A name that is not the apex of one of our
 * zones is NOTAUTH; anything but one SOA question is FORMERR. (Secondary zones are answered by the `notify` handler.)
 */
export function notifyAnswer(index: ZoneIndex, query: DecodedPacket): Buffer {
  const question = query.questions?.length === 1 ? query.questions[0] : undefined;
  if (question === undefined || question.type !== 'SOA') return notifyReply(query, RCODE.FORMERR);
  return notifyReply(query, index.get(wireName(question.name)) ? RCODE.NOERROR : RCODE.NOTAUTH);
}

/** A NOTIFY answer with `rcode`: AA when NOERROR, RD and CD cleared, as BIND does. */
export function notifyReply(query: DecodedPacket, rcode: number): Buffer {
  const flags = (query.flags ?? 0) & ~(FLAG_RD | FLAG_CD);
  return encodeResponse({ ...query, flags }, {}, rcode, rcode === RCODE.NOERROR ? FLAG_AA : 0);
}

/**
 * The messages that answer `query` (without its TSIG record; `raw` is the message as received). A query with a
 * COOKIE option gets the client cookie and a server cookie back in every answer but a zone transfer's (see
 * cookies.ts).
 */
export async function dispatch(
  ctx: DispatchContext,
  query: DecodedPacket,
  raw: Buffer,
  remote: Remote,
): Promise<Replies> {
  // RFC 6891 §6.1.1: more than one OPT record is FORMERR (BIND answers without an OPT of its own)
  if ((query.additionals ?? []).filter((a) => a.type === 'OPT').length > 1)
    return [encodeResponse({ ...query, additionals: [] }, {}, RCODE.FORMERR)];
  const cookie = cookieOf(query);
  if (cookie === 'malformed') return [encodeResponse(query, {}, RCODE.FORMERR)];
  if (cookie === undefined) return answer(ctx, query, raw, remote, 0);
  const option = ctx.cookies.answer(cookie, remote.address);
  const messages = await answer(ctx, query, raw, remote, 4 + option.length);
  return isTransfer(query) && remote.transport === 'tcp'
    ? messages
    : mapReplies(messages, (m) => withCookie(m, option));
}

function isTransfer(query: DecodedPacket): boolean {
  const type = query.questions?.[0]?.type;
  return type === 'AXFR' || type === 'IXFR';
}

/** `dispatch`'s answer before the cookie goes in (`cookieRoom`: the bytes it will take in a lookup's answer). */
async function answer(
  ctx: DispatchContext,
  query: DecodedPacket,
  raw: Buffer,
  remote: Remote,
  cookieRoom: number,
): Promise<Replies> {
  const opcode = opcodeOf(raw);
  if (opcode === OPCODE.UPDATE) {
    return ctx.handlers.update
      ? [await ctx.handlers.update(query, raw, remote)]
      : [encodeResponse(query, {}, RCODE.REFUSED)];
  }
  if ((query.questions?.length ?? 0) > 1) {
    // as BIND's message parser answers it: FORMERR, the header alone (no question, no OPT: echoing many questions
    // could exceed the 512-byte UDP limit too); RD and CD kept for a QUERY only
    const flags = opcode === OPCODE.QUERY ? query.flags : (query.flags ?? 0) & ~(FLAG_RD | FLAG_CD);
    return [encodeResponse({ ...query, flags, questions: [], additionals: [] }, {}, RCODE.FORMERR)];
  }
  if (opcode === OPCODE.NOTIFY)
    return [ctx.handlers.notify ? await ctx.handlers.notify(query, raw, remote) : notifyAnswer(ctx.index, query)];
  if (opcode !== OPCODE.QUERY) {
    // as BIND: the header alone (and OPT), RD and CD cleared — the opcode says nothing about what they mean
    const bare = { ...query, questions: [], flags: (query.flags ?? 0) & ~(FLAG_RD | FLAG_CD) };
    return [encodeResponse(bare, {}, RCODE.NOTIMP)];
  }
  const opt = optOf(query);
  if (opt && opt.ednsVersion > 0) return [encodeResponse(query, {}, 16)]; // BADVERS (RFC 6891 §6.1.3)
  const questions = query.questions ?? [];
  const question = questions[0];
  // a query with a cookie and no question asks for a server cookie alone (RFC 7873 §5.4)
  if (questions.length === 0 && cookieRoom > 0) return [encodeResponse(query, {}, RCODE.NOERROR)];
  if (questions.length !== 1 || question === undefined) return [encodeResponse(query, {}, RCODE.FORMERR)];
  if ((question.class ?? 'IN') !== 'IN') return [encodeResponse(query, {}, RCODE.REFUSED)];
  // types that only records carry (OPT, TSIG) or that need a TKEY exchange are no question (BIND: FORMERR); the
  // obsolete MAILA and MAILB are not implemented (RFC 1035 §3.2.3)
  const metaRcode = META_QTYPE_RCODE[question.type];
  if (metaRcode !== undefined) return [encodeResponse(query, {}, metaRcode)];
  if ((question.type === 'IXFR' || question.type === 'AXFR') && remote.transport === 'udp') {
    // RFC 1995 §2: over UDP an IXFR gets our SOA alone, not authoritative (as BIND), which tells the client to come
    // back over TCP; it must carry the client's SOA (else FORMERR). AXFR is never over UDP (RFC 5936 §4.2): FORMERR.
    // A zone we do not serve: NOTAUTH.
    const zone = ctx.index.get(wireName(question.name));
    if (!zone) return [encodeResponse(query, {}, RCODE.NOTAUTH)];
    if (zone.unavailable) return [encodeResponse(query, {}, RCODE.SERVFAIL)]; // its SOA is not to be given out
    const clientSoa = (query.authorities ?? []).some((r) => r.type === 'SOA');
    return [
      question.type === 'IXFR' && clientSoa
        ? encodeResponse(query, { answers: [zone.soa] }, RCODE.NOERROR)
        : encodeResponse(query, {}, RCODE.FORMERR),
    ];
  }
  if (question.type === 'AXFR' || question.type === 'IXFR') {
    if (!ctx.handlers.transfer) return [encodeResponse(query, {}, RCODE.REFUSED)];
    return ctx.handlers.transfer(query, raw, remote);
  }
  return [lookupFor(ctx.answerer, query, question, remote, cookieRoom)];
}

/**
 * Whether BIND 9 answers this query minimally, whatever its `minimal-responses`: over UDP, to an EDNS client whose
 * buffer is no larger than 512 bytes (named 9.18: such a client gets no additional data but a referral's glue).
 */
export function minimalFor(query: DecodedPacket, transport: 'udp' | 'tcp'): boolean {
  return transport === 'udp' && optOf(query) !== undefined && udpLimit(query) <= CLASSIC_UDP_SIZE;
}

/**
 * A lookup's answer as the transport takes it: over UDP, the truncated form when the full one is too large with
 * `extra` bytes more (a cookie).
 */
function lookupFor(
  answerer: Answerer,
  query: DecodedPacket,
  question: Question,
  remote: Remote,
  extra: number,
): Buffer {
  const answered = answerer.lookup(query, question, remote.tsig?.status === 'ok', minimalFor(query, remote.transport));
  const full = answered.full;
  if (remote.transport !== 'udp' || full.length + extra <= udpLimit(query)) return full;
  if (answered.truncated) return answered.truncated;
  // short enough for any client without the cookie: the truncated form is made here (rcode and AA as answered)
  return encodeResponse(query, {}, (full[3] ?? 0) & 0xf, (full.readUInt16BE(2) & FLAG_AA) | FLAG_TC);
}
