/**
 * The responder: one received message in, the messages to send back out. It wires the jobs together — TSIG
 * (tsig-wrap.ts), dispatch by opcode and question (dispatch.ts), the answer path with its signing hook (answer.ts),
 * the plain-query fast path with the answer cache (plain-query.ts, answer-cache.ts) — and owns their state, so two
 * responders in one process share nothing.
 */
import type { DecodedPacket } from 'dns-packet';
import type { TsigKey } from '../../tsig';
import { decodeMessage, headerOnlyResponse, OPCODE, opcodeOf, RCODE, typeNumber } from '../../wire';
import { Answerer, type AnswerSigner } from '../answer/answer';
import { AnswerCache, DEFAULT_ANSWER_CACHE, type AnswerCacheLimits } from '../answer/answer-cache';
import { cookieOf, ServerCookies } from './cookies';
import { RrlGate } from './rrl-gate';
import type { RrlLog, RrlOptions } from './rrl';
import { PlainAnswerEncoder } from '../answer/answer-wire';
import { standInFor, type StandIn } from '../answer/binary-labels';
import { dispatch, type DispatchContext, type ExtraHandlers, type Remote } from './dispatch';
import { encodeResponse } from '../answer/encode';
import { PlainQueries } from './plain-query';
import { answerWithTsig } from './tsig-wrap';
import { mapReplies, type Replies } from './replies';
import type { ZoneIndex } from '../../zone';
import { wireName } from '../../model';
import { DnsStats, DROP, familyOf, PLUGIN, TCP, typeIndex, UDP } from '../stats/dns-stats';

export { type ExtraHandlers, notifyAnswer, notifyReply, type Remote } from './dispatch';
export { collectReplies, type Replies } from './replies';

export interface ResponderOptions {
  /** Limits of the answer cache (default DEFAULT_ANSWER_CACHE; maxEntries 0 turns it off). */
  answerCache?: Partial<AnswerCacheLimits>;
  /** The signing step every answer goes through (default: none). */
  signer?: AnswerSigner;
  /** Server cookies (default: a new secret, the clock): tests fix the clock so two answers can be compared. */
  cookies?: ServerCookies;
  /**
   * Response rate limiting of answers over UDP (rrl.ts; absent: off). Never limited: TCP, TSIG-signed requests,
   * a valid server cookie, messages other than queries (UPDATE, NOTIFY).
   */
  rrl?: RrlOptions;
  /** Where RRL says a network starts and stops being limited (a few lines a second at most). */
  log?: RrlLog;
  /** RRL's clock (ms, monotonic): tests move it. */
  rrlNow?: () => number;
}

/**
 * Turns one received message into the messages to send back (none for junk we drop). Never throws: a malformed
 * packet with a readable header gets FORMERR, anything shorter than a header is dropped.
 */
export class Responder {
  private readonly context: DispatchContext;
  private readonly plain: PlainQueries;
  private readonly rrl: RrlGate | undefined;
  /** What this responder answered (read whole when metrics are scraped). */
  readonly stats = new DnsStats();

  constructor(
    index: ZoneIndex,
    handlers: ExtraHandlers = {},
    private readonly keys: ReadonlyMap<string, TsigKey> = new Map(),
    /** Told about a failure answered with SERVFAIL (a bug or a store error: worth a log line). */
    private readonly onError?: (err: unknown) => void,
    options: ResponderOptions = {},
  ) {
    const answerer = new Answerer(index, new PlainAnswerEncoder(), options.signer);
    // a new secret for every responder (a server start): the cookies of a previous run are not ours
    const cookies = options.cookies ?? new ServerCookies();
    this.context = { index, answerer, handlers, cookies };
    const cache = new AnswerCache({ ...DEFAULT_ANSWER_CACHE, ...options.answerCache });
    this.rrl = options.rrl && new RrlGate(options.rrl, cookies, this.stats, options.log, options.rrlNow);
    this.plain = new PlainQueries(index, answerer, cache, cookies, this.stats, this.rrl);
    this.stats.cacheEntries = () => cache.entries;
  }

  async handle(raw: Buffer, remote: Remote): Promise<Replies> {
    if (raw.length < 12) {
      this.stats.dropped(DROP.malformed);
      return [];
    }
    if (raw.readUInt16BE(2) & 0x8000) {
      this.stats.dropped(DROP.response);
      return []; // a response: never answer it (no reflection loops)
    }
    const signed = { ok: false };
    const replies = await this.answer(raw, remote, signed);
    return this.counted(raw, remote, this.limited(raw, remote, replies, signed.ok));
  }

  /** `replies` as response rate limiting lets them go out: a UDP answer to an unsigned query may be dropped or slip. */
  private limited(raw: Buffer, remote: Remote, replies: Replies, signed: boolean): Replies {
    const rrl = this.rrl;
    if (rrl === undefined || remote.transport !== 'udp' || signed || opcodeOf(raw) !== OPCODE.QUERY) return replies;
    if (!Array.isArray(replies) || replies.length !== 1) return replies;
    const reply = replies[0] as Buffer;
    if (!rrl.limited(reply, remote.address)) return replies;
    let edns = false;
    try {
      const query = decodeMessage(raw) as unknown as DecodedPacket;
      edns = query.additionals?.some((a) => a.type === 'OPT') ?? false;
      const cookie = cookieOf(query);
      if (cookie instanceof Buffer && rrl.cookieExempts(cookie, remote.address)) return replies;
    } catch {
      // unreadable (it got FORMERR): limited like any answer
    }
    const sent = rrl.outcome(reply, edns);
    return sent === null ? [] : [sent === reply ? reply : Buffer.from(sent)];
  }

  /**
   * `replies` to `raw`, counted as they go (the first message of a stream when it is made): the request by its
   * question's zone and type, the response by its rcode and the part that made it.
   */
  private counted(raw: Buffer, remote: Remote, replies: Replies): Replies {
    const count = (first: Buffer): void => {
      let zone: string | undefined;
      let type = 0;
      let typeText = '';
      try {
        const question = (decodeMessage(raw) as unknown as DecodedPacket).questions?.[0];
        if (question) {
          typeText = question.type;
          type = typeNumber(question.type);
          zone = this.context.index.find(wireName(question.name))?.name;
        }
      } catch {
        // no question to read: counted under "." and type "other"
      }
      const opcode = opcodeOf(raw);
      const transfer = (type === 251 || type === 252) && remote.transport === 'tcp';
      const plugin =
        opcode === OPCODE.UPDATE
          ? PLUGIN.update
          : opcode === OPCODE.NOTIFY
            ? PLUGIN.notify
            : transfer
              ? PLUGIN.transfer
              : opcode === OPCODE.QUERY
                ? PLUGIN.file
                : PLUGIN.none;
      const stats = this.stats;
      const proto = remote.transport === 'udp' ? UDP : TCP;
      stats.answered(stats.zoneBase(zone), typeIndex(type), proto, familyOf(remote.address), raw.length, first, plugin);
      const rcode = (first[3] ?? 0) & 0xf;
      if (transfer) stats.transfer(zone ?? '.', typeText, rcode);
      if (opcode === OPCODE.NOTIFY) stats.notify(zone ?? '.', rcode);
    };
    if (Array.isArray(replies)) {
      const first = replies[0];
      if (first) count(first);
      return replies;
    }
    return mapReplies(replies, (m, i) => {
      if (i === 0) count(m);
      return m;
    });
  }

  /** The replies to `raw`; `signed.ok` is set when its TSIG verified (its answers are never rate limited). */
  private async answer(raw: Buffer, remote: Remote, signed: { ok: boolean }): Promise<Replies> {
    let query: DecodedPacket;
    let asked = raw;
    let standIn: StandIn | undefined;
    try {
      query = decodeMessage(raw) as unknown as DecodedPacket;
    } catch {
      // a question name with a label of any octets (RFC 2181 §11) is answered through a stand-in for that label
      standIn = standInFor(raw, this.context.index);
      if (standIn === undefined) return [headerOnlyResponse(raw, RCODE.FORMERR)];
      try {
        query = decodeMessage(standIn.raw) as unknown as DecodedPacket;
        asked = standIn.raw;
      } catch {
        return [headerOnlyResponse(raw, RCODE.FORMERR)];
      }
    }
    // TSIG covers the message as received (`raw`); dispatch reads the one whose question it answers (`asked`)
    return answerWithTsig(raw, query, this.keys, async (bare, tsig) => {
      signed.ok = tsig.status === 'ok';
      try {
        const answers = await dispatch(this.context, bare, asked, { ...remote, tsig });
        return standIn ? mapReplies(answers, (m) => standIn.restore(m)) : answers;
      } catch (err) {
        this.onError?.(err);
        return [encodeResponse(bare, {}, RCODE.SERVFAIL)];
      }
    });
  }

  /**
   * The answer to a plain query computed here and now, or undefined for a message that needs `handle` (see
   * `PlainQueries.answerNow`), null for an answer not to send (rate limited). The buffer returned may be the cache's
   * own: send (or copy) it before the next call,
   * and call `detach()` if the transport still holds it afterwards (a send left queued).
   */
  answerNow(raw: Buffer, transport: 'udp' | 'tcp', address?: string): Buffer | undefined | null {
    return this.plain.answerNow(raw, transport, address);
  }

  /** The buffer `answerNow` returned last is still in use: the cache (or RRL) keeps a copy of its own from now on. */
  detach(): void {
    this.plain.detach();
    this.rrl?.detach();
  }
}
