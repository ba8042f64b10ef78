import { FAKE_TICKERS, financialsPayload, quotePayload } from '../fakes/google-payloads';
import { startFakeUpstream, tickerOfCall, type FakeUpstream } from '../fakes/google-upstream';
import { getJson, graphql, startSystem, type RunningSystem } from '../helpers/system';

/** The whole system on the `google` provider, against the fake upstream over HTTP. */
let upstream: FakeUpstream;
let sys: RunningSystem;
beforeAll(async () => {
  upstream = await startFakeUpstream();
  sys = await startSystem({
    MARKET_PROVIDER: 'google', GOOGLE_FINANCE_URL: upstream.url, UPSTREAM_TIMEOUT_MS: '300', UPSTREAM_RETRIES: '1',
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
  expect(await roundTrips(async () => { body = (await getJson(`${sys.url}/v1/full/AAPL:NASDAQ`)).body; })).toBe(1);
  expect((body as { quote: unknown }).quote).toEqual({ ...FAKE_TICKERS['AAPL:NASDAQ']?.quote });
  expect(await roundTrips(() => getJson(`${sys.url}/v1/full/AAPL:NASDAQ`))).toBe(0);
  // another operation over the same data: the data cache answers, still no upstream call
  expect(await roundTrips(() => getJson(`${sys.url}/v1/quote/AAPL:NASDAQ`))).toBe(0);
});

test('a GraphQL query over several tickers and nested fields is one upstream round trip', async () => {
  let res: Awaited<ReturnType<typeof graphql>> | undefined;
  const trips = await roundTrips(async () => {
    res = await graphql(sys.url, `{ quotes(tickers: ["MSFT:NASDAQ", "BTC-USD"]) { ticker price company { ceo } news { title } }
      indices { ticker } }`);
  });
  expect(res?.body.errors).toBeUndefined();
  expect(trips).toBe(1);
  expect((res?.body.data as { quotes: Array<{ ticker: string }> }).quotes.map((q) => q.ticker)).toEqual(['MSFT:NASDAQ', 'BTC-USD']);
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

describe('financials in the original service\'s layout (root at d[0][0])', () => {
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
