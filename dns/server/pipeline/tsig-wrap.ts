/**
 * TSIG around the general answer path (RFC 8945): the request is verified before anything else, the answer path
 * sees the query without its TSIG record, and every message of the response is signed with the request's key.
 */
import type { DecodedPacket } from 'dns-packet';
import { signMessage, signResponse, type TsigKey, verifyMessage, type VerifyResult, WireError } from '../../tsig';
import { encodeResponse } from '../answer/encode';
import { headerOnlyResponse, RCODE } from '../../wire';
import { mapReplies, type Replies } from './replies';

/** The query without its TSIG record, so the response does not echo it. */
function withoutTsig(query: DecodedPacket): DecodedPacket {
  const additionals = query.additionals?.filter(
    (a) => (a.type as string) !== 'TSIG' && (a.type as string) !== 'UNKNOWN_250',
  );
  return additionals?.length === query.additionals?.length ? query : { ...query, additionals };
}

/** Signs each message of a response; messages after the first chain on the previous MAC (RFC 8945 §5.3.1). */
function signStream(replies: Replies, tsig: Extract<VerifyResult, { status: 'ok' }>): Replies {
  let prior: Buffer | undefined;
  return mapReplies(replies, (reply, i) => {
    const signed =
      i === 0
        ? signResponse(reply, tsig)
        : signMessage(reply, tsig.key, { priorMac: prior, timersOnly: true, fudge: tsig.tsig.fudge });
    prior = signed.mac;
    return signed.message;
  });
}

/**
 * The response to `raw` (decoded as `query`): a request whose TSIG fails gets NOTAUTH (RFC 8945 §5.2; signed only
 * for BADTIME), a request whose TSIG record cannot be read FORMERR; else `answer` runs on the query without its
 * TSIG record, told the check's outcome, and a signed request gets its response signed.
 */
export async function answerWithTsig(
  raw: Buffer,
  query: DecodedPacket,
  keys: ReadonlyMap<string, TsigKey>,
  answer: (query: DecodedPacket, tsig: VerifyResult) => Promise<Replies>,
): Promise<Replies> {
  let tsig: VerifyResult;
  try {
    tsig = verifyMessage(raw, keys);
  } catch (err) {
    if (err instanceof WireError) return [headerOnlyResponse(raw, RCODE.FORMERR)];
    throw err;
  }
  const bare = withoutTsig(query);
  if (tsig.status === 'error') return [signResponse(encodeResponse(bare, {}, RCODE.NOTAUTH), tsig).message];
  const replies = await answer(bare, tsig);
  return tsig.status === 'ok' ? signStream(replies, tsig) : replies;
}
