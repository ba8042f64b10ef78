import { nextSerial } from './serial-policy';

test('nextSerial: the UTC date·100 when newer than the serial, else serial + 1', () => {
  expect(nextSerial(2024030599, new Date('2024-03-05T23:59:59Z'))).toBe(2024030600);
  expect(nextSerial(2024030512, new Date('2024-03-06T00:00:00Z'))).toBe(2024030600);
  expect(nextSerial(2024030512, new Date('2024-03-05T23:00:00-05:00'))).toBe(2024030600); // 04:00 UTC on the 6th
  expect(nextSerial(2024123100, new Date('2024-01-01T00:00:00Z'))).toBe(2024123101);
});
