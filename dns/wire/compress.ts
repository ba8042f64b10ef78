/**
 * Name compression (RFC 1035 §4.1.4) of a whole message written with every name in full, as dns-packet writes it.
 * Every encoder of the server writes its messages uncompressed and passes them through here last, so that two
 * encoders giving the same uncompressed bytes still give the same compressed bytes.
 *
 * Compressed: question names, owner names, and the names inside the RDATA of the types RFC 3597 §4 lets a server
 * compress (the RFC 1035 types: NS, MD, MF, CNAME, SOA, MB, MG, MR, PTR, MINFO, MX) — what BIND 9 compresses too.
 * Names in the RDATA of any other type (SRV, NAPTR, DNAME, RRSIG, …) are written in full; those of SRV, DNAME, AFSDB,
 * RT and KX are pointed to by later names, as BIND 9.18 does (a DNAME's target then shortens the CNAME it
 * synthesises). A pointer only ever goes to a name written earlier in the message, at an offset below 0x4000; a suffix matches byte for byte (case
 * included), so every name decodes with the very case it was written with.
 *
 * A message this cannot walk (already compressed, a record running past the end, trailing bytes) comes back as it
 * was; a record of a compressible type whose RDATA is not the names and fields of its type is copied as it was.
 */

/** RDATA layout per compressible type: a name, or a run of fixed bytes. */
type Field = 'name' | number;
const COMPRESSIBLE = new Map<number, readonly Field[]>([
  [2, ['name']], // NS
  [3, ['name']], // MD
  [4, ['name']], // MF
  [5, ['name']], // CNAME
  [6, ['name', 'name', 20]], // SOA: MNAME, RNAME, five 32-bit fields
  [7, ['name']], // MB
  [8, ['name']], // MG
  [9, ['name']], // MR
  [12, ['name']], // PTR
  [14, ['name', 'name']], // MINFO
  [15, [2, 'name']], // MX
]);

/** RDATA layout of types whose names are written in full, but may be pointed to. */
const POINTED_TO = new Map<number, readonly Field[]>([
  [18, [2, 'name']], // AFSDB
  [21, [2, 'name']], // RT
  [33, [6, 'name']], // SRV
  [36, [2, 'name']], // KX
  [39, ['name']], // DNAME
]);

/** Where compressMessage writes (it is never re-entered: a message is compressed whole, at once). */
const SCRATCH = Buffer.allocUnsafe(65_536);

/** Highest offset a compression pointer can hold. */
const MAX_POINTER = 0x3fff;

/**
 * `src[start, end)` into `dst` at `at`. A message's pieces are a few bytes each, and Buffer#copy costs a call into
 * the runtime per piece (measured: 4.5 % of an uncached answer's CPU time): short ones are copied by a loop.
 */
function copyInto(src: Buffer, dst: Buffer, at: number, start: number, end: number): void {
  if (end - start > 32) {
    src.copy(dst, at, start, end);
    return;
  }
  for (let i = start; i < end; i++) dst[at++] = src[i] ?? 0;
}

/** Offset just past the uncompressed name at `offset` of `buf` (ending at or before `limit`), or -1 if not one. */
function nameEnd(buf: Buffer, offset: number, limit: number): number {
  let o = offset;
  for (;;) {
    if (o >= limit) return -1;
    const len = buf[o] ?? 0;
    if (len === 0) return o + 1 - offset > 255 ? -1 : o + 1;
    if (len > 63) return -1; // a pointer or an extended label type: not a message written in full
    o += len + 1;
  }
}

/** Label positions of one name (a name has at most 127 labels). */
const LABELS = new Int32Array(128);
/** Hash of the suffix starting at each label of LABELS. */
const HASHES = new Int32Array(128);

/**
 * Writes names into one message, each as the longest suffix already written, as a pointer. Suffixes are found by a
 * hash of their bytes and then compared byte for byte in the uncompressed message (where every name is whole): no
 * string is made per suffix (those were a tenth of an uncached answer's time).
 */
class NameWriter {
  /** Hash → first entry with it; entries chain through `next`. */
  private readonly heads = new Map<number, number>();
  private readonly start: number[] = [];
  private readonly end: number[] = [];
  private readonly at: number[] = [];
  private readonly next: number[] = [];

  constructor(
    private readonly src: Buffer,
    private readonly out: Buffer,
  ) {}

  /** Label positions of the name `src[start, end)` into LABELS and their suffix hashes into HASHES; the count. */
  private labels(start: number): number {
    const src = this.src;
    let count = 0;
    for (let o = start; (src[o] ?? 0) !== 0 && count < 128; o += (src[o] ?? 0) + 1) LABELS[count++] = o;
    let h = 0x811c9dc5;
    for (let i = count - 1; i >= 0; i--) {
      const o = LABELS[i] ?? 0;
      const len = src[o] ?? 0;
      for (let j = o; j <= o + len; j++) h = Math.imul(h ^ (src[j] ?? 0), 16777619);
      HASHES[i] = h;
    }
    return count;
  }

  /** Where the suffix `src[from, end)` was written, or -1. */
  private find(hash: number, from: number, end: number): number {
    const src = this.src;
    for (let e = this.heads.get(hash) ?? -1; e >= 0; e = this.next[e] ?? -1) {
      const s = this.start[e] ?? 0;
      if ((this.end[e] ?? 0) - s !== end - from) continue;
      let same = true;
      for (let k = 0; k < end - from && same; k++) same = src[s + k] === src[from + k];
      if (same) return this.at[e] ?? -1;
    }
    return -1;
  }

  private add(hash: number, from: number, end: number, at: number): void {
    const e = this.start.length;
    this.start.push(from);
    this.end.push(end);
    this.at.push(at);
    this.next.push(this.heads.get(hash) ?? -1);
    this.heads.set(hash, e);
  }

  /** Remembers the name `src[start, end)`, written in full at `at` of the output, for later names to point to. */
  remember(start: number, end: number, at: number): void {
    const count = this.labels(start);
    for (let i = 0; i < count; i++) {
      const o = LABELS[i] ?? 0;
      const w = at + (o - start);
      if (w > MAX_POINTER) break;
      const h = HASHES[i] ?? 0;
      if (this.find(h, o, end) < 0) this.add(h, o, end, w);
    }
  }

  /** Writes the name `src[start, end)` at `at` of the output; returns the offset after it. */
  write(start: number, end: number, at: number): number {
    const { src, out } = this;
    const count = this.labels(start);
    let w = at;
    let i = 0;
    let target = -1;
    for (; i < count; i++) {
      target = this.find(HASHES[i] ?? 0, LABELS[i] ?? 0, end);
      if (target >= 0) break;
    }
    // the labels before the suffix found (all of them when none was) are written out, then a pointer or the root
    const written = i;
    for (let k = 0; k < written; k++) {
      const o = LABELS[k] ?? 0;
      const len = (src[o] ?? 0) + 1;
      copyInto(src, out, w, o, o + len);
      w += len;
    }
    if (target >= 0) {
      out.writeUInt16BE(0xc000 | target, w);
      w += 2;
    } else out[w++] = 0;
    // remembered after: a name never points into itself
    for (let k = 0; k < written; k++) {
      const o = LABELS[k] ?? 0;
      const offset = at + (o - start);
      if (offset <= MAX_POINTER) this.add(HASHES[k] ?? 0, o, end, offset);
    }
    return w;
  }
}

/** `message` with its names compressed (see above); `message` itself when nothing could be compressed. */
export function compressMessage(message: Buffer): Buffer {
  const len = message.length;
  if (len < 12) return message;
  // written into one scratch buffer (the result is copied out at its own size anyway): no allocation per message
  const out = len <= SCRATCH.length ? SCRATCH : Buffer.allocUnsafe(len);
  copyInto(message, out, 0, 0, 12);
  const names = new NameWriter(message, out);
  let i = 12;
  let w = 12;
  const qdcount = message.readUInt16BE(4);
  for (let q = 0; q < qdcount; q++) {
    const end = nameEnd(message, i, len);
    if (end < 0 || end + 4 > len) return message;
    w = names.write(i, end, w);
    copyInto(message, out, w, end, end + 4);
    w += 4;
    i = end + 4;
  }
  const records = message.readUInt16BE(6) + message.readUInt16BE(8) + message.readUInt16BE(10);
  for (let r = 0; r < records; r++) {
    const end = nameEnd(message, i, len);
    if (end < 0 || end + 10 > len) return message;
    w = names.write(i, end, w);
    const type = message.readUInt16BE(end);
    const rdStart = end + 10;
    const rdEnd = rdStart + message.readUInt16BE(end + 8);
    if (rdEnd > len) return message;
    copyInto(message, out, w, end, rdStart); // TYPE, CLASS, TTL, RDLENGTH (rewritten below when RDATA shrinks)
    const lengthAt = w + 8;
    w += 10;
    const layout = COMPRESSIBLE.get(type);
    if (layout !== undefined && fits(message, rdStart, rdEnd, layout)) {
      const rdOut = w;
      let p = rdStart;
      for (const field of layout) {
        if (field === 'name') {
          const e = nameEnd(message, p, rdEnd);
          w = names.write(p, e, w);
          p = e;
        } else {
          copyInto(message, out, w, p, p + field);
          w += field;
          p += field;
        }
      }
      out.writeUInt16BE(w - rdOut, lengthAt);
    } else {
      copyInto(message, out, w, rdStart, rdEnd);
      const inFull = POINTED_TO.get(type);
      if (inFull !== undefined && fits(message, rdStart, rdEnd, inFull)) {
        const skip = inFull[0] === 'name' ? 0 : (inFull[0] ?? 0);
        names.remember(rdStart + skip, rdEnd, w + skip);
      }
      w += rdEnd - rdStart;
    }
    i = rdEnd;
  }
  if (i !== len) return message;
  // a copy of its own size: the answer cache keeps answers, and counts their bytes by length
  return w === len ? message : Buffer.from(out.subarray(0, w));
}

/** Whether `buf[start, end)` is exactly the fields of `layout`, names uncompressed. */
function fits(buf: Buffer, start: number, end: number, layout: readonly Field[]): boolean {
  let p = start;
  for (const field of layout) {
    p = field === 'name' ? nameEnd(buf, p, end) : p + field;
    if (p < 0 || p > end) return false;
  }
  return p === end;
}
