/** Minimal DNS wire walking: where each record starts, without decoding RDATA (for TSIG's byte-exact MAC input). */

export class WireError extends Error {}

/** Offset just past the (possibly compressed) name at `offset`. */
export function skipName(buf: Buffer, offset: number): number {
  let o = offset;
  for (let guard = 0; guard < 128; guard++) {
    const len = buf[o];
    if (len === undefined) throw new WireError('name runs past the message');
    if (len === 0) return o + 1;
    if ((len & 0xc0) === 0xc0) return o + 2; // a pointer ends the name
    if (len & 0xc0) throw new WireError('bad label type');
    o += 1 + len;
  }
  throw new WireError('name too long');
}

/** Offsets of every resource record of the message (answers, authorities, additionals, in order). */
export function recordOffsets(buf: Buffer): { questionsEnd: number; records: number[]; end: number } {
  if (buf.length < 12) throw new WireError('message shorter than a header');
  const qd = buf.readUInt16BE(4);
  const rr = buf.readUInt16BE(6) + buf.readUInt16BE(8) + buf.readUInt16BE(10);
  let o = 12;
  for (let i = 0; i < qd; i++) o = skipName(buf, o) + 4;
  const questionsEnd = o;
  const records: number[] = [];
  for (let i = 0; i < rr; i++) {
    records.push(o);
    o = skipName(buf, o);
    if (o + 10 > buf.length) throw new WireError('record header runs past the message');
    o += 10 + buf.readUInt16BE(o + 8);
    if (o > buf.length) throw new WireError('record data runs past the message');
  }
  return { questionsEnd, records, end: o };
}

/** Canonical (lower-case, uncompressed) wire form of a name without trailing dot. */
export function nameToWire(name: string): Buffer {
  const parts = name === '' ? [] : name.toLowerCase().split('.');
  const out: Buffer[] = [];
  for (const p of parts) {
    const label = Buffer.from(p, 'ascii');
    out.push(Buffer.from([label.length]), label);
  }
  out.push(Buffer.from([0]));
  return Buffer.concat(out);
}

/** Reads an uncompressed or compressed name at `offset` as lower-case text without trailing dot. */
export function readName(buf: Buffer, offset: number): string {
  const labels: string[] = [];
  let o = offset;
  for (let guard = 0; guard < 128; guard++) {
    const len = buf[o];
    if (len === undefined) throw new WireError('name runs past the message');
    if (len === 0) return labels.join('.').toLowerCase();
    if ((len & 0xc0) === 0xc0) {
      o = buf.readUInt16BE(o) & 0x3fff;
      continue;
    }
    labels.push(buf.toString('ascii', o + 1, o + 1 + len));
    o += 1 + len;
  }
  throw new WireError('name too long');
}
