/**
 * TXT and SPF (type 99, same RDATA as TXT): one or more character strings of at most 255 octets.
 *
 * Input: one or more `"quoted strings"`; in the `api` syntax also plain unquoted text, taken as ONE string
 * (literally, no escapes) and split into 255-octet strings at character boundaries. In the `master` syntax every
 * token is one string, as RFC 1035 says. Output: quoted strings separated by spaces.
 */
import type { Answer, OtherRecordType } from 'dns-packet';
import type { RecordType } from '../model';
import { type AnswerBase, type ParseContext, type TypeCodec } from './codec';
import { RecordValueError } from './errors';
import { formatCharString, tokens } from './presentation';

export const MAX_STRING_OCTETS = 255;
const MAX_RDATA = 65535;

const USAGE = '"<text>" ["<text>" …] (quoted strings of at most 255 octets) or plain text';

/** Splits UTF-8 text into strings of at most 255 octets without cutting a character. */
export function splitText(text: string): Buffer[] {
  const out: Buffer[] = [];
  let current: Buffer[] = [];
  let size = 0;
  for (const ch of text) {
    const b = Buffer.from(ch, 'utf8');
    if (size + b.length > MAX_STRING_OCTETS) {
      out.push(Buffer.concat(current));
      current = [];
      size = 0;
    }
    current.push(b);
    size += b.length;
  }
  out.push(Buffer.concat(current));
  return out;
}

function checkStrings(strings: Buffer[], type: RecordType, text: string | undefined): Buffer[] {
  const got = text === undefined ? '' : ` (got ${JSON.stringify(text)})`;
  if (strings.length === 0) throw new RecordValueError(`${type} value must be ${USAGE}${got}`);
  let total = 0;
  strings.forEach((s, i) => {
    if (s.length > MAX_STRING_OCTETS) {
      throw new RecordValueError(
        `${type} string ${i + 1} is ${s.length} octets long; at most ${MAX_STRING_OCTETS} are allowed per string — split it into several "quoted strings", or send plain unquoted text`,
      );
    }
    total += s.length + 1;
  });
  if (total > MAX_RDATA)
    throw new RecordValueError(`${type} value is ${total} octets long; at most ${MAX_RDATA} fit in a record`);
  return strings;
}

function parseStrings(ctx: ParseContext): Buffer[] {
  const trimmed = ctx.text.trim();
  if (ctx.syntax === 'api' && trimmed !== '' && !trimmed.startsWith('"')) {
    // eslint-disable-next-line no-control-regex
    const bad = /[\x00-\x08\x0a-\x1f\x7f]/.exec(trimmed);
    if (bad) {
      const code = bad[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
      throw new RecordValueError(
        `${ctx.type} value contains the control character U+${code}; write it as \\DDD in a quoted string`,
      );
    }
    return checkStrings(splitText(trimmed), ctx.type, ctx.text);
  }
  return checkStrings(
    tokens(ctx).map((t) => t.bytes),
    ctx.type,
    ctx.text,
  );
}

function formatStrings(strings: Buffer[]): string {
  return strings.map((s) => formatCharString(s)).join(' ');
}

function stringsFromData(data: unknown, type: RecordType): Buffer[] {
  const items = Array.isArray(data) ? (data as unknown[]) : [data];
  const out = items.map((item) => {
    if (Buffer.isBuffer(item)) return Buffer.from(item);
    if (typeof item === 'string') return Buffer.from(item, 'utf8');
    throw new RecordValueError(`${type} data from the wire must be character strings`);
  });
  return checkStrings(out, type, undefined);
}

/** Raw TXT-format RDATA (length-prefixed strings) → strings. */
export function decodeCharStrings(rdata: Buffer, type: RecordType): Buffer[] {
  const out: Buffer[] = [];
  let i = 0;
  for (let len = rdata[i]; len !== undefined; len = rdata[i]) {
    if (i + 1 + len > rdata.length) throw new RecordValueError(`${type} RDATA from the wire is truncated`);
    out.push(Buffer.from(rdata.subarray(i + 1, i + 1 + len)));
    i += 1 + len;
  }
  return checkStrings(out, type, undefined);
}

export function encodeCharStrings(strings: Buffer[]): Buffer {
  return Buffer.concat(strings.flatMap((s) => [Buffer.from([s.length]), s]));
}

export const TXT: TypeCodec<Buffer[]> = {
  usage: USAGE,
  parse: parseStrings,
  format: formatStrings,
  toAnswer: (strings: Buffer[], base: AnswerBase): Answer => ({
    name: base.name,
    ttl: base.ttl,
    class: base.class,
    type: 'TXT',
    data: strings.map((s) => Buffer.from(s)),
  }),
  fromData: (data) => stringsFromData(data, 'TXT'),
};

/** dns-packet has no SPF codec: it is sent as raw RDATA through dns-packet's unknown-type path. */
export const SPF: TypeCodec<Buffer[]> = {
  usage: USAGE,
  parse: parseStrings,
  format: formatStrings,
  toAnswer: (strings: Buffer[], base: AnswerBase): Answer => ({
    name: base.name,
    ttl: base.ttl,
    class: base.class,
    // dns-packet maps the name 'SPF' to type 99 and, having no codec for it, writes a Buffer as raw RDATA;
    // its typings just do not list SPF.
    type: 'SPF' as string as OtherRecordType,
    data: encodeCharStrings(strings),
  }),
  fromData: (data) => (Buffer.isBuffer(data) ? decodeCharStrings(data, 'SPF') : stringsFromData(data, 'SPF')),
};
