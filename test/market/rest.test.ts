import { StaticProvider, STATIC_QUOTES } from '../support/static-provider';
import { getJson, startSystem, SUBGRAPH_MODE, type RunningSystem } from '../support/system';

/** The market REST adapter over HTTP: every documented path, its parameters, defaults and errors. */
let sys: RunningSystem;
let provider: StaticProvider;
beforeAll(async () => {
  provider = new StaticProvider();
  sys = await startSystem({}, { marketProvider: provider });
});
afterAll(() => sys.close());

const get = (path: string) => getJson(sys.url + path);

describe('ticker paths', () => {
  test('GET /v1/quote/{ticker} gives the Quote with the seed field names and a lower-case type', async () => {
    const res = await get('/v1/quote/AAPL:NASDAQ');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual({ ...STATIC_QUOTES['AAPL:NASDAQ'] });
    expect(Object.keys(res.body as object)).toEqual([
      'ticker',
      'exchange',
      'name',
      'type',
      'currency',
      'timezone',
      'price',
      'change',
      'changePercent',
      'previousClose',
      'afterHours',
    ]);
  });

  test('tickers are normalised to upper case and crypto pairs keep null exchange and afterHours', async () => {
    const res = await get('/v1/quote/btc-usd');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      ticker: 'BTC-USD',
      exchange: null,
      type: 'crypto',
      afterHours: null,
      timezone: null,
    });
  });

  test('GET /v1/company/{ticker} keeps absent figures as null', async () => {
    const res = await get('/v1/company/AAPL:NASDAQ');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ceo: 'Tim Cook', employees: 161000, sector: null });
  });

  test('GET /v1/chart/{ticker} defaults to 1M and accepts each documented range', async () => {
    const res = await get('/v1/chart/AAPL:NASDAQ');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      previousClose: 188,
      points: [
        { date: '2026-11-19', price: 188, volume: 1000 },
        { date: '2026-11-20', price: 190.5, volume: null },
      ],
    });
    expect(provider.calls.flat()).toContain('chart:AAPL:NASDAQ:1M');
    for (const range of ['1D', '5D', '1M', '6M', 'YTD', '1Y', '5Y', 'MAX']) {
      const r = await get(`/v1/chart/AAPL:NASDAQ?range=${range}`);
      expect(r.status).toBe(200);
      expect(provider.calls.flat()).toContain(`chart:AAPL:NASDAQ:${range}`);
    }
  });

  test('GET /v1/news/{ticker} gives an array of NewsItem with Unix-second timestamps', async () => {
    const res = await get('/v1/news/AAPL:NASDAQ');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { title: 'Apple news', source: 'Wire', url: 'https://news.example/a', timestamp: 1763600000 },
    ]);
  });

  test('GET /v1/financials/{ticker} filters by type, default all', async () => {
    const all = (await get('/v1/financials/AAPL:NASDAQ')).body as Array<{ fiscalEnd: string; isAnnual: boolean }>;
    expect(all.map((p) => p.fiscalEnd)).toEqual(['2026-Q3', '2025']);
    const annual = (await get('/v1/financials/AAPL:NASDAQ?type=annual')).body as typeof all;
    expect(annual.map((p) => p.fiscalEnd)).toEqual(['2025']);
    const quarterly = (await get('/v1/financials/AAPL:NASDAQ?type=quarterly')).body as typeof all;
    expect(quarterly.map((p) => p.isAnnual)).toEqual([false]);
  });

  test('GET /v1/related/{ticker}', async () => {
    const res = await get('/v1/related/AAPL:NASDAQ');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { ticker: 'BTC-USD', name: 'Bitcoin (BTC / USD)', price: 65000, change: -1000, changePercent: -1.5152 },
    ]);
  });

  test('GET /v1/full/{ticker} is quote + company + chart + news, from ONE provider batch', async () => {
    const own = new StaticProvider();
    const fresh = await startSystem({}, { marketProvider: own });
    try {
      const res = await getJson(`${fresh.url}/v1/full/BTC-USD?range=5D`);
      expect(res.status).toBe(200);
      const body = res.body as Record<string, unknown>;
      expect(Object.keys(body)).toEqual(['quote', 'company', 'chart', 'news']);
      expect(body.quote).toEqual(STATIC_QUOTES['BTC-USD']);
      expect(body.chart).toMatchObject({ previousClose: 66000 });
      expect(own.calls).toHaveLength(1);
      expect([...(own.calls[0] ?? [])].sort()).toEqual([
        'chart:BTC-USD:5D',
        'company:BTC-USD',
        'news:BTC-USD',
        'quote:BTC-USD',
      ]);
    } finally {
      await fresh.close();
    }
  });

  test('a repeated request is served from the cache: no provider call, and a Cache-Control max-age', async () => {
    await get('/v1/quote/AAPL:NASDAQ');
    const before = provider.calls.length;
    const res = await get('/v1/quote/AAPL:NASDAQ');
    expect(res.status).toBe(200);
    expect(provider.calls.length).toBe(before);
    expect(res.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
  });
});

describe('market paths', () => {
  test('GET /v1/market/indices', async () => {
    const res = await get('/v1/market/indices');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { ticker: '.INX:INDEXSP', name: 'S&P 500', price: 5000, change: 10, changePercent: 0.2004 },
    ]);
  });

  test('GET /v1/market/movers defaults to most-active, count 10, offset 0 and pages with count/offset', async () => {
    const res = await get('/v1/market/movers');
    expect(res.status).toBe(200);
    expect(provider.calls.flat()).toContain('movers:most-active:10:0');
    const page = await get('/v1/market/movers?category=gainers&count=1&offset=1');
    expect(page.status).toBe(200);
    expect((page.body as Array<{ ticker: string }>).map((m) => m.ticker)).toEqual(['BTC-USD']);
    expect(provider.calls.flat()).toContain('movers:gainers:1:1');
    expect((await get('/v1/market/movers?category=losers')).status).toBe(200);
  });

  test('GET /v1/market/trending, /earnings, /headlines', async () => {
    expect((await get('/v1/market/trending')).body).toHaveLength(2);
    expect((await get('/v1/market/earnings')).body).toEqual([
      { ticker: 'AAPL:NASDAQ', name: 'Apple Inc', date: '2026-Q4', exchange: 'NASDAQ', reportDate: '2027-01-29' },
    ]);
    expect((await get('/v1/market/headlines')).body).toEqual({
      title: 'Markets rise',
      url: 'https://news.example/h',
      source: 'Wire',
    });
  });

  test('GET /healthz reports status, version and the market subgraph', async () => {
    const res = await get('/healthz');
    expect(res.status).toBe(200);
    const market =
      SUBGRAPH_MODE === 'remote'
        ? { status: 'ok', url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/graphql$/) }
        : { status: 'ok', provider: 'static' };
    expect(res.body).toMatchObject({ status: 'ok', version: expect.any(String), subgraphs: { market } });
  });
});

describe('bad input: 400 / 404 with {error, message}', () => {
  const cases: Array<[string, number, RegExp]> = [
    ['/v1/quote/AAPL', 400, /invalid ticker "AAPL".*SYMBOL:EXCHANGE/],
    ['/v1/quote/', 400, /missing ticker/],
    [`/v1/quote/${'A'.repeat(30)}:${'B'.repeat(15)}`, 400, /longer than 40 characters/],
    ['/v1/quote/AA$PL:NASDAQ', 400, /invalid ticker/],
    ['/v1/quote/AAPL:NAS:DAQ', 400, /invalid ticker/],
    ['/v1/quote/BTC-USD-EUR', 400, /invalid ticker/],
    ['/v1/chart/AAPL', 400, /invalid ticker/],
    ['/v1/full/AAPL', 400, /invalid ticker/],
    ['/v1/company/%20', 400, /invalid ticker/],
    ['/v1/quote/FOO:BAR', 404, /no data for ticker FOO:BAR/],
    ['/v1/company/FOO:BAR', 404, /FOO:BAR/],
    ['/v1/chart/FOO:BAR', 404, /FOO:BAR/],
    ['/v1/news/FOO:BAR', 404, /FOO:BAR/],
    ['/v1/financials/FOO:BAR', 404, /FOO:BAR/],
    ['/v1/related/FOO:BAR', 404, /FOO:BAR/],
    ['/v1/full/FOO:BAR', 404, /FOO:BAR/],
    ['/v1/chart/AAPL:NASDAQ?range=2D', 400, /^invalid range: use 1D, 5D, 1M, 6M, YTD, 1Y, 5Y, MAX$/],
    ['/v1/full/AAPL:NASDAQ?range=10Y', 400, /^invalid range: use 1D, 5D, 1M, 6M, YTD, 1Y, 5Y, MAX$/],
    ['/v1/chart/AAPL:NASDAQ?range=1M&range=1D', 400, /range may be given only once/],
    ['/v1/financials/AAPL:NASDAQ?type=monthly', 400, /^invalid type: use quarterly, annual, all$/],
    ['/v1/market/movers?count=0', 400, /count must be an integer from 1 to 100 \(got 0\)/],
    ['/v1/market/movers?count=101', 400, /count must be an integer from 1 to 100 \(got 101\)/],
    ['/v1/market/movers?count=-1', 400, /count must be an integer from 1 to 100 \(got -1\)/],
    ['/v1/market/movers?count=abc', 400, /^count must be an integer from 1 to 100 \(got "abc"\)$/],
    ['/v1/market/movers?count=1.5', 400, /^count must be an integer from 1 to 100 \(got "1.5"\)$/],
    ['/v1/market/movers?count=', 400, /^count must be an integer from 1 to 100 \(got ""\)$/],
    ['/v1/market/movers?offset=-1', 400, /^offset must be an integer from 0 to 10000 \(got -1\)$/],
    ['/v1/market/movers?offset=1000000000', 400, /^offset must be an integer from 0 to 10000 \(got 1000000000\)$/],
    [
      '/v1/market/movers?offset=99999999999999999999999',
      400,
      /^offset must be an integer from 0 to 10000 \(got 99999999999999999999999\)$/,
    ],
    ['/v1/chart/AAPL:NASDAQ?range=', 400, /^invalid range: use 1D, 5D, 1M, 6M, YTD, 1Y, 5Y, MAX$/],
    ['/v1/full/AAPL:NASDAQ?range=', 400, /^invalid range: use 1D, 5D, 1M, 6M, YTD, 1Y, 5Y, MAX$/],
    ['/v1/financials/AAPL:NASDAQ?type=', 400, /^invalid type: use quarterly, annual, all$/],
    ['/v1/market/movers?category=', 400, /^invalid category: use most-active, gainers, losers$/],
    [`/v1/quote/${'A'.repeat(1_000)}:NASDAQ`, 400, /invalid ticker/],
    [`/v1/full/${'A'.repeat(5_000)}:NASDAQ`, 400, /invalid ticker/],
    ['/v1/market/movers?category=hot', 400, /^invalid category: use most-active, gainers, losers$/],
    ['/v1/nope', 404, /no such path: GET \/v1\/nope/],
  ];
  test.each(cases)('GET %s → %i', async (path, status, message) => {
    const res = await get(path);
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = res.body as { error: string; message: string };
    expect(Object.keys(body).sort()).toEqual(['error', 'message']);
    expect(body.error).toBe(status === 400 ? 'Bad Request' : 'Not Found');
    expect(body.message).toMatch(message);
  });
});

describe('upstream failure', () => {
  test('is a 502 naming the upstream, never a zero-filled object, and is not cached', async () => {
    const failing = new StaticProvider();
    const own = await startSystem({}, { marketProvider: failing });
    try {
      failing.failing.add('company:AAPL:NASDAQ');
      const res = await getJson(`${own.url}/v1/company/AAPL:NASDAQ`);
      expect(res.status).toBe(502);
      expect(res.body).toEqual({
        error: 'Bad Gateway',
        message: expect.stringMatching(/upstream unavailable: upstream returned HTTP 503/),
      });
      failing.failing.clear();
      const again = await getJson(`${own.url}/v1/company/AAPL:NASDAQ`);
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ ceo: 'Tim Cook' });
    } finally {
      await own.close();
    }
  });
});

describe('CORS', () => {
  test('allows any origin by default and answers preflight with 204', async () => {
    const res = await fetch(`${sys.url}/v1/quote/AAPL:NASDAQ`, { headers: { origin: 'https://app.example' } });
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const pre = await fetch(`${sys.url}/v1/quote/AAPL:NASDAQ`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'GET' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-methods')).toMatch(/GET/);
  });
});
