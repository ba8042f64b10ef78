/**
 * The shape every record type implements, and the small helpers the per-family modules share: presentation
 * tokens, numbers, names inside values, wire names.
 */
import type { Answer } from 'dns-packet';
import { NameError, type NameSyntax, normalizeName, type RecordType } from '../model';
import { RecordValueError, show } from './errors';

/** One presentation token: its text as written (quotes removed for quoted strings) and its decoded octets. */
export interface Token {
  /** The token as written, without the surrounding quotes of a quoted string. */
  raw: string;
  quoted: boolean;
  /** Octets after `\X` / `\DDD` escapes are applied (UTF-8 for other characters). */
  bytes: Buffer;
}

export interface ParseContext {
  type: RecordType;
  /** The whole value as given, for messages. */
  text: string;
  /** Model-form origin for relative names ("" = root: names are absolute). */
  origin: string;
  syntax: NameSyntax;
  /** Names keep the letter case they were given (see `NameOptions.keepCase`). */
  keepCase?: boolean;
}

/** Renders a model-form name inside a value: absolute with trailing dot, or relative to a zone. */
export type NameFormat = (name: string) => string;

/**
 * Base of an answer for dns-packet. Codecs copy its fields one by one rather than spreading it: a spread site that
 * turned megamorphic gave every answer a hidden class of its own in V8 11 (slow to make, ~250 bytes each kept).
 */
export interface AnswerBase {
  name: string;
  ttl: number;
  class: 'IN';
}

/** One record type: presentation ⇄ fields ⇄ dns-packet data. */
export interface TypeCodec<F> {
  /** The presentation syntax, for messages: `<preference 0-65535> <exchange name>`. */
  usage: string;
  /** Parses `ctx.text` (most codecs through `tokens(ctx)`). */
  parse(ctx: ParseContext): F;
  format(fields: F, name: NameFormat): string;
  toAnswer(fields: F, base: AnswerBase): Answer;
  /** Fields from dns-packet `data` (already decoded by dns-packet for the types it knows). */
  fromData(data: unknown): F;
}

/** Throws the generic "<TYPE> value must be …" error. */
export function usageError(ctx: ParseContext, usage: string, detail?: string): never {
  throw new RecordValueError(
    `${ctx.type} value must be "${usage}" (got ${JSON.stringify(ctx.text)})${detail ? `: ${detail}` : ''}`,
  );
}

/** Exactly `N` tokens, as a tuple: once checked, every field of the usage is known to be there. */
export type Fields<N extends number, Acc extends Token[] = []> = Acc['length'] extends N
  ? Acc
  : Fields<N, [...Acc, Token]>;

/** Exactly `count` tokens, or the usage error saying how many are missing or which one is extra. */
export function expectTokens<N extends number>(
  tokens: Token[],
  count: N,
  ctx: ParseContext,
  usage: string,
): asserts tokens is Token[] & Fields<N> {
  expectAtLeast(tokens, count, ctx, usage);
  const extra = tokens[count];
  if (extra !== undefined) usageError(ctx, usage, `unexpected ${JSON.stringify(extra.raw)} after the last field`);
}

/** `count` tokens or more (a last field that may be split by blanks, like hex data), else the usage error. */
export function expectAtLeast<N extends number>(
  tokens: Token[],
  count: N,
  ctx: ParseContext,
  usage: string,
): asserts tokens is Token[] & [...Fields<N>, ...Token[]] {
  if (tokens.length < count) usageError(ctx, usage, `${count - tokens.length} field(s) missing`);
}

/** An unsigned decimal integer field in [min, max]. */
export function uintField(token: Token, ctx: ParseContext, field: string, max: number, min = 0): number {
  const ok = !token.quoted && /^[0-9]{1,10}$/.test(token.raw);
  const n = ok ? Number(token.raw) : NaN;
  if (!ok || n < min || n > max) {
    throw new RecordValueError(
      `${ctx.type} ${field} must be an integer from ${min} to ${max} (got ${JSON.stringify(token.raw)})`,
    );
  }
  return n;
}

/** A name inside a value, normalised (model form). */
export function nameField(token: Token, ctx: ParseContext, field: string): string {
  if (token.quoted)
    throw new RecordValueError(`${ctx.type} ${field} must be a domain name, not a quoted string (got "${token.raw}")`);
  try {
    return normalizeName(token.raw, ctx.origin, { syntax: ctx.syntax, keepCase: ctx.keepCase ?? false });
  } catch (e) {
    if (e instanceof NameError)
      throw new RecordValueError(`${ctx.type} ${field} ${JSON.stringify(token.raw)} is not a valid name: ${e.reason}`);
    throw e;
  }
}

/** Model-form name as dns-packet wants it (no trailing dot; "." for the root). */
export function wireName(name: string): string {
  return name === '' ? '.' : name;
}

/** A name decoded by dns-packet (no trailing dot, "." for the root) → model form. */
export function nameFromWire(value: unknown, type: RecordType, field: string): string {
  if (typeof value !== 'string') throw new RecordValueError(`${type} ${field} from the wire is not a name`);
  if (value === '.' || value === '') return '';
  try {
    return normalizeName(value.endsWith('.') ? value : `${value}.`);
  } catch (e) {
    if (e instanceof NameError)
      throw new RecordValueError(`${type} ${field} from the wire is not a valid name: ${e.reason}`);
    throw e;
  }
}

export function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x) && !Buffer.isBuffer(x);
}

export function dataObject(data: unknown, type: RecordType): Record<string, unknown> {
  if (!isObject(data)) throw new RecordValueError(`${type} data from the wire is not an object`);
  return data;
}

export function uintFromWire(value: unknown, type: RecordType, field: string, max: number, min = 0): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new RecordValueError(
      `${type} ${field} from the wire must be an integer from ${min} to ${max} (got ${show(value)})`,
    );
  }
  return value;
}

export function bufferFromWire(value: unknown, type: RecordType, field: string): Buffer {
  if (!Buffer.isBuffer(value)) throw new RecordValueError(`${type} ${field} from the wire is not binary data`);
  return value;
}

export function stringFromWire(value: unknown, type: RecordType, field: string): string {
  if (typeof value !== 'string') throw new RecordValueError(`${type} ${field} from the wire is not a string`);
  return value;
}
