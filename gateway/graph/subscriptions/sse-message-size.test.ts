import { print, type ExecutionResult } from 'graphql-sse';
import { jsonBytes, nextMessageBytes } from './sse-message-size';

/** The count must match graphql-sse's own printing byte for byte: a stream's unsent count would drift otherwise. */
describe('nextMessageBytes', () => {
  const results = [
    { data: { prices: { ticker: 'AAPL:NASDAQ', price: 1.5 } } },
    { data: { quote: { name: 'Türk Hava Yolları — ünlü', note: '"quoted" \\ \u2028 🚀' } } },
    { data: null, errors: [{ message: 'nope', extensions: { code: 'X' } }] },
  ] as unknown as ExecutionResult[];
  test.each(results)('distinct-connections mode: %j', (result) => {
    expect(nextMessageBytes(result, null)).toBe(Buffer.byteLength(print({ event: 'next', data: result })));
  });
  test.each(results)('single-connection mode: %j', (result) => {
    for (const id of ['1', 'a0b1-Ω', '"x"']) {
      expect(nextMessageBytes(result, id)).toBe(
        Buffer.byteLength(print({ event: 'next', data: { id, payload: result } })),
      );
    }
  });
  test('a result object is measured once (its size is remembered by identity)', () => {
    const result = { data: { n: 1 } };
    const first = jsonBytes(result);
    result.data.n = 123_456; // a result is never changed after it is sent; the cache shows it is not measured again
    expect(jsonBytes(result)).toBe(first);
  });
});
