import type { Answer, DecodedPacket, OptAnswer, Packet, Question } from 'dns-packet';
import { wireName } from '../names';
import { signMessage, signResponse, verifyMessage, type VerifyResult } from '../tsig/tsig';
import type { TsigKey } from '../tsig/keyfile';
import { WireError } from '../tsig/wire-walk';
import { decodeMessage } from '../wire/message';
import { answerLength, DNSSEC_OK, encodeMessage, messageLength, typeName } from '../wire/packet';
import { encodePlainAnswer, nameText, plainName } from './answer-wire';
import { resolve, type Resolution } from './resolve';
import type { ZoneData, ZoneIndex } from './zone-index';
import {
  CLASSIC_UDP_SIZE,
  EDNS_UDP_SIZE,
  FLAG_AA,
  FLAG_CD,
  FLAG_RD,
  FLAG_TC,
  headerOnlyResponse,
  MAX_MESSAGE,
  OPCODE,
  opcodeOf,
  RCODE,
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
  return ((query.flags ?? 0) & (FLAG_RD | FLAG_CD | (0xf << 11))) | rcode;
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
    additionals.push({
      name: '.',
      type: 'OPT',
      udpPayloadSize: EDNS_UDP_SIZE,
      extendedRcode: rcode >> 4,
      ednsVersion: 0,
      flags: opt.flags & DNSSEC_OK,
      flag_do: opt.flag_do,
      options: [],
    });
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
  const out = encodeMessage(message);
  const limit = signed ? MAX_MESSAGE - TSIG_RESERVE : MAX_MESSAGE;
  return out.length <= limit ? out : encodeMessage(fitted(message, limit, opt !== undefined || signed));
}

/** Room kept for the TSIG record of a signed response (key and algorithm names up to 255 bytes, a 64-byte MAC). */
export const TSIG_RESERVE = 1_024;

/**
 * A response too large for `limit` (dns-packet writes every name in full, so 2 000 A records at one name already
 * exceed 65 535 bytes), cut the way BIND 9 cuts its own (named 9.18 over TCP, 6 000 A records at one name): TC set,
 * the first question only, no authority records; then, when the response carries an OPT or a TSIG record
 * (`bare`), no answer records either — BIND's dns_message_renderend clears a truncated message down to its
 * question before adding those (NOERROR, flags aa tc, ANSWER 0) — else the answer records that fit, in order, up to
 * the first that does not (BIND renders partial RRsets: 4 094 of them, compressed, in a 65 535-byte message).
 */
function fitted(message: Packet, limit: number, bare: boolean): Packet {
  const base: Packet = {
    ...message,
    flags: (message.flags ?? 0) | FLAG_TC,
    questions: (message.questions ?? []).slice(0, 1),
    answers: [],
    authorities: [],
    additionals: (message.additionals ?? []).filter((a) => a.type === 'OPT'),
  };
  if (bare) return base;
  let room = limit - messageLength(base);
  const answers: Answer[] = [];
  for (const rr of message.answers ?? []) {
    room -= answerLength(rr);
    if (room < 0) break;
    answers.push(rr);
  }
  return { ...base, answers };
}

/** The query without its TSIG record, so the response does not echo it. */
function withoutTsig(query: DecodedPacket): DecodedPacket {
  const additionals = query.additionals?.filter(
    (a) => (a.type as string) !== 'TSIG' && (a.type as string) !== 'UNKNOWN_250',
  );
  return additionals?.length === query.additionals?.length ? query : { ...query, additionals };
}

/** Signs each message of a response; messages after the first chain on the previous MAC (RFC 8945 §5.3.1). */
function signStream(replies: Buffer[], tsig: Extract<VerifyResult, { status: 'ok' }>): Buffer[] {
  let prior: Buffer | undefined;
  return replies.map((reply, i) => {
    const signed =
      i === 0
        ? signResponse(reply, tsig)
        : signMessage(reply, tsig.key, { priorMac: prior, timersOnly: true, fudge: tsig.tsig.fudge });
    prior = signed.mac;
    return signed.message;
  });
}

/** Largest UDP answer the client takes: 512 without EDNS, else its advertised size capped at ours. */
function udpLimit(query: DecodedPacket): number {
  const opt = optOf(query);
  return opt
    ? Math.max(CLASSIC_UDP_SIZE, Math.min(opt.udpPayloadSize || CLASSIC_UDP_SIZE, EDNS_UDP_SIZE))
    : CLASSIC_UDP_SIZE;
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
    /** Told about a failure answered with SERVFAIL (a bug or a store error: worth a log line). */
    private readonly onError?: (err: unknown) => void,
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
    } catch (err) {
      this.onError?.(err);
      replies = [encodeResponse(withoutTsig(query), {}, RCODE.SERVFAIL)];
    }
    return tsig.status === 'ok' ? signStream(replies, tsig) : replies;
  }

  private async dispatch(query: DecodedPacket, raw: Buffer, remote: Remote): Promise<Buffer[]> {
    const opcode = opcodeOf(raw);
    if (opcode === OPCODE.UPDATE) {
      return this.handlers.update
        ? [await this.handlers.update(query, raw, remote)]
        : [encodeResponse(query, {}, RCODE.REFUSED)];
    }
    // An error answer repeats at most one question: echoing many could exceed the 512-byte UDP limit.
    const oneQuestion = (query.questions?.length ?? 0) > 1 ? { ...query, questions: [] } : query;
    if (opcode !== OPCODE.QUERY) return [encodeResponse(oneQuestion, {}, RCODE.NOTIMP)];
    const opt = optOf(query);
    if (opt && opt.ednsVersion > 0) return [encodeResponse(query, {}, 16)]; // BADVERS (RFC 6891 §6.1.3)
    const questions = query.questions ?? [];
    if (questions.length !== 1) return [encodeResponse(oneQuestion, {}, RCODE.FORMERR)];
    const question = questions[0] as Question;
    if ((question.class ?? 'IN') !== 'IN') return [encodeResponse(query, {}, RCODE.REFUSED)];
    if (question.type === 'IXFR' && remote.transport === 'udp') {
      // RFC 1995 §2: over UDP an IXFR gets our SOA alone, which tells the client to come back over TCP
      const zone = this.index.get(wireName(question.name));
      return [
        zone
          ? encodeResponse(query, { answers: [zone.soa] }, RCODE.NOERROR, FLAG_AA)
          : encodeResponse(query, {}, RCODE.NOTAUTH),
      ];
    }
    if (question.type === 'AXFR' || question.type === 'IXFR') {
      if (remote.transport !== 'tcp' || !this.handlers.transfer) return [encodeResponse(query, {}, RCODE.REFUSED)];
      return this.handlers.transfer(query, raw, remote);
    }
    return [this.answer(query, question, remote)];
  }

  private answer(query: DecodedPacket, question: Question, remote: Remote): Buffer {
    const answer = this.lookup(query, question, remote.tsig?.status === 'ok');
    return remote.transport === 'udp' && answer.full.length > udpLimit(query)
      ? (answer.truncated as Buffer)
      : answer.full;
  }

  /**
   * The full answer to a question (cut, with TC, when too large for a DNS message: see `fitted`; `signed`: with room
   * for a TSIG record), and (when longer than the smallest UDP limit) its truncated form.
   */
  private lookup(query: DecodedPacket, question: Question, signed = false): Answered {
    const result: Resolution = resolve(this.index, question.name, question.type);
    const rcode = RCODE[result.rcode];
    const flags = result.aa ? FLAG_AA : 0;
    const full = encodeResponse(query, result, rcode, flags, signed);
    // the client retries over TCP
    const truncated = full.length > CLASSIC_UDP_SIZE ? encodeResponse(query, {}, rcode, flags | FLAG_TC) : undefined;
    return { full, truncated, zone: result.zone };
  }

  /**
   * The answer to a plain query (opcode QUERY, one question, no other records but an EDNS version 0 OPT without
   * options dns-packet interprets; no TSIG), computed here and now: from the answer cache, else by the same steps as
   * `handle` (whose result it equals byte for byte), then cached. Undefined for every other message: those go
   * through `handle`.
   *
   * The buffer returned may be the cache's own, with this query's ID, RD and CD written in: send (or copy) it before
   * the next call, and call `detach()` if the transport still holds it afterwards (a send left queued).
   */
  answerNow(raw: Buffer, transport: 'udp' | 'tcp'): Buffer | undefined {
    this.lent = undefined;
    if (!scanPlainQuery(raw)) return undefined;
    const end = scanned.questionEnd;
    const edns = scanned.edns;
    const hash = questionHash(raw, end, edns);
    const cache = this.cache;
    const found = answerCache.maxEntries > 0 ? cache.find(raw, end, edns, hash) : undefined;
    const index = this.index;
    if (found !== undefined && found.layout === index.layout && (found.zone === undefined || !found.zone.retired)) {
      const truncated = transport === 'udp' && found.full.length > scanned.udpLimit;
      const out = truncated ? (found.truncated as Buffer) : found.full;
      // this query's ID, RD and CD (the rest of the header depends on the question alone)
      out[0] = raw[0] as number;
      out[1] = raw[1] as number;
      out[2] = ((out[2] as number) & ~0x01) | ((raw[2] as number) & 0x01);
      out[3] = ((out[3] as number) & ~0x10) | ((raw[3] as number) & 0x10);
      this.lent = found;
      this.lentTruncated = truncated;
      return out;
    }
    const layout = index.layout;
    let answer = this.lookupPlain(raw, end, edns);
    if (answer === undefined) {
      let query: DecodedPacket;
      try {
        query = decodeMessage(raw) as unknown as DecodedPacket;
      } catch {
        return undefined; // `handle` answers it (FORMERR)
      }
      const question = query.questions?.[0] as Question;
      try {
        answer =
          (question.class ?? 'IN') === 'IN'
            ? this.lookup(query, question)
            : { full: encodeResponse(query, {}, RCODE.REFUSED) };
      } catch {
        return encodeResponse(query, {}, RCODE.SERVFAIL);
      }
    }
    const truncated = transport === 'udp' && answer.full.length > scanned.udpLimit;
    const out = truncated ? (answer.truncated as Buffer) : answer.full;
    if (answerCache.maxEntries > 0) {
      let entry = found;
      if (entry === undefined) {
        // the answer's question section is the query's bytes (name as sent) but for odd names: then it keeps its own
        const length = end - 12;
        const echoed = answer.full.length >= end && raw.compare(answer.full, 12, end, 12, end) === 0;
        entry = {
          question: echoed ? undefined : Buffer.from(raw.subarray(12, end)),
          length,
          edns,
          full: answer.full,
          layout,
          next: undefined,
        };
        cache.insert(entry, hash, answer.full.length + (answer.truncated?.length ?? 0));
      } else {
        if (entry.question === undefined && answer.full.compare(entry.full, 12, end, 12, end) !== 0)
          entry.question = Buffer.from(raw.subarray(12, end));
        cache.grow(
          answer.full.length + (answer.truncated?.length ?? 0) - entry.full.length - (entry.truncated?.length ?? 0),
        );
      }
      entry.full = answer.full;
      entry.truncated = answer.truncated;
      entry.zone = answer.zone;
      entry.layout = layout;
      this.lent = entry;
      this.lentTruncated = truncated;
    }
    return out;
  }

  /**
   * `lookup` for a plain query of class IN whose name dns-packet would give back unchanged: resolved and encoded
   * without decoding the message (see answer-wire.ts); undefined when that does not apply, or on any error (the
   * dns-packet path then answers, SERVFAIL included).
   */
  private lookupPlain(raw: Buffer, questionEnd: number, edns: number): Answered | undefined {
    const nameEnd = questionEnd - 4;
    if (raw[questionEnd - 2] !== 0 || raw[questionEnd - 1] !== 1 || !plainName(raw, nameEnd)) return undefined;
    try {
      const qname = nameText(raw, nameEnd);
      const result = resolve(
        this.index,
        qname,
        typeName(((raw[nameEnd] as number) << 8) | (raw[nameEnd + 1] as number)),
      );
      const rcode = RCODE[result.rcode];
      const flags = result.aa ? FLAG_AA : 0;
      const full = encodePlainAnswer(raw, nameEnd, questionEnd, qname, result, rcode, flags, edns);
      if (full === undefined) return undefined;
      const truncated =
        full.length > CLASSIC_UDP_SIZE
          ? encodePlainAnswer(raw, nameEnd, questionEnd, qname, NO_RECORDS, rcode, flags | FLAG_TC, edns)
          : undefined;
      return { full, truncated, zone: result.zone };
    } catch {
      return undefined;
    }
  }

  /** The buffer `answerNow` returned last is still in use: the cache keeps a copy of its own from now on. */
  detach(): void {
    const entry = this.lent;
    if (entry === undefined) return;
    if (this.lentTruncated) entry.truncated = Buffer.from(entry.truncated as Buffer);
    else entry.full = Buffer.from(entry.full);
    this.lent = undefined;
  }

  private readonly cache = new AnswerCache();
  /** The cache entry whose buffer `answerNow` returned last (and which one: full or truncated). */
  private lent: CachedAnswer | undefined;
  private lentTruncated = false;
}

const NO_RECORDS = { answers: [], authorities: [], additionals: [] };

/**
 * Answer cache settings: entries and bytes of answers held at most (the cache is emptied when either is reached);
 * maxEntries 0 turns it off.
 */
export const answerCache = { maxEntries: 50_000, maxBytes: 32 * 1024 * 1024 };

interface Answered {
  full: Buffer;
  truncated?: Buffer;
  zone?: ZoneData;
}

interface CachedAnswer extends Answered {
  /**
   * The question section as received (name as sent: the answer echoes its case; type; class) when it differs from
   * the answer's question section (bytes 12 to 12 + length of `full`), which holds it otherwise.
   */
  question: Buffer | undefined;
  length: number;
  /** 0 no EDNS, 1 EDNS, 2 EDNS with DO. */
  edns: number;
  /** `ZoneIndex.layout` when computed. */
  layout: number;
  /** Next entry of the same hash bucket. */
  next: CachedAnswer | undefined;
}

/** FNV-1a over the question section and the EDNS state, folded to a small integer. */
function questionHash(raw: Buffer, end: number, edns: number): number {
  let h = 0x811c9dc5 ^ edns;
  for (let i = 12; i < end; i++) h = Math.imul(h ^ (raw[i] as number), 0x01000193);
  return (h ^ (h >>> 15)) & 0x3fffffff;
}

/**
 * Encoded answers to plain queries by the exact bytes of their question section and their EDNS state (none, EDNS,
 * EDNS with DO), in a hash table of chained buckets. Each answer is kept whole and, when longer than 512 bytes,
 * truncated (TC) as well; ID, RD and CD are the query's on the way out. An entry is used while its zone is the
 * index's current copy and no zone was added or removed since (a new child zone changes which zone answers), so a
 * zone reload invalidates that zone's answers only. When full, the cache starts over empty.
 */
class AnswerCache {
  private table: Array<CachedAnswer | undefined> = [];
  private mask = -1;
  private size = 0;

  find(raw: Buffer, end: number, edns: number, hash: number): CachedAnswer | undefined {
    if (this.mask < 0) return undefined;
    next: for (let e = this.table[hash & this.mask]; e !== undefined; e = e.next) {
      if (e.edns !== edns || e.length !== end - 12) continue;
      const q = e.question;
      if (q === undefined) {
        const full = e.full;
        for (let i = 12; i < end; i++) if (full[i] !== raw[i]) continue next;
      } else {
        for (let i = 12; i < end; i++) if (q[i - 12] !== raw[i]) continue next;
      }
      return e;
    }
    return undefined;
  }

  private bytes = 0;

  insert(entry: CachedAnswer, hash: number, bytes: number): void {
    if (this.mask < 0 || this.size >= answerCache.maxEntries || this.bytes + bytes > answerCache.maxBytes) {
      let buckets = 1024;
      while (buckets < answerCache.maxEntries) buckets *= 2;
      this.table = new Array<CachedAnswer | undefined>(buckets).fill(undefined);
      this.mask = buckets - 1;
      this.size = 0;
      this.bytes = 0;
    }
    const slot = hash & this.mask;
    entry.next = this.table[slot];
    this.table[slot] = entry;
    this.size++;
    this.bytes += bytes;
  }

  /** An entry's answer was computed again (its zone changed): its new size counts instead of the old. */
  grow(bytes: number): void {
    this.bytes += bytes;
  }
}

/** What `scanPlainQuery` found (module scope: no allocation per packet). */
const scanned = { questionEnd: 0, edns: 0 as 0 | 1 | 2, udpLimit: CLASSIC_UDP_SIZE };

/** OPT option codes dns-packet decodes beyond their bytes (ECS, KEEPALIVE, KEY-TAG): their messages take `handle`. */
const INTERPRETED_OPTIONS = new Set([8, 11, 14]);

/**
 * Is `raw` a plain query `answerNow` may answer: QR 0, opcode QUERY, QDCOUNT 1, ANCOUNT 0, NSCOUNT 0, ARCOUNT 0 or 1
 * (an OPT at the root, EDNS version 0, options well framed), an uncompressed question name dns-packet decodes (labels
 * up to 63 bytes, 254 in all), not AXFR/IXFR, and nothing after the last record.
 */
function scanPlainQuery(raw: Buffer): boolean {
  const len = raw.length;
  if (len < 17 || ((raw[2] as number) & 0xf8) !== 0) return false;
  if (raw[4] !== 0 || raw[5] !== 1 || raw[6] !== 0 || raw[7] !== 0 || raw[8] !== 0 || raw[9] !== 0 || raw[10] !== 0)
    return false;
  const arcount = raw[11] as number;
  if (arcount > 1) return false;
  let o = 12;
  let total = 0;
  for (;;) {
    const label = raw[o] as number;
    if (label === 0) break;
    if (label > 63) return false; // compression pointer or extended label type
    total += label + 1;
    if (total > 254) return false;
    o += label + 1;
    if (o >= len) return false;
  }
  const end = o + 5;
  if (end > len) return false;
  const qtype = ((raw[o + 1] as number) << 8) | (raw[o + 2] as number);
  if (qtype === 251 || qtype === 252) return false; // IXFR, AXFR
  scanned.questionEnd = end;
  if (arcount === 0) {
    if (end !== len) return false;
    scanned.edns = 0;
    scanned.udpLimit = CLASSIC_UDP_SIZE;
    return true;
  }
  // OPT: root owner, type 41, class = payload size, TTL = extended rcode, version, flags; then RDLENGTH and options
  if (end + 11 > len || raw[end] !== 0 || raw[end + 1] !== 0 || raw[end + 2] !== 41 || raw[end + 6] !== 0) return false;
  const rdEnd = end + 11 + raw.readUInt16BE(end + 9);
  if (rdEnd !== len) return false;
  for (let p = end + 11; p < rdEnd;) {
    if (p + 4 > rdEnd || INTERPRETED_OPTIONS.has(raw.readUInt16BE(p))) return false;
    p += 4 + raw.readUInt16BE(p + 2);
    if (p > rdEnd) return false;
  }
  const size = raw.readUInt16BE(end + 3);
  scanned.edns = (raw[end + 7] as number) & 0x80 ? 2 : 1;
  scanned.udpLimit = Math.max(CLASSIC_UDP_SIZE, Math.min(size || CLASSIC_UDP_SIZE, EDNS_UDP_SIZE));
  return true;
}
