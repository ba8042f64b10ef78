import type { DecodedPacket, Question } from 'dns-packet';
import { decodeAnswer, decodeName, decodeQuestion, typeName } from './packet';

/**
 * Decoding of whole DNS messages that also holds for dynamic updates: RFC 2136 uses records with empty RDATA
 * (class ANY / NONE, "delete this RRset"), which dns-packet's message decoder misreads (it decodes an A record's
 * four bytes whatever the RDLENGTH says). Each record is framed by its own RDLENGTH here; dns-packet decodes the
 * RDATA only when there is some, and a decoder that reads a different length than declared is a FORMERR.
 */

export class FormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FormatError';
  }
}

/** A decoded record: `data` is null when the RDATA is empty (RRset and name deletions, prerequisites). */
export interface WireRecord {
  name: string;
  /** Mnemonic as dns-packet names it ('A', 'ANY', 'UNKNOWN_99', …). */
  type: string;
  /** 'IN', 'ANY', 'NONE', … */
  class: string;
  ttl: number;
  data: unknown;
  rdlength: number;
}

export interface Message extends Omit<DecodedPacket, 'answers' | 'authorities' | 'additionals'> {
  opcodeNumber: number;
  answers: WireRecord[];
  authorities: WireRecord[];
  additionals: WireRecord[];
}

const TSIG = 250;

/**
 * Names are handled as dns-packet's dotted text, which cannot hold every label: a "." inside a label would split
 * it in two, and bytes that are not UTF-8 would come back as U+FFFD (three other bytes). Such a name would be
 * echoed (or updated) as a different name, and a response with it cannot even be decoded: a FORMERR instead.
 * Call after dns-packet decoded the name at `offset` (so its labels and pointers are known to be in bounds).
 */
function checkNameText(buf: Buffer, offset: number): void {
  let o = offset;
  for (let hops = 0; hops < 256; hops++) {
    const len = buf[o];
    if (len === undefined) throw new FormatError('name runs past the message');
    if (len === 0) return;
    if ((len & 0xc0) === 0xc0) {
      o = buf.readUInt16BE(o) & 0x3fff;
      continue;
    }
    let ascii = true;
    for (const b of buf.subarray(o + 1, o + 1 + len)) {
      if (b === 0x2e) throw new FormatError('a label with a "." in it is not supported');
      if (b >= 0x80) ascii = false;
    }
    if (!ascii) {
      const label = buf.subarray(o + 1, o + 1 + len);
      if (!Buffer.from(label.toString('utf8'), 'utf8').equals(label))
        throw new FormatError('a label that is not UTF-8 is not supported');
    }
    o += 1 + len;
  }
  throw new FormatError('name too long');
}

/**
 * A TSIG record's RDATA (RFC 8945 §4.2) must hold its fields exactly: algorithm name, time signed (6), fudge (2),
 * MAC size (2), MAC, original ID (2), error (2), other length (2), other data. The TSIG check reads these fields
 * from the raw message, so a record that claims more than its RDATA holds is a FORMERR here, before it is read.
 */
function checkTsigRdata(buf: Buffer, start: number, end: number): void {
  let o = start;
  for (;;) {
    const len = o < end ? buf[o] : undefined;
    if (len === undefined) throw new FormatError('TSIG algorithm name runs past its RDATA');
    if (len === 0) {
      o += 1;
      break;
    }
    if ((len & 0xc0) === 0xc0) {
      o += 2;
      break;
    }
    if (len & 0xc0) throw new FormatError('TSIG algorithm name has a bad label type');
    o += 1 + len;
  }
  if (o + 10 > end) throw new FormatError('TSIG RDATA too short for its fixed fields');
  o += 10 + buf.readUInt16BE(o + 8);
  if (o + 6 > end) throw new FormatError('TSIG MAC runs past its RDATA');
  o += 6 + buf.readUInt16BE(o + 4);
  if (o !== end) throw new FormatError('TSIG RDATA length does not match its fields');
}

function decodeRecord(buf: Buffer, offset: number): { record: WireRecord; next: number } {
  const { value: owner, bytes: ownerBytes } = decodeName(buf, offset);
  const at = offset + ownerBytes;
  checkNameText(buf, offset);
  if (at + 10 > buf.length) throw new FormatError('record header runs past the message');
  const rdlength = buf.readUInt16BE(at + 8);
  const next = at + 10 + rdlength;
  if (next > buf.length) throw new FormatError('record data runs past the message');
  if (buf.readUInt16BE(at) === TSIG) checkTsigRdata(buf, at + 10, next);
  if (rdlength === 0 && buf.readUInt16BE(at) !== 41 /* OPT */) {
    const rawClass = buf.readUInt16BE(at + 2);
    const klass = rawClass === 255 ? 'ANY' : rawClass === 254 ? 'NONE' : rawClass === 1 ? 'IN' : `CLASS${rawClass}`;
    const type = typeName(buf.readUInt16BE(at));
    return { record: { name: owner, type, class: klass, ttl: buf.readUInt32BE(at + 4), data: null, rdlength }, next };
  }
  const decoded = decodeAnswer(buf, offset);
  const record = decoded.value as unknown as WireRecord;
  if (offset + decoded.bytes !== next) throw new FormatError(`${record.type} record data does not match its length`);
  if (buf.readUInt16BE(at + 2) === 254) record.class = 'NONE'; // dns-packet has no name for it
  record.rdlength = rdlength;
  return { record, next };
}

export function decodeMessage(buf: Buffer): Message {
  if (buf.length < 12) throw new FormatError('message shorter than a header');
  try {
    const flags = buf.readUInt16BE(2);
    const qdcount = buf.readUInt16BE(4);
    let offset = 12;
    const questions: Question[] = [];
    for (let i = 0; i < qdcount; i++) {
      const { value: question, bytes } = decodeQuestion(buf, offset);
      checkNameText(buf, offset);
      // dns-packet names only classes IN, CS, CH, HS and ANY; any other it would echo as class 0, a different question
      if (String(question.class).startsWith('UNKNOWN_'))
        throw new FormatError(`question class ${String(question.class).slice(8)} is not supported`);
      questions.push(question);
      offset += bytes;
      if (offset > buf.length) throw new FormatError('question runs past the message');
    }
    const answers: WireRecord[] = [];
    const authorities: WireRecord[] = [];
    const additionals: WireRecord[] = [];
    // ANCOUNT, NSCOUNT, ARCOUNT: at header offsets 6, 8 and 10
    for (const [countAt, section] of [
      [6, answers],
      [8, authorities],
      [10, additionals],
    ] as const) {
      for (let i = buf.readUInt16BE(countAt); i > 0; i--) {
        const { record, next } = decodeRecord(buf, offset);
        section.push(record);
        offset = next;
      }
    }
    const opcodeNumber = (flags >> 11) & 0xf;
    return {
      id: buf.readUInt16BE(0),
      type: flags & 0x8000 ? 'response' : 'query',
      flags: flags & 0x7fff,
      opcodeNumber,
      flag_qr: (flags & 0x8000) !== 0,
      flag_aa: (flags & 0x400) !== 0,
      flag_tc: (flags & 0x200) !== 0,
      flag_rd: (flags & 0x100) !== 0,
      flag_ra: (flags & 0x80) !== 0,
      flag_z: (flags & 0x40) !== 0,
      flag_ad: (flags & 0x20) !== 0,
      flag_cd: (flags & 0x10) !== 0,
      questions,
      answers,
      authorities,
      additionals,
    };
  } catch (err) {
    if (err instanceof FormatError) throw err;
    throw new FormatError(`malformed message: ${(err as Error).message}`);
  }
}
