/**
 * End to end over HTTP: the google provider against the fake upstream (test/support/google-upstream.ts).
 */
import { createServer } from 'node:net';
import {
  companyPayload,
  FAKE_MARKET,
  FAKE_TICKERS,
  fakeChart,
  financialsPayload,
} from '../../../../test/support/google-payloads';
import {
  decodeFReqBody,
  startFakeUpstream,
  tickerOfCall,
  type FakeUpstream,
} from '../../../../test/support/google-upstream';
import type { MarketProvider, MarketRequest, MarketResult } from '../provider';
import { UpstreamError } from '../provider';
import { createGoogleProvider, type GoogleProviderOptions } from './index';

let fake: FakeUpstream;
const providers: MarketProvider[] = [];

beforeAll(async () => {
  fake = await startFakeUpstream();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.behaviour = { mode: 'ok' };
  fake.payloadFor = undefined;
  fake.requests = 0;
  fake.lastBodies.length = 0;
  fake.lastUrls.length = 0;
  fake.lastHeaders.length = 0;
});
afterEach(async () => {
  await Promise.all(providers.splice(0).map(async (p) => p.close?.()));
});

function provider(options: GoogleProviderOptions = {}, upstream: FakeUpstream = fake): MarketProvider {
  const p = createGoogleProvider({ baseUrl: upstream.url, backoffMs: 2, timeoutMs: 2000, ...options });
  providers.push(p);
  return p;
}

function values(results: MarketResult[]): unknown[] {
  return results.map((r) => {
    if (!r.ok) throw new Error(`unexpected error: ${r.error.message}`);
    return r.value;
  });
}

function errors(results: MarketResult[]): string[] {
  return results.map((r) => {
    if (r.ok) throw new Error(`unexpected value: ${JSON.stringify(r.value)}`);
    expect(r.error).toBeInstanceOf(UpstreamError);
    return r.error.message;
  });
}

/** Calls per round trip the fake saw. */
function callsPerRoundTrip(): number[] {
  return fake.lastBodies.map((b) => {
    const calls = decodeFReqBody(b);
    if (typeof calls === 'string') throw new Error(calls);
    return calls.length;
  });
}

const aapl = FAKE_TICKERS['AAPL:NASDAQ']!;

describe('google provider against the fake upstream', () => {
  test('quote + company + chart + news of one ticker: exactly one round trip, every value right', async () => {
    const p = provider();
    const results = await p.fetch([
      { kind: 'quote', ticker: 'AAPL:NASDAQ' },
      { kind: 'company', ticker: 'AAPL:NASDAQ' },
      { kind: 'chart', ticker: 'AAPL:NASDAQ', range: '1D' },
      { kind: 'news', ticker: 'AAPL:NASDAQ' },
    ]);
    expect(fake.requests).toBe(1);
    expect(values(results)).toEqual([aapl.quote, aapl.company, fakeChart('AAPL:NASDAQ', '1D'), aapl.news]);
    const url = new URL(fake.lastUrls[0]!, fake.url);
    expect(url.searchParams.get('rpcids')).toBe('xh8wxf,HqGpWd,AiCwsd,nBEQBc');
    expect(url.searchParams.get('source-path')).toBe('/finance/quote/AAPL:NASDAQ');
    expect(url.searchParams.get('hl')).toBe('en');
    expect(url.searchParams.get('gl')).toBe('us');
    expect(url.searchParams.get('rt')).toBe('c');
    expect(p.name).toBe('google');
  });

  test('sends the documented headers', async () => {
    await provider().fetch([{ kind: 'quote', ticker: 'BTC-USD' }]);
    const h = fake.lastHeaders[0]!;
    expect(h['user-agent']).toMatch(/^Mozilla\/5\.0 .*Chrome\//);
    expect(h['content-type']).toBe('application/x-www-form-urlencoded;charset=UTF-8');
    expect(h.cookie).toBe('CONSENT=YES+cb');
    expect(h.origin).toBe(fake.url);
    expect(h.referer).toBe(`${fake.url}/finance/quote/BTC-USD`);
  });

  test('every kind for several tickers in one round trip, results in request order', async () => {
    const requests: MarketRequest[] = [
      { kind: 'indices' },
      { kind: 'quote', ticker: 'BTC-USD' },
      { kind: 'financials', ticker: 'THYAO:IST' },
      { kind: 'movers', category: 'losers', count: 4, offset: 3 },
      { kind: 'related', ticker: 'AAPL:NASDAQ' },
      { kind: 'chart', ticker: 'EUR-USD', range: '5D' },
      { kind: 'news', ticker: 'BTC-USD' },
      { kind: 'trending' },
      { kind: 'earnings' },
      { kind: 'headline' },
      { kind: 'quote', ticker: '.INX:INDEXSP' },
      { kind: 'quote', ticker: 'SPY:NYSEARCA' },
      { kind: 'quote', ticker: 'EUR-USD' },
      { kind: 'company', ticker: 'GOOGL:NASDAQ' },
      { kind: 'chart', ticker: 'MSFT:NASDAQ', range: 'MAX' },
    ];
    const results = await provider().fetch(requests);
    expect(fake.requests).toBe(1);
    expect(callsPerRoundTrip()).toEqual([15]);
    expect(new URL(fake.lastUrls[0]!, fake.url).searchParams.get('source-path')).toBe('/finance/');
    expect(values(results)).toEqual([
      FAKE_MARKET.indices,
      FAKE_TICKERS['BTC-USD']!.quote,
      FAKE_TICKERS['THYAO:IST']!.financials,
      FAKE_MARKET.movers.losers.slice(3, 7),
      aapl.related,
      fakeChart('EUR-USD', '5D'),
      FAKE_TICKERS['BTC-USD']!.news,
      FAKE_MARKET.trending,
      FAKE_MARKET.earnings,
      FAKE_MARKET.headline,
      FAKE_TICKERS['.INX:INDEXSP']!.quote,
      FAKE_TICKERS['SPY:NYSEARCA']!.quote,
      FAKE_TICKERS['EUR-USD']!.quote,
      FAKE_TICKERS['GOOGL:NASDAQ']!.company,
      fakeChart('MSFT:NASDAQ', 'MAX'),
    ]);
  });

  test('identical requests are sent once and answered at every position', async () => {
    const results = await provider().fetch([
      { kind: 'quote', ticker: 'MSFT:NASDAQ' },
      { kind: 'chart', ticker: 'MSFT:NASDAQ', range: '1M' },
      { kind: 'quote', ticker: 'MSFT:NASDAQ' },
      { kind: 'chart', ticker: 'MSFT:NASDAQ', range: '1M' },
      { kind: 'chart', ticker: 'MSFT:NASDAQ', range: '1Y' },
      { kind: 'quote', ticker: 'MSFT:NASDAQ' },
    ]);
    expect(fake.requests).toBe(1);
    expect(callsPerRoundTrip()).toEqual([3]);
    const msft = FAKE_TICKERS['MSFT:NASDAQ']!.quote;
    const m1 = fakeChart('MSFT:NASDAQ', '1M');
    expect(values(results)).toEqual([msft, m1, msft, m1, fakeChart('MSFT:NASDAQ', '1Y'), msft]);
  });

  test('more distinct calls than maxCallsPerEnvelope: split into several envelopes, results still in order', async () => {
    const tickers = Object.keys(FAKE_TICKERS);
    const requests: MarketRequest[] = tickers.map((ticker) => ({ kind: 'quote', ticker }));
    const results = await provider({ maxCallsPerEnvelope: 3 }).fetch(requests);
    expect(fake.requests).toBe(3);
    expect(callsPerRoundTrip().sort()).toEqual([2, 3, 3]);
    expect(values(results)).toEqual(tickers.map((t) => FAKE_TICKERS[t]!.quote));
  });

  test('default limit 20: 20 distinct calls are one round trip, 21 are two', async () => {
    const charts = (n: number): MarketRequest[] =>
      Array.from({ length: n }, (_, i) => ({ kind: 'movers', category: 'gainers', count: 1, offset: i }));
    const p = provider();
    await p.fetch(charts(20));
    expect(fake.requests).toBe(1);
    fake.requests = 0;
    const results = await p.fetch(charts(21));
    expect(fake.requests).toBe(2);
    expect(values(results)).toEqual(FAKE_MARKET.movers.gainers.slice(0, 21).map((m) => [m]));
  });

  test('envelopes of one batch are sent concurrently', async () => {
    const slow = await startFakeUpstream({ latencyMs: 200 });
    try {
      const started = Date.now();
      const results = await provider({ maxCallsPerEnvelope: 1 }, slow).fetch([
        { kind: 'quote', ticker: 'AAPL:NASDAQ' },
        { kind: 'quote', ticker: 'MSFT:NASDAQ' },
        { kind: 'quote', ticker: 'GOOGL:NASDAQ' },
        { kind: 'headline' },
      ]);
      const elapsed = Date.now() - started;
      expect(slow.requests).toBe(4);
      expect(results.every((r) => r.ok)).toBe(true);
      expect(elapsed).toBeLessThan(650); // sequential would take ≥ 800 ms
    } finally {
      await slow.close();
    }
  });

  test('unknown ticker: value null for every ticker kind, not an error', async () => {
    const results = await provider().fetch([
      { kind: 'quote', ticker: 'NOPE:NASDAQ' },
      { kind: 'company', ticker: 'NOPE:NASDAQ' },
      { kind: 'chart', ticker: 'NOPE:NASDAQ', range: '1D' },
      { kind: 'news', ticker: 'NOPE:NASDAQ' },
      { kind: 'financials', ticker: 'BTC-USD' },
      { kind: 'quote', ticker: 'AAPL:NASDAQ' },
    ]);
    expect(values(results)).toEqual([null, null, null, null, null, aapl.quote]);
  });

  test('empty batch: no round trip', async () => {
    expect(await provider().fetch([])).toEqual([]);
    expect(fake.requests).toBe(0);
  });

  test('an invalid ticker fails only its own item, without a throw', async () => {
    const results = await provider().fetch([
      { kind: 'quote', ticker: 'AAPL' },
      { kind: 'quote', ticker: 'AAPL:NASDAQ' },
    ]);
    expect(results[0]).toEqual({ ok: false, error: expect.any(UpstreamError) });
    expect(!results[0]!.ok && results[0]!.error.message).toMatch(/cannot ask upstream for quote AAPL: invalid ticker/);
    expect(results[1]).toEqual({ ok: true, value: aapl.quote });
    expect(callsPerRoundTrip()).toEqual([1]);
  });

  test('503 twice then ok: success on the third attempt, every attempt reported', async () => {
    fake.behaviour = { mode: 'status', status: 503, times: 2 };
    const trips: { rpcids: string[]; status: number | null; attempt: number }[] = [];
    const results = await provider({
      onRoundTrip: ({ rpcids, status, attempt, ms }) => {
        expect(ms).toBeGreaterThanOrEqual(0);
        trips.push({ rpcids, status, attempt });
      },
    }).fetch([
      { kind: 'quote', ticker: 'AAPL:NASDAQ' },
      { kind: 'news', ticker: 'AAPL:NASDAQ' },
    ]);
    expect(values(results)).toEqual([aapl.quote, aapl.news]);
    expect(fake.requests).toBe(3);
    expect(trips).toEqual([
      { rpcids: ['xh8wxf', 'nBEQBc'], status: 503, attempt: 1 },
      { rpcids: ['xh8wxf', 'nBEQBc'], status: 503, attempt: 2 },
      { rpcids: ['xh8wxf', 'nBEQBc'], status: 200, attempt: 3 },
    ]);
  });

  test('429 is retried too', async () => {
    fake.behaviour = { mode: 'status', status: 429, times: 1 };
    const results = await provider().fetch([{ kind: 'headline' }]);
    expect(values(results)).toEqual([FAKE_MARKET.headline]);
    expect(fake.requests).toBe(2);
  });

  test('503 always: an UpstreamError per item naming it, after retries+1 attempts, in bounded time', async () => {
    fake.behaviour = { mode: 'status', status: 503 };
    const started = Date.now();
    const results = await provider({ retries: 2, backoffMs: 20 }).fetch([
      { kind: 'quote', ticker: 'AAPL:NASDAQ' },
      { kind: 'chart', ticker: 'AAPL:NASDAQ', range: '5D' },
    ]);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(fake.requests).toBe(3);
    expect(errors(results)).toEqual([
      'upstream returned HTTP 503 for quote AAPL:NASDAQ after 3 attempts',
      'upstream returned HTTP 503 for chart AAPL:NASDAQ 5D after 3 attempts',
    ]);
  });

  test('a 4xx other than 429 is not retried', async () => {
    fake.behaviour = { mode: 'status', status: 404 };
    const results = await provider().fetch([{ kind: 'trending' }]);
    expect(errors(results)).toEqual(['upstream returned HTTP 404 for trending after 1 attempt']);
    expect(fake.requests).toBe(1);
  });

  test('hang: each attempt times out; UpstreamError after about (retries+1)×timeoutMs', async () => {
    fake.behaviour = { mode: 'hang' };
    const started = Date.now();
    const results = await provider({ timeoutMs: 150, retries: 2, backoffMs: 1 }).fetch([
      { kind: 'quote', ticker: 'AAPL:NASDAQ' },
    ]);
    const elapsed = Date.now() - started;
    expect(errors(results)).toEqual(['upstream did not answer within 150 ms for quote AAPL:NASDAQ after 3 attempts']);
    expect(fake.requests).toBe(3);
    expect(elapsed).toBeGreaterThanOrEqual(3 * 150 - 20);
    expect(elapsed).toBeLessThan(3 * 150 + 500);
  });

  test('hang once, then ok: the retry succeeds', async () => {
    fake.behaviour = { mode: 'hang', times: 1 };
    const results = await provider({ timeoutMs: 100 }).fetch([{ kind: 'earnings' }]);
    expect(values(results)).toEqual([FAKE_MARKET.earnings]);
    expect(fake.requests).toBe(2);
  });

  test('garbage body: UpstreamError saying it could not be parsed, no throw, no retry', async () => {
    fake.behaviour = { mode: 'garbage' };
    const results = await provider().fetch([{ kind: 'quote', ticker: 'AAPL:NASDAQ' }, { kind: 'indices' }]);
    const messages = errors(results);
    expect(messages[0]).toMatch(
      /^upstream answer for quote AAPL:NASDAQ could not be parsed: not a batchexecute answer/,
    );
    expect(messages[1]).toMatch(/^upstream answer for indices could not be parsed/);
    expect(fake.requests).toBe(1);
  });

  test('null payloads: every value null, no error', async () => {
    fake.behaviour = { mode: 'nullPayload' };
    const results = await provider().fetch([
      { kind: 'quote', ticker: 'AAPL:NASDAQ' },
      { kind: 'indices' },
      { kind: 'headline' },
    ]);
    expect(values(results)).toEqual([null, null, null]);
  });

  test('a call without a row in the answer is an UpstreamError; the other calls are answered', async () => {
    fake.behaviour = { mode: 'dropRows', rpcids: ['HqGpWd'] };
    const results = await provider().fetch([
      { kind: 'quote', ticker: 'AAPL:NASDAQ' },
      { kind: 'company', ticker: 'AAPL:NASDAQ' },
    ]);
    expect(results[0]).toEqual({ ok: true, value: aapl.quote });
    expect(errors([results[1]!])).toEqual([
      'upstream answer has no row for company AAPL:NASDAQ (rpc HqGpWd, sequence 2)',
    ]);
  });

  test('unreachable upstream: UpstreamError naming the cause after the retries', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer();
      s.listen(0, '127.0.0.1', () => {
        const { port: p } = s.address() as { port: number };
        s.close(() => resolve(p));
      });
    });
    const p = createGoogleProvider({ baseUrl: `http://127.0.0.1:${port}`, backoffMs: 1, retries: 1 });
    const messages = errors(await p.fetch([{ kind: 'headline' }]));
    expect(messages).toEqual(['upstream unreachable (ECONNREFUSED) for headline after 2 attempts']);
  });

  test('a throwing onRoundTrip does not break the request', async () => {
    const results = await provider({
      onRoundTrip: () => {
        throw new Error('metrics down');
      },
    }).fetch([{ kind: 'headline' }]);
    expect(values(results)).toEqual([FAKE_MARKET.headline]);
  });

  test('close(): cancels a hanging request at once, later fetches fail without a round trip', async () => {
    fake.behaviour = { mode: 'hang' };
    const p = createGoogleProvider({ baseUrl: fake.url, timeoutMs: 10_000 });
    const started = Date.now();
    const pending = p.fetch([{ kind: 'headline' }]);
    await new Promise((r) => setTimeout(r, 50));
    await p.close?.();
    expect(errors(await pending)[0]).toMatch(/provider closed/);
    expect(Date.now() - started).toBeLessThan(1000);
    fake.requests = 0;
    expect(errors(await p.fetch([{ kind: 'headline' }]))).toEqual(['google provider is closed']);
    expect(fake.requests).toBe(0);
  });

  test('bad options are refused at creation, naming the option', () => {
    expect(() => createGoogleProvider({ retries: -1 })).toThrow(/option retries must be an integer from 0 to 10/);
    expect(() => createGoogleProvider({ maxCallsPerEnvelope: 0 })).toThrow(/maxCallsPerEnvelope/);
    expect(() => createGoogleProvider({ timeoutMs: Number.NaN })).toThrow(/timeoutMs/);
    expect(() => createGoogleProvider({ baseUrl: 'ftp://x' })).toThrow(/baseUrl/);
    expect(createGoogleProvider().name).toBe('google');
  });
});

describe('upstream values the parsers drop are logged, never thrown', () => {
  test('a volume beyond 2^53 is null with a warning naming the request; a misfit financials payload is [] with one', async () => {
    const warnings: Array<{ obj: object; msg: string }> = [];
    const p = provider({ log: { warn: (obj, msg) => warnings.push({ obj, msg }) } });
    const aapl = FAKE_TICKERS['AAPL:NASDAQ']!;
    fake.payloadFor = (call) => {
      if (tickerOfCall(call) !== 'AAPL:NASDAQ') return undefined;
      if (call.rpcid === 'HqGpWd') return companyPayload({ ...aapl.company!, volume: 2 ** 53 + 2 });
      if (call.rpcid === 'Pr8h2e') return (financialsPayload(aapl.financials!) as unknown[][])[0]; // one level too shallow
      return undefined;
    };
    const [company, financials] = values(
      await p.fetch([
        { kind: 'company', ticker: 'AAPL:NASDAQ' },
        { kind: 'financials', ticker: 'AAPL:NASDAQ' },
      ]),
    );
    expect(company).toEqual({ ...aapl.company, volume: null });
    expect(financials).toEqual([]);
    expect(warnings.map((w) => w.msg)).toEqual([
      expect.stringMatching(
        /^upstream payload for company AAPL:NASDAQ: company volume 9007199254740994 is beyond the safe integer range/,
      ),
      expect.stringMatching(
        /^upstream payload for financials AAPL:NASDAQ: financials quarterly row 0 is not \[year, quarter 1-4, data\]/,
      ),
    ]);
  });
});
