import type { RR } from '../zone';
import { encodeRdata, typeNumber } from '../wire';
import { canonicalName } from './keys';

/**
 * Canonical forms of DNSSEC (RFC 4034 §6): the order of names in a zone (what NSEC chains follow) and the wire form
 * of records that RRSIGs sign.
 */

/**
 * A key that sorts names (model form: lower case, no trailing dot, the root "") in canonical order with plain string
 * comparison: labels from the right, each compared as octets, a name before every name below it. Labels are joined
 * right to left by "\0", which sorts before every octet a label here holds.
 */
export function canonicalKey(name: string): string {
  return name === '' ? '' : name.split('.').reverse().join('\0');
}

/** Canonical order of two names in model form (negative: `a` first). */
export function canonicalCompare(a: string, b: string): number {
  const ka = canonicalKey(a);
  const kb = canonicalKey(b);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/** Labels of an owner name as the RRSIG Labels field counts them: no root, no leading wildcard (RFC 4034 §3.1.3). */
export function labelCount(owner: string): number {
  if (owner === '' || owner === '.') return 0;
  // the dots counted (a trailing one apart): called once per RRSIG, so no split into an array of labels
  const end = owner.charCodeAt(owner.length - 1) === DOT ? owner.length - 1 : owner.length;
  let labels = 1;
  for (let i = 0; i < end; i++) if (owner.charCodeAt(i) === DOT) labels++;
  const wildcard = owner.charCodeAt(0) === STAR && (end === 1 || owner.charCodeAt(1) === DOT);
  return wildcard ? labels - 1 : labels;
}
const DOT = 46;
const STAR = 42;

const lower = (name: unknown): unknown => (typeof name === 'string' ? name.toLowerCase() : name);

/**
 * A record's data with the names in it lower case, for the types RFC 4034 §6.2 lists (as RFC 6840 §5.1 corrects
 * it: not NSEC nor RRSIG, whose names we write in lower case anyway).
 */
function canonicalData(rr: RR): unknown {
  const data = rr.data as unknown;
  switch (rr.type) {
    case 'NS':
    case 'CNAME':
    case 'PTR':
    case 'DNAME':
      return lower(data);
    case 'MX': {
      const d = data as { exchange: string };
      return { ...d, exchange: lower(d.exchange) };
    }
    case 'SOA': {
      const d = data as { mname: string; rname: string };
      return { ...d, mname: lower(d.mname), rname: lower(d.rname) };
    }
    case 'SRV': {
      const d = data as { target: string };
      return { ...d, target: lower(d.target) };
    }
    case 'NAPTR': {
      const d = data as { replacement: string };
      return { ...d, replacement: lower(d.replacement) };
    }
    default:
      return data;
  }
}

/** RDATA of a record in canonical form (names uncompressed and, where §6.2 says, lower case). */
export function canonicalRdata(rr: RR): Buffer {
  // the RDATA codec alone (not a whole record with owner, class and TTL): this runs once per RRset signed
  const wire = encodeRdata(rr.type, canonicalData(rr));
  if (wire === null) throw new Error(`a ${rr.type} record at ${rr.name} cannot be written on the wire`);
  return wire;
}

/** The type an RRSIG covers. */
export function covered(rrsig: RR): string {
  return (rrsig.data as unknown as RrsigFields).typeCovered;
}

/** The fields of an RRSIG before its signature. */
export interface RrsigFields {
  typeCovered: string;
  algorithm: number;
  labels: number;
  originalTTL: number;
  expiration: number;
  inception: number;
  keyTag: number;
  /** The zone's name (model form, or '.' for the root). */
  signersName: string;
}

/**
 * What an RRSIG signs (RFC 4034 §3.1.8.1): its RDATA up to the signature, then every record of the RRset in
 * canonical form (owner lower case, the original TTL), sorted by RDATA, duplicates once. `owner`: the RRset's owner
 * name (a wildcard's as `*.…`). `wire`: the owner's and the signer's canonical wire names when the caller has them
 * already (a zone signer signs many RRsets of one owner, all of one signer).
 */
export function signedData(
  fields: RrsigFields,
  owner: string,
  rrset: readonly RR[],
  wire?: { owner: Buffer; signer: Buffer },
): Buffer {
  const signer = wire?.signer ?? canonicalName(fields.signersName === '.' ? '' : fields.signersName);
  const ownerWire = wire?.owner ?? canonicalName(owner === '.' ? '' : owner);
  const type = typeNumber(fields.typeCovered);
  const rdatas = rrset.map(canonicalRdata);
  if (rdatas.length > 1) rdatas.sort((a, b) => Buffer.compare(a, b));
  // one buffer written in place (not a concatenation of parts): this runs once per RRSIG of a zone
  let length = 18 + signer.length;
  let previous: Buffer | undefined;
  for (const rdata of rdatas) {
    if (previous?.equals(rdata)) continue;
    previous = rdata;
    length += ownerWire.length + 10 + rdata.length;
  }
  const out = Buffer.allocUnsafe(length);
  out.writeUInt16BE(type, 0);
  out[2] = fields.algorithm;
  out[3] = fields.labels;
  out.writeUInt32BE(fields.originalTTL >>> 0, 4);
  out.writeUInt32BE(fields.expiration >>> 0, 8);
  out.writeUInt32BE(fields.inception >>> 0, 12);
  out.writeUInt16BE(fields.keyTag, 16);
  let at = 18 + signer.copy(out, 18);
  previous = undefined;
  for (const rdata of rdatas) {
    if (previous?.equals(rdata)) continue;
    previous = rdata;
    at += ownerWire.copy(out, at);
    out.writeUInt16BE(type, at);
    out.writeUInt16BE(1, at + 2); // IN
    out.writeUInt32BE(fields.originalTTL >>> 0, at + 4);
    out.writeUInt16BE(rdata.length, at + 8);
    at += 10;
    at += rdata.copy(out, at);
  }
  return out;
}

/** An RRSIG timestamp (RFC 4034 §3.2: YYYYMMDDHHmmSS, UTC) as seconds since the epoch. */
export function rrsigTime(text: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(text);
  if (!m) throw new Error(`not an RRSIG time: ${text}`);
  const [, y, mo, d, h, mi, s] = m.map(Number) as [number, number, number, number, number, number, number];
  return Date.UTC(y, mo - 1, d, h, mi, s) / 1000;
}
