/** The in-memory order must agree with the databases' (UTF-8 byte order). */
import fc from 'fast-check';
import { cmp } from './order';

test('cmp is UTF-8 byte order', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), (a, b) => {
      expect(Math.sign(cmp(a, b))).toBe(Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b))));
    }),
    { numRuns: 2000 },
  );
});
