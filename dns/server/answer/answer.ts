/**
 * The answer to one question: resolved in the zone index, passed through the signing hook, encoded. Both answer
 * paths — the general one (decoded query, dns-packet encoder) and the plain-query one (bytes in place, answer-wire
 * encoder) — come through here, so whatever a signer adds reaches every answer.
 */
import type { DecodedPacket, Question } from 'dns-packet';
import { CLASSIC_UDP_SIZE, FLAG_AA, FLAG_TC, RCODE, typeName } from '../../wire';
import { plainName, type PlainAnswerEncoder } from './answer-wire';
import { encodeResponse, optOf } from './encode';
import { type Resolution, resolve, type ZoneData, type ZoneIndex } from '../../zone';

/** An encoded answer, with its truncated form (TC, no records) when longer than the smallest UDP limit. */
export interface Answered {
  full: Buffer;
  truncated?: Buffer;
  /** The zone that answered (the answer cache drops the answer when that zone is replaced). */
  zone?: ZoneData;
}

/**
 * Where a signing step (DNSSEC: RRSIGs, NSEC/NSEC3 denial) attaches: it gets each resolution before it is encoded
 * and returns what to send. Answers are cached by question bytes and EDNS state (DO included) until their zone
 * changes, so what a signer adds may depend on those alone — not on time of day: re-signing means a new zone copy.
 * A signer must not throw for a name it has nothing for: it returns the resolution unchanged.
 */
export interface AnswerSigner {
  sign(resolution: Resolution, qname: string, qtype: string, dnssecOk: boolean): Resolution;
}

/** Signs nothing: the default until DNSSEC is configured. */
export const NO_SIGNING: AnswerSigner = { sign: (resolution) => resolution };

const NO_RECORDS = { answers: [], authorities: [], additionals: [] };

/** Answers questions from one zone index, with one signer and one plain-query encoder (one per responder). */
export class Answerer {
  constructor(
    private readonly index: ZoneIndex,
    private readonly plain: PlainAnswerEncoder,
    private readonly signer: AnswerSigner = NO_SIGNING,
  ) {}

  private resolve(qname: string, qtype: string, dnssecOk: boolean): Resolution {
    return this.signer.sign(resolve(this.index, qname, qtype), qname, qtype, dnssecOk);
  }

  /**
   * The full answer to a question (cut, with TC, when too large for a DNS message: see encodeResponse; `signed`:
   * with room for a TSIG record), and (when longer than the smallest UDP limit) its truncated form. `minimal`: no
   * additional data in an authoritative answer (referrals keep their glue) — see `minimalFor`.
   */
  lookup(query: DecodedPacket, question: Question, signed = false, minimal = false): Answered {
    const resolved = this.resolve(question.name, question.type, optOf(query)?.flag_do === true);
    const result = minimal && resolved.aa ? { ...resolved, additionals: [] } : resolved;
    const rcode = RCODE[result.rcode];
    const flags = result.aa ? FLAG_AA : 0;
    const full = encodeResponse(query, result, rcode, flags, signed);
    // the client retries over TCP
    const truncated = full.length > CLASSIC_UDP_SIZE ? encodeResponse(query, {}, rcode, flags | FLAG_TC) : undefined;
    return { full, truncated, zone: result.zone };
  }

  /**
   * `lookup` for a plain query of class IN whose name dns-packet would give back unchanged: resolved and encoded
   * without decoding the message (see answer-wire.ts); undefined when that does not apply, or on any error (the
   * dns-packet path then answers, SERVFAIL included). `edns`: 0 none, 1 EDNS, 2 EDNS with DO.
   */
  lookupPlain(raw: Buffer, questionEnd: number, edns: number): Answered | undefined {
    const nameEnd = questionEnd - 4;
    if (raw[questionEnd - 2] !== 0 || raw[questionEnd - 1] !== 1) return undefined;
    const plain = this.plain;
    if (!plainName(raw, nameEnd)) return undefined;
    try {
      const qname = plain.nameText(raw, nameEnd);
      const qtype = typeName(((raw[nameEnd] ?? 0) << 8) | (raw[nameEnd + 1] ?? 0));
      const result = this.resolve(qname, qtype, edns === 2);
      const rcode = RCODE[result.rcode];
      const flags = result.aa ? FLAG_AA : 0;
      const full = plain.encode(raw, nameEnd, questionEnd, qname, result, rcode, flags, edns);
      if (full === undefined) return undefined;
      const truncated =
        full.length > CLASSIC_UDP_SIZE
          ? plain.encode(raw, nameEnd, questionEnd, qname, NO_RECORDS, rcode, flags | FLAG_TC, edns)
          : undefined;
      return { full, truncated, zone: result.zone };
    } catch {
      return undefined;
    }
  }
}
