import * as packet from 'dns-packet';
import type { Answer, DecodedPacket, OptAnswer, Packet, Question } from 'dns-packet';
import { signMessage, signResponse, verifyMessage, type VerifyResult } from '../tsig/tsig';
import type { TsigKey } from '../tsig/keyfile';
import { WireError } from '../tsig/wire-walk';
import { decodeMessage } from '../wire/message';
import { resolve, type Resolution } from './resolve';
import type { ZoneIndex } from './zone-index';
import {
  CLASSIC_UDP_SIZE, EDNS_UDP_SIZE, FLAG_AA, FLAG_CD, FLAG_RD, FLAG_TC, headerOnlyResponse, OPCODE, opcodeOf, RCODE,
} from './wire';

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

function optOf(query: DecodedPacket): OptAnswer | undefined {
  return query.additionals?.find((a): a is OptAnswer => a.type === 'OPT');
}

function baseFlags(query: DecodedPacket, rcode: number): number {
  return (query.flags ?? 0) & (FLAG_RD | FLAG_CD | (0xf << 11)) | rcode;
}

export function encodeResponse(query: DecodedPacket, body: Packet, rcode: number, extraFlags = 0): Buffer {
  const opt = optOf(query);
  const additionals = [...(body.additionals ?? [])];
  if (opt) {
    additionals.push({
      name: '.', type: 'OPT', udpPayloadSize: EDNS_UDP_SIZE, extendedRcode: rcode >> 4, ednsVersion: 0,
      flags: opt.flags & packet.DNSSEC_OK, flag_do: opt.flag_do, options: [],
    } as unknown as Answer);
  }
  return packet.encode({
    type: 'response',
    id: query.id,
    flags: baseFlags(query, rcode & 0xf) | extraFlags,
    questions: query.questions,
    answers: body.answers ?? [],
    authorities: body.authorities ?? [],
    additionals,
  });
}

/** The query without its TSIG record, so the response does not echo it. */
function withoutTsig(query: DecodedPacket): DecodedPacket {
  const additionals = query.additionals?.filter((a) => (a.type as string) !== 'TSIG' && (a.type as string) !== 'UNKNOWN_250');
  return additionals?.length === query.additionals?.length ? query : { ...query, additionals };
}

/** Signs each message of a response; messages after the first chain on the previous MAC (RFC 8945 §5.3.1). */
function signStream(replies: Buffer[], tsig: Extract<VerifyResult, { status: 'ok' }>): Buffer[] {
  let prior: Buffer | undefined;
  return replies.map((reply, i) => {
    const signed = i === 0 ? signResponse(reply, tsig) : signMessage(reply, tsig.key, { priorMac: prior, timersOnly: true, fudge: tsig.tsig.fudge });
    prior = signed.mac;
    return signed.message;
  });
}

/** Largest UDP answer the client takes: 512 without EDNS, else its advertised size capped at ours. */
function udpLimit(query: DecodedPacket): number {
  const opt = optOf(query);
  return opt ? Math.max(CLASSIC_UDP_SIZE, Math.min(opt.udpPayloadSize || CLASSIC_UDP_SIZE, EDNS_UDP_SIZE)) : CLASSIC_UDP_SIZE;
}

/**
 * Turns one received message into the messages to send back (none for junk we drop). Never throws: a malformed
 * packet with a readable header gets FORMERR, anything shorter than a header is dropped.
 */
export class Responder {
  constructor(
    private readonly index: ZoneIndex,
    private readonly handlers: ExtraHandlers = {},
    private readonly keys: ReadonlyMap<string, TsigKey> = new Map(),
  ) {}

  async handle(raw: Buffer, remote: Remote): Promise<Buffer[]> {
    if (raw.length < 12) return [];
    if (raw.readUInt16BE(2) & 0x8000) return []; // a response: never answer it (no reflection loops)
    let query: DecodedPacket;
    try {
      query = decodeMessage(raw) as unknown as DecodedPacket;
    } catch {
      return [headerOnlyResponse(raw, RCODE.FORMERR)];
    }
    let tsig: VerifyResult;
    try {
      tsig = verifyMessage(raw, this.keys);
    } catch (err) {
      if (err instanceof WireError) return [headerOnlyResponse(raw, RCODE.FORMERR)];
      throw err;
    }
    if (tsig.status === 'error') {
      // RFC 8945 §5.2: NOTAUTH with the TSIG error; only BADTIME answers are signed.
      return [signResponse(encodeResponse(withoutTsig(query), {}, RCODE.NOTAUTH), tsig).message];
    }
    let replies: Buffer[];
    try {
      replies = await this.dispatch(withoutTsig(query), raw, { ...remote, tsig });
    } catch {
      replies = [encodeResponse(withoutTsig(query), {}, RCODE.SERVFAIL)];
    }
    return tsig.status === 'ok' ? signStream(replies, tsig) : replies;
  }

  private async dispatch(query: DecodedPacket, raw: Buffer, remote: Remote): Promise<Buffer[]> {
    const opcode = opcodeOf(raw);
    if (opcode === OPCODE.UPDATE) {
      return this.handlers.update ? [await this.handlers.update(query, raw, remote)] : [encodeResponse(query, {}, RCODE.REFUSED)];
    }
    if (opcode !== OPCODE.QUERY) return [encodeResponse(query, {}, RCODE.NOTIMP)];
    const opt = optOf(query);
    if (opt && opt.ednsVersion > 0) return [encodeResponse(query, {}, 16)]; // BADVERS (RFC 6891 §6.1.3)
    const questions = query.questions ?? [];
    if (questions.length !== 1) return [encodeResponse(query, {}, RCODE.FORMERR)];
    const question = questions[0] as Question;
    if ((question.class ?? 'IN') !== 'IN') return [encodeResponse(query, {}, RCODE.REFUSED)];
    if (question.type === 'AXFR' || question.type === 'IXFR') {
      if (remote.transport !== 'tcp' || !this.handlers.transfer) return [encodeResponse(query, {}, RCODE.REFUSED)];
      return this.handlers.transfer(query, raw, remote);
    }
    return [this.answer(query, question, remote)];
  }

  private answer(query: DecodedPacket, question: Question, remote: Remote): Buffer {
    const result: Resolution = resolve(this.index, question.name, question.type);
    const rcode = RCODE[result.rcode];
    const flags = result.aa ? FLAG_AA : 0;
    const full = encodeResponse(query, result, rcode, flags);
    if (remote.transport === 'udp' && full.length > udpLimit(query)) {
      return encodeResponse(query, {}, rcode, flags | FLAG_TC); // the client retries over TCP
    }
    return full;
  }
}
