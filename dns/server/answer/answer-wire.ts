import { CompressedWriter, DNSSEC_OK, EDNS_UDP_SIZE, encodeAnswer, encodeName, MAX_MESSAGE } from '../../wire';
import { ORIGIN, type Resolution, type RR } from '../../zone';

/**
 * Encoding of answers to plain queries without going through dns-packet's whole-message encoder, producing the very
 * bytes `encodeResponse` produces. That one has dns-packet write the message with every name in full and compresses
 * it after; this one writes the same parts, compressed as it goes, with the same writer (wire/compress.ts), so the
 * bytes are the same:
 * - the question section and the owner names equal to the name asked are the query's own bytes (only for names
 *   whose bytes dns-packet decodes and encodes back unchanged: see `plainName`);
 * - each record after its owner name (TYPE, CLASS, TTL, RDLENGTH, RDATA) is encoded once by dns-packet and kept
 *   (a copy made to answer under another owner shares the wire form of the record it copies);
 * - other owner names are encoded once by dns-packet and kept.
 * A record or name dns-packet encodes into fewer bytes than it allocates (malformed data) makes
 * `PlainAnswerEncoder.encode` give up: the caller then encodes with dns-packet.
 *
 * Bytes of the query are read at offsets its scan (plain-query.ts) checked: the `?? 0` after each read never applies.
 */

/** The sections of an answer, as resolve() gives them. */
export type AnswerSections = Pick<Resolution, 'answers' | 'authorities' | 'additionals'>;

const MAX_NAMES = 20_000;
/** Answers up to this size (in full) are written into a buffer of their own: Node's pool serves them cheaply. */
const OWN_BUFFER = 1024;

/**
 * Whether the name at offset 12 of `raw` (ending at `nameEnd`, past its root label) comes back unchanged from
 * dns-packet's decoding and encoding: every label byte printable ASCII other than '.' (no UTF-8 to re-encode, no dot
 * to split on, no line end for its trailing-dot pattern).
 */
export function plainName(raw: Buffer, nameEnd: number): boolean {
  for (let o = 12; o < nameEnd - 1;) {
    const len = raw[o] ?? 0;
    for (let i = o + 1; i <= o + len; i++) {
      const c = raw[i] ?? 0;
      if (c < 0x21 || c > 0x7e || c === 0x2e) return false;
    }
    o += len + 1;
  }
  return true;
}

/**
 * The plain-query encoder with what it keeps between answers: the wire form of records and owner names, and
 * scratch space (one per responder, so nothing is shared between servers in one process).
 */
export class PlainAnswerEncoder {
  /** What follows the owner name, per record; null when dns-packet's encoding of it is not self-consistent. */
  private readonly tails = new WeakMap<object, Buffer | null>();
  /** Owner names other than the one asked, encoded; emptied when full. */
  private readonly names = new Map<string, Buffer | null>();
  private readonly textScratch = Buffer.alloc(256);
  /** Writes each message, compressed, into its scratch space (the result is copied out at its own size). */
  private readonly writer = new CompressedWriter(Buffer.allocUnsafe(MAX_MESSAGE));
  /** The OPT record: root owner, type 41, our payload size, then extended rcode, version, flags and no options. */
  private readonly opt = Buffer.from([0, 0, 41, EDNS_UDP_SIZE >> 8, EDNS_UDP_SIZE & 0xff, 0, 0, 0, 0, 0, 0]);
  private readonly owners: Array<Buffer | null> = [];
  private readonly wires: Array<Buffer | null> = [];

  private tailOf(rr: RR): Buffer | null {
    const record = (rr as { [ORIGIN]?: RR })[ORIGIN] ?? rr;
    let tail = this.tails.get(record);
    if (tail === undefined) {
      const wire = encodeAnswer({ ...record, name: '.' });
      tail = wire === null ? null : wire.subarray(1);
      this.tails.set(record, tail);
    }
    return tail;
  }

  private nameWire(name: string): Buffer | null {
    let wire = this.names.get(name);
    if (wire === undefined) {
      wire = encodeName(name);
      if (this.names.size >= MAX_NAMES) this.names.clear();
      this.names.set(name, wire);
    }
    return wire;
  }

  /**
   * The name at offset 12 of `raw` as dns-packet decodes it (for a `plainName`): labels joined by dots, '.' for the
   * root.
   */
  nameText(raw: Buffer, nameEnd: number): string {
    if (nameEnd === 13) return '.';
    // the name's bytes after the first length byte, with every later length byte made a dot, read at once
    const text = this.textScratch;
    let next = 12 + (raw[12] ?? 0) + 1;
    for (let o = 13; o < nameEnd - 1; o++)
      text[o - 13] = o === next ? ((next += (raw[o] ?? 0) + 1), 0x2e) : (raw[o] ?? 0);
    return text.toString('latin1', 0, nameEnd - 14);
  }

  /**
   * The response to a plain query (header and question from `raw`, whose question name is a `plainName` ending at
   * `nameEnd` and whose question section ends at `questionEnd`), byte for byte as `encodeResponse` writes it;
   * undefined when a record or name cannot be written this way. `edns`: 0 none, 1 EDNS, 2 EDNS with DO.
   */
  encode(
    raw: Buffer,
    nameEnd: number,
    questionEnd: number,
    qname: string,
    result: AnswerSections,
    rcode: number,
    extraFlags: number,
    edns: number,
  ): Buffer | undefined {
    const sections = [result.answers, result.authorities, result.additionals];
    const nameLength = nameEnd - 12;
    const owners = this.owners;
    const wires = this.wires;
    let count = 0;
    let size = questionEnd + (edns ? 11 : 0);
    for (const section of sections) {
      for (const rr of section) {
        const owner = rr.name === qname ? null : this.nameWire(rr.name);
        const tail = this.tailOf(rr);
        if (tail === null || (owner === null && rr.name !== qname)) return undefined;
        owners[count] = owner;
        wires[count] = tail;
        count++;
        size += (owner === null ? nameLength : owner.length) + tail.length;
      }
    }
    if (size > MAX_MESSAGE) return undefined; // too large for a DNS message: encodeResponse cuts it to what fits
    // written compressed in one pass: the bytes compressMessage makes of the message written in full
    const writer = this.writer;
    // small answers go straight into a buffer of their own (from Node's pool), larger ones through the scratch
    writer.begin(size <= OWN_BUFFER ? Buffer.allocUnsafe(size) : undefined);
    const out = writer.out;
    out[0] = raw[0] ?? 0;
    out[1] = raw[1] ?? 0;
    // QR, the query's opcode, RD and CD, then AA/TC as given, and the rcode (as encodeResponse: 15 bits and QR)
    const flags = 0x8000 | ((((((raw[2] ?? 0) << 8) | (raw[3] ?? 0)) & 0x7910) | extraFlags | (rcode & 0xf)) & 0x7fff);
    out.writeUInt16BE(flags, 2);
    out.writeUInt16BE(1, 4);
    out.writeUInt16BE(result.answers.length, 6);
    out.writeUInt16BE(result.authorities.length, 8);
    out.writeUInt16BE(result.additionals.length + (edns ? 1 : 0), 10);
    writer.at = 12;
    writer.name(raw, 12, nameEnd);
    writer.bytes(raw, nameEnd, questionEnd);
    for (let i = 0; i < count; i++) {
      const owner = owners[i] ?? null;
      // the name asked, written first at 12, is where a name equal to it points (the root is one byte: no pointer)
      if (owner !== null) writer.name(owner, 0, owner.length);
      else if (nameLength === 1) writer.bytes(raw, 12, 13);
      else writer.pointer(12);
      const tail = wires[i];
      if (tail) writer.record(tail, 0, tail.length);
      owners[i] = null;
      wires[i] = null;
    }
    if (edns) {
      // OPT: root owner, our payload size, extended rcode, version 0, the DO bit echoed, no options
      const opt = this.opt;
      opt[5] = rcode >> 4;
      opt.writeUInt16BE(edns === 2 ? DNSSEC_OK : 0, 7);
      writer.bytes(opt, 0, opt.length);
    }
    return writer.result();
  }
}
