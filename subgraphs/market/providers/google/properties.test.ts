/**
 * Property tests (fast-check): the envelope and payload parsers never throw and never invent values on junk, and
 * build → parse round trips hold for arbitrary models.
 */
import fc from 'fast-check';
import {
  chartPayload,
  companyPayload,
  earningsPayload,
  financialsPayload,
  headlinePayload,
  listPayload,
  newsPayload,
  quotePayload,
} from '../../../../test/support/google-payloads';
import { decodeFReqBody, encodeBatchResponse, type FakeRow } from '../../../../test/support/google-upstream';
import {
  CHART_RANGES,
  INSTRUMENT_TYPES,
  type ChartData,
  type ChartRange,
  type CompanyInfo,
  type EarningsEvent,
  type FinancialPeriod,
  type Headline,
  type MarketListItem,
  type NewsItem,
  type Quote,
} from '../../model';
import { buildEnvelope, decodePayload, matchRows, parseBatchResponse, type WrbRow } from './envelope';
import {
  parseChart,
  parseCompany,
  parseEarnings,
  parseFinancials,
  parseHeadline,
  parseMarketList,
  parseNews,
  parseQuote,
} from './parsers';

// ------------------------------------------------------------------------------------------------ junk

/** Strings shaped somewhat like an answer: prefix, length lines, JSON lines, junk lines. */
const answerLike = fc
  .array(
    fc.oneof(
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc.nat().map(String),
      fc.string(),
      fc
        .tuple(fc.constantFrom('wrb.fr', 'di', 'e', 'af.httprm'), fc.jsonValue(), fc.jsonValue(), fc.jsonValue())
        .map((r) => JSON.stringify([r])),
      fc
        .tuple(fc.string(), fc.option(fc.jsonValue().map((v) => JSON.stringify(v))), fc.string())
        .map(([id, p, seq]) => JSON.stringify([['wrb.fr', id, p, null, null, null, seq]])),
    ),
    { maxLength: 12 },
  )
  .chain((lines) => fc.constantFrom(")]}'\n\n", ")]}'\n", '', ")]}'").map((prefix) => prefix + lines.join('\n')));

const junk = fc.oneof(
  fc.jsonValue(),
  fc.anything(),
  fc.jsonValue().map((v) => [[[v]]]),
  fc.jsonValue().map((v) => [[v, v]]),
);

/** Every number in a parsed value is finite, every string non-empty. */
function noInventedValues(v: unknown): boolean {
  if (typeof v === 'number') return Number.isFinite(v);
  if (typeof v === 'string') return v.length > 0;
  if (Array.isArray(v)) return v.every(noInventedValues);
  if (v !== null && typeof v === 'object') return Object.values(v).every(noInventedValues);
  return v === null || typeof v === 'boolean';
}

describe('never throws on junk', () => {
  test('envelope parser: arbitrary text and answer-like text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), answerLike), (text) => {
        const parsed = parseBatchResponse(text);
        if (parsed.ok) {
          for (const row of parsed.rows) {
            expect(row.rpcid === null || typeof row.rpcid === 'string').toBe(true);
            expect(row.seq === null || typeof row.seq === 'string').toBe(true);
            decodePayload(row);
          }
        } else {
          expect(typeof parsed.reason).toBe('string');
        }
      }),
      { numRuns: 300 },
    );
  });

  test('row matching and payload decoding: arbitrary rows', () => {
    const row: fc.Arbitrary<WrbRow> = fc.record({
      rpcid: fc.option(fc.constantFrom('xh8wxf', 'HqGpWd', 'x')),
      payload: fc.oneof(fc.string(), fc.jsonValue(), fc.constant(null)),
      seq: fc.option(fc.constantFrom('1', '2', '3', 'generic', '')),
    });
    const calls = buildEnvelope([
      { rpcid: 'xh8wxf', params: [], ticker: null },
      { rpcid: 'HqGpWd', params: [], ticker: null },
      { rpcid: 'xh8wxf', params: [1], ticker: null },
    ]).calls;
    fc.assert(
      fc.property(fc.array(row, { maxLength: 8 }), (rows) => {
        const matched = matchRows(calls, rows);
        expect(matched).toHaveLength(3);
        matched.forEach((m, i) => {
          if (m) expect(m.rpcid === null || m.rpcid === calls[i]!.rpcid).toBe(true);
          if (m) decodePayload(m);
        });
        // a row is used at most once
        const used = matched.filter(Boolean);
        expect(new Set(used).size).toBe(used.length);
      }),
    );
  });

  const parsers: [string, (d: unknown) => unknown][] = [
    ['quote', (d) => parseQuote(d, 'AAPL:NASDAQ')],
    ['quote without requested ticker', (d) => parseQuote(d)],
    ['company', parseCompany],
    ['chart 1D', (d) => parseChart(d, '1D')],
    ['chart 1Y', (d) => parseChart(d, '1Y')],
    ['news', parseNews],
    ['financials', parseFinancials],
    ['market list', parseMarketList],
    ['earnings', parseEarnings],
    ['headline', parseHeadline],
  ];
  test.each(parsers)('%s parser: arbitrary values', (_name, parse) => {
    fc.assert(
      fc.property(junk, (d) => {
        expect(noInventedValues(parse(d))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

// ------------------------------------------------------------------------------------------- round trips

const num = fc.option(
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => (x === 0 ? 0 : x)),
  { nil: null },
);
const int = fc.option(fc.maxSafeNat(), { nil: null });
const text = fc.option(fc.string({ minLength: 1, maxLength: 20 }), { nil: null });
const symbol = fc.stringMatching(/^[A-Z0-9.]{1,8}$/);
const exchange = fc.stringMatching(/^[A-Z_]{1,8}$/);
const pairTicker = fc
  .tuple(fc.stringMatching(/^[A-Z0-9]{1,6}$/), fc.stringMatching(/^[A-Z0-9]{1,6}$/))
  .map(([b, q]) => `${b}-${q}`);
/** [ticker, exchange]: `SYM:EXCH` with its exchange, or a pair without one. */
const tickerWithExchange = fc.oneof(
  fc.tuple(symbol, exchange).map(([s, e]): [string, string | null] => [`${s}:${e}`, e]),
  pairTicker.map((t): [string, string | null] => [t, null]),
);
const pad = (n: number, w = 2): string => String(n).padStart(w, '0');
const year = fc.integer({ min: 1, max: 9999 });

const quoteArb: fc.Arbitrary<Quote> = fc
  .record({
    te: tickerWithExchange,
    name: text,
    type: fc.option(fc.constantFrom(...INSTRUMENT_TYPES), { nil: null }),
    currency: text,
    timezone: text,
    price: num,
    change: num,
    changePercent: num,
    previousClose: num,
    afterHours: fc.option(fc.record({ price: num, change: num, changePercent: num }), { nil: null }),
  })
  .map(({ te, ...rest }) => ({ ticker: te[0], exchange: te[1], ...rest }));

const companyArb: fc.Arbitrary<CompanyInfo> = fc.record({
  description: text,
  ceo: text,
  employees: int,
  marketCap: num,
  open: num,
  high: num,
  low: num,
  fiftyTwoWeekHigh: num,
  fiftyTwoWeekLow: num,
  peRatio: num,
  volume: int,
  sector: text,
});

const day = fc
  .tuple(year, fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 31 }))
  .map(([y, m, d]) => `${pad(y, 4)}-${pad(m)}-${pad(d)}`);
const offset = fc.option(fc.integer({ min: -18 * 60, max: 18 * 60 }), { nil: null }).map((minutes) => {
  if (minutes === null) return '';
  const a = Math.abs(minutes);
  return `${minutes < 0 ? '-' : '+'}${pad(Math.floor(a / 60))}:${pad(a % 60)}`;
});
const intradayDate = fc.oneof(
  fc
    .tuple(day, fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }), offset)
    .map(([d, h, m, o]) => `${d}T${pad(h)}:${pad(m)}:00${o}`),
  day, // an intraday point without hour and minute
);
const chartArb: fc.Arbitrary<[ChartRange, ChartData]> = fc.constantFrom(...CHART_RANGES).chain((range) =>
  fc.tuple(
    fc.constant(range),
    fc.record({
      previousClose: num,
      points: fc.array(
        fc.record({ date: range === '1D' || range === '5D' ? intradayDate : day, price: num, volume: int }),
        { maxLength: 30 },
      ),
    }),
  ),
);

const newsArb: fc.Arbitrary<NewsItem[]> = fc.array(
  fc.record({ title: text, source: text, url: text, timestamp: int }).filter((n) => n.title !== null || n.url !== null),
  { maxLength: 10 },
);

const quarterLabel = fc.option(
  fc.tuple(year, fc.integer({ min: 1, max: 4 })).map(([y, q]) => `${pad(y, 4)}-Q${q}`),
  { nil: null },
);
const figures = {
  currency: text,
  revenue: num,
  netIncome: num,
  eps: num,
  epsDiluted: num,
  operatingMargin: num,
  peRatio: num,
};
/** Financial periods always have a plausible fiscal year (the parser refuses a payload with any other). */
const fiscalYear = fc.integer({ min: 1900, max: 2200 });
const financialsArb: fc.Arbitrary<FinancialPeriod[]> = fc
  .tuple(
    fc.array(
      fc.record({
        fiscalEnd: fc.tuple(fiscalYear, fc.integer({ min: 1, max: 4 })).map(([y, q]) => `${y}-Q${q}`),
        isAnnual: fc.constant(false),
        ...figures,
      }),
      { maxLength: 8 },
    ),
    fc.array(fc.record({ fiscalEnd: fiscalYear.map(String), isAnnual: fc.constant(true), ...figures }), {
      maxLength: 5,
    }),
  )
  .map(([q, a]) => [...q, ...a]);

const listTicker = fc.oneof(
  fc.tuple(symbol, exchange).map(([s, e]) => `${s}:${e}`),
  pairTicker,
);
const listArb: fc.Arbitrary<MarketListItem[]> = fc.uniqueArray(
  fc.record({ ticker: listTicker, name: text, price: num, change: num, changePercent: num }),
  { selector: (i) => i.ticker, maxLength: 30 },
);

const earningsArb: fc.Arbitrary<EarningsEvent[]> = fc.array(
  fc
    .record({
      te: fc.option(
        fc.oneof(
          fc.tuple(symbol, exchange).map(([s, e]): [string, string | null] => [`${s}:${e}`, e]),
          symbol.map((s): [string, string | null] => [s, null]),
        ),
        { nil: null },
      ),
      name: text,
      date: quarterLabel,
    })
    .filter((e) => e.te !== null || e.name !== null)
    .map(({ te, name, date }) => ({
      ticker: te ? te[0] : null,
      name,
      date,
      exchange: te ? te[1] : null,
      reportDate: null, // the upstream gives the quarter only
    })),
  { maxLength: 10 },
);

const headlineArb: fc.Arbitrary<Headline> = fc
  .record({ title: text, url: text, source: text })
  .filter((h) => h.title !== null || h.url !== null);

/** What crosses the wire: payloads are JSON text inside the envelope. */
const viaJson = (d: unknown): unknown => JSON.parse(JSON.stringify(d));

describe('build → parse round trips', () => {
  test('quote', () => {
    fc.assert(
      fc.property(quoteArb, (q) => {
        expect(parseQuote(viaJson(quotePayload(q)))).toEqual(q);
      }),
    );
  });
  test('company', () => {
    fc.assert(
      fc.property(companyArb, (c) => {
        expect(parseCompany(viaJson(companyPayload(c)))).toEqual(c);
      }),
    );
  });
  test('chart', () => {
    fc.assert(
      fc.property(chartArb, ([range, c]) => {
        expect(parseChart(viaJson(chartPayload(c)), range)).toEqual(c);
      }),
    );
  });
  test('news', () => {
    fc.assert(
      fc.property(newsArb, (n) => {
        expect(parseNews(viaJson(newsPayload(n)))).toEqual(n);
      }),
    );
  });
  test('financials', () => {
    fc.assert(
      fc.property(financialsArb, (f) => {
        expect(parseFinancials(viaJson(financialsPayload(f)))).toEqual(f);
      }),
    );
  });
  test('financials: one row that does not fit (its year, quarter, data or itself) gives no periods, never misread ones', () => {
    const year = (v: unknown) => Number.isInteger(v) && (v as number) >= 1900 && (v as number) <= 2200;
    const quarter = (v: unknown) => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 4;
    const QUARTER_ROW = [year, quarter, Array.isArray];
    const YEAR_ROW = [year, Array.isArray];
    fc.assert(
      fc.property(
        financialsArb.filter((f) => f.length > 0),
        fc.nat(),
        fc.nat(),
        junk,
        (f, rowPick, fieldPick, value) => {
          const d = viaJson(financialsPayload(f)) as unknown[][][][];
          const [quarterly, annual] = d[0]![0]! as [unknown[], unknown[]];
          const rows = [
            ...quarterly.map((_, i) => ({ list: quarterly, i, shape: QUARTER_ROW })),
            ...annual.map((_, i) => ({ list: annual, i, shape: YEAR_ROW })),
          ];
          const { list, i, shape } = rows[rowPick % rows.length]!;
          const field = fieldPick % (shape.length + 1);
          if (field === shape.length) {
            fc.pre(!Array.isArray(value)); // the row itself is no array
            list[i] = value;
          } else {
            fc.pre(!shape[field]!(value));
            (list[i] as unknown[])[field] = value;
          }
          expect(parseFinancials(d)).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });
  test('market lists', () => {
    fc.assert(
      fc.property(listArb, fc.integer({ min: 1, max: 7 }), (items, group) => {
        expect(parseMarketList(viaJson(listPayload(items, group)))).toEqual(items);
      }),
    );
  });
  test('earnings', () => {
    fc.assert(
      fc.property(earningsArb, (e) => {
        expect(parseEarnings(viaJson(earningsPayload(e)))).toEqual(e);
      }),
    );
  });
  test('headline', () => {
    fc.assert(
      fc.property(headlineArb, (h) => {
        expect(parseHeadline(viaJson(headlinePayload(h)))).toEqual(h);
      }),
    );
  });

  test('request envelope: built f.req decodes to the same calls, in order, with sequences 1..n', () => {
    const call = fc.record({
      rpcid: fc.stringMatching(/^[A-Za-z0-9]{6}$/),
      params: fc.array(fc.jsonValue(), { maxLength: 4 }),
      ticker: fc.option(fc.constantFrom('AAPL:NASDAQ', 'BTC-USD'), { nil: null }),
    });
    fc.assert(
      fc.property(fc.array(call, { minLength: 1, maxLength: 25 }), (calls) => {
        const env = buildEnvelope(calls);
        expect(decodeFReqBody(env.body)).toEqual(
          calls.map((c, i) => ({ rpcid: c.rpcid, params: viaJson(c.params), seq: String(i + 1) })),
        );
        const q = new URLSearchParams(env.query);
        expect(q.get('rpcids')!.split(',')).toEqual([...new Set(calls.map((c) => c.rpcid))]);
      }),
    );
  });

  test('answer envelope: encoded rows are read back and matched to their calls', () => {
    const arb = fc
      .array(
        fc.record({ rpcid: fc.stringMatching(/^[A-Za-z0-9]{6}$/), payload: fc.option(fc.jsonValue(), { nil: null }) }),
        { minLength: 1, maxLength: 20 },
      )
      .chain((calls) =>
        fc.tuple(
          fc.constant(calls),
          fc.shuffledSubarray(
            calls.map((_, i) => i),
            { minLength: 0, maxLength: calls.length },
          ),
        ),
      );
    fc.assert(
      fc.property(arb, ([calls, answered]) => {
        const env = buildEnvelope(calls.map((c) => ({ rpcid: c.rpcid, params: [], ticker: null })));
        const rows: FakeRow[] = answered.map((i) => ({
          kind: 'wrb.fr',
          rpcid: calls[i]!.rpcid,
          payload: calls[i]!.payload,
          seq: String(i + 1),
        }));
        const parsed = parseBatchResponse(encodeBatchResponse(rows));
        expect(parsed.ok).toBe(true);
        if (!parsed.ok) return;
        const matched = matchRows(env.calls, parsed.rows);
        calls.forEach((c, i) => {
          const m = matched[i];
          if (!answered.includes(i)) {
            expect(m).toBeUndefined();
            return;
          }
          expect(m).toBeDefined();
          expect(decodePayload(m!)).toEqual({ ok: true, payload: c.payload === null ? null : viaJson(c.payload) });
        });
      }),
    );
  });
});
