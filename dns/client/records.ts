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
  const dnssec = data !== null ? dnssecRecord(code, data) : undefined;
  if (dnssec) return { name, ttl, ...dnssec };
  const rdata = raw.subarray(header + 10, header + 10 + raw.readUInt16BE(header + 8));
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
    return { type: 'NSEC', value: [fqdn(d.nextDomain), ...d.rrtypes].join(' ') };
  }
  return undefined;
}
