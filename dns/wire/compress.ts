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

/** Per type code below 256, its layout in `table` (the other types have none here). */
function byType(table: ReadonlyMap<number, readonly Field[]>): ReadonlyArray<readonly Field[] | undefined> {
  const out = new Array<readonly Field[] | undefined>(256).fill(undefined);
  for (const [type, layout] of table) out[type] = layout;
  return out;
}
const COMPRESSIBLE_BY_TYPE = byType(COMPRESSIBLE);
const POINTED_TO_BY_TYPE = byType(POINTED_TO);

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
/** Slots of a NameWriter's hash table (a power of two; a message has a few dozen suffixes, rarely thousands). */
const SLOTS = 256;

/**
 * Writes names into one message, each as the longest suffix already written, as a pointer. Suffixes are found by a
 * hash of their bytes and then compared byte for byte with the uncompressed name they came from (every name is
 * whole there): no string is made per suffix (those were a tenth of an uncached answer's time). A name may come
 * from any buffer that stays unchanged while the message is written.
 */
class NameWriter {
  /**
   * Hash table of suffixes: slot (low bits of the hash) → first entry, valid in the message whose number is in
   * `stamps` (so a new message needs no clearing); entries chain through `next` and hold the hash, where the
   * suffix is in full (`src`, `start`, `end`) and where it was written (`at`).
   */
  private readonly heads = new Int32Array(SLOTS);
  private readonly stamps = new Int32Array(SLOTS);
  private message = 1;
  private count = 0;
  private readonly src: Buffer[] = [];
  private hash = new Int32Array(64);
  private start = new Int32Array(64);
  private end = new Int32Array(64);
  private at = new Int32Array(64);
  private next = new Int32Array(64);

  /** Forgets every name (a new message begins). */
  reset(): void {
    this.count = 0;
    if (++this.message > 0x3fffffff) {
      this.message = 1;
      this.stamps.fill(0);
    }
  }

  /** Label positions of the name at `src[start]` into LABELS and their suffix hashes into HASHES; the count. */
  private labels(src: Buffer, start: number): number {
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
  private find(hash: number, src: Buffer, from: number, end: number): number {
    const slot = hash & (SLOTS - 1);
    if (this.stamps[slot] !== this.message) return -1;
    for (let e = this.heads[slot] ?? -1; e >= 0; e = this.next[e] ?? -1) {
      if (this.hash[e] !== hash) continue;
      const s = this.start[e] ?? 0;
      if ((this.end[e] ?? 0) - s !== end - from) continue;
      const other = this.src[e] as Buffer;
      let same = true;
      for (let k = 0; k < end - from && same; k++) same = other[s + k] === src[from + k];
      if (same) return this.at[e] ?? -1;
    }
    return -1;
  }

  private add(hash: number, src: Buffer, from: number, end: number, at: number): void {
    const e = this.count++;
    if (e === this.start.length) this.grow();
    const slot = hash & (SLOTS - 1);
    this.src[e] = src;
    this.hash[e] = hash;
    this.start[e] = from;
    this.end[e] = end;
    this.at[e] = at;
    this.next[e] = this.stamps[slot] === this.message ? (this.heads[slot] ?? -1) : -1;
    this.heads[slot] = e;
    this.stamps[slot] = this.message;
  }

  private grow(): void {
    const grown = (a: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> => {
      const b = new Int32Array(a.length * 2);
      b.set(a);
      return b;
    };
    this.hash = grown(this.hash);
    this.start = grown(this.start);
    this.end = grown(this.end);
    this.at = grown(this.at);
    this.next = grown(this.next);
  }

  /** Remembers the name `src[start, end)`, written in full at `at` of the output, for later names to point to. */
  remember(src: Buffer, start: number, end: number, at: number): void {
    const count = this.labels(src, start);
    for (let i = 0; i < count; i++) {
      const o = LABELS[i] ?? 0;
      const w = at + (o - start);
      if (w > MAX_POINTER) break;
      const h = HASHES[i] ?? 0;
      if (this.find(h, src, o, end) < 0) this.add(h, src, o, end, w);
    }
  }

  /** Writes the name `src[start, end)` at `at` of `out`; returns the offset after it. */
  write(src: Buffer, start: number, end: number, out: Buffer, at: number): number {
    const count = this.labels(src, start);
    let w = at;
    let i = 0;
    let target = -1;
    for (; i < count; i++) {
      target = this.find(HASHES[i] ?? 0, src, LABELS[i] ?? 0, end);
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
      if (offset <= MAX_POINTER) this.add(HASHES[k] ?? 0, src, o, end, offset);
    }
    return w;
  }
}

/**
 * Writes one message with its names compressed (see above), piece by piece from buffers holding them in full: the
 * pieces of a message dns-packet wrote, or the cached wire forms of names and records. Both give the same bytes for
 * the same uncompressed message. Reused from message to message (`begin`); not re-entered.
 */
export class CompressedWriter {
  private readonly names = new NameWriter();
  /** Where the next byte goes. */
  at = 0;
  /** The buffer being written. */
  out: Buffer;

  /** `scratch`: where messages go unless `begin` is given a buffer of their own. */
  constructor(private readonly scratch: Buffer) {
    this.out = scratch;
  }

  /**
   * Starts a new message: nothing written, no name to point to. `out`: a buffer large enough for the message in
   * full, which the result is then a part of (instead of a copy out of the scratch).
   */
  begin(out: Buffer = this.scratch): void {
    this.names.reset();
    this.out = out;
    this.at = 0;
  }

  /** `src[start, end)` as it is (header fields, a question's type and class). */
  bytes(src: Buffer, start: number, end: number): void {
    copyInto(src, this.out, this.at, start, end);
    this.at += end - start;
  }

  /** The uncompressed name `src[start, end)`, compressed. */
  name(src: Buffer, start: number, end: number): void {
    this.at = this.names.write(src, start, end, this.out, this.at);
  }

  /** A pointer to the name written in full at `offset` (the question's, at 12): what `name` writes for it again. */
  pointer(offset: number): void {
    this.out.writeUInt16BE(0xc000 | offset, this.at);
    this.at += 2;
  }

  /**
   * A record after its owner name: TYPE, CLASS, TTL and RDLENGTH at `src[fixed]`, its RDATA after them up to `end`.
   * Names in the RDATA of a compressible type are compressed (RDLENGTH rewritten); those of the types later names
   * may point to are remembered.
   */
  record(src: Buffer, fixed: number, end: number): void {
    const out = this.out;
    const type = src.readUInt16BE(fixed);
    const rdStart = fixed + 10;
    copyInto(src, out, this.at, fixed, rdStart); // RDLENGTH rewritten below when RDATA shrinks
    const lengthAt = this.at + 8;
    this.at += 10;
    const layout = type < 256 ? COMPRESSIBLE_BY_TYPE[type] : undefined;
    if (layout !== undefined && fits(src, rdStart, end, layout)) {
      const rdOut = this.at;
      let p = rdStart;
      for (const field of layout) {
        if (field === 'name') {
          const e = nameEnd(src, p, end);
          this.at = this.names.write(src, p, e, out, this.at);
          p = e;
        } else {
          copyInto(src, out, this.at, p, p + field);
          this.at += field;
          p += field;
        }
      }
      out.writeUInt16BE(this.at - rdOut, lengthAt);
      return;
    }
    copyInto(src, out, this.at, rdStart, end);
    const inFull = type < 256 ? POINTED_TO_BY_TYPE[type] : undefined;
    if (inFull !== undefined && fits(src, rdStart, end, inFull)) {
      const skip = inFull[0] === 'name' ? 0 : (inFull[0] ?? 0);
      this.names.remember(src, rdStart + skip, end, this.at + skip);
    }
    this.at += end - rdStart;
  }

  /** What was written, in a buffer of its own size (the answer cache keeps answers and counts their bytes). */
  result(): Buffer {
    if (this.out !== this.scratch) return this.out.subarray(0, this.at);
    const copy = Buffer.allocUnsafe(this.at);
    this.out.copy(copy, 0, 0, this.at);
    return copy;
  }
}

const MESSAGE = new CompressedWriter(SCRATCH);

/** `message` with its names compressed (see above); `message` itself when nothing could be compressed. */
export function compressMessage(message: Buffer): Buffer {
  const len = message.length;
  if (len < 12) return message;
  // written into one scratch buffer (the result is copied out at its own size anyway): no allocation per message
  const writer = len <= SCRATCH.length ? MESSAGE : new CompressedWriter(Buffer.allocUnsafe(len));
  writer.begin();
  writer.bytes(message, 0, 12);
  let i = 12;
  const qdcount = message.readUInt16BE(4);
  for (let q = 0; q < qdcount; q++) {
    const end = nameEnd(message, i, len);
    if (end < 0 || end + 4 > len) return message;
    writer.name(message, i, end);
    writer.bytes(message, end, end + 4);
    i = end + 4;
  }
  const records = message.readUInt16BE(6) + message.readUInt16BE(8) + message.readUInt16BE(10);
  for (let r = 0; r < records; r++) {
    const end = nameEnd(message, i, len);
    if (end < 0 || end + 10 > len) return message;
    const rdEnd = end + 10 + message.readUInt16BE(end + 8);
    if (rdEnd > len) return message;
    writer.name(message, i, end);
    writer.record(message, end, rdEnd);
    i = rdEnd;
  }
  if (i !== len) return message;
  return writer.at === len ? message : writer.result();
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
