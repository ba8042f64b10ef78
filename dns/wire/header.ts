/** Header-level constants and helpers the server needs beyond what dns-packet exposes. */

export const FLAG_AA = 1 << 10;
export const FLAG_TC = 1 << 9;
export const FLAG_RD = 1 << 8;
export const FLAG_AD = 1 << 5;
export const FLAG_CD = 1 << 4;

export const RCODE = {
  NOERROR: 0,
  FORMERR: 1,
  SERVFAIL: 2,
  NXDOMAIN: 3,
  NOTIMP: 4,
  REFUSED: 5,
  YXDOMAIN: 6,
  YXRRSET: 7,
  NXRRSET: 8,
  NOTAUTH: 9,
  NOTZONE: 10,
} as const;
export type RcodeName = keyof typeof RCODE;

export const OPCODE = { QUERY: 0, NOTIFY: 4, UPDATE: 5 } as const;

/** Smallest UDP answer size every client accepts, and the EDNS payload size we offer (DNS flag day 2020). */
export const CLASSIC_UDP_SIZE = 512;
export const EDNS_UDP_SIZE = 1232;
/** The most a DNS message can be: its length must fit TCP's 2-byte prefix (RFC 1035 §4.2.2). */
export const MAX_MESSAGE = 65_535;

export function opcodeOf(raw: Buffer): number {
  return (raw.readUInt16BE(2) >> 11) & 0xf;
}

/** A header-only answer (no sections) for a packet we could not decode: same id and opcode, QR set, `rcode`. */
export function headerOnlyResponse(raw: Buffer, rcode: number): Buffer {
  const out = Buffer.alloc(12);
  out.writeUInt16BE(raw.readUInt16BE(0), 0);
  const flags = 0x8000 | (raw.readUInt16BE(2) & 0x7900) | (rcode & 0xf); // keep opcode and RD
  out.writeUInt16BE(flags, 2);
  return out;
}
