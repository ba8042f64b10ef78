/**
 * Record values per type: parse / validate / normalise (presentation form) and conversion to and from
 * `dns-packet` answers.
 *
 * Normalised values: names inside values absolute with a trailing dot; A dotted quad; AAAA RFC 5952; TXT/SPF as
 * quoted strings; hex (SSHFP, TLSA, DS) in upper case; CAA tag and NAPTR flags case-folded (lower / upper).
 */
import * as packet from 'dns-packet';
import type { Answer } from 'dns-packet';
import {
  isInZone,
  isWildcardName,
  MAX_TTL,
  NameError,
  type NameSyntax,
  normalizeName,
  RECORD_TYPES,
  type RecordData,
  type RecordType,
  relativeName,
  toFqdn,
} from '../model';
import { A, AAAA } from './address';
import { isObject, type AnswerBase, type NameFormat, type ParseContext, type TypeCodec } from './codec';
import { RecordValueError, show } from './errors';
import { CNAME, DNAME, MX, NAPTR, NS, PTR, SOA, SRV, type SoaFields } from './name-values';
import { CAA, DS, SSHFP, TLSA } from './security';
import { SPF, TXT } from './text';
import { validateTtl } from './ttl';

export { RecordValueError, type RecordField } from './errors';
export { validateTtl, parseTtl, parseDuration, MAX_UINT32 } from './ttl';
export { canonicalIPv6, parseIPv4, parseIPv6, formatIPv6 } from './address';
export {
  emailToRname,
  rnameToEmail,
  normalizeMailbox,
  type SoaFields,
  type MxFields,
  type SrvFields,
  type NaptrFields,
} from './name-values';
export { type CaaFields, type SshfpFields, type TlsaFields, type DsFields, DNSSEC_ALGORITHMS } from './security';
export { formatCharString, tokenizeValue } from './presentation';
export { splitText } from './text';

/** A codec with its field type hidden: everything goes through strings. */
interface ErasedCodec {
  usage: string;
  normalize(ctx: ParseContext, fmt: NameFormat): string;
  toAnswer(ctx: ParseContext, base: AnswerBase): Answer;
  fromData(data: unknown, fmt: NameFormat): string;
}

function erase<F>(c: TypeCodec<F>): ErasedCodec {
  return {
    usage: c.usage,
    normalize: (ctx, fmt) => c.format(c.parse(ctx), fmt),
    toAnswer: (ctx, base) => c.toAnswer(c.parse(ctx), base),
    fromData: (data, fmt) => c.format(c.fromData(data), fmt),
  };
}

const CODECS: Readonly<Record<RecordType, ErasedCodec>> = {
  A: erase(A),
  AAAA: erase(AAAA),
  CNAME: erase(CNAME),
  DNAME: erase(DNAME),
  MX: erase(MX),
  NS: erase(NS),
  PTR: erase(PTR),
  SRV: erase(SRV),
  TXT: erase(TXT),
  SPF: erase(SPF),
  CAA: erase(CAA),
  SSHFP: erase(SSHFP),
  TLSA: erase(TLSA),
  DS: erase(DS),
  NAPTR: erase(NAPTR),
  SOA: erase(SOA),
};

/** Wire type numbers of the supported types. */
export const TYPE_CODES: Readonly<Record<RecordType, number>> = {
  A: 1,
  NS: 2,
  CNAME: 5,
  SOA: 6,
  PTR: 12,
  MX: 15,
  TXT: 16,
  AAAA: 28,
  SRV: 33,
  NAPTR: 35,
  DS: 43,
  SSHFP: 44,
  TLSA: 52,
  SPF: 99,
  CAA: 257,
  DNAME: 39,
};

export interface ParseOptions {
  /** `api` (default): lenient (names: see `NameSyntax`; TXT/SPF plain text = one string). `master`: RFC 1035. */
  syntax?: NameSyntax;
  /** Names (the owner, names in the value, the origin) keep their letter case: the form answers are given in. */
  keepCase?: boolean;
}

export function isRecordType(type: string): type is RecordType {
  return (RECORD_TYPES as readonly string[]).includes(type);
}

/** The type in upper case if supported, else a {@link RecordValueError} (field `type`) listing the supported ones. */
export function parseType(type: unknown): RecordType {
  const t = typeof type === 'string' ? type.toUpperCase() : '';
  if (!isRecordType(t)) {
    throw new RecordValueError(
      `Unsupported record type ${show(type)}; supported types are ${RECORD_TYPES.join(', ')}`,
      'type',
    );
  }
  return t;
}

/** The presentation syntax of a type's value, e.g. MX `<preference 0-65535> <exchange name>`. */
export function valueUsage(type: RecordType): string {
  return CODECS[type].usage;
}

function originOf(origin: string | undefined, keepCase = false): string {
  if (origin === undefined || origin === '' || origin === '.') return '';
  try {
    return normalizeName(origin, undefined, { keepCase });
  } catch (e) {
    if (e instanceof NameError) throw new RecordValueError(`Invalid origin: ${e.message}`, 'name');
    throw e;
  }
}

function context(type: RecordType, text: unknown, origin: string, options: ParseOptions): ParseContext {
  if (typeof text !== 'string') throw new RecordValueError(`${type} value must be a string`);
  return { type, text, origin, syntax: options.syntax ?? 'api', keepCase: options.keepCase ?? false };
}

/**
 * Parses and normalises a value of `type` (a type name in any case, checked). Names in it may be `@`, relative to
 * `origin`, or absolute; they come out absolute with a trailing dot. Throws {@link RecordValueError} naming the type
 * and what is allowed.
 */
export function parseValue(type: string, text: string, origin = '', options: ParseOptions = {}): string {
  const t = parseType(type);
  return CODECS[t].normalize(context(t, text, originOf(origin, options.keepCase), options), toFqdn);
}

/** A normalised value rewritten with names relative to `origin` where they are inside it (for zone files). */
export function formatValueRelative(type: RecordType, value: string, origin: string): string {
  const o = originOf(origin);
  return CODECS[type].normalize(context(type, value, '', { syntax: 'master' }), (name) => relativeName(name, o));
}

/** The fields of an SOA value (names in model form). Throws {@link RecordValueError}. */
export function parseSoa(value: string, origin = '', options: ParseOptions = {}): SoaFields {
  return SOA.parse(context('SOA', value, originOf(origin), options));
}

/** The normalised SOA value for `fields` (names FQDN with trailing dot). */
export function formatSoa(fields: SoaFields): string {
  return parseValue('SOA', SOA.format(fields, toFqdn));
}

export interface RecordInput {
  name: string;
  type: string;
  ttl: number | string;
  value: string;
}

/**
 * Validates and normalises a whole record for `zone`: the name (`@`, relative or absolute, must be inside the
 * zone), the type, the TTL and the value. SOA records must sit at the apex; DS records not at the apex (they belong
 * in the parent); NS records not at a wildcard name. Throws {@link RecordValueError} whose
 * `field` says which part is wrong.
 */
export function validateRecord(input: RecordInput, zone: string, options: ParseOptions = {}): RecordData {
  const z = originOf(zone);
  const type = parseType(input.type);
  let name: string;
  try {
    name = normalizeName(input.name, z, options);
  } catch (e) {
    if (e instanceof NameError) throw new RecordValueError(e.message, 'name');
    throw e;
  }
  if (!isInZone(name, z)) {
    throw new RecordValueError(
      `Name ${JSON.stringify(toFqdn(name))} is not inside zone ${JSON.stringify(toFqdn(z))}`,
      'name',
    );
  }
  if (type === 'SOA' && name !== z) {
    throw new RecordValueError(
      `An SOA record belongs at the zone apex ${JSON.stringify(toFqdn(z))}, not at ${JSON.stringify(toFqdn(name))}`,
      'name',
    );
  }
  if (type === 'DS' && name === z) {
    throw new RecordValueError(
      `A DS record cannot be at the apex of zone ${JSON.stringify(toFqdn(z))}: it belongs in the parent zone, at the delegation point`,
      'name',
    );
  }
  if (type === 'NS' && isWildcardName(name)) {
    throw new RecordValueError(
      `NS records are not allowed at a wildcard name like ${JSON.stringify(toFqdn(name))} (RFC 4592 §4.2)`,
      'name',
    );
  }
  const ttl = validateTtl(input.ttl);
  const value = parseValue(type, input.value, z, options);
  return { name, type, ttl, value };
}

/** A `dns-packet` answer (class IN) for a normalised record. SPF goes out as raw RDATA with type 'SPF' (99). */
export function toPacketAnswer(record: RecordData): Answer {
  const type = parseType(record.type);
  // keepCase: a value as its master file or UPDATE gave it goes out in that case (model-form values are lower case)
  const ctx = context(type, record.value, '', { syntax: 'master', keepCase: true });
  return CODECS[type].toAnswer(ctx, { name: record.name === '' ? '.' : record.name, ttl: record.ttl, class: 'IN' });
}

/** What {@link fromPacketAnswer} reads: any dns-packet answer, also of types its typings do not list. */
export interface PacketAnswerLike {
  name: string;
  type: string | number;
  ttl?: number;
  class?: string;
  data?: unknown;
}

const TYPE_BY_CODE = new Map<number, RecordType>(Object.entries(TYPE_CODES).map(([k, v]) => [v, k as RecordType]));

function typeOfAnswer(type: unknown): RecordType {
  let code: number | undefined;
  if (typeof type === 'number') code = type;
  else if (typeof type === 'string') {
    const m = /^(?:TYPE|UNKNOWN_)([0-9]{1,5})$/i.exec(type);
    if (m) code = Number(m[1]);
    else return parseType(type);
  }
  const t = code === undefined ? undefined : TYPE_BY_CODE.get(code);
  if (t === undefined)
    throw new RecordValueError(
      `Unsupported record type ${show(type)}; supported types are ${RECORD_TYPES.join(', ')}`,
      'type',
    );
  return t;
}

function answerRdata(buf: Buffer): Buffer {
  // header (12) + root owner (1) + type, class, TTL, RDLENGTH (10)
  return buf.subarray(23, 23 + buf.readUInt16BE(21));
}

function asciiLower(b: Buffer): Buffer {
  return Buffer.from(b.map((x) => (x >= 0x41 && x <= 0x5a ? x + 32 : x)));
}

/** Decodes raw RDATA of `type` with dns-packet; names in it must not be compressed, nothing may be left over. */
function decodeRdata(type: RecordType, rdata: Buffer): unknown {
  if (rdata.length > 65535) throw new RecordValueError(`${type} RDATA is too long`);
  const header = Buffer.alloc(12);
  header.writeUInt16BE(1, 6); // one answer
  const rr = Buffer.alloc(11);
  rr.writeUInt16BE(TYPE_CODES[type], 1);
  rr.writeUInt16BE(1, 3);
  rr.writeUInt16BE(rdata.length, 9);
  let data: unknown;
  try {
    const decoded = packet.decode(Buffer.concat([header, rr, rdata]));
    const answer = decoded.answers?.[0];
    data = answer && 'data' in answer ? answer.data : undefined;
  } catch (e) {
    throw new RecordValueError(`${type} RDATA cannot be decoded: ${e instanceof Error ? e.message : String(e)}`);
  }
  return data;
}

function checkLossless(type: RecordType, value: string, rdata: Buffer): void {
  // Compression pointers (meaningless outside their message) and trailing octets would be lost silently:
  // encoding the result again must give the same octets, up to the case of ASCII letters.
  const again = answerRdata(packet.encode({ answers: [toPacketAnswer({ name: '', type, ttl: 0, value })] }));
  if (!asciiLower(again).equals(asciiLower(rdata))) {
    throw new RecordValueError(`${type} RDATA does not decode losslessly (compressed names or extra octets?)`);
  }
}

/**
 * A normalised record from a dns-packet answer (dynamic updates, zone transfers). Accepts decoded data, SPF as raw
 * RDATA, and raw RDATA (a Buffer) for any supported type given by name, `TYPEnn`, `UNKNOWN_nn` or number (TXT: a
 * Buffer is one string, as dns-packet encodes it). The class is not checked (UPDATE uses NONE and ANY): that is the
 * caller's business. A TTL above 2^31−1 counts as 0 (RFC 2181 §8). Throws {@link RecordValueError}.
 */
export function fromPacketAnswer(answer: PacketAnswerLike): RecordData {
  if (!isObject(answer)) throw new RecordValueError('An answer must be an object');
  const type = typeOfAnswer(answer.type);
  let name: string;
  if (answer.name === '.' || answer.name === '') name = '';
  else {
    try {
      if (typeof answer.name !== 'string')
        throw new RecordValueError(`The owner name must be a string (got ${show(answer.name)})`, 'name');
      name = normalizeName(answer.name.endsWith('.') ? answer.name : `${answer.name}.`);
    } catch (e) {
      if (e instanceof NameError) throw new RecordValueError(e.message, 'name');
      throw e;
    }
  }
  const rawTtl = answer.ttl ?? 0;
  if (typeof rawTtl !== 'number' || !Number.isInteger(rawTtl) || rawTtl < 0 || rawTtl > 0xffffffff) {
    throw new RecordValueError(`TTL from the wire must be a 32-bit unsigned integer (got ${show(rawTtl)})`, 'ttl');
  }
  const ttl = rawTtl > MAX_TTL ? 0 : rawTtl;
  const raw = Buffer.isBuffer(answer.data) && type !== 'TXT' && type !== 'SPF' ? answer.data : undefined;
  const value = CODECS[type].fromData(raw ? decodeRdata(type, raw) : answer.data, toFqdn);
  if (raw) checkLossless(type, value, raw);
  return { name, type, ttl, value };
}
