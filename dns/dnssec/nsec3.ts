import { createHash } from 'node:crypto';
import type { RR } from '../zone';
import { canonicalName } from './keys';

/**
 * NSEC3 (RFC 5155): the hash of owner names and the records of the hashed chain. We sign with the parameters RFC
 * 9276 §3.1 asks for — SHA-1 (the only algorithm defined), no extra iterations, an empty salt — so `nsec3Hash` takes
 * iterations and salt only to check the published vectors (RFC 5155 Appendix A uses 12 and aabbccdd).
 */

/** NSEC3 hash algorithm 1: SHA-1 (RFC 5155 §11). */
export const NSEC3_SHA1 = 1;
/** The Opt-Out flag of an NSEC3 record (RFC 5155 §3.1.2.1). */
export const OPT_OUT = 1;
const NO_SALT = Buffer.alloc(0);

/** IH(salt, name, k) of RFC 5155 §5: SHA-1 of the canonical wire name and salt, then k more times over the digest. */
export function nsec3Hash(name: string, iterations = 0, salt: Buffer = NO_SALT): Buffer {
  let digest = createHash('sha1').update(canonicalName(name)).update(salt).digest();
  for (let i = 0; i < iterations; i++) digest = createHash('sha1').update(digest).update(salt).digest();
  return digest;
}

const BASE32HEX = '0123456789abcdefghijklmnopqrstuv';

/** Base32 with the extended hex alphabet, lower case, no padding (RFC 4648 §7): the hashed owner's label. */
export function base32hex(bytes: Buffer): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32HEX[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  if (bits > 0) out += BASE32HEX[(value << (5 - bits)) & 31];
  return out;
}

/** The bytes of a base32hex label (the inverse of base32hex; case ignored). */
export function fromBase32hex(text: string): Buffer {
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const ch of text.toLowerCase()) {
    const digit = BASE32HEX.indexOf(ch);
    if (digit < 0) throw new Error(`not base32hex: ${text}`);
    value = (value << 5) | digit;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
      value &= (1 << bits) - 1;
    }
  }
  return Buffer.from(out);
}

/** The hashed label of a name (model form) with our parameters: base32hex of its SHA-1, 32 characters. */
export const hashLabel = (name: string): string => base32hex(nsec3Hash(name === '.' ? '' : name));

/** The index key of the NSEC3 owner name for a hashed label in the zone `apex` (model form). */
export const hashedOwner = (label: string, apex: string): string =>
  apex === '' || apex === '.' ? label : `${label}.${apex}`;

/** The fields of an NSEC3 record as dns-packet reads and writes them. */
export interface Nsec3Data {
  algorithm: number;
  flags: number;
  iterations: number;
  salt: Buffer;
  /** The next hashed owner, raw (20 bytes). */
  nextDomain: Buffer;
  rrtypes: string[];
}

/** An NSEC3 record of our chain: `label` (hashed) points to `nextLabel`, the types of the original name. */
export function nsec3Record(
  label: string,
  apexName: string,
  nextLabel: string,
  rrtypes: readonly string[],
  optOut: boolean,
  ttl: number,
): RR {
  const data: Nsec3Data = {
    algorithm: NSEC3_SHA1,
    flags: optOut ? OPT_OUT : 0,
    iterations: 0,
    salt: NO_SALT,
    nextDomain: fromBase32hex(nextLabel),
    rrtypes: [...rrtypes],
  };
  const name = apexName === '' || apexName === '.' ? label : `${label}.${apexName.replace(/\.$/, '')}`;
  return { name, type: 'NSEC3', class: 'IN', ttl, data } as unknown as RR;
}

/**
 * The NSEC3PARAM at the apex (RFC 5155 §4): algorithm 1, flags 0 (RFC 5155 §4.1.2: Opt-Out is not a flag of the
 * parameters), 0 iterations, no salt. dns-packet knows no NSEC3PARAM codec: its RDATA raw.
 */
export function nsec3paramRecord(apexName: string, ttl: number): RR {
  const rdata = Buffer.from([NSEC3_SHA1, 0, 0, 0, 0]);
  return { name: apexName, type: 'NSEC3PARAM', class: 'IN', ttl, data: rdata } as unknown as RR;
}

/** What the API shows of an NSEC3 chain's parameters (salt "-": none, as in presentation format). */
export interface Nsec3ParamView {
  algorithm: number;
  flags: number;
  iterations: number;
  salt: string;
  optOut: boolean;
}

export const nsec3ParamView = (optOut: boolean): Nsec3ParamView => ({
  algorithm: NSEC3_SHA1,
  flags: 0,
  iterations: 0,
  salt: '-',
  optOut,
});
