import type { RR } from '../zone';
import { encodeAnswer, typeNumber } from '../wire';
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
  const labels = owner.replace(/\.$/, '').split('.');
  return labels[0] === '*' ? labels.length - 1 : labels.length;
}

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
  const wire = encodeAnswer({ ...rr, name: '.', data: canonicalData(rr) } as RR);
  if (wire === null) throw new Error(`a ${rr.type} record at ${rr.name} cannot be written on the wire`);
  return wire.subarray(11); // root owner (1), TYPE, CLASS, TTL, RDLENGTH (10)
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
 * name (a wildcard's as `*.…`).
 */
export function signedData(fields: RrsigFields, owner: string, rrset: readonly RR[]): Buffer {
  const signer = canonicalName(fields.signersName === '.' ? '' : fields.signersName);
  const head = Buffer.alloc(18);
  head.writeUInt16BE(typeNumber(fields.typeCovered), 0);
  head[2] = fields.algorithm;
  head[3] = fields.labels;
  head.writeUInt32BE(fields.originalTTL >>> 0, 4);
  head.writeUInt32BE(fields.expiration >>> 0, 8);
  head.writeUInt32BE(fields.inception >>> 0, 12);
  head.writeUInt16BE(fields.keyTag, 16);
  const ownerWire = canonicalName(owner === '.' ? '' : owner);
  const type = typeNumber(fields.typeCovered);
  const rdatas = rrset.map(canonicalRdata).sort((a, b) => Buffer.compare(a, b));
  const parts: Buffer[] = [head, signer];
  let previous: Buffer | undefined;
  for (const rdata of rdatas) {
    if (previous?.equals(rdata)) continue;
    previous = rdata;
    const fixed = Buffer.alloc(10);
    fixed.writeUInt16BE(type, 0);
    fixed.writeUInt16BE(1, 2); // IN
    fixed.writeUInt32BE(fields.originalTTL >>> 0, 4);
    fixed.writeUInt16BE(rdata.length, 8);
    parts.push(ownerWire, fixed, rdata);
  }
  return Buffer.concat(parts);
}

/** An RRSIG timestamp (RFC 4034 §3.2: YYYYMMDDHHmmSS, UTC) as seconds since the epoch. */
export function rrsigTime(text: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(text);
  if (!m) throw new Error(`not an RRSIG time: ${text}`);
  const [, y, mo, d, h, mi, s] = m.map(Number) as [number, number, number, number, number, number, number];
  return Date.UTC(y, mo - 1, d, h, mi, s) / 1000;
}
