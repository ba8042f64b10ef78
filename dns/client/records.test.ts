import { decodeResponse } from './records';

/**
 * DNSSEC types dns-packet does not present (CDS, CDNSKEY, NSEC3, NSEC3PARAM) decoded from their RDATA as dig writes
 * them; RDATA that does not parse as its type passes through in RFC 3597 generic form. (Real records from BIND:
 * subgraphs/dns-tool/tool/rows.test.ts.)
 */

/** A response holding one answer record at `a.test.` of type `code` with `rdata`. */
function response(code: number, rdata: Buffer): Buffer {
  const header = Buffer.from([0, 1, 0x84, 0, 0, 0, 0, 1, 0, 0, 0, 0]);
  const owner = Buffer.from([1, 0x61, 4, ...Buffer.from('test'), 0]);
  const fixed = Buffer.alloc(10);
  fixed.writeUInt16BE(code, 0);
  fixed.writeUInt16BE(1, 2);
  fixed.writeUInt32BE(300, 4);
  fixed.writeUInt16BE(rdata.length, 8);
  return Buffer.concat([header, owner, fixed, rdata]);
}

const only = (code: number, rdata: Buffer) => {
  const [record, ...more] = decodeResponse(response(code, rdata)).answers;
  expect(more).toEqual([]);
  return record;
};

/** A SHA-1 sized hash, bytes 0x00…0x13, and its base32hex (RFC 4648 §7, as Python's base64.b32hexencode gives it). */
const HASH = Buffer.from(Array.from({ length: 20 }, (_, i) => i));
const HASH_B32 = '000G40O40K30E209185GO38E1S8124GJ';

test('NSEC3: hash algorithm, flags, iterations, salt (- when empty), next hashed owner in base32hex, types', () => {
  // window 0: A (1), NS (2), SOA (6), RRSIG (46), DNSKEY (48), NSEC3PARAM (51); window 0 bit 59/60: CDS, CDNSKEY
  const bitmap = Buffer.alloc(2 + 8);
  bitmap[1] = 8;
  for (const t of [1, 2, 6, 46, 48, 51, 59, 60]) bitmap[2 + (t >> 3)] = (bitmap[2 + (t >> 3)] ?? 0) | (0x80 >> (t & 7));
  const noSalt = Buffer.concat([Buffer.from([1, 1, 0, 0, 0, 20]), HASH, bitmap]);
  expect(only(50, noSalt)).toEqual({
    name: 'a.test',
    type: 'NSEC3',
    ttl: 300,
    value: `1 1 0 - ${HASH_B32} A NS SOA RRSIG DNSKEY NSEC3PARAM CDS CDNSKEY`,
  });
  const salted = Buffer.concat([Buffer.from([1, 0, 0, 10, 2, 0xab, 0x01, 20]), HASH]);
  expect(only(50, salted)?.value).toBe(`1 0 10 AB01 ${HASH_B32}`); // an empty non-terminal: no type
});

test('NSEC3: a type without a mnemonic as TYPE<n>, one of a later window by its name', () => {
  // window 0 length 1: type 7 is MB; window 1 (256…): 256 URI, 262 has no name
  const bitmap = Buffer.from([0, 1, 0x01, 1, 1, 0x82]);
  const rdata = Buffer.concat([Buffer.from([1, 0, 0, 0, 0, 20]), HASH, bitmap]);
  expect(only(50, rdata)?.value).toBe(`1 0 0 - ${HASH_B32} MB URI TYPE262`);
});

test('NSEC3PARAM, CDS and CDNSKEY as dig writes them (CDS as a DS, CDNSKEY as a DNSKEY)', () => {
  expect(only(51, Buffer.from([1, 0, 0, 0, 0]))?.value).toBe('1 0 0 -');
  expect(only(51, Buffer.from([1, 0, 0, 5, 1, 0xff]))?.value).toBe('1 0 5 FF');
  const digest = Buffer.from('cbe168d69c036476c99c5c899ea505efb85340ceec2927d135718dfb0de3ce25', 'hex');
  expect(only(59, Buffer.concat([Buffer.from([0xaf, 0x24, 13, 2]), digest]))).toMatchObject({
    type: 'CDS',
    value: `44836 13 2 ${digest.toString('hex').toUpperCase()}`,
  });
  expect(only(59, Buffer.from([0, 0, 0, 0, 0]))?.value).toBe('0 0 0 00'); // RFC 8078 §4: delete the DS
  const key = Buffer.alloc(64, 7);
  const base64 = key.toString('base64');
  expect(only(60, Buffer.concat([Buffer.from([1, 1, 3, 13]), key]))).toMatchObject({
    type: 'CDNSKEY',
    value: `257 3 13 ${base64.slice(0, 56)} ${base64.slice(56)}`,
  });
  expect(only(60, Buffer.from([0, 0, 3, 0, 0]))?.value).toBe('0 3 0 AA=='); // RFC 8078 §4: delete the DNSSEC keys
});

// (a malformed NSEC3 fails the whole message in the wire decoder, dns-packet's, before it gets here)
test('RDATA too short or inconsistent for its type passes through in generic form', () => {
  expect(only(51, Buffer.from([1, 0, 0, 0, 3, 0xaa]))).toMatchObject({ type: 'TYPE51', value: '\\# 6 0100000003aa' });
  expect(only(59, Buffer.from([0, 1, 13]))).toMatchObject({ type: 'TYPE59', value: '\\# 3 00010d' });
});
