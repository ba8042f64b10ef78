import fc from 'fast-check';
import { InvalidTickerError, parseTicker } from './tickers';

test('exchange and pair forms parse and normalise to upper case', () => {
  expect(parseTicker('aapl:nasdaq')).toEqual({
    form: 'exchange',
    ticker: 'AAPL:NASDAQ',
    symbol: 'AAPL',
    exchange: 'NASDAQ',
  });
  expect(parseTicker('.DJI:INDEXDJX')).toMatchObject({ form: 'exchange', symbol: '.DJI' });
  expect(parseTicker('BRK.B:NYSE')).toMatchObject({ symbol: 'BRK.B' });
  expect(parseTicker('btc-usd')).toEqual({ form: 'pair', ticker: 'BTC-USD', base: 'BTC', quote: 'USD' });
});

test.each([
  ['', /it is empty/],
  ['AAPL', /not in either allowed form/],
  ['AAPL:', /not in either allowed form/],
  [':NASDAQ', /not in either allowed form/],
  ['AA PL:NASDAQ', /not in either allowed form/],
  ['AAPL:NAS-DAQ', /not in either allowed form/],
  ['BTC-', /not in either allowed form/],
  ['BTCUSDTOOLONG-USD', /not in either allowed form/],
  ['A'.repeat(21) + ':X', /not in either allowed form/],
  ['A'.repeat(20) + ':' + 'B'.repeat(20), /longer than 40 characters/],
])('%j is refused: %s', (input, message) => {
  expect(() => parseTicker(input)).toThrow(InvalidTickerError);
  expect(() => parseTicker(input)).toThrow(message);
});

test('property: any string either parses to a ticker that parses to itself, or throws InvalidTickerError', () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 60 }), (s) => {
      try {
        const t = parseTicker(s).ticker;
        expect(parseTicker(t).ticker).toBe(t);
        expect(t.length).toBeLessThanOrEqual(40);
      } catch (err) {
        expect(err).toBeInstanceOf(InvalidTickerError);
      }
    }),
    { numRuns: 2000 },
  );
});
