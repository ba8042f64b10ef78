/**
 * The general response encoder: any answer to any decoded query, through dns-packet's whole-message encoder (names
 * in full), then name compression (wire/compress.ts), which every encoder applies last. The plain-query encoder (answer-wire.ts) and the answer cache (answer-cache.ts) must give the very bytes this one
 * gives: encoders.test.ts holds the three to that contract.
 */
import type { Answer, DecodedPacket, OptAnswer, Packet } from 'dns-packet';
import {
  CLASSIC_UDP_SIZE,
  compressMessage,
  DNSSEC_OK,
  EDNS_UDP_SIZE,
  encodeMessage,
  FLAG_CD,
  FLAG_RD,
  FLAG_TC,
  MAX_MESSAGE,
} from '../../wire';

/** Room kept for the TSIG record of a signed response (key and algorithm names up to 255 bytes, a 64-byte MAC). */
const TSIG_RESERVE = 1_024;

/** The query's EDNS OPT record, if any. */
export function optOf(query: DecodedPacket): OptAnswer | undefined {
  return query.additionals?.find((a): a is OptAnswer => a.type === 'OPT');
}

/** The query's opcode, RD and CD, and `rcode`: the flags every response starts from. */
function baseFlags(query: DecodedPacket, rcode: number): number {
  return ((query.flags ?? 0) & (FLAG_RD | FLAG_CD | (0xf << 11))) | rcode;
}

/** Largest UDP answer the client takes: 512 without EDNS, else its advertised size capped at ours. */
export function udpLimit(query: DecodedPacket): number {
  const opt = optOf(query);
  return opt
    ? Math.max(CLASSIC_UDP_SIZE, Math.min(opt.udpPayloadSize || CLASSIC_UDP_SIZE, EDNS_UDP_SIZE))
    : CLASSIC_UDP_SIZE;
}

/**
 * The response to `query` with `body`, never longer than a DNS message can be (see `fitted`); `signed`: it gets a
 * TSIG record after this, which needs room.
 */
export function encodeResponse(
  query: DecodedPacket,
  body: Packet,
  rcode: number,
  extraFlags = 0,
  signed = false,
): Buffer {
  const opt = optOf(query);
  const additionals = [...(body.additionals ?? [])];
  if (opt) {
    const ours: OptAnswer = {
      name: '.',
      type: 'OPT',
      udpPayloadSize: EDNS_UDP_SIZE,
      extendedRcode: rcode >> 4,
      ednsVersion: 0,
      flags: opt.flags & DNSSEC_OK,
      flag_do: opt.flag_do,
      options: [],
    };
    additionals.push(ours);
  }
  const message: Packet = {
    type: 'response',
    id: query.id,
    flags: baseFlags(query, rcode & 0xf) | extraFlags,
    questions: query.questions,
    answers: body.answers ?? [],
    authorities: body.authorities ?? [],
    additionals,
  };
  const out = encodeCompressed(message);
  const limit = signed ? MAX_MESSAGE - TSIG_RESERVE : MAX_MESSAGE;
  return out.length <= limit ? out : fitted(message, limit, opt !== undefined || signed);
}

/** `message` in wire form, names compressed. */
function encodeCompressed(message: Packet): Buffer {
  return compressMessage(encodeMessage(message));
}

/** Fewest bytes a record takes in a compressed message: a pointer for its owner, TYPE, CLASS, TTL, RDLENGTH. */
const MIN_RECORD = 12;

/**
 * A response too large for `limit` (6 000 A records at one name exceed 65 535 bytes even compressed), cut the way
 * BIND 9 cuts its own (named 9.18 over TCP, 6 000 A records at one name): TC set, the first question only, no
 * authority records; then, when the response carries an OPT or a TSIG record (`bare`), no answer records either —
 * BIND's dns_message_renderend clears a truncated message down to its question before adding those (NOERROR, flags
 * aa tc, ANSWER 0) — else the answer records that fit, in order, up to the first that does not (BIND renders partial
 * RRsets: 4 094 of them, compressed, in a 65 535-byte message).
 */
function fitted(message: Packet, limit: number, bare: boolean): Buffer {
  const base: Packet = {
    ...message,
    flags: (message.flags ?? 0) | FLAG_TC,
    questions: (message.questions ?? []).slice(0, 1),
    answers: [],
    authorities: [],
    additionals: (message.additionals ?? []).filter((a) => a.type === 'OPT'),
  };
  if (bare) return encodeCompressed(base);
  const all: Answer[] = message.answers ?? [];
  // the most leading answers whose compressed message fits (its size grows with each record: a binary search)
  let fits = 0;
  let over = Math.min(all.length, Math.floor(limit / MIN_RECORD)) + 1;
  let best = encodeCompressed(base);
  while (over - fits > 1) {
    const mid = (fits + over) >> 1;
    const candidate = encodeCompressed({ ...base, answers: all.slice(0, mid) });
    if (candidate.length <= limit) {
      fits = mid;
      best = candidate;
    } else over = mid;
  }
  return best;
}
