/**
 * DNS cookies (RFC 7873) with interoperable server cookies (RFC 9018), answered as BIND 9 answers them with its
 * defaults (`answer-cookie yes`, `require-server-cookie no`): an EDNS query with a COOKIE option gets the client
 * cookie back with a fresh server cookie of ours (named 9.18 makes a new one for every answer, even to a valid
 * server cookie it gave a second before: RFC 9018 §4.3 allows it). A query is answered whatever server cookie it
 * carries, ours, stale or forged: BIND sends BADCOOKIE only when told to require server cookies, which we are not.
 * A COOKIE option of a length no cookie has (not 8, nor 16 to 40 bytes) is FORMERR.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';
import type { DecodedPacket, OptAnswer } from 'dns-packet';

/** EDNS option code of COOKIE. */
export const COOKIE_OPTION = 10;
const CLIENT_COOKIE = 8;

/** The first COOKIE option of a query's OPT record: its bytes, 'malformed' for a wrong length, else undefined. */
export function cookieOf(query: DecodedPacket): Buffer | 'malformed' | undefined {
  const opt = query.additionals?.find((a): a is OptAnswer => a.type === 'OPT');
  const options = opt?.options as ReadonlyArray<{ code: number; data?: Buffer }> | undefined;
  const option = options?.find((o) => o.code === COOKIE_OPTION);
  if (option === undefined) return undefined;
  const data = option.data ?? Buffer.alloc(0);
  const length = data.length;
  return length === CLIENT_COOKIE || (length >= CLIENT_COOKIE + 8 && length <= CLIENT_COOKIE + 32) ? data : 'malformed';
}

/** The bytes of an address for the cookie hash (RFC 9018 §4.4: the client's IP address). */
function addressBytes(address: string): Buffer {
  if (isIPv4(address)) return Buffer.from(address.split('.').map(Number));
  if (isIPv6(address)) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped?.[1]) return addressBytes(mapped[1]);
    return Buffer.from(address, 'utf8');
  }
  return Buffer.from(address, 'utf8');
}

/** Makes server cookies with a secret of its own, made when it is created (one per responder). */
export class ServerCookies {
  constructor(
    private readonly secret: Buffer = randomBytes(32),
    private readonly now: () => number = () => Math.floor(Date.now() / 1000),
  ) {}

  /** RFC 9018 §4.4: version 1, three reserved bytes, a timestamp, and 8 bytes of hash; HMAC-SHA-256 here. */
  private hash(client: Buffer, head: Buffer, address: string): Buffer {
    return createHmac('sha256', this.secret)
      .update(client)
      .update(head)
      .update(addressBytes(address))
      .digest()
      .subarray(0, 8);
  }

  /** The COOKIE option data to answer `cookie` (as cookieOf gives it) from `address` with: client and server cookie. */
  answer(cookie: Buffer, address: string): Buffer {
    const client = cookie.subarray(0, CLIENT_COOKIE);
    const head = Buffer.alloc(8);
    head[0] = 1;
    head.writeUInt32BE(this.now() >>> 0, 4);
    return Buffer.concat([client, head, this.hash(client, head, address)]);
  }

  /**
   * Whether `cookie` (the COOKIE option's data) carries a server cookie we made for `address` (with this secret,
   * which the answer thread and the workers share) at most an hour ago and at most 5 minutes ahead (RFC 9018 §4.3).
   * Response rate limiting exempts such a client, as BIND does: it cannot be a forged source.
   */
  valid(cookie: Buffer, address: string): boolean {
    if (cookie.length !== CLIENT_COOKIE + 16 || cookie[CLIENT_COOKIE] !== 1) return false;
    const made = cookie.readUInt32BE(CLIENT_COOKIE + 4);
    const now = this.now() >>> 0;
    const age = (now - made) | 0; // serial arithmetic (RFC 1982): the 32-bit timestamp wraps
    if (age > 3600 || age < -300) return false;
    const mac = this.hash(
      cookie.subarray(0, CLIENT_COOKIE),
      cookie.subarray(CLIENT_COOKIE, CLIENT_COOKIE + 8),
      address,
    );
    return timingSafeEqual(mac, cookie.subarray(CLIENT_COOKIE + 8));
  }
}

/**
 * `message` with the COOKIE option `data` in its OPT record, when that is the message's last record, has no
 * options, and the extended rcode is 0 (BIND gives a BADVERS answer no cookie); else `message` unchanged.
 */
export function withCookie(message: Buffer, data: Buffer): Buffer {
  const at = message.length - 11; // OPT: root name, TYPE, CLASS, extended rcode, version, flags, RDLENGTH
  if (at < 12 || message.readUInt16BE(10) === 0) return message;
  if (message[at] !== 0 || message.readUInt16BE(at + 1) !== 41 || message.readUInt16BE(at + 9) !== 0) return message;
  if (message[at + 5] !== 0) return message;
  const out = Buffer.alloc(message.length + 4 + data.length);
  message.copy(out);
  out.writeUInt16BE(4 + data.length, at + 9);
  out.writeUInt16BE(COOKIE_OPTION, message.length);
  out.writeUInt16BE(data.length, message.length + 2);
  data.copy(out, message.length + 4);
  return out;
}
