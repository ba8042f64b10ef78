import { SIMULATED_TICKERS } from '../../subgraphs/market/providers/simulated';
import { getJson, graphql, startSystem, type RunningSystem } from '../support/system';

/** The default system (simulated market, fixed clock) end to end: GraphQL and REST agree with each other. */
let sys: RunningSystem;
beforeAll(async () => {
  sys = await startSystem({
    MARKET_CLOCK: '2026-11-18T17:45:00Z',
    MARKET_SEED: 'system-test',
    MAX_QUOTES_PER_REQUEST: '100',
  });
});
afterAll(() => sys.close());

type Q = { ticker: string; price: number | null; change: number | null; previousClose: number | null; type: string };

test('every catalog ticker has a quote, asked for in one GraphQL request', async () => {
  expect(SIMULATED_TICKERS.length).toBeGreaterThanOrEqual(40);
  const res = await graphql<{ quotes: Q[] }>(
    sys.url,
    'query($t: [String!]!) { quotes(tickers: $t) { ticker price change previousClose type } }',
    { t: SIMULATED_TICKERS },
  );
  expect(res.body.errors).toBeUndefined();
  const quotes = res.body.data?.quotes ?? [];
  expect(quotes.map((q) => q.ticker)).toEqual(SIMULATED_TICKERS);
  for (const q of quotes) {
    expect(q.price).toEqual(expect.any(Number));
    expect(q.change).toBeCloseTo((q.price as number) - (q.previousClose as number), 6);
  }
  expect(new Set(quotes.map((q) => q.type))).toEqual(new Set(['STOCK', 'INDEX', 'ETF', 'CRYPTO', 'UNKNOWN']));
});

test('/v1/full equals /v1/quote + /v1/company + /v1/chart + /v1/news', async () => {
  for (const ticker of ['AAPL:NASDAQ', 'THYAO:IST', 'BTC-USD', '.INX:INDEXSP']) {
    const full = (await getJson(`${sys.url}/v1/full/${ticker}?range=5D`)).body as Record<string, unknown>;
    expect(full.quote).toEqual((await getJson(`${sys.url}/v1/quote/${ticker}`)).body);
    expect(full.company).toEqual((await getJson(`${sys.url}/v1/company/${ticker}`)).body);
    expect(full.chart).toEqual((await getJson(`${sys.url}/v1/chart/${ticker}?range=5D`)).body);
    expect(full.news).toEqual((await getJson(`${sys.url}/v1/news/${ticker}`)).body);
    const chart = full.chart as { points: Array<{ price: number }> };
    expect(chart.points.at(-1)?.price).toBe((full.quote as Q).price);
  }
});

test('market lists show the same prices as the quotes', async () => {
  const lists = await graphql<Record<string, Array<{ ticker: string; price: number; change: number }>>>(
    sys.url,
    '{ indices { ticker price change } movers(count: 100) { ticker price change } trending { ticker price change } }',
  );
  const rows = [
    ...(lists.body.data?.indices ?? []),
    ...(lists.body.data?.movers ?? []),
    ...(lists.body.data?.trending ?? []),
  ];
  expect(rows.length).toBeGreaterThan(10);
  const quotes = await graphql<{ quotes: Q[] }>(
    sys.url,
    'query($t: [String!]!) { quotes(tickers: $t) { ticker price change } }',
    { t: [...new Set(rows.map((r) => r.ticker))] },
  );
  const byTicker = new Map((quotes.body.data?.quotes ?? []).map((q) => [q.ticker, q]));
  for (const row of rows) {
    expect({ ticker: row.ticker, price: row.price, change: row.change }).toEqual({
      ticker: row.ticker,
      price: byTicker.get(row.ticker)?.price,
      change: byTicker.get(row.ticker)?.change,
    });
  }
});

test('movers page stably: two pages equal one larger page, and each category is sorted', async () => {
  const page = async (category: string, count: number, offset: number) =>
    (await getJson(`${sys.url}/v1/market/movers?category=${category}&count=${count}&offset=${offset}`)).body as Array<{
      ticker: string;
      changePercent: number;
    }>;
  for (const category of ['most-active', 'gainers', 'losers']) {
    const [a, b, all] = [await page(category, 3, 0), await page(category, 3, 3), await page(category, 6, 0)];
    expect([...a, ...b].map((m) => m.ticker)).toEqual(all.map((m) => m.ticker));
  }
  const gainers = await page('gainers', 10, 0);
  expect(gainers.map((g) => g.changePercent)).toEqual([...gainers.map((g) => g.changePercent)].sort((x, y) => y - x));
  const losers = await page('losers', 10, 0);
  expect(losers.map((g) => g.changePercent)).toEqual([...losers.map((g) => g.changePercent)].sort((x, y) => x - y));
});

test('the same seed and clock give the same answers across restarts; another seed differs', async () => {
  const again = await startSystem({ MARKET_CLOCK: '2026-11-18T17:45:00Z', MARKET_SEED: 'system-test' });
  const other = await startSystem({ MARKET_CLOCK: '2026-11-18T17:45:00Z', MARKET_SEED: 'another-seed' });
  try {
    const path = '/v1/full/MSFT:NASDAQ?range=1Y';
    const [a, b, c] = await Promise.all([
      getJson(sys.url + path),
      getJson(again.url + path),
      getJson(other.url + path),
    ]);
    expect(b.body).toEqual(a.body);
    expect((c.body as { quote: Q }).quote.price).not.toEqual((a.body as { quote: Q }).quote.price);
  } finally {
    await again.close();
    await other.close();
  }
});
