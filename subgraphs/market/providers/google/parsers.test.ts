import {
  chartPayload,
  companyPayload,
  earningsPayload,
  FAKE_MARKET,
  FAKE_TICKERS,
  fakeChart,
  financialsPayload,
  headlinePayload,
  listPayload,
  newsPayload,
  quotePayload,
} from '../../../../test/support/google-payloads';
import { CHART_RANGES } from '../../model';
import type { MarketRequest } from '../provider';
import {
  formatChartDate,
  formatUtcOffset,
  instrumentType,
  parseChart,
  parseCompany,
  parseEarnings,
  parseFinancials,
  parseHeadline,
  parseMarketList,
  parseNews,
  parsePayload,
  parseQuote,
} from './parsers';

const TICKERS = Object.keys(FAKE_TICKERS);

describe('quote parser', () => {
  test.each(TICKERS)('%s: every field from the documented layout', (t) => {
    const f = FAKE_TICKERS[t]!;
    expect(parseQuote(quotePayload(f.quote), t)).toEqual(f.quote);
  });

  test('crypto and currency pairs take their ticker from q[21] (q[1] is null), exchange null', () => {
    const q = parseQuote(quotePayload(FAKE_TICKERS['BTC-USD']!.quote));
    expect(q?.ticker).toBe('BTC-USD');
    expect(q?.exchange).toBeNull();
  });

  test('the ticker asked for wins: it is the entity key and must round-trip exactly', () => {
    expect(parseQuote(quotePayload(FAKE_TICKERS['BTC-USD']!.quote), 'BTC-USD')?.ticker).toBe('BTC-USD');
    expect(parseQuote(quotePayload(FAKE_TICKERS['AAPL:NASDAQ']!.quote), 'AAPL:NASDAQ')?.ticker).toBe('AAPL:NASDAQ');
  });

  test('type codes: 0 stock, 1 index, 3 crypto, 5 etf, other numbers unknown, no number null', () => {
    expect([0, 1, 3, 5, 2, 4, 99].map(instrumentType)).toEqual([
      'stock',
      'index',
      'crypto',
      'etf',
      'unknown',
      'unknown',
      'unknown',
    ]);
    expect([null, undefined, '0', NaN].map(instrumentType)).toEqual([null, null, null, null]);
  });

  test('holes become null, never 0 or ""', () => {
    const q = [null, ['AAPL', 'NASDAQ'], '', '0', null, [null, '1.5'], null, 'x'];
    expect(parseQuote([[[q]]], 'AAPL:NASDAQ')).toEqual({
      ticker: 'AAPL:NASDAQ',
      exchange: 'NASDAQ',
      name: null,
      type: null,
      currency: null,
      timezone: null,
      price: null,
      change: null,
      changePercent: null,
      previousClose: null,
      afterHours: null,
    });
    // a q with nothing but itself: ticker from the request
    expect(parseQuote([[[[]]]], 'MSFT:NASDAQ')).toMatchObject({ ticker: 'MSFT:NASDAQ', exchange: null, price: null });
    // after hours present but partly empty
    const withAfter: unknown[] = [];
    withAfter[16] = [12.5];
    expect(parseQuote([[[withAfter]]], 'X:Y')?.afterHours).toEqual({ price: 12.5, change: null, changePercent: null });
  });

  test.each([[null], [[]], [[[]]], [[[['not an array']]]], ['text'], [{ 0: [[[]]] }]])(
    'no quote structure in %j → null',
    (d) => {
      expect(parseQuote(d, 'AAPL:NASDAQ')).toBeNull();
    },
  );
});

describe('company parser', () => {
  test.each(TICKERS)('%s: every field', (t) => {
    const c = FAKE_TICKERS[t]!.company!;
    expect(parseCompany(companyPayload(c))).toEqual(c);
  });

  test('holes and wrong types become null; integer fields are integers', () => {
    const c: unknown[] = [];
    c[6] = 1234.6;
    c[7] = '3.9T';
    c[18] = 1e3;
    c[71] = '';
    expect(parseCompany([[c]])).toEqual({
      description: null,
      ceo: null,
      employees: 1235,
      marketCap: null,
      open: null,
      high: null,
      low: null,
      fiftyTwoWeekHigh: null,
      fiftyTwoWeekLow: null,
      peRatio: null,
      volume: 1000,
      sector: null,
    });
  });

  test('no company structure → null', () => {
    expect(parseCompany([])).toBeNull();
    expect(parseCompany([[null]])).toBeNull();
    expect(parseCompany('x')).toBeNull();
  });
});

describe('chart parser', () => {
  test.each(CHART_RANGES.flatMap((r) => ['AAPL:NASDAQ', 'BTC-USD', 'THYAO:IST'].map((t) => [t, r] as const)))(
    '%s %s: every point from the payload the fake sends',
    (t, range) => {
      const expected = fakeChart(t, range)!;
      const s = FAKE_TICKERS[t]!.session;
      const payload = chartPayload(expected, {
        ticker: t,
        closeTime: { hour: s.closeHour, minute: 0, offsetSeconds: s.offsetSeconds },
      });
      expect(parseChart(payload, range)).toEqual(expected);
    },
  );

  test('intraday dates carry time and offset; daily dates do not, even when the payload has a time', () => {
    const d = [
      [
        [
          null,
          null,
          null,
          [
            [
              null,
              [
                [[2025, 11, 20, 9, 30, null, null, [-18000]], [266.1], 1200],
                [[2025, 11, 20, 16, 0, null, null, [-18000]], [266.3]],
              ],
            ],
          ],
          null,
          null,
          264.43,
        ],
      ],
    ];
    expect(parseChart(d, '1D')).toEqual({
      previousClose: 264.43,
      points: [
        { date: '2025-11-20T09:30:00-05:00', price: 266.1, volume: 1200 },
        { date: '2025-11-20T16:00:00-05:00', price: 266.3, volume: null },
      ],
    });
    expect(parseChart(d, '5D')?.points[0]?.date).toBe('2025-11-20T09:30:00-05:00');
    expect(parseChart(d, '1M')?.points.map((p) => p.date)).toEqual(['2025-11-20', '2025-11-20']);
    expect(parseChart(d, 'MAX')?.points.map((p) => p.date)).toEqual(['2025-11-20', '2025-11-20']);
  });

  test('date formatting: offsets, missing pieces, invalid dates', () => {
    expect(formatChartDate([2025, 1, 2, 3, 4, null, null, [19800]], true)).toBe('2025-01-02T03:04:00+05:30');
    expect(formatChartDate([2025, 1, 2, 3, 4, null, null, [20700]], true)).toBe('2025-01-02T03:04:00+05:45');
    expect(formatChartDate([2025, 1, 2, 3, 4, null, null, [-12600]], true)).toBe('2025-01-02T03:04:00-03:30');
    expect(formatChartDate([2025, 1, 2, 3, 4, null, null, [0]], true)).toBe('2025-01-02T03:04:00+00:00');
    expect(formatChartDate([2025, 1, 2, 3, 4, null, null, null], true)).toBe('2025-01-02T03:04:00');
    expect(formatChartDate([2025, 1, 2, 3, 4], true)).toBe('2025-01-02T03:04:00');
    expect(formatChartDate([2025, 1, 2, null, null, null, null, [0]], true)).toBe('2025-01-02');
    expect(formatChartDate([2025, 1, 2, 3, 4, null, null, [0]], false)).toBe('2025-01-02');
    expect(formatChartDate([2025, 13, 2], false)).toBeNull();
    expect(formatChartDate([2025, 0, 2], false)).toBeNull();
    expect(formatChartDate([2025.5, 1, 2], false)).toBeNull();
    expect(formatChartDate(['2025', 1, 2], false)).toBeNull();
    expect(formatChartDate(null, false)).toBeNull();
    expect(formatChartDate([2025, 1, 2, 24, 0], true)).toBe('2025-01-02');
    expect(formatUtcOffset(30)).toBeNull();
    expect(formatUtcOffset(19 * 3600)).toBeNull();
    expect(formatUtcOffset(-18000)).toBe('-05:00');
  });

  test('periods are concatenated; points without a usable date are left out; holes are null', () => {
    const d = [
      [
        [
          null,
          null,
          null,
          [
            [
              null,
              [
                [[2025, 11, 19], [10], 5],
                [null, [11]],
                [[2025, 11, 19], null, 'x'],
              ],
            ],
            'junk',
            [null, [[[2025, 11, 20], ['12'], 7.4]]],
          ],
        ],
      ],
    ];
    expect(parseChart(d, '1M')).toEqual({
      previousClose: null,
      points: [
        { date: '2025-11-19', price: 10, volume: 5 },
        { date: '2025-11-19', price: null, volume: null },
        { date: '2025-11-20', price: null, volume: 7 },
      ],
    });
  });

  test('a chart without periods has no points; no chart structure → null', () => {
    expect(parseChart([[[null, null, null, null, null, null, 100]]], '1D')).toEqual({ previousClose: 100, points: [] });
    expect(parseChart([[]], '1D')).toBeNull();
    expect(parseChart(7, '1D')).toBeNull();
  });
});

describe('news parser', () => {
  test.each(TICKERS)('%s: every item', (t) => {
    const n = FAKE_TICKERS[t]!.news;
    expect(parseNews(newsPayload(n))).toEqual(n);
  });

  test('holes are null; items with neither url nor title and non-array items are left out', () => {
    const d = [
      [
        ['https://a.example/1', null, 7, null, 1763650800.4],
        [null, 'Title only'],
        [null, null, 'Source only', null, 1],
        'junk',
        [],
      ],
    ];
    expect(parseNews(d)).toEqual([
      { url: 'https://a.example/1', title: null, source: null, timestamp: 1763650800 },
      { url: null, title: 'Title only', source: null, timestamp: null },
    ]);
  });

  test('no item list → null; an empty list → []', () => {
    expect(parseNews([null])).toBeNull();
    expect(parseNews([[]])).toEqual([]);
  });
});

describe('financials parser', () => {
  test.each(['AAPL:NASDAQ', 'THYAO:IST'])('%s: quarterly then annual periods, every field', (t) => {
    const f = FAKE_TICKERS[t]!.financials!;
    const parsed = parseFinancials(financialsPayload(f));
    expect(parsed).toEqual(f);
    expect(parsed?.filter((p) => !p.isAnnual).map((p) => p.fiscalEnd)).toEqual([
      '2025-Q3',
      '2025-Q2',
      '2025-Q1',
      '2024-Q4',
    ]);
    expect(parsed?.filter((p) => p.isAnnual).map((p) => p.fiscalEnd)).toEqual(['2024', '2023', '2022']);
  });

  test("the root is d[0][0], as the original service reads it; holes in a row's data are null", () => {
    const data: unknown[] = [];
    data[0] = 1e9;
    data[16] = 'USD';
    const quarterly = [
      [2025, 3, data],
      [2025, 2, []],
    ];
    const annual = [[2024, [null, 'x']]];
    const empty = {
      currency: null,
      revenue: null,
      netIncome: null,
      eps: null,
      epsDiluted: null,
      operatingMargin: null,
      peRatio: null,
    };
    expect(parseFinancials([[[quarterly, annual]]])).toEqual([
      { ...empty, fiscalEnd: '2025-Q3', isAnnual: false, revenue: 1e9, currency: 'USD' },
      { ...empty, fiscalEnd: '2025-Q2', isAnnual: false },
      { ...empty, fiscalEnd: '2024', isAnnual: true },
    ]);
    // The same lists one level shallower (what we used to read): the rows do not fit, so no periods, never the
    // years read as revenue.
    expect(parseFinancials([[quarterly, annual]])).toEqual([]);
  });

  test.each([
    ['a year that is no integer', [[['2025', 1, []]], []]],
    ['an implausible year (a revenue figure)', [[[102466000000, 1, []]], []]],
    ['a quarter outside 1-4', [[[2025, 5, []]], []]],
    ['quarterly data that is no array', [[[2025, 2, null]], []]],
    ['a quarterly row that is no array', [[[2025, 1, []], 'junk'], []]],
    ['annual data that is no array', [[], [[2024, 7]]]],
    ['an annual year out of range', [[], [[1776, []]]]],
    ['a list that is no array', [[[2025, 1, []]], 'annual']],
  ])('one row that does not fit (%s) gives no periods, and says why', (_what, root) => {
    const warnings: string[] = [];
    expect(parseFinancials([[root]], (m) => warnings.push(m))).toEqual([]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/does not have the documented layout|is not \[year/);
  });

  test('only one of the two lists present still parses; neither (or no root) → null', () => {
    expect(parseFinancials([[[null, [[2023, []]]]]])).toEqual([
      expect.objectContaining({ fiscalEnd: '2023', isAnnual: true, revenue: null }),
    ]);
    expect(parseFinancials([[[[[2023, 4, []]]]]])).toEqual([
      expect.objectContaining({ fiscalEnd: '2023-Q4', isAnnual: false }),
    ]);
    expect(parseFinancials([[[null, null]]])).toBeNull();
    expect(parseFinancials([[null]])).toBeNull();
    expect(parseFinancials([null])).toBeNull();
  });
});

describe('market list parser (indices, movers, trending, related)', () => {
  test('indices and movers from the fake, through nested groups, in order', () => {
    expect(parseMarketList(listPayload(FAKE_MARKET.indices, 3))).toEqual(FAKE_MARKET.indices);
    expect(parseMarketList(listPayload(FAKE_MARKET.movers.gainers, 5))).toEqual(FAKE_MARKET.movers.gainers);
    expect(parseMarketList(listPayload(FAKE_TICKERS['AAPL:NASDAQ']!.related))).toEqual(
      FAKE_TICKERS['AAPL:NASDAQ']!.related,
    );
  });

  test('finds items at any depth, keeps the first of a repeated ticker, ignores look-alikes', () => {
    const item = (sym: string, exch: string | null, name: unknown, pc: unknown): unknown[] => [
      'id',
      [sym, exch],
      name,
      0,
      0,
      pc,
    ];
    // the outer array has length 6, a string at d[1][0] and an array at d[5]: a container, not an item
    const d = [
      [[[[item('A', 'X', 'Alpha', [1, 0.1, 10])]]]],
      item('A', 'X', 'Alpha again', [2, 0.2, 20]),
      ['id', [1, 'X'], 'numeric symbol', 0, 0, [1, 2, 3]], // a[1][0] not a string
      ['id', ['B', 'X'], 'no prices', 0, 0, 'x'], // a[5] not an array
      ['id', ['C', 'X'], 'too short', 0, [1, 2, 3]], // length 5
      item('BTC-USD', null, '', [null, 'x', 3]),
    ];
    expect(parseMarketList(d)).toEqual([
      { ticker: 'A:X', name: 'Alpha', price: 1, change: 0.1, changePercent: 10 },
      { ticker: 'BTC-USD', name: null, price: null, change: null, changePercent: 3 },
    ]);
  });

  test('an array without items is an empty list; a non-array is null', () => {
    expect(parseMarketList([[], [[1, 2, 3]]])).toEqual([]);
    expect(parseMarketList('x')).toBeNull();
  });

  test('deeply nested input does not overflow the stack', () => {
    let deep: unknown = ['id', ['DEEP', 'X'], 'Deep', 0, 0, [1, 2, 3]];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(parseMarketList(deep)).toEqual([{ ticker: 'DEEP:X', name: 'Deep', price: 1, change: 2, changePercent: 3 }]);
  });
});

describe('earnings parser', () => {
  test('every field from the fake', () => {
    expect(parseEarnings(earningsPayload(FAKE_MARKET.earnings))).toEqual(FAKE_MARKET.earnings);
  });

  test('holes are null; items with neither ticker nor name are left out', () => {
    const d = [
      [
        [null, ['AAPL', null], null, null, [2026, 7]],
        [null, null, null, 'Name only', null],
        [null, null, null, null, [2026, 1]],
        'junk',
      ],
    ];
    expect(parseEarnings(d)).toEqual([
      { ticker: 'AAPL', name: null, date: null, exchange: null, reportDate: null },
      { ticker: null, name: 'Name only', date: null, exchange: null, reportDate: null },
    ]);
    expect(parseEarnings([])).toBeNull();
  });
});

describe('headline parser', () => {
  test('every field from the fake', () => {
    expect(parseHeadline(headlinePayload(FAKE_MARKET.headline))).toEqual(FAKE_MARKET.headline);
  });

  test('holes are null; no title and no url → null', () => {
    expect(parseHeadline([[null, 'Only a title']])).toEqual({ title: 'Only a title', url: null, source: null });
    expect(parseHeadline([[null, null, 'source']])).toBeNull();
    expect(parseHeadline([null])).toBeNull();
  });
});

describe('parsePayload dispatch', () => {
  const all: MarketRequest[] = [
    { kind: 'quote', ticker: 'AAPL:NASDAQ' },
    { kind: 'company', ticker: 'AAPL:NASDAQ' },
    { kind: 'chart', ticker: 'AAPL:NASDAQ', range: '1D' },
    { kind: 'news', ticker: 'AAPL:NASDAQ' },
    { kind: 'financials', ticker: 'AAPL:NASDAQ' },
    { kind: 'related', ticker: 'AAPL:NASDAQ' },
    { kind: 'indices' },
    { kind: 'movers', category: 'gainers', count: 1, offset: 0 },
    { kind: 'trending' },
    { kind: 'earnings' },
    { kind: 'headline' },
  ];

  test.each(all)('null payload → null for %j', (r) => {
    expect(parsePayload(r, null)).toBeNull();
  });

  test('each kind goes to its parser', () => {
    const aapl = FAKE_TICKERS['AAPL:NASDAQ']!;
    expect(parsePayload(all[0]!, quotePayload(aapl.quote))).toEqual(aapl.quote);
    expect(parsePayload(all[1]!, companyPayload(aapl.company!))).toEqual(aapl.company);
    expect(parsePayload(all[3]!, newsPayload(aapl.news))).toEqual(aapl.news);
    expect(parsePayload(all[4]!, financialsPayload(aapl.financials!))).toEqual(aapl.financials);
    expect(parsePayload(all[7]!, listPayload(FAKE_MARKET.trending))).toEqual(FAKE_MARKET.trending);
    expect(parsePayload(all[9]!, earningsPayload(FAKE_MARKET.earnings))).toEqual(FAKE_MARKET.earnings);
    expect(parsePayload(all[10]!, headlinePayload(FAKE_MARKET.headline))).toEqual(FAKE_MARKET.headline);
    expect(
      parsePayload(
        { kind: 'chart', ticker: 'AAPL:NASDAQ', range: '1Y' },
        chartPayload(fakeChart('AAPL:NASDAQ', '1Y')!),
      ),
    ).toEqual(fakeChart('AAPL:NASDAQ', '1Y'));
  });
});
