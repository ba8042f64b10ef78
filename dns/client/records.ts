import type { RrsigFields } from '../dnssec';
import { TYPE_CODES, fromPacketAnswer } from '../records';
import { readName, recordOffsets, skipName } from '../tsig';
import { decodeMessage, type Message } from '../wire';

/**
 * A record as the client hands it out: owner name lower-case without trailing dot, type mnemonic and value in
 * presentation form. Types our codecs know are decoded; any other passes through in RFC 3597 generic form
 * (`TYPE65280` and `\# 4 c0000201`), so nothing a server holds is hidden or refused.
 */
export interface ClientRecord {
  name: string;
  type: string;
  ttl: number;
  value: string;
}

export interface DecodedResponse {
  /** The answer as it came, byte for byte (its size, its header bits, its TSIG). */
  raw: Buffer;
  message: Message;
  rcode: number;
  answers: ClientRecord[];
  authorities: ClientRecord[];
  additionals: ClientRecord[];
}

const TYPE_NAMES = new Map<number, string>(Object.entries(TYPE_CODES).map(([name, code]) => [code, name]));
const OPT = 41;
const TSIG = 250;

/** RFC 3597 §5: `\# <length> <hex>`. */
export function genericValue(rdata: Buffer): string {
  return rdata.length === 0 ? '\\# 0' : `\\# ${rdata.length} ${rdata.toString('hex')}`;
}

/** Decodes a response; every record of the answer, authority and additional sections but OPT and TSIG. */
export function decodeResponse(raw: Buffer): DecodedResponse {
  const message = decodeMessage(raw);
  const { records: offsets } = recordOffsets(raw);
  const decoded = [...message.answers, ...message.authorities, ...message.additionals];
  const perRecord = offsets.map((at, i) => clientRecord(raw, at, decoded[i]?.data ?? null));
  const a = message.answers.length;
  const b = a + message.authorities.length;
  const keep = (records: Array<ClientRecord | null>) => records.filter((r): r is ClientRecord => r !== null);
  return {
    raw,
    message,
    rcode: raw.readUInt16BE(2) & 0xf,
    answers: keep(perRecord.slice(0, a)),
    authorities: keep(perRecord.slice(a, b)),
    additionals: keep(perRecord.slice(b)),
  };
}

/** The record at `at`, with dns-packet's decoded data (names decompressed); null for OPT and TSIG. */
function clientRecord(raw: Buffer, at: number, data: unknown): ClientRecord | null {
  const header = skipName(raw, at);
  const code = raw.readUInt16BE(header);
  if (code === OPT || code === TSIG) return null;
  const name = readName(raw, at);
  const ttl = raw.readUInt32BE(header + 4);
  const known = TYPE_NAMES.get(code);
  if (known && data !== null) {
    try {
      return fromPacketAnswer({ name, type: code, ttl, data });
    } catch {
      // a value our codec refuses still passes through, in generic form
    }
  }
  const rdata = raw.subarray(header + 10, header + 10 + raw.readUInt16BE(header + 8));
  const dnssec = (data !== null ? dnssecRecord(code, data) : undefined) ?? dnssecFromRdata(code, rdata);
  if (dnssec) return { name, ttl, ...dnssec };
  return { name, type: known ?? `TYPE${code}`, ttl, value: genericValue(rdata) };
}

/** Base64 as dig writes it on one line: in runs of 56 characters, a space between. */
function base64Runs(bytes: Buffer): string {
  return (bytes.toString('base64').match(/.{1,56}/g) ?? []).join(' ');
}

/** An RRSIG time (seconds since the epoch) as RFC 4034 §3.2 writes it: YYYYMMDDHHmmSS, UTC. */
function rrsigTime(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

const fqdn = (name: string): string => (name === '.' || name.endsWith('.') ? name : `${name}.`);

/**
 * The DNSSEC records a signed zone's transfer holds (DNSKEY, RRSIG, NSEC), in the presentation form dig gives
 * them: shown as what they are, not in generic form. Undefined for other types.
 */
function dnssecRecord(code: number, data: unknown): { type: string; value: string } | undefined {
  if (code === 48) {
    const d = data as { flags: number; algorithm: number; key: Buffer };
    return { type: 'DNSKEY', value: `${d.flags} 3 ${d.algorithm} ${base64Runs(d.key)}` };
  }
  if (code === 46) {
    const d = data as RrsigFields & { signature: Buffer };
    const fields = [
      d.typeCovered,
      d.algorithm,
      d.labels,
      d.originalTTL,
      rrsigTime(d.expiration),
      rrsigTime(d.inception),
    ];
    return { type: 'RRSIG', value: [...fields, d.keyTag, fqdn(d.signersName), base64Runs(d.signature)].join(' ') };
  }
  if (code === 47) {
    const d = data as { nextDomain: string; rrtypes: string[] };
    const types = d.rrtypes.map((t) => (/^UNKNOWN_\d+$/.test(t) ? typeName(Number(t.slice(8))) : t));
    return { type: 'NSEC', value: [fqdn(d.nextDomain), ...types].join(' ') };
  }
  return undefined;
}

/** Type mnemonics as dig writes them in type bitmaps (IANA's registry); any other code is `TYPE<n>` (RFC 3597). */
const BITMAP_TYPES: ReadonlyMap<number, string> = new Map(
  [
    '1:A 2:NS 3:MD 4:MF 5:CNAME 6:SOA 7:MB 8:MG 9:MR 10:NULL 11:WKS 12:PTR 13:HINFO 14:MINFO 15:MX 16:TXT ',
    '17:RP 18:AFSDB 19:X25 20:ISDN 21:RT 22:NSAP 23:NSAP-PTR 24:SIG 25:KEY 26:PX 27:GPOS 28:AAAA 29:LOC ',
    '30:NXT 31:EID 32:NIMLOC 33:SRV 34:ATMA 35:NAPTR 36:KX 37:CERT 38:A6 39:DNAME 40:SINK 42:APL 43:DS ',
    '44:SSHFP 45:IPSECKEY 46:RRSIG 47:NSEC 48:DNSKEY 49:DHCID 50:NSEC3 51:NSEC3PARAM 52:TLSA 53:SMIMEA ',
    '55:HIP 56:NINFO 57:RKEY 58:TALINK 59:CDS 60:CDNSKEY 61:OPENPGPKEY 62:CSYNC 63:ZONEMD 64:SVCB ',
    '65:HTTPS 99:SPF 104:NID 105:L32 106:L64 107:LP 108:EUI48 109:EUI64 256:URI 257:CAA 258:AVC 259:DOA ',
    '260:AMTRELAY 32768:TA 32769:DLV',
  ]
    .join('')
    .split(' ')
    .map((pair) => pair.split(':'))
    .map(([code, name]) => [Number(code), name ?? '']),
);

const typeName = (code: number): string => BITMAP_TYPES.get(code) ?? `TYPE${code}`;

/** An RFC 4034 §4.1.2 type bitmap: the type mnemonics it holds, in order. Throws when a window overruns it. */
function typeBitmap(bytes: Buffer): string[] {
  const types: string[] = [];
  for (let at = 0; at < bytes.length;) {
    const window = bytes.readUInt8(at);
    const length = bytes.readUInt8(at + 1);
    if (length < 1 || length > 32 || at + 2 + length > bytes.length) throw new RangeError('bad type bitmap');
    for (let i = 0; i < length; i++) {
      const bits = bytes.readUInt8(at + 2 + i);
      for (let bit = 0; bit < 8; bit++) if (bits & (0x80 >> bit)) types.push(typeName(window * 256 + i * 8 + bit));
    }
    at += 2 + length;
  }
  return types;
}

/** RFC 4648 §7 "base32hex", upper case, no padding: NSEC3's hashed owner names as dig writes them. */
function base32hex(bytes: Buffer): string {
  const digits = '0123456789ABCDEFGHIJKLMNOPQRSTUV';
  let out = '';
  let value = 0;
  let bits = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += digits[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  return bits > 0 ? out + digits[(value << (5 - bits)) & 31] : out;
}

/** A salt as NSEC3 and NSEC3PARAM write it: hex in upper case, `-` when empty. */
const salt = (bytes: Buffer): string => (bytes.length ? bytes.toString('hex').toUpperCase() : '-');

/**
 * DNSSEC types decoded from their RDATA, which dns-packet does not present (CDS, CDNSKEY: RFC 7344; NSEC3,
 * NSEC3PARAM: RFC 5155), as dig writes them: CDS as a DS (its digest in hex, upper case: the DNS tool splits it as
 * dig does), CDNSKEY as a DNSKEY, NSEC3 `1 0 0 - <next hashed owner, base32hex> <types>`, NSEC3PARAM `1 0 0 -`.
 * Undefined for other types, and for RDATA too short for its type (then the generic form shows it as it is).
 */
function dnssecFromRdata(code: number, rdata: Buffer): { type: string; value: string } | undefined {
  try {
    if (code === 59 && rdata.length >= 4) {
      const digest = rdata.subarray(4).toString('hex').toUpperCase();
      return { type: 'CDS', value: `${rdata.readUInt16BE(0)} ${rdata[2]} ${rdata[3]} ${digest}` };
    }
    if (code === 60 && rdata.length >= 4) {
      const key = base64Runs(rdata.subarray(4));
      return { type: 'CDNSKEY', value: `${rdata.readUInt16BE(0)} ${rdata[2]} ${rdata[3]} ${key}` };
    }
    if (code === 51 && rdata.length >= 5 && rdata.length === 5 + rdata.readUInt8(4)) {
      const fields = [rdata[0], rdata[1], rdata.readUInt16BE(2), salt(rdata.subarray(5))];
      return { type: 'NSEC3PARAM', value: fields.join(' ') };
    }
    if (code === 50 && rdata.length >= 6) {
      const saltEnd = 5 + rdata.readUInt8(4);
      const hashEnd = saltEnd + 1 + rdata.readUInt8(saltEnd);
      if (hashEnd > rdata.length) return undefined;
      const fields = [rdata[0], rdata[1], rdata.readUInt16BE(2), salt(rdata.subarray(5, saltEnd))];
      const next = base32hex(rdata.subarray(saltEnd + 1, hashEnd));
      return { type: 'NSEC3', value: [...fields, next, ...typeBitmap(rdata.subarray(hashEnd))].join(' ') };
    }
  } catch {
    // RDATA that does not parse as its type is shown in generic form
  }
  return undefined;
}
