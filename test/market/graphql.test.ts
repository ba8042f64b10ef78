import { execute, parse } from 'graphql';
import { createMarketSubgraph } from '../../subgraphs/market';
import { createMarketCache } from '../../subgraphs/market/cache';
import { CacheHint } from '../../subgraphs/subgraph';
import { loadConfig } from '../../gateway/host/config/load';
import { StaticProvider, STATIC_QUOTES } from '../support/static-provider';
import { graphql, startSystem, type RunningSystem } from '../support/system';

/** The market operations through the federated graph over HTTP. */
let sys: RunningSystem;
let provider: StaticProvider;
beforeAll(async () => {
  provider = new StaticProvider();
  sys = await startSystem({}, { marketProvider: provider });
});
afterAll(() => sys.close());

const q = <T = Record<string, unknown>>(query: string, variables?: Record<string, unknown>) =>
  graphql<T>(sys.url, query, variables);

test('quote with every nested field is one query and one provider batch', async () => {
  const before = provider.calls.length;
  const res = await q(`{ quote(ticker: "AAPL:NASDAQ") {
    ticker type afterHours { price }
    company { ceo } chart(range: SIX_MONTHS) { previousClose } news { title }
    financials(type: ANNUAL) { fiscalEnd isAnnual } related { ticker } } }`);
  expect(res.status).toBe(200);
  expect(res.body.errors).toBeUndefined();
  expect(res.body.data).toEqual({
    quote: {
      ticker: 'AAPL:NASDAQ',
      type: 'STOCK',
      afterHours: { price: 191 },
      company: { ceo: 'Tim Cook' },
      chart: { previousClose: 188 },
      news: [{ title: 'Apple news' }],
      financials: [{ fiscalEnd: '2025', isAnnual: true }],
      related: [{ ticker: 'BTC-USD' }],
    },
  });
  expect(provider.calls.length - before).toBe(1);
  expect(provider.calls.at(-1)).toHaveLength(6);
});

test('quotes(tickers) answers in order, null with NOT_FOUND at the index of an unknown ticker, in one batch', async () => {
  const before = provider.calls.length;
  const res = await q<{ quotes: Array<{ ticker: string; price: number } | null> }>(
    '{ quotes(tickers: ["btc-usd", "NOPE:NYSE", "AAPL:NASDAQ"]) { ticker price } }',
  );
  expect(res.body.data?.quotes).toEqual([
    { ticker: 'BTC-USD', price: 65000 },
    null,
    { ticker: 'AAPL:NASDAQ', price: 190.5 },
  ]);
  expect(res.body.errors).toHaveLength(1);
  expect(res.body.errors?.[0]).toMatchObject({ path: ['quotes', 1], extensions: { code: 'NOT_FOUND' } });
  expect(provider.calls.length - before).toBeLessThanOrEqual(1);
});

test('quotes(tickers) over the limit and with a bad ticker are BAD_USER_INPUT naming the argument', async () => {
  const many = await q('query($t: [String!]!) { quotes(tickers: $t) { ticker } }', {
    t: Array.from({ length: 51 }, () => 'AAPL:NASDAQ'),
  });
  expect(many.body.errors?.[0]).toMatchObject({
    message: 'tickers may hold at most 50 tickers (got 51)',
    extensions: { code: 'BAD_USER_INPUT', field: 'tickers' },
  });
  const bad = await q('{ quotes(tickers: ["AAPL:NASDAQ", "AAPL"]) { ticker } }');
  expect(bad.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'tickers[1]' });
});

test('root ticker fields: company, chart, news, financials, related', async () => {
  const res = await q(`{ company(ticker: "AAPL:NASDAQ") { employees sector }
    chart(ticker: "AAPL:NASDAQ", range: ONE_DAY) { points { date price volume } }
    news(ticker: "AAPL:NASDAQ") { timestamp }
    financials(ticker: "AAPL:NASDAQ", type: QUARTERLY) { fiscalEnd }
    related(ticker: "AAPL:NASDAQ") { ticker changePercent } }`);
  expect(res.body.errors).toBeUndefined();
  expect(res.body.data).toEqual({
    company: { employees: 161000, sector: null },
    chart: {
      points: [
        { date: '2026-11-19', price: 188, volume: 1000 },
        { date: '2026-11-20', price: 190.5, volume: null },
      ],
    },
    news: [{ timestamp: 1763600000 }],
    financials: [{ fiscalEnd: '2026-Q3' }],
    related: [{ ticker: 'BTC-USD', changePercent: -1.5152 }],
  });
});

test('market lists: indices, movers, trending, earnings, headline', async () => {
  const res = await q(`{ indices { ticker } movers(category: LOSERS, count: 1, offset: 0) { ticker }
    trending { ticker } earnings { date reportDate } headline { title } }`);
  expect(res.body.errors).toBeUndefined();
  expect(res.body.data).toEqual({
    indices: [{ ticker: '.INX:INDEXSP' }],
    movers: [{ ticker: 'AAPL:NASDAQ' }],
    trending: [{ ticker: 'AAPL:NASDAQ' }, { ticker: 'BTC-USD' }],
    earnings: [{ date: '2026-Q4', reportDate: '2027-01-29' }],
    headline: { title: 'Markets rise' },
  });
  expect(provider.calls.flat()).toContain('movers:losers:1:0');
});

test.each([
  ['{ quote(ticker: "AAPL") { ticker } }', 'BAD_USER_INPUT', /invalid ticker "AAPL"/],
  ['{ quote(ticker: "") { ticker } }', 'BAD_USER_INPUT', /invalid ticker "": it is empty/],
  ['{ quote(ticker: "ZZZ:NASDAQ") { ticker } }', 'NOT_FOUND', /no data for ticker ZZZ:NASDAQ/],
  ['{ movers(count: 0) { ticker } }', 'BAD_USER_INPUT', /count must be an integer from 1 to 100 \(got 0\)/],
  ['{ movers(offset: -5) { ticker } }', 'BAD_USER_INPUT', /offset must be an integer from 0 to 10000 \(got -5\)/],
  ['{ chart(ticker: "AAPL:NASDAQ", range: TWO_DAYS) { previousClose } }', 'GRAPHQL_VALIDATION_FAILED', /TWO_DAYS/],
])('%s → %s', async (query, code, message) => {
  const res = await q(query);
  expect(res.body.errors?.[0]?.extensions?.code).toBe(code);
  expect(res.body.errors?.[0]?.message).toMatch(message);
});

test('a bad argument names the argument in extensions.field', async () => {
  const res = await q('{ movers(count: 500) { ticker } }');
  expect(res.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'count' });
});

test('an upstream failure of one field leaves the rest of the data and says UPSTREAM_UNAVAILABLE', async () => {
  const own = new StaticProvider();
  const sys2 = await startSystem({}, { marketProvider: own });
  try {
    own.failing.add('news:AAPL:NASDAQ');
    const res = await graphql(sys2.url, '{ quote(ticker: "AAPL:NASDAQ") { price news { title } } }');
    expect(res.body.data).toEqual({ quote: { price: 190.5, news: null } });
    expect(res.body.errors?.[0]).toMatchObject({
      path: ['quote', 'news'],
      extensions: { code: 'UPSTREAM_UNAVAILABLE' },
    });
  } finally {
    await sys2.close();
  }
});

test('identical queries are served from the response cache with a Cache-Control header', async () => {
  const query = '{ quote(ticker: "BTC-USD") { price previousClose } }';
  await q(query);
  const before = provider.calls.length;
  const res = await fetch(`${sys.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  expect(await res.json()).toEqual({ data: { quote: { price: 65000, previousClose: 66000 } } });
  expect(res.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
  expect(provider.calls.length).toBe(before);
});

test('GET /graphql without a CSRF-safe header is refused (Apollo CSRF prevention)', async () => {
  const res = await fetch(`${sys.url}/graphql?query=${encodeURIComponent('{ headline { title } }')}`);
  expect(res.status).toBe(400);
  const ok = await fetch(`${sys.url}/graphql?query=${encodeURIComponent('{ headline { title } }')}`, {
    headers: { 'apollo-require-preflight': '1' },
  });
  expect(await ok.json()).toEqual({ data: { headline: { title: 'Markets rise' } } });
});

test('the Quote entity resolves by its key in the subgraph (_entities), prefetching nested fields in one batch', async () => {
  const own = new StaticProvider();
  const config = loadConfig({ env: {} });
  const market = await createMarketSubgraph({
    provider: own,
    cache: createMarketCache(),
    ttls: config.marketCacheTtl,
    limits: { maxQuotesPerRequest: 50, maxTickersPerSubscription: 50 },
    live: { intervalMs: 15_000 },
  });
  const result = await execute({
    schema: market.schema,
    document: parse(
      `query($r: [_Any!]!) { _entities(representations: $r) { ... on Quote { ticker name company { ceo } } } }`,
    ),
    variableValues: {
      r: [
        { __typename: 'Quote', ticker: 'aapl:nasdaq' },
        { __typename: 'Quote', ticker: 'BTC-USD' },
      ],
    },
    contextValue: market.createContext({ requestId: 't', cacheHint: new CacheHint() }),
  });
  expect(result.errors).toBeUndefined();
  expect(result.data).toEqual({
    _entities: [
      { ticker: 'AAPL:NASDAQ', name: STATIC_QUOTES['AAPL:NASDAQ']?.name, company: { ceo: 'Tim Cook' } },
      { ticker: 'BTC-USD', name: STATIC_QUOTES['BTC-USD']?.name, company: { ceo: 'Tim Cook' } },
    ],
  });
  expect(own.calls).toHaveLength(1);
  await market.close();
});

test('arguments left out take their documented defaults (enum defaults reach resolvers as internal values)', async () => {
  const own = new StaticProvider();
  const fresh = await startSystem({}, { marketProvider: own });
  try {
    const res = await graphql(
      fresh.url,
      `
        {
          chart(ticker: "AAPL:NASDAQ") {
            previousClose
          }
          movers {
            ticker
          }
          financials(ticker: "AAPL:NASDAQ") {
            fiscalEnd
          }
          quote(ticker: "BTC-USD") {
            chart {
              previousClose
            }
            financials {
              fiscalEnd
            }
          }
        }
      `,
    );
    expect(res.body.errors).toBeUndefined();
    expect(own.calls.flat().sort()).toEqual([
      'chart:AAPL:NASDAQ:1M',
      'chart:BTC-USD:1M',
      'financials:AAPL:NASDAQ',
      'financials:BTC-USD',
      'movers:most-active:10:0',
      'quote:BTC-USD',
    ]);
    const data = res.body.data as {
      financials: Array<{ fiscalEnd: string }>;
      quote: { financials: Array<{ fiscalEnd: string }> };
    };
    expect(data.financials.map((f) => f.fiscalEnd)).toEqual(['2026-Q3', '2025']); // ALL: quarterly and annual
    expect(data.quote.financials.map((f) => f.fiscalEnd)).toEqual(['2026-Q3', '2025']);
  } finally {
    await fresh.close();
  }
});

test('a cache hit answers byte for byte what Apollo Server answered on the miss', async () => {
  const body = JSON.stringify({
    query: 'query Same($t: String!) { quote(ticker: $t) { ticker price afterHours { price } } }',
    variables: { t: 'AAPL:NASDAQ' },
  });
  const post = () =>
    fetch(`${sys.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const miss = await post();
  const before = provider.calls.length;
  const hit = await post();
  expect(provider.calls.length).toBe(before);
  expect(hit.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
  expect(hit.headers.get('content-type')).toBe(miss.headers.get('content-type'));
  expect(await hit.text()).toBe(await miss.text());
  // other variables are another entry
  const other = await fetch(`${sys.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: body.replace('AAPL:NASDAQ', 'BTC-USD'),
  });
  expect(((await other.json()) as { data: { quote: { ticker: string } } }).data.quote.ticker).toBe('BTC-USD');
});
