import { randomInt } from 'node:crypto';
import * as packet from 'dns-packet';
import { isRecordType, TYPE_CODES, toPacketAnswer } from '../records';
import { nameToWire } from '../tsig';
import { u16, u32 } from '../wire';

/** Type codes beyond our record types that queries and UPDATE name (ANY for "every type", AXFR, IXFR). */
const META_TYPES: Record<string, number> = { ANY: 255, AXFR: 252, IXFR: 251 };
const CLASS = { IN: 1, NONE: 254, ANY: 255 } as const;
const TYPE_ANY = 255;

/** A type mnemonic, `TYPEnnn` (RFC 3597) or a meta type, as its code. */
export function typeCode(type: string): number {
  const upper = type.toUpperCase();
  if (isRecordType(upper)) return TYPE_CODES[upper];
  const meta = META_TYPES[upper];
  if (meta !== undefined) return meta;
  const generic = /^TYPE(\d{1,5})$/.exec(upper);
  const code = generic ? Number(generic[1]) : NaN;
  if (Number.isInteger(code) && code >= 0 && code <= 65535) return code;
  throw new Error(`unknown record type ${JSON.stringify(type)} (a mnemonic we know, or TYPEnnn)`);
}

/** RDATA of a value in presentation form: our types through their codecs, others in RFC 3597 generic form. */
export function rdataOf(type: string, value: string): Buffer {
  const upper = type.toUpperCase();
  const generic = /^\\#\s+(\d+)((?:\s+[0-9a-fA-F]+)*)\s*$/.exec(value.trim());
  if (generic) {
    const hex = (generic[2] ?? '').replace(/\s+/g, '');
    const bytes = Buffer.from(hex, 'hex');
    if (hex.length % 2 !== 0 || bytes.length !== Number(generic[1]))
      throw new Error(`generic RDATA ${JSON.stringify(value)}: the length does not match the hex data`);
    return bytes;
  }
  if (!isRecordType(upper)) throw new Error(`a ${type} value must be in RFC 3597 generic form (\\# <length> <hex>)`);
  // A one-record message with the root as owner: the RDATA starts at a fixed offset (12 + 1 + 10).
  const wire = packet.encode({ answers: [toPacketAnswer({ name: '', type: upper, ttl: 0, value })] });
  return Buffer.from(wire.subarray(23, 23 + wire.readUInt16BE(21)));
}

/**
 * A name in wire form, refused (an Error saying why) when it has none: an empty label (`a..b`), a label over 63
 * octets or a name over 255 (RFC 1035 §2.3.4). Written anyway, such a name reads as another name, or as a
 * compression pointer, and the message as garbage (the server answers FORMERR, or nothing).
 */
function wireNameOf(name: string): Buffer {
  const text = name.endsWith('.') ? name.slice(0, -1) : name;
  if (text !== '') {
    const labels = text.split('.');
    if (labels.some((l) => l === '')) throw new Error(`${name} is not a valid DNS name: it has an empty label`);
    const long = labels.find((l) => Buffer.byteLength(l) > 63);
    if (long !== undefined)
      throw new Error(`${name} is not a valid DNS name: a label is longer than 63 octets (${long.length})`);
  }
  const wire = nameToWire(text);
  if (wire.length > 255)
    throw new Error(`${name} is not a valid DNS name: it takes ${wire.length} octets, at most 255 are allowed`);
  return wire;
}

/** One resource record on the wire (names uncompressed). */
function wireRecord(name: string, type: number, klass: number, ttl: number, rdata: Buffer): Buffer {
  return Buffer.concat([wireNameOf(name), u16(type), u16(klass), u32(ttl), u16(rdata.length), rdata]);
}

function header(id: number, flags: number, counts: [number, number, number, number]): Buffer {
  return Buffer.concat([u16(id), u16(flags), ...counts.map(u16)]);
}

export function newId(): number {
  return randomInt(0, 65536);
}

/** A query (RD clear: we ask authoritative servers). `edns` advertises a UDP buffer (RFC 6891). */
export function queryMessage(name: string, type: string, options: { id?: number; edns?: number } = {}): Buffer {
  const question = Buffer.concat([wireNameOf(name), u16(typeCode(type)), u16(CLASS.IN)]);
  const opt = options.edns !== undefined ? [wireRecord('', 41, options.edns, 0, Buffer.alloc(0))] : [];
  return Buffer.concat([header(options.id ?? newId(), 0, [1, 0, 0, opt.length]), question, ...opt]);
}

/** One change of an RFC 2136 UPDATE, in the order given (the server applies them in order). */
export type UpdateOperation =
  /** Adds a record (class IN). */
  | { op: 'add'; name: string; type: string; ttl: number; value: string }
  /** Deletes the RRset of `type` at `name` (class ANY, empty RDATA). */
  | { op: 'deleteRRset'; name: string; type: string }
  /** Deletes every RRset at `name` (type ANY, class ANY). */
  | { op: 'deleteName'; name: string }
  /** Deletes one record (class NONE, its RDATA). */
  | { op: 'deleteRecord'; name: string; type: string; value: string };

/** RFC 2136 §2.4 prerequisites. */
export type Prerequisite =
  | { kind: 'nameInUse'; name: string }
  | { kind: 'nameNotInUse'; name: string }
  | { kind: 'rrsetExists'; name: string; type: string }
  | { kind: 'rrsetNotExists'; name: string; type: string }
  /** This exact record exists (value-dependent RRset check with one record). */
  | { kind: 'recordExists'; name: string; type: string; value: string };

function updateRecord(u: UpdateOperation): Buffer {
  switch (u.op) {
    case 'add':
      return wireRecord(u.name, typeCode(u.type), CLASS.IN, u.ttl, rdataOf(u.type, u.value));
    case 'deleteRRset':
      return wireRecord(u.name, typeCode(u.type), CLASS.ANY, 0, Buffer.alloc(0));
    case 'deleteName':
      return wireRecord(u.name, TYPE_ANY, CLASS.ANY, 0, Buffer.alloc(0));
    case 'deleteRecord':
      return wireRecord(u.name, typeCode(u.type), CLASS.NONE, 0, rdataOf(u.type, u.value));
  }
}

function prerequisiteRecord(p: Prerequisite): Buffer {
  switch (p.kind) {
    case 'nameInUse':
      return wireRecord(p.name, TYPE_ANY, CLASS.ANY, 0, Buffer.alloc(0));
    case 'nameNotInUse':
      return wireRecord(p.name, TYPE_ANY, CLASS.NONE, 0, Buffer.alloc(0));
    case 'rrsetExists':
      return wireRecord(p.name, typeCode(p.type), CLASS.ANY, 0, Buffer.alloc(0));
    case 'rrsetNotExists':
      return wireRecord(p.name, typeCode(p.type), CLASS.NONE, 0, Buffer.alloc(0));
    case 'recordExists':
      return wireRecord(p.name, typeCode(p.type), CLASS.IN, 0, rdataOf(p.type, p.value));
  }
}

/** An RFC 2136 UPDATE message for `zone` (opcode 5); unsigned (TSIG is added by the client). */
export function updateMessage(
  zone: string,
  operations: readonly UpdateOperation[],
  prerequisites: readonly Prerequisite[] = [],
  id = newId(),
): Buffer {
  const zoneSection = Buffer.concat([wireNameOf(zone), u16(TYPE_CODES.SOA), u16(CLASS.IN)]);
  return Buffer.concat([
    header(id, 5 << 11, [1, prerequisites.length, operations.length, 0]),
    zoneSection,
    ...prerequisites.map(prerequisiteRecord),
    ...operations.map(updateRecord),
  ]);
}

/**
 * An IXFR request (RFC 1995 §3): the question, and in the authority section the SOA of the version the client has
 * (`soa`: its value in presentation form).
 */
export function ixfrMessage(zone: string, soa: string, options: { id?: number } = {}): Buffer {
  const question = Buffer.concat([wireNameOf(zone), u16(typeCode('IXFR')), u16(CLASS.IN)]);
  const authority = wireRecord(zone, TYPE_CODES.SOA, CLASS.IN, 0, rdataOf('SOA', soa));
  return Buffer.concat([header(options.id ?? newId(), 0, [1, 0, 1, 0]), question, authority]);
}
