import { CHART_RANGES } from '../../model';
import { InvalidTickerError } from '../../tickers';
import type { MarketRequest } from '../provider';
import { buildRpcCall, describeRequest, MOVER_CATEGORY_CODES } from './rpc-calls';

/** What travels on the wire for a request: rpcid and the params string. */
function wire(r: MarketRequest): [string, string, string | null] {
  const c = buildRpcCall(r);
  return [c.rpcid, JSON.stringify(c.params), c.ticker];
}

describe('rpc calls: rpcid and params per kind (reference table)', () => {
  test.each<[MarketRequest, string, string, string | null]>([
    [{ kind: 'quote', ticker: 'AAPL:NASDAQ' }, 'xh8wxf', '[[[null,["AAPL","NASDAQ"]]],1]', 'AAPL:NASDAQ'],
    [{ kind: 'company', ticker: 'AAPL:NASDAQ' }, 'HqGpWd', '[[[null,["AAPL","NASDAQ"]]]]', 'AAPL:NASDAQ'],
    [{ kind: 'financials', ticker: 'THYAO:IST' }, 'Pr8h2e', '[[[null,["THYAO","IST"]]]]', 'THYAO:IST'],
    [
      { kind: 'chart', ticker: 'GOOGL:NASDAQ', range: '1M' },
      'AiCwsd',
      '[[[null,["GOOGL","NASDAQ"]]],3]',
      'GOOGL:NASDAQ',
    ],
    [{ kind: 'news', ticker: 'MSFT:NASDAQ' }, 'nBEQBc', '[5,3,[[null,["MSFT","NASDAQ"]]]]', 'MSFT:NASDAQ'],
    [{ kind: 'news', ticker: 'BTC-USD' }, 'nBEQBc', '[6,3,[[null,null,["BTC","USD"]]]]', 'BTC-USD'],
    [{ kind: 'related', ticker: 'SPY:NYSEARCA' }, 'SICF5d', '[[null,["SPY","NYSEARCA"]],18]', 'SPY:NYSEARCA'],
    [{ kind: 'indices' }, 'Xhdx2e', '[null,1]', null],
    [{ kind: 'movers', category: 'losers', count: 25, offset: 50 }, 'YtbmEe', '[[3],25,50]', null],
    [{ kind: 'trending' }, 'lvVhof', '[18]', null],
    [{ kind: 'earnings' }, 'JFUMjd', '[]', null],
    [{ kind: 'headline' }, 'QKZUzd', '[1]', null],
  ])('%j', (request, rpcid, params, ticker) => {
    expect(wire(request)).toEqual([rpcid, params, ticker]);
  });

  test('ticker tuple forms: SYM:EXCH and BASE-QUOTE (also with dots in the symbol)', () => {
    expect(buildRpcCall({ kind: 'quote', ticker: '.INX:INDEXSP' }).params).toEqual([[[null, ['.INX', 'INDEXSP']]], 1]);
    expect(buildRpcCall({ kind: 'quote', ticker: 'EUR-USD' }).params).toEqual([[[null, null, ['EUR', 'USD']]], 1]);
    expect(buildRpcCall({ kind: 'related', ticker: 'BTC-USD' }).params).toEqual([[null, null, ['BTC', 'USD']], 18]);
  });

  test('chart mode numbers 1D=1 … MAX=8', () => {
    const modes = CHART_RANGES.map((range) => buildRpcCall({ kind: 'chart', ticker: 'AAPL:NASDAQ', range }).params[1]);
    expect(modes).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  test('news type: 5 for exchange tickers, 6 for every BASE-QUOTE pair', () => {
    expect(buildRpcCall({ kind: 'news', ticker: 'THYAO:IST' }).params[0]).toBe(5);
    expect(buildRpcCall({ kind: 'news', ticker: 'EUR-USD' }).params[0]).toBe(6);
  });

  test('movers: category travels as a number, count and offset as given', () => {
    expect(MOVER_CATEGORY_CODES).toEqual({ 'most-active': 1, gainers: 2, losers: 3 });
    expect(buildRpcCall({ kind: 'movers', category: 'most-active', count: 10, offset: 0 }).params).toEqual([
      [1],
      10,
      0,
    ]);
    expect(buildRpcCall({ kind: 'movers', category: 'gainers', count: 1, offset: 7 }).params).toEqual([[2], 1, 7]);
  });

  test('an invalid ticker or an unknown kind is refused with a message', () => {
    expect(() => buildRpcCall({ kind: 'quote', ticker: 'AAPL' })).toThrow(InvalidTickerError);
    expect(() => buildRpcCall({ kind: 'chart', ticker: 'AAPL:NASDAQ', range: '2D' as never })).toThrow(
      /unknown chart range "2D"/,
    );
    expect(() => buildRpcCall({ kind: 'movers', category: 'hot' as never, count: 1, offset: 0 })).toThrow(
      /unknown movers category "hot"/,
    );
    expect(() => buildRpcCall({ kind: 'bogus' } as never)).toThrow(/unsupported request kind "bogus"/);
  });

  test('describeRequest names kind and arguments', () => {
    expect(describeRequest({ kind: 'quote', ticker: 'AAPL:NASDAQ' })).toBe('quote AAPL:NASDAQ');
    expect(describeRequest({ kind: 'chart', ticker: 'BTC-USD', range: '5D' })).toBe('chart BTC-USD 5D');
    expect(describeRequest({ kind: 'movers', category: 'gainers', count: 5, offset: 10 })).toBe(
      'movers gainers (count 5, offset 10)',
    );
    expect(describeRequest({ kind: 'headline' })).toBe('headline');
    expect(describeRequest(null as never)).toBe('invalid request');
  });
});
