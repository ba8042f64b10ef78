import { createHash } from 'node:crypto';
import { encodeName } from '../wire';

/** DNSKEY flags: Zone Key (every DNSSEC key), Secure Entry Point (a KSK). */
export const ZONE_KEY = 0x0100;
export const SECURE_ENTRY_POINT = 0x0001;
export const KSK_FLAGS = ZONE_KEY | SECURE_ENTRY_POINT; // 257
export const ZSK_FLAGS = ZONE_KEY; // 256

/** DNSKEY RDATA: flags, protocol 3, algorithm, public key (RFC 4034 §2.1). */
export function dnskeyRdata(flags: number, algorithm: number, publicKey: Buffer): Buffer {
  const out = Buffer.alloc(4 + publicKey.length);
  out.writeUInt16BE(flags, 0);
  out[2] = 3;
  out[3] = algorithm;
  publicKey.copy(out, 4);
  return out;
}

/** The key tag of a DNSKEY (RFC 4034 Appendix B: its RDATA summed as 16-bit words, the carry folded in). */
export function keyTag(rdata: Buffer): number {
  let ac = 0;
  for (let i = 0; i < rdata.length; i++) ac += i & 1 ? (rdata[i] ?? 0) : (rdata[i] ?? 0) << 8;
  ac += (ac >> 16) & 0xffff;
  return ac & 0xffff;
}

/** DS digest types: 2 SHA-256 (RFC 4509), 4 SHA-384 (RFC 6605); 1 SHA-1 only to check published vectors. */
export const DIGEST_TYPES = { 1: 'sha1', 2: 'sha256', 4: 'sha384' } as const;
export type DigestType = keyof typeof DIGEST_TYPES;

/** A name in canonical wire form (RFC 4034 §6.2: lower case, uncompressed); `name` as dns-packet writes it. */
export function canonicalName(name: string): Buffer {
  const wire = encodeName(name === '' ? '.' : name.toLowerCase());
  if (wire === null) throw new Error(`the name ${JSON.stringify(name)} cannot be written on the wire`);
  return wire;
}

/** The DS digest of a DNSKEY: hash of the owner's canonical wire name and the DNSKEY RDATA (RFC 4034 §5.1.4). */
export function dsDigest(owner: string, rdata: Buffer, digestType: DigestType): Buffer {
  return createHash(DIGEST_TYPES[digestType]).update(canonicalName(owner)).update(rdata).digest();
}

/** CDS RDATA (RFC 7344 §3.1, as DS): key tag, algorithm, digest type, digest of the DNSKEY of `owner`. */
export function dsRdata(owner: string, dnskey: Buffer, digestType: DigestType): Buffer {
  const digest = dsDigest(owner, dnskey, digestType);
  const out = Buffer.alloc(4 + digest.length);
  out.writeUInt16BE(keyTag(dnskey), 0);
  out[2] = dnskey[3] ?? 0;
  out[3] = digestType;
  digest.copy(out, 4);
  return out;
}
