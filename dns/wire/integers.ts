/**
 * Big-endian integers as the DNS wire writes them (RFC 1035 §2.3.2): the one copy the message builders of the
 * client and TSIG (and tests that build messages by hand) share.
 */

/** Two bytes (types, classes, counts, lengths, IDs). */
export function u16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n, 0);
  return b;
}

/** Four bytes (TTLs, serials); taken modulo 2^32. */
export function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0, 0);
  return b;
}

/** Six bytes (TSIG's time signed, RFC 8945 §4.2). */
export function u48(n: number): Buffer {
  const b = Buffer.alloc(6);
  b.writeUInt16BE(Math.floor(n / 2 ** 32), 0);
  b.writeUInt32BE(n % 2 ** 32, 2);
  return b;
}
