/**
 * Question names whose labels hold bytes our text form of names cannot (RFC 2181 §11: a label is any octets): a
 * "." inside a label (`a\.b.example`), or bytes that are not UTF-8 (`x\200y.example`). dns-packet reads names as
 * dot-joined UTF-8 text, so such a name would come back changed; and no name of ours can hold such a label (the
 * store's names are dot-joined text too), so a lookup of it is one of a name that does not exist: NXDOMAIN, or a
 * wildcard's records, or a DNAME above it.
 *
 * Such a question is answered as the same question with each such label replaced by a stand-in of the same length
 * made of one printable character that no name of the zone has there (so the lookup takes the same way), and the
 * stand-in's bytes in the answer are then put back to the asked ones. Names are written in full by our encoders, or
 * compressed to point at the question, so every name that came from the question name (the question, a wildcard's
 * owner, a DNAME's synthesized CNAME) holds the stand-in run of labels as it is.
 */
import type { ZoneIndex } from '../../zone';

/** Characters for stand-in labels: printable, not "." nor "*", and not allowed in names by the zone loader. */
const STAND_IN_CHARACTERS = [0x7e, 0x21, 0x23, 0x25, 0x5e, 0x7b, 0x7d, 0x3d]; // ~ ! # % ^ { } =

export interface StandIn {
  /** The message with the stand-in labels in its question name. */
  raw: Buffer;
  /** An answer computed for `raw` with the asked labels put back. */
  restore(message: Buffer): Buffer;
}

/** Does this label need a stand-in: a "." in it, or bytes that are not UTF-8? */
function isBinary(label: Buffer): boolean {
  if (label.includes(0x2e)) return true;
  if (!label.some((b) => b >= 0x80)) return false;
  return !Buffer.from(label.toString('utf8'), 'utf8').equals(label);
}

/**
 * The stand-in for a message whose (first) question name has labels that need one, or undefined: no question, a
 * compressed or malformed name, no such label, or no stand-in character free (then the caller answers FORMERR).
 */
export function standInFor(raw: Buffer, index: ZoneIndex): StandIn | undefined {
  if (raw.length < 13 || raw.readUInt16BE(4) === 0) return undefined;
  const labels: Array<[number, number]> = []; // [offset of the length byte, length]
  let o = 12;
  for (;;) {
    const length = raw[o];
    if (length === undefined || length > 63 || o + 1 + length > raw.length) return undefined;
    if (length === 0) break;
    labels.push([o, length]);
    o += 1 + length;
  }
  const binary = labels.map(([at, length]) => isBinary(raw.subarray(at + 1, at + 1 + length)));
  const first = binary.indexOf(true);
  if (first < 0) return undefined;
  const last = binary.lastIndexOf(true);
  const runStart = (labels[first] as [number, number])[0];
  const [lastAt, lastLength] = labels[last] as [number, number];
  const runEnd = lastAt + 1 + lastLength;
  for (const character of STAND_IN_CHARACTERS) {
    const copy = Buffer.from(raw);
    labels.forEach(([at, length], i) => {
      if (binary[i]) copy.fill(character, at + 1, at + 1 + length);
    });
    const text = labels.map(([at, length]) => copy.toString('latin1', at + 1, at + 1 + length).toLowerCase());
    const zone = index.find(text.join('.'));
    // the stand-in must name nothing in the zone, from each replaced label down
    if (zone && text.some((_, i) => binary[i] && zone.names.has(text.slice(i).join('.')))) continue;
    const asked = raw.subarray(runStart, runEnd);
    const standIn = Buffer.from(copy.subarray(runStart, runEnd));
    return { raw: copy, restore: (message) => replaceAll(message, standIn, asked) };
  }
  return undefined;
}

/** `message` with every occurrence of `from` (past the header) replaced by `to`, of the same length. */
function replaceAll(message: Buffer, from: Buffer, to: Buffer): Buffer {
  let at = message.indexOf(from, 12);
  if (at < 0) return message;
  const out = Buffer.from(message);
  while (at >= 0) {
    to.copy(out, at);
    at = message.indexOf(from, at + from.length);
  }
  return out;
}
