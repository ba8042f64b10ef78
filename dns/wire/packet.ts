/**
 * The one place that reaches into dns-packet beyond its typed whole-message API: its per-record and per-name codecs
 * and its type table, which its typings do not declare. Everything else imports these typed functions, so an
 * upgrade of dns-packet is checked here alone.
 */
import * as packet from 'dns-packet';
import type { Answer, Packet, Question } from 'dns-packet';

/** A dns-packet codec as its JavaScript exports it: `bytes` holds the length of the last encode or decode. */
interface Codec<T> {
  encode: ((value: T, buf?: Buffer, offset?: number) => Buffer) & { bytes: number };
  decode: ((buf: Buffer, offset?: number) => T) & { bytes: number };
  encodingLength(value: T): number;
}

interface Internals {
  answer: Codec<Answer>;
  question: Codec<Question>;
  name: Codec<string>;
  /** The RDATA codec of a type (its encoding starts with RDLENGTH). */
  record(type: string): Codec<unknown>;
}

/** dns-packet's module object, seen with the codecs it exports but its typings leave out. */
const codecs = packet as unknown as Internals;

// eslint-disable-next-line @typescript-eslint/no-require-imports -- dns-packet's type table has no typings
const types = require('dns-packet/types') as { toString(n: number): string; toType(name: string): number };

/** The EDNS DO bit in an OPT record's flags. */
export const DNSSEC_OK: number = packet.DNSSEC_OK;

/** A whole message, as dns-packet writes it (every name in full, no compression). */
export function encodeMessage(message: Packet): Buffer {
  return packet.encode(message);
}

/** Bytes `encodeMessage` writes for `message`. */
export function messageLength(message: Packet): number {
  return packet.encodingLength(message);
}

/** Bytes one record takes in a message (owner name in full). */
export function answerLength(rr: Answer): number {
  return codecs.answer.encodingLength(rr);
}

/**
 * One record (owner name in full), or null when dns-packet writes fewer bytes than it allocates for it: its
 * encoding of malformed data is not self-consistent, and the bytes cannot be trusted.
 */
export function encodeAnswer(rr: Answer): Buffer | null {
  const wire = codecs.answer.encode(rr);
  return codecs.answer.encode.bytes === wire.length ? wire : null;
}

/**
 * The RDATA of a record of `type` (names uncompressed), as `encodeAnswer` writes it after the owner, type, class and
 * TTL, or null as for {@link encodeAnswer}.
 */
export function encodeRdata(type: string, data: unknown): Buffer | null {
  const codec = codecs.record(type);
  const wire = codec.encode(data);
  return codec.encode.bytes === wire.length ? wire.subarray(2) : null; // RDLENGTH (2) first
}

/** One name in wire form (uncompressed), or null as for {@link encodeAnswer}. */
export function encodeName(name: string): Buffer | null {
  const wire = codecs.name.encode(name);
  return codecs.name.encode.bytes === wire.length ? wire : null;
}

/** What a decoder read at an offset, and how many bytes it took. */
export interface Decoded<T> {
  value: T;
  bytes: number;
}

/** The record at `offset` (names may be compressed). Throws on bytes dns-packet cannot read. */
export function decodeAnswer(buf: Buffer, offset: number): Decoded<Answer> {
  const value = codecs.answer.decode(buf, offset);
  return { value, bytes: codecs.answer.decode.bytes };
}

/** The question at `offset`. Throws on bytes dns-packet cannot read. */
export function decodeQuestion(buf: Buffer, offset: number): Decoded<Question> {
  const value = codecs.question.decode(buf, offset);
  return { value, bytes: codecs.question.decode.bytes };
}

/** The name at `offset` as dotted text ('.' for the root). Throws on bytes dns-packet cannot read. */
export function decodeName(buf: Buffer, offset: number): Decoded<string> {
  const value = codecs.name.decode(buf, offset);
  return { value, bytes: codecs.name.decode.bytes };
}

/** Type mnemonic of a number, as dns-packet names it ('A', 'ANY', 'UNKNOWN_99'). */
export function typeName(type: number): string {
  return types.toString(type);
}

/** Type number of a mnemonic as dns-packet names it ('A' → 1, 'UNKNOWN_99' → 99); 0 for one it does not know. */
export function typeNumber(name: string): number {
  return types.toType(name);
}
