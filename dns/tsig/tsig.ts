import { createHmac, timingSafeEqual } from 'node:crypto';
import { u16, u48 } from '../wire';
import { TSIG_ALGORITHMS, type TsigAlgorithm, type TsigKey } from './keyfile';
import { nameToWire, readName, recordOffsets, skipName, WireError } from './wire-walk';

/** TSIG (RFC 8945): HMAC signatures over whole DNS messages, computed on the exact received bytes. */

export const TSIG_TYPE = 250;
const CLASS_ANY = 255;
export const DEFAULT_FUDGE = 300;
export const TSIG_ERROR = { NOERROR: 0, BADSIG: 16, BADKEY: 17, BADTIME: 18 } as const;

export interface TsigRecord {
  keyName: string;
  algorithm: string;
  /** Seconds since the epoch. */
  timeSigned: number;
  fudge: number;
  mac: Buffer;
  originalId: number;
  error: number;
  other: Buffer;
  /** Where the TSIG record starts in the message: everything before it is what was signed. */
  offset: number;
}

/** The TSIG record of a message, if its last additional record is one (a TSIG anywhere else is a FORMERR). */
export function parseTsig(raw: Buffer): TsigRecord | null {
  const { records } = recordOffsets(raw);
  const arcount = raw.readUInt16BE(10);
  for (const [i, at] of records.entries()) {
    const typeAt = skipName(raw, at);
    if (raw.readUInt16BE(typeAt) !== TSIG_TYPE) continue;
    if (i !== records.length - 1 || arcount === 0) throw new WireError('TSIG must be the last additional record');
    const rdata = typeAt + 10;
    const algEnd = skipName(raw, rdata);
    const timeSigned = raw.readUInt16BE(algEnd) * 2 ** 32 + raw.readUInt32BE(algEnd + 2);
    const fudge = raw.readUInt16BE(algEnd + 6);
    const macLen = raw.readUInt16BE(algEnd + 8);
    const mac = raw.subarray(algEnd + 10, algEnd + 10 + macLen);
    const after = algEnd + 10 + macLen;
    const otherLen = raw.readUInt16BE(after + 4);
    return {
      keyName: readName(raw, at),
      algorithm: readName(raw, rdata),
      timeSigned,
      fudge,
      mac: Buffer.from(mac),
      originalId: raw.readUInt16BE(after),
      error: raw.readUInt16BE(after + 2),
      other: Buffer.from(raw.subarray(after + 6, after + 6 + otherLen)),
      offset: at,
    };
  }
  return null;
}

/** The message as it was before the TSIG was added: TSIG cut off, ARCOUNT one less, ID the original one. */
function unsignedPart(raw: Buffer, tsig: TsigRecord): Buffer {
  const msg = Buffer.from(raw.subarray(0, tsig.offset));
  msg.writeUInt16BE(tsig.originalId, 0);
  msg.writeUInt16BE(raw.readUInt16BE(10) - 1, 10);
  return msg;
}

interface MacInput {
  key: TsigKey;
  message: Buffer;
  timeSigned: number;
  fudge: number;
  error: number;
  other: Buffer;
  /** For a response: the request's MAC. For a later message of a TCP stream: the previous message's MAC. */
  priorMac?: Buffer;
  /** Later messages of a TCP stream (RFC 8945 §5.3.1) hash only the timers, not the other variables. */
  timersOnly?: boolean;
}

function computeMac(i: MacInput): Buffer {
  const h = createHmac(TSIG_ALGORITHMS[i.key.algorithm], i.key.secret);
  if (i.priorMac) h.update(u16(i.priorMac.length)).update(i.priorMac);
  h.update(i.message);
  if (i.timersOnly) {
    h.update(u48(i.timeSigned)).update(u16(i.fudge));
  } else {
    h.update(nameToWire(i.key.name))
      .update(u16(CLASS_ANY))
      .update(Buffer.alloc(4))
      .update(nameToWire(i.key.algorithm))
      .update(u48(i.timeSigned))
      .update(u16(i.fudge))
      .update(u16(i.error))
      .update(u16(i.other.length))
      .update(i.other);
  }
  return h.digest();
}

function tsigRecord(
  keyName: string,
  algorithm: TsigAlgorithm,
  f: { timeSigned: number; fudge: number; mac: Buffer; originalId: number; error: number; other: Buffer },
): Buffer {
  const rdata = Buffer.concat([
    nameToWire(algorithm),
    u48(f.timeSigned),
    u16(f.fudge),
    u16(f.mac.length),
    f.mac,
    u16(f.originalId),
    u16(f.error),
    u16(f.other.length),
    f.other,
  ]);
  return Buffer.concat([
    nameToWire(keyName),
    u16(TSIG_TYPE),
    u16(CLASS_ANY),
    Buffer.alloc(4),
    u16(rdata.length),
    rdata,
  ]);
}

export interface SignOptions {
  priorMac?: Buffer;
  timersOnly?: boolean;
  /** Seconds; default now. */
  timeSigned?: number;
  fudge?: number;
  error?: number;
  other?: Buffer;
  /** Sign with an empty MAC (the BADKEY / BADSIG error answers are unsigned). */
  unsigned?: boolean;
}

/** Appends a TSIG record to `message`; returns the signed message and its MAC (to chain the next one). */
export function signMessage(
  message: Buffer,
  key: TsigKey,
  options: SignOptions = {},
): { message: Buffer; mac: Buffer } {
  const timeSigned = options.timeSigned ?? Math.floor(Date.now() / 1000);
  const fudge = options.fudge ?? DEFAULT_FUDGE;
  const error = options.error ?? 0;
  const other = options.other ?? Buffer.alloc(0);
  const mac = options.unsigned
    ? Buffer.alloc(0)
    : computeMac({
        key,
        message,
        timeSigned,
        fudge,
        error,
        other,
        priorMac: options.priorMac,
        timersOnly: options.timersOnly,
      });
  const originalId = message.readUInt16BE(0);
  const signed = Buffer.concat([
    message,
    tsigRecord(key.name, key.algorithm, { timeSigned, fudge, mac, originalId, error, other }),
  ]);
  signed.writeUInt16BE(message.readUInt16BE(10) + 1, 10);
  return { message: signed, mac };
}

export type VerifyResult =
  | { status: 'unsigned' }
  | { status: 'ok'; key: TsigKey; tsig: TsigRecord }
  /** BADKEY: unknown key or algorithm; BADSIG: wrong MAC; BADTIME: clock skew beyond fudge (RFC 8945 §5.2). */
  | { status: 'error'; error: 16 | 17 | 18; tsig: TsigRecord; key?: TsigKey };

/** Checks a request's TSIG against the configured keys. Throws WireError for a malformed TSIG. */
export function verifyMessage(
  raw: Buffer,
  keys: ReadonlyMap<string, TsigKey>,
  options: { now?: number; priorMac?: Buffer } = {},
): VerifyResult {
  const tsig = parseTsig(raw);
  if (!tsig) return { status: 'unsigned' };
  const key = keys.get(tsig.keyName);
  if (!key || key.algorithm !== tsig.algorithm) return { status: 'error', error: TSIG_ERROR.BADKEY, tsig };
  const expected = computeMac({
    key,
    message: unsignedPart(raw, tsig),
    timeSigned: tsig.timeSigned,
    fudge: tsig.fudge,
    error: tsig.error,
    other: tsig.other,
    priorMac: options.priorMac,
  });
  if (expected.length !== tsig.mac.length || !timingSafeEqual(expected, tsig.mac)) {
    return { status: 'error', error: TSIG_ERROR.BADSIG, tsig, key };
  }
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - tsig.timeSigned) > tsig.fudge) return { status: 'error', error: TSIG_ERROR.BADTIME, tsig, key };
  return { status: 'ok', key, tsig };
}

/**
 * Signs a response to a TSIG request the way RFC 8945 §5.3 and §5.4 say: normal answers with the request MAC as
 * prior MAC; BADKEY and BADSIG unsigned (empty MAC, error code set); BADTIME signed, with our time as other data.
 */
export function signResponse(
  response: Buffer,
  request: VerifyResult,
  fallbackKeyName?: string,
): { message: Buffer; mac: Buffer } {
  if (request.status === 'unsigned') return { message: response, mac: Buffer.alloc(0) };
  const tsig = request.tsig;
  if (request.status === 'ok') return signMessage(response, request.key, { priorMac: tsig.mac, fudge: tsig.fudge });
  if (request.error === TSIG_ERROR.BADTIME && request.key) {
    const now = Math.floor(Date.now() / 1000);
    return signMessage(response, request.key, {
      priorMac: tsig.mac,
      timeSigned: tsig.timeSigned,
      fudge: tsig.fudge,
      error: request.error,
      other: u48(now),
    });
  }
  // Unsigned: no HMAC is computed, so the request's key and algorithm names are echoed even when unknown to us.
  const key: TsigKey = {
    name: tsig.keyName || fallbackKeyName || '',
    algorithm: tsig.algorithm as TsigAlgorithm,
    secret: Buffer.alloc(1),
  };
  return signMessage(response, key, {
    unsigned: true,
    timeSigned: tsig.timeSigned,
    fudge: tsig.fudge,
    error: request.error,
  });
}

/**
 * Checks a later message of a signed TCP stream (a zone transfer, RFC 8945 §5.3.1): its MAC covers the previous
 * signed message's MAC, the unsigned messages received since (at most 99 may come between), its own message and
 * only its timers. `unsigned` for a message without TSIG (the caller keeps it for the next signed one).
 */
export function verifyStreamMessage(
  raw: Buffer,
  key: TsigKey,
  priorMac: Buffer,
  unsignedBefore: readonly Buffer[],
  options: { now?: number } = {},
): VerifyResult {
  const tsig = parseTsig(raw);
  if (!tsig) return { status: 'unsigned' };
  if (tsig.keyName !== key.name || tsig.algorithm !== key.algorithm)
    return { status: 'error', error: TSIG_ERROR.BADKEY, tsig };
  const expected = computeMac({
    key,
    message: Buffer.concat([...unsignedBefore, unsignedPart(raw, tsig)]),
    timeSigned: tsig.timeSigned,
    fudge: tsig.fudge,
    error: tsig.error,
    other: tsig.other,
    priorMac,
    timersOnly: true,
  });
  if (expected.length !== tsig.mac.length || !timingSafeEqual(expected, tsig.mac))
    return { status: 'error', error: TSIG_ERROR.BADSIG, tsig, key };
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - tsig.timeSigned) > tsig.fudge) return { status: 'error', error: TSIG_ERROR.BADTIME, tsig, key };
  return { status: 'ok', key, tsig };
}
