import { companyPayload, FAKE_TICKERS, financialsPayload, newsPayload, quotePayload } from '../support/google-payloads';
import { startFakeUpstream, tickerOfCall, type FakeUpstream } from '../support/google-upstream';
import { dataFrames, openStream, waitFor } from '../support/sse';
import { getJson, graphql, startSystem, type RunningSystem } from '../support/system';

/** The whole system on the `google` provider, against the fake upstream over HTTP. */
let upstream: FakeUpstream;
let sys: RunningSystem;
beforeAll(async () => {
  upstream = await startFakeUpstream();
  sys = await startSystem({
    MARKET_PROVIDER: 'google',
    GOOGLE_FINANCE_URL: upstream.url,
    UPSTREAM_TIMEOUT_MS: '300',
    UPSTREAM_RETRIES: '1',
  });
});
afterAll(async () => {
  await sys.close();
  await upstream.close();
});

async function roundTrips(fn: () => Promise<unknown>): Promise<number> {
  const before = upstream.requests;
  await fn();
  return upstream.requests - before;
}

test('GET /v1/full costs one upstream round trip cold and none warm', async () => {
  let body: unknown;
  expect(
    await roundTrips(async () => {
      body = (await getJson(`${sys.url}/v1/full/AAPL:NASDAQ`)).body;
    }),
  ).toBe(1);
  expect((body as { quote: unknown }).quote).toEqual({ ...FAKE_TICKERS['AAPL:NASDAQ']?.quote });
  expect(await roundTrips(() => getJson(`${sys.url}/v1/full/AAPL:NASDAQ`))).toBe(0);
  // another operation over the same data: the data cache answers, still no upstream call
  expect(await roundTrips(() => getJson(`${sys.url}/v1/quote/AAPL:NASDAQ`))).toBe(0);
});

test('a GraphQL query over several tickers and nested fields is one upstream round trip', async () => {
  let res: Awaited<ReturnType<typeof graphql>> | undefined;
  const trips = await roundTrips(async () => {
    res = await graphql(
      sys.url,
      `
        {
          quotes(tickers: ["MSFT:NASDAQ", "BTC-USD"]) {
            ticker
            price
            company {
              ceo
            }
            news {
              title
            }
          }
          indices {
            ticker
          }
        }
      `,
    );
  });
  expect(res?.body.errors).toBeUndefined();
  expect(trips).toBe(1);
  expect((res?.body.data as { quotes: Array<{ ticker: string }> }).quotes.map((q) => q.ticker)).toEqual([
    'MSFT:NASDAQ',
    'BTC-USD',
  ]);
});

test('an unknown ticker is a 404 (the upstream sends a null payload)', async () => {
  const res = await getJson(`${sys.url}/v1/quote/NOPE:NASDAQ`);
  expect(res.status).toBe(404);
  expect(res.body).toEqual({ error: 'Not Found', message: 'no data for ticker NOPE:NASDAQ' });
});

test('an upstream that answers 503 is a 502 after bounded retries; the next request recovers', async () => {
  upstream.behaviour = { mode: 'status', status: 503 };
  try {
    const started = Date.now();
    const res = await getJson(`${sys.url}/v1/company/GOOGL:NASDAQ`);
    expect(res.status).toBe(502);
    expect((res.body as { message: string }).message).toMatch(/upstream unavailable: .*503.*after 2 attempts/);
    expect(Date.now() - started).toBeLessThan(5_000);
  } finally {
    upstream.behaviour = { mode: 'ok' };
  }
  const ok = await getJson(`${sys.url}/v1/company/GOOGL:NASDAQ`);
  expect(ok.status).toBe(200);
});

test('an upstream that hangs is a 502 after the timeout, and an unparseable answer is a 502, never a crash', async () => {
  upstream.behaviour = { mode: 'hang' };
  try {
    const res = await getJson(`${sys.url}/v1/news/SPY:NYSEARCA`);
    expect(res.status).toBe(502);
    expect((res.body as { message: string }).message).toMatch(/upstream unavailable/);
  } finally {
    upstream.behaviour = { mode: 'ok' };
  }
  upstream.behaviour = { mode: 'garbage' };
  try {
    const res = await getJson(`${sys.url}/v1/related/THYAO:IST`);
    expect(res.status).toBe(502);
    expect((res.body as { message: string }).message).toMatch(/could not be parsed/);
  } finally {
    upstream.behaviour = { mode: 'ok' };
  }
  expect((await getJson(`${sys.url}/healthz`)).status).toBe(200);
});

describe('upstream integers wider than 32 bits (served by the fake over HTTP)', () => {
  const TICKER = 'WIDE:NYSE';
  const MS_TIMESTAMP = 1_763_650_800_000; // milliseconds: ≥ 2^31
  const AFTER_2038 = 2 ** 31; // 2038-01-19T03:14:08Z in seconds
  const EMPLOYEES = 2 ** 31; // one above Int's 2^31 − 1
  const VOLUME = 2 ** 53 + 2; // beyond exact integers: no SafeInt
  const aapl = FAKE_TICKERS['AAPL:NASDAQ']!;
  beforeAll(() => {
    upstream.payloadFor = (call) => {
      if (tickerOfCall(call) !== TICKER) return undefined;
      switch (call.rpcid) {
        case 'xh8wxf':
          return quotePayload({ ...aapl.quote, ticker: TICKER, exchange: 'NYSE', name: 'Wide Corp' });
        case 'HqGpWd':
          return companyPayload({ ...aapl.company!, employees: EMPLOYEES, volume: VOLUME });
        case 'nBEQBc':
          return newsPayload([
            { title: 'in milliseconds', source: 'Wire', url: 'https://news.example/ms', timestamp: MS_TIMESTAMP },
            { title: 'after 2038', source: 'Wire', url: 'https://news.example/2038', timestamp: AFTER_2038 },
          ]);
        default:
          return undefined;
      }
    };
  });
  afterAll(() => {
    upstream.payloadFor = undefined;
  });

  test('/v1/news and /v1/company answer the wide values as JSON numbers; a volume beyond 2^53 is null', async () => {
    const news = await getJson(`${sys.url}/v1/news/${TICKER}`);
    expect(news.status).toBe(200);
    expect((news.body as Array<{ timestamp: unknown }>).map((n) => n.timestamp)).toEqual([MS_TIMESTAMP, AFTER_2038]);
    const company = await getJson(`${sys.url}/v1/company/${TICKER}`);
    expect(company.status).toBe(200);
    expect(company.body).toMatchObject({ employees: EMPLOYEES, volume: null, ceo: aapl.company!.ceo });
  });

  test('/v1/full and GraphQL carry them too, without errors', async () => {
    const full = await getJson(`${sys.url}/v1/full/${TICKER}`);
    expect(full.status).toBe(200);
    const body = full.body as { company: { employees: unknown; volume: unknown }; news: Array<{ timestamp: unknown }> };
    expect(body.company).toMatchObject({ employees: EMPLOYEES, volume: null });
    expect(body.news.map((n) => n.timestamp)).toEqual([MS_TIMESTAMP, AFTER_2038]);
    const res = await graphql(
      sys.url,
      `{ quote(ticker: "${TICKER}") { company { employees volume } news { timestamp } } }`,
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data).toEqual({
      quote: {
        company: { employees: EMPLOYEES, volume: null },
        news: [{ timestamp: MS_TIMESTAMP }, { timestamp: AFTER_2038 }],
      },
    });
  });
});

describe("financials in the original service's layout (root at d[0][0])", () => {
  test('the fake serves that layout and /v1/financials reads every period of it', async () => {
    const res = await getJson(`${sys.url}/v1/financials/MSFT:NASDAQ`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(FAKE_TICKERS['MSFT:NASDAQ']!.financials);
  });

  test('a payload that does not fit (the lists one level shallower) gives no periods, never garbage', async () => {
    const TICKER = 'SHALLOW:NYSE';
    const nested = financialsPayload(FAKE_TICKERS['AAPL:NASDAQ']!.financials!) as unknown[][];
    upstream.payloadFor = (call) => {
      if (tickerOfCall(call) !== TICKER) return undefined;
      if (call.rpcid === 'xh8wxf') return quotePayload({ ...FAKE_TICKERS['AAPL:NASDAQ']!.quote, ticker: TICKER });
      return call.rpcid === 'Pr8h2e' ? nested[0] : undefined;
    };
    try {
      const res = await getJson(`${sys.url}/v1/financials/${TICKER}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual([]);
    } finally {
      upstream.payloadFor = undefined;
    }
  });
});

describe('the default live list when the upstream has no data for some of it (USD-TRY, EUR-TRY are not in the fake)', () => {
  const WITH_DATA = ['GOOGL:NASDAQ', 'AAPL:NASDAQ', 'MSFT:NASDAQ', 'BTC-USD', 'THYAO:IST', 'EUR-USD'];

  test('/v1/live streams the others, in the default order', async () => {
    const stream = await openStream(`${sys.url}/v1/live`);
    try {
      expect(stream.status).toBe(200);
      await waitFor(() => dataFrames(stream.frames).length >= 1, 5_000, 'the first frame');
      const items = JSON.parse(dataFrames(stream.frames)[0]?.data as string) as Array<{
        ticker: string;
        price: number;
      }>;
      expect(items.map((i) => i.ticker)).toEqual(WITH_DATA);
      expect(items.every((i) => typeof i.price === 'number')).toBe(true);
    } finally {
      stream.close();
    }
  });

  test('/v1/live/snapshot and GraphQL priceTicks and liveSnapshot without tickers leave them out too', async () => {
    const snapshot = await getJson(`${sys.url}/v1/live/snapshot`);
    expect(snapshot.status).toBe(200);
    expect((snapshot.body as Array<{ ticker: string }>).map((i) => i.ticker)).toEqual(WITH_DATA);
    const query = await graphql(sys.url, '{ liveSnapshot { ticker } }');
    expect(query.body.errors).toBeUndefined();
    expect((query.body.data as { liveSnapshot: Array<{ ticker: string }> }).liveSnapshot.map((q) => q.ticker)).toEqual(
      WITH_DATA,
    );
    const body = JSON.stringify({ query: 'subscription { priceTicks { sequence quotes { ticker } } }' });
    const res = await fetch(`${sys.url}/graphql/stream`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    });
    expect(res.status).toBe(200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    while (!/event: next\ndata: .*\n\n/.test(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    await reader.cancel();
    const next = JSON.parse(/event: next\ndata: (.*)\n/.exec(text)?.[1] as string) as {
      data: { priceTicks: { quotes: Array<{ ticker: string }> } };
    };
    expect(next.data.priceTicks.quotes.map((q) => q.ticker)).toEqual(WITH_DATA);
  });

  test('a ticker without data that the client names is still a 404 before any stream starts', async () => {
    for (const path of ['/v1/live?tickers=AAPL:NASDAQ,USD-TRY', '/v1/live/snapshot?tickers=USD-TRY']) {
      const res = await getJson(`${sys.url}${path}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Not Found', message: 'no data for ticker USD-TRY' });
    }
  });
});
