import { u16, u32, u48 } from './integers';

test('big-endian integers of 2, 4 and 6 bytes, as the DNS wire writes them', () => {
  expect(u16(0x1234).toString('hex')).toBe('1234');
  expect(u16(65535).toString('hex')).toBe('ffff');
  expect(u32(0x89abcdef).toString('hex')).toBe('89abcdef');
  expect(u32(2 ** 32 + 5).toString('hex')).toBe('00000005'); // modulo 2^32, like serial arithmetic
  expect(u48(1_700_000_000).toString('hex')).toBe('00006553f100');
  expect(u48(2 ** 40 + 1).toString('hex')).toBe('010000000001');
});
