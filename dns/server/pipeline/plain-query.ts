/**
 * The fast path for plain queries: recognised in place (no decoding), answered from the answer cache, else computed
 * (plain-query encoder, or dns-packet's when that one declines) and cached. It gives the bytes the general path
 * (`Responder.handle`) gives, byte for byte; every other message goes through that path.
 *
 * Bytes are read at offsets the scan has checked to lie within the message: the `?? 0` after each read never
 * applies (it satisfies strict indexing without a cast).
 */
import type { DecodedPacket, Question } from 'dns-packet';
import { CLASSIC_UDP_SIZE, decodeMessage, EDNS_UDP_SIZE, RCODE } from '../../wire';
import type { Answered, Answerer } from '../answer/answer';
import { questionHash, type AnswerCache, type CachedAnswer } from '../answer/answer-cache';
import { COOKIE_OPTION, withCookie, type ServerCookies } from './cookies';
import { encodeResponse } from '../answer/encode';
import type { ZoneIndex } from '../../zone';
import type { RrlGate } from './rrl-gate';
import { add, type DnsStats, familyOf, G, PLUGIN, TCP, typeIndex, UDP } from '../stats/dns-stats';

/** OPT option codes whose messages take `handle`: those dns-packet decodes beyond their bytes (ECS, KEEPALIVE, KEY-TAG). */
const INTERPRETED_OPTIONS = new Set([8, 11, 14]);

/**
 * Bytes a COOKIE option adds to an answer: code and length, the client cookie (8) and our server cookie (16). The
 * answer to a cookie query is the cached cookie-less answer with this option appended (see cookies.ts).
 */
const COOKIE_ANSWER_BYTES = 4 + 8 + 16;

/** What `scan` found about the last message it accepted (fields, not a new object: no allocation per packet). */
export class PlainQueryScan {
  /** Offset just past the question section. */
  questionEnd = 0;
  /** 0 no EDNS, 1 EDNS, 2 EDNS with DO. */
  edns: 0 | 1 | 2 = 0;
  /** Largest UDP answer the client takes. */
  udpLimit = CLASSIC_UDP_SIZE;
  /** Where the data of the query's COOKIE option starts (-1: none), and its length. */
  cookieAt = -1;
  cookieLength = 0;
  /** The question type (its number). */
  qtype = 0;

  /**
   * Is `raw` a plain query: QR 0, opcode QUERY, QDCOUNT 1, ANCOUNT 0, NSCOUNT 0, ARCOUNT 0 or 1 (an OPT at the
   * root, EDNS version 0, options well framed), an uncompressed question name dns-packet decodes (labels up to 63
   * bytes, 254 in all), not of a type dispatch answers itself (AXFR, IXFR, OPT, TSIG, TKEY, MAILA, MAILB), and
   * nothing after the last record.
   */
  scan(raw: Buffer): boolean {
    const len = raw.length;
    this.cookieAt = -1;
    if (len < 17 || ((raw[2] ?? 0) & 0xf8) !== 0) return false;
    if (raw[4] !== 0 || raw[5] !== 1 || raw[6] !== 0 || raw[7] !== 0 || raw[8] !== 0 || raw[9] !== 0 || raw[10] !== 0)
      return false;
    const arcount = raw[11] ?? 0;
    if (arcount > 1) return false;
    let o = 12;
    let total = 0;
    for (;;) {
      const label = raw[o] ?? 0;
      if (label === 0) break;
      if (label > 63) return false; // compression pointer or extended label type
      total += label + 1;
      if (total > 254) return false;
      o += label + 1;
      if (o >= len) return false;
    }
    const end = o + 5;
    if (end > len) return false;
    const qtype = ((raw[o + 1] ?? 0) << 8) | (raw[o + 2] ?? 0);
    // TKEY, TSIG, IXFR, AXFR, MAILB, MAILA and OPT get answers of their own (dispatch.ts)
    if ((qtype >= 249 && qtype <= 254) || qtype === 41) return false;
    this.questionEnd = end;
    this.qtype = qtype;
    if (arcount === 0) {
      if (end !== len) return false;
      this.edns = 0;
      this.udpLimit = CLASSIC_UDP_SIZE;
      return true;
    }
    // OPT: root owner, type 41, class = payload size, TTL = extended rcode, version, flags; then RDLENGTH and options
    if (end + 11 > len || raw[end] !== 0 || raw[end + 1] !== 0 || raw[end + 2] !== 41 || raw[end + 6] !== 0)
      return false;
    const rdEnd = end + 11 + raw.readUInt16BE(end + 9);
    if (rdEnd !== len) return false;
    for (let p = end + 11; p < rdEnd;) {
      if (p + 4 > rdEnd) return false;
      const code = raw.readUInt16BE(p);
      const length = raw.readUInt16BE(p + 2);
      if (INTERPRETED_OPTIONS.has(code)) return false;
      if (code === COOKIE_OPTION) {
        // one well-formed cookie (a client cookie, or one with a server cookie): else `handle` answers (FORMERR …)
        if (this.cookieAt >= 0 || !(length === 8 || (length >= 16 && length <= 40))) return false;
        this.cookieAt = p + 4;
        this.cookieLength = length;
      }
      p += 4 + length;
      if (p > rdEnd) return false;
    }
    const size = raw.readUInt16BE(end + 3);
    this.edns = (raw[end + 7] ?? 0) & 0x80 ? 2 : 1;
    this.udpLimit = Math.max(CLASSIC_UDP_SIZE, Math.min(size || CLASSIC_UDP_SIZE, EDNS_UDP_SIZE));
    return true;
  }
}

/** The plain-query path of one responder: its scan state, its answer cache, and the buffer it lent out last. */
export class PlainQueries {
  private readonly scanned = new PlainQueryScan();
  /** The cache entry whose buffer `answerNow` returned last (and which one: full or truncated). */
  private lent: CachedAnswer | undefined;
  private lentTruncated = false;
  /** The zone block (DnsStats.zoneBase) and the plugin of the answer `compute` gave last. */
  private statBase = 0;
  private plugin: number = PLUGIN.file;

  constructor(
    private readonly index: ZoneIndex,
    private readonly answerer: Answerer,
    private readonly cache: AnswerCache,
    private readonly cookies: ServerCookies,
    private readonly stats: DnsStats,
    /** Response rate limiting of UDP answers (absent: off). */
    private readonly rrl?: RrlGate,
  ) {}

  /**
   * The answer to a plain query (see `PlainQueryScan.scan`; no TSIG), computed here and now: from the answer cache,
   * else by the same steps as `Responder.handle` (whose result it equals byte for byte), then cached. Undefined for
   * every other message.
   *
   * The buffer returned may be the cache's own, with this query's ID, RD and CD written in: send (or copy) it before
   * the next call, and call `detach()` if the transport still holds it afterwards (a send left queued). Null: the
   * answer is not sent (response rate limiting dropped it).
   */
  answerNow(raw: Buffer, transport: 'udp' | 'tcp', address?: string): Buffer | undefined | null {
    let out = this.compute(raw, transport, address);
    const rrl = this.rrl;
    if (out !== undefined && rrl !== undefined && transport === 'udp' && address !== undefined) {
      const scanned = this.scanned;
      const at = scanned.cookieAt;
      if (
        rrl.limited(out, address) &&
        !(at >= 0 && rrl.cookieExempts(raw.subarray(at, at + scanned.cookieLength), address))
      ) {
        const sent = rrl.outcome(out, scanned.edns !== 0);
        if (sent !== out) this.lent = undefined; // a slip, or nothing: the cache's buffer is not held
        if (sent === null) return null;
        out = sent;
      }
    }
    // counted here (a few additions to a typed array): what `handle` answers is counted there
    if (out !== undefined)
      this.stats.answered(
        this.statBase,
        typeIndex(this.scanned.qtype),
        transport === 'udp' ? UDP : TCP,
        familyOf(address),
        raw.length,
        out,
        this.plugin,
      );
    return out;
  }

  private compute(raw: Buffer, transport: 'udp' | 'tcp', address?: string): Buffer | undefined {
    this.lent = undefined;
    const scanned = this.scanned;
    if (!scanned.scan(raw)) return undefined;
    // a cookie query: the cookie-less answer (cached like any), the client's and our server cookie appended
    const cookieAt = scanned.cookieAt;
    if (cookieAt >= 0 && address === undefined) return undefined;
    const extra = cookieAt >= 0 ? COOKIE_ANSWER_BYTES : 0;
    // an EDNS client with a buffer of 512 bytes or less gets a minimal answer over UDP (dispatch.ts, minimalFor)
    if (transport === 'udp' && scanned.edns !== 0 && scanned.udpLimit <= CLASSIC_UDP_SIZE) return undefined;
    const end = scanned.questionEnd;
    const edns = scanned.edns;
    const hash = questionHash(raw, end, edns);
    const cache = this.cache;
    const found = cache.enabled ? cache.find(raw, end, edns, hash) : undefined;
    const index = this.index;
    if (found !== undefined && found.layout === index.layout && (found.zone === undefined || !found.zone.retired)) {
      const truncated = transport === 'udp' && found.full.length + extra > scanned.udpLimit;
      // too large only with the cookie, and no truncated form kept: `handle` makes one
      if (truncated && found.truncated === undefined) return undefined;
      const out = truncated ? (found.truncated as Buffer) : found.full;
      // this query's ID, RD and CD (the rest of the header depends on the question alone)
      out[0] = raw[0] ?? 0;
      out[1] = raw[1] ?? 0;
      out[2] = ((out[2] ?? 0) & ~0x01) | ((raw[2] ?? 0) & 0x01);
      out[3] = ((out[3] ?? 0) & ~0x10) | ((raw[3] ?? 0) & 0x10);
      this.statBase = found.statBase;
      this.plugin = PLUGIN.cache;
      // a denial: NXDOMAIN, or no answer records (NODATA, a referral)
      const denial = ((out[3] ?? 0) & 0xf) === 3 || ((out[6] ?? 0) | (out[7] ?? 0)) === 0;
      add(this.stats.counts, denial ? G.cacheHitsDenial : G.cacheHitsSuccess);
      if (extra > 0) return this.withCookie(raw, out, address as string);
      this.lent = found;
      this.lentTruncated = truncated;
      return out;
    }
    const layout = index.layout;
    let answer: Answered | undefined = this.answerer.lookupPlain(raw, end, edns);
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
            ? this.answerer.lookup(query, question)
            : { full: encodeResponse(query, {}, RCODE.REFUSED) };
      } catch {
        this.statBase = this.stats.zoneBase(undefined);
        this.plugin = PLUGIN.file;
        return encodeResponse(query, {}, RCODE.SERVFAIL);
      }
    }
    this.statBase = this.stats.zoneBase(answer.zone?.name);
    this.plugin = PLUGIN.file;
    if (cache.enabled) add(this.stats.counts, G.cacheMisses);
    const truncated = transport === 'udp' && answer.full.length + extra > scanned.udpLimit;
    if (truncated && answer.truncated === undefined) return undefined;
    const out = truncated ? (answer.truncated as Buffer) : answer.full;
    if (cache.enabled) this.remember(raw, end, edns, hash, found, answer, layout, truncated);
    return extra > 0 ? this.withCookie(raw, out, address as string) : out;
  }

  /** A copy of `answer` with the query's COOKIE answered in its OPT record (nothing of the cache's is lent out). */
  private withCookie(raw: Buffer, answer: Buffer, address: string): Buffer {
    this.lent = undefined;
    const at = this.scanned.cookieAt;
    return withCookie(answer, this.cookies.answer(raw.subarray(at, at + this.scanned.cookieLength), address));
  }

  /** Puts a computed answer in the cache (a new entry, or `found`, whose zone had changed) and lends it out. */
  private remember(
    raw: Buffer,
    end: number,
    edns: number,
    hash: number,
    found: CachedAnswer | undefined,
    answer: Answered,
    layout: number,
    truncated: boolean,
  ): void {
    let entry = found;
    if (entry === undefined) {
      // the answer's question section is the query's bytes (name as sent) but for odd names: then it keeps its own
      const echoed = answer.full.length >= end && raw.compare(answer.full, 12, end, 12, end) === 0;
      entry = {
        question: echoed ? undefined : Buffer.from(raw.subarray(12, end)),
        length: end - 12,
        edns,
        full: answer.full,
        layout,
        statBase: this.statBase,
        bytes: 0,
        next: undefined,
      };
      this.cache.insert(entry, hash, answer.full.length + (answer.truncated?.length ?? 0));
    } else {
      if (entry.question === undefined && answer.full.compare(entry.full, 12, end, 12, end) !== 0)
        entry.question = Buffer.from(raw.subarray(12, end));
      this.cache.resize(entry, answer.full.length + (answer.truncated?.length ?? 0));
    }
    entry.full = answer.full;
    entry.truncated = answer.truncated;
    entry.zone = answer.zone;
    entry.layout = layout;
    entry.statBase = this.statBase;
    this.lent = entry;
    this.lentTruncated = truncated;
  }

  /** The buffer `answerNow` returned last is still in use: the cache keeps a copy of its own from now on. */
  detach(): void {
    const entry = this.lent;
    if (entry === undefined) return;
    if (this.lentTruncated) entry.truncated = Buffer.from(entry.truncated as Buffer);
    else entry.full = Buffer.from(entry.full);
    this.lent = undefined;
  }
}
