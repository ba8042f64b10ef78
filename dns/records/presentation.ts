/**
 * Presentation-form lexing shared by all types: splitting a value into tokens (quoted strings with `\"`, `\\` and
 * `\DDD` escapes), writing character strings back, hex fields.
 */
import type { RecordType } from '../model';
import type { ParseContext, Token } from './codec';
import { RecordValueError } from './errors';

function controlName(code: number): string {
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

function isControl(code: number): boolean {
  return (code < 0x20 && code !== 0x09) || code === 0x7f;
}

/**
 * Splits a value into tokens separated by spaces or tabs. A `"…"` string is one token; `\X` stands for X and
 * `\DDD` for the octet DDD (000-255), in and outside quotes.
 */
export function tokenizeValue(text: string, type: RecordType): Token[] {
  return tokenizePlain(text) ?? tokenizeEscaped(text, type);
}

/**
 * `tokenizeValue` for the common case, without building arrays of characters and octets: text of printable ASCII
 * and tabs only, no backslash, quotes closed. Undefined otherwise (the general path then tokenizes, or says why not).
 */
function tokenizePlain(text: string): Token[] | undefined {
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const code = text.charCodeAt(i);
    if ((code < 0x20 && code !== 0x09) || code > 0x7e || code === 0x5c) return undefined;
  }
  const tokens: Token[] = [];
  let i = 0;
  while (i < n) {
    const code = text.charCodeAt(i);
    if (code === 0x20 || code === 0x09) {
      i++;
      continue;
    }
    if (code === 0x22) {
      const end = text.indexOf('"', i + 1);
      if (end < 0) return undefined;
      const raw = text.slice(i + 1, end);
      tokens.push({ raw, quoted: true, bytes: Buffer.from(raw, 'latin1') });
      i = end + 1;
      continue;
    }
    let end = i + 1;
    for (; end < n; end++) {
      const c = text.charCodeAt(end);
      if (c === 0x20 || c === 0x09 || c === 0x22) break;
    }
    const raw = text.slice(i, end);
    tokens.push({ raw, quoted: false, bytes: Buffer.from(raw, 'latin1') });
    i = end;
  }
  return tokens;
}

/** The general path of `tokenizeValue` (exported so tests can hold the fast path against it). */
export function tokenizeEscaped(text: string, type: RecordType): Token[] {
  const tokens: Token[] = [];
  const chars = [...text];
  let i = 0;
  // A declaration, not an arrow: a call then narrows like a throw.
  function fail(what: string): never {
    throw new RecordValueError(`${type} value ${what} (got ${JSON.stringify(text)})`);
  }
  while (i < chars.length) {
    const c = chars[i];
    if (c === ' ' || c === '\t') {
      i++;
      continue;
    }
    const quoted = c === '"';
    if (quoted) i++;
    const start = i;
    const bytes: number[] = [];
    let closed = !quoted;
    for (let ch = chars[i]; ch !== undefined; ch = chars[i]) {
      const code = ch.codePointAt(0) ?? 0;
      if (isControl(code))
        fail(`contains the control character ${controlName(code)}; write it as \\DDD in a quoted string`);
      if (quoted && ch === '"') {
        closed = true;
        break;
      }
      if (!quoted && (ch === ' ' || ch === '\t' || ch === '"')) break;
      if (ch === '\\') {
        const next = chars[i + 1];
        if (next === undefined) fail('ends with a lone backslash');
        if (/[0-9]/.test(next)) {
          const digits = chars.slice(i + 1, i + 4).join('');
          if (!/^[0-9]{3}$/.test(digits) || Number(digits) > 255) {
            fail(`has a bad escape "\\${digits}": use \\DDD with three digits from 000 to 255`);
          }
          bytes.push(Number(digits));
          i += 4;
          continue;
        }
        const nextCode = next.codePointAt(0) ?? 0;
        if (isControl(nextCode))
          fail(`contains the control character ${controlName(nextCode)}; write it as \\DDD in a quoted string`);
        bytes.push(...Buffer.from(next, 'utf8'));
        i += 2;
        continue;
      }
      bytes.push(...Buffer.from(ch, 'utf8'));
      i++;
    }
    if (!closed) fail('has an unterminated quoted string (a closing " is missing)');
    tokens.push({ raw: chars.slice(start, i).join(''), quoted, bytes: Buffer.from(bytes) });
    if (quoted) i++; // the closing quote
  }
  return tokens;
}

export function tokens(ctx: ParseContext): Token[] {
  return tokenizeValue(ctx.text, ctx.type);
}

/** Length of the valid UTF-8 sequence at `i` encoding a printable character (≥ U+00A0), else 0. */
function printableUtf8At(b: Uint8Array, i: number): number {
  const b0 = b[i];
  if (b0 === undefined) return 0;
  let len = 0;
  let lo = 0x80;
  let hi = 0xbf;
  if (b0 >= 0xc2 && b0 <= 0xdf) len = 2;
  else if (b0 >= 0xe0 && b0 <= 0xef) {
    len = 3;
    if (b0 === 0xe0) lo = 0xa0;
    if (b0 === 0xed) hi = 0x9f;
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    len = 4;
    if (b0 === 0xf0) lo = 0x90;
    if (b0 === 0xf4) hi = 0x8f;
  } else return 0;
  // A sequence cut short by the end of the octets is not valid either.
  const b1 = b[i + 1];
  if (b1 === undefined || b1 < lo || b1 > hi) return 0;
  for (let k = 2; k < len; k++) {
    const bk = b[i + k];
    if (bk === undefined || bk < 0x80 || bk > 0xbf) return 0;
  }
  const cp =
    Buffer.from(b.subarray(i, i + len))
      .toString('utf8')
      .codePointAt(0) ?? 0;
  if (
    cp < 0xa0 ||
    cp === 0x2028 ||
    cp === 0x2029 ||
    cp === 0xfeff ||
    (cp & 0xfffe) === 0xfffe ||
    (cp >= 0xfdd0 && cp <= 0xfdef)
  )
    return 0;
  return len;
}

/**
 * A character string in presentation form: in double quotes, `"` and `\` escaped, printable ASCII and printable
 * UTF-8 characters as they are, every other octet as `\DDD`.
 */
export function formatCharString(bytes: Uint8Array): string {
  let out = '"';
  let i = 0;
  for (let b = bytes[i]; b !== undefined; b = bytes[i]) {
    if (b === 0x22) out += '\\"';
    else if (b === 0x5c) out += '\\\\';
    else if (b >= 0x20 && b < 0x7f) out += String.fromCharCode(b);
    else {
      const len = b >= 0x80 ? printableUtf8At(bytes, i) : 0;
      if (len > 0) {
        out += Buffer.from(bytes.subarray(i, i + len)).toString('utf8');
        i += len;
        continue;
      }
      out += `\\${String(b).padStart(3, '0')}`;
    }
    i++;
  }
  return `${out}"`;
}

/** Hex digits spread over one or more tokens (whitespace inside is allowed, as RFC 4034 says for DS). */
export function hexField(toks: Token[], ctx: ParseContext, field: string): Buffer {
  const hex = toks.map((t) => t.raw).join('');
  if (toks.some((t) => t.quoted) || !/^[0-9a-fA-F]*$/.test(hex)) {
    throw new RecordValueError(`${ctx.type} ${field} must be hexadecimal digits 0-9 A-F (got ${JSON.stringify(hex)})`);
  }
  if (hex.length === 0) throw new RecordValueError(`${ctx.type} ${field} is missing`);
  if (hex.length % 2 !== 0) {
    throw new RecordValueError(
      `${ctx.type} ${field} has an odd number of hex digits (${hex.length}); two digits make one octet`,
    );
  }
  return Buffer.from(hex, 'hex');
}

/** `true` when every octet is printable ASCII (space to `~`). */
export function isPrintableAscii(bytes: Uint8Array): boolean {
  return bytes.every((b) => b >= 0x20 && b < 0x7f);
}
