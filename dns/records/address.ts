/** A and AAAA: IPv4 in dotted-quad form, IPv6 in the canonical form of RFC 5952. */
import type { Answer } from 'dns-packet';
import { type TypeCodec, type ParseContext } from './codec';
import { RecordValueError, show } from './errors';

/** One decimal octet of a dotted quad: 1-3 digits, no leading zero, at most 255; undefined otherwise. */
function decimalOctet(text: string): number | undefined {
  if (!/^[0-9]{1,3}$/.test(text) || (text.length > 1 && text.startsWith('0'))) return undefined;
  const n = Number(text);
  return n <= 255 ? n : undefined;
}

/** The four octets of a dotted-quad IPv4 address (decimal, no leading zeros), or null. */
export function parseIPv4(text: string): [number, number, number, number] | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  const [a, b, c, d] = parts.map(decimalOctet);
  return a === undefined || b === undefined || c === undefined || d === undefined ? null : [a, b, c, d];
}

/** The eight 16-bit groups of an IPv6 address (hex groups, `::`, trailing dotted quad; no zone index), or null. */
export function parseIPv6(text: string): number[] | null {
  const halves = text.split('::');
  const [first, second] = halves;
  if (first === undefined || halves.length > 2) return null;
  const parseSide = (side: string, last: boolean): number[] | null => {
    if (side === '') return [];
    const parts = side.split(':');
    const out: number[] = [];
    for (const [i, p] of parts.entries()) {
      if (last && i === parts.length - 1 && p.includes('.')) {
        const v4 = parseIPv4(p);
        if (!v4) return null;
        out.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]);
      } else if (/^[0-9a-fA-F]{1,4}$/.test(p)) {
        out.push(parseInt(p, 16));
      } else return null;
    }
    return out;
  };
  if (second === undefined) {
    const all = parseSide(first, true);
    return all && all.length === 8 ? all : null;
  }
  const head = parseSide(first, false);
  const tail = parseSide(second, true);
  if (!head || !tail || head.length + tail.length > 7) return null;
  return [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
}

/** RFC 5952 §4: lower-case hex, no leading zeros, the longest run (leftmost on a tie) of ≥ 2 zero groups as `::`. */
export function formatIPv6(groups: number[]): string {
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestLen < 2) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}

/** Canonical IPv6 text, or null when `text` is not an IPv6 address. */
export function canonicalIPv6(text: string): string | null {
  const g = parseIPv6(text);
  return g ? formatIPv6(g) : null;
}

function single(ctx: ParseContext, usage: string): string {
  const t = ctx.text.trim();
  if (t === '') throw new RecordValueError(`${ctx.type} value must be ${usage} (got "")`);
  return t;
}

const A_USAGE = 'an IPv4 address in dotted-quad form like 192.0.2.1';
const AAAA_USAGE = 'an IPv6 address like 2001:db8::1';

export const A: TypeCodec<string> = {
  usage: A_USAGE,
  parse(ctx) {
    const t = single(ctx, A_USAGE);
    const v4 = parseIPv4(t);
    if (!v4) {
      const hint = parseIPv6(t) ? ' — an IPv6 address belongs in an AAAA record' : '';
      throw new RecordValueError(
        `A value must be ${A_USAGE}, four numbers 0-255 without leading zeros (got ${JSON.stringify(ctx.text)})${hint}`,
      );
    }
    return v4.join('.');
  },
  format: (v) => v,
  toAnswer: (v, base): Answer => ({ name: base.name, ttl: base.ttl, class: base.class, type: 'A', data: v }),
  fromData(data) {
    if (typeof data === 'string' && parseIPv4(data)) return data;
    throw new RecordValueError(`A data from the wire is not an IPv4 address (got ${show(data)})`);
  },
};

export const AAAA: TypeCodec<string> = {
  usage: AAAA_USAGE,
  parse(ctx) {
    const t = single(ctx, AAAA_USAGE);
    const v6 = canonicalIPv6(t);
    if (!v6) {
      const hint = parseIPv4(t)
        ? ' — an IPv4 address belongs in an A record'
        : t.includes('%')
          ? ' — zone indexes (%…) are not allowed'
          : '';
      throw new RecordValueError(`AAAA value must be ${AAAA_USAGE} (got ${JSON.stringify(ctx.text)})${hint}`);
    }
    return v6;
  },
  format: (v) => v,
  toAnswer: (v, base): Answer => ({ name: base.name, ttl: base.ttl, class: base.class, type: 'AAAA', data: v }),
  fromData(data) {
    const v6 = typeof data === 'string' ? canonicalIPv6(data) : null;
    if (v6) return v6;
    throw new RecordValueError(`AAAA data from the wire is not an IPv6 address (got ${show(data)})`);
  },
};
