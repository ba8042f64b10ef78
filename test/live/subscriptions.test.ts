import { createClient, type Client, type ExecutionResult } from 'graphql-sse';
import {
  expectExtendedQuote,
  PRICES_WITH_EXTENSION,
  quoteExtensionSubgraph,
  supergraphWithExtension,
  type ExtendedQuote,
  type QuoteExtension,
} from '../support/quote-extension';
import { startSystem, SUBGRAPH_MODE, type RunningSystem } from '../support/system';
import { waitFor } from '../support/sse';
import { takeResults } from '../support/iterate-results';

/**
 * Subscriptions through the federated gateway at /graphql/stream, with graphql-sse's own client: the market
 * subgraph owns `prices`/`priceTicks`, a test-only subgraph extends Quote, and every event must carry both. Runs in
 * both modes (SUBGRAPH_MODE=remote: every subgraph over HTTP, subscriptions to them over graphql-sse).
 */
const INTERVAL_MS = 300;

type Quote = ExtendedQuote & { name?: string };
type Result<T> = ExecutionResult<T, unknown>;

let sys: RunningSystem;
let extension: QuoteExtension;

beforeAll(async () => {
  extension = quoteExtensionSubgraph();
  const supergraphSdl = await supergraphWithExtension(extension);
  sys = await startSystem(
    {
      LIVE_INTERVAL_MS: String(INTERVAL_MS),
      LIVE_MAX_CONNECTIONS: '2000',
      LIVE_MAX_CONNECTIONS_PER_CLIENT: '1500',
      LIVE_MAX_SUBSCRIPTIONS_PER_CONNECTION: '3',
    },
    { extraSubgraphs: [extension], supergraphSdl },
  );
}, 30_000);

afterAll(async () => {
  await sys?.close();
});

function client(singleConnection = false): Client {
  return createClient({ url: `${sys.url}/graphql/stream`, singleConnection, retryAttempts: 0 });
}

/** Collects `count` results of one subscription (bounded by `timeoutMs`), then unsubscribes. */
function take<T>(
  c: Client,
  query: string,
  variables: Record<string, unknown>,
  count: number,
  timeoutMs = 5_000,
): Promise<Array<Result<T>>> {
  return takeResults(() => c.iterate<T>({ query, variables }), count, timeoutMs);
}

const PRICES = PRICES_WITH_EXTENSION;

describe(`subscriptions through the gateway (${SUBGRAPH_MODE} subgraphs)`, () => {
  test("each event is a Quote completed with the extension subgraph's fields (@requires included)", async () => {
    const c = client();
    try {
      const results = await take<{ prices: Quote }>(c, PRICES, { t: ['AAPL:NASDAQ', 'MSFT:NASDAQ'] }, 4);
      expect(results).toHaveLength(4);
      for (const r of results) expectExtendedQuote(r, ['AAPL:NASDAQ', 'MSFT:NASDAQ']);
      // the first two events come at once (one per ticker), the next two from the first tick
      expect(
        results
          .slice(0, 2)
          .map((r) => r.data?.prices.ticker)
          .sort(),
      ).toEqual(['AAPL:NASDAQ', 'MSFT:NASDAQ']);
      expect(
        results
          .slice(2, 4)
          .map((r) => r.data?.prices.ticker)
          .sort(),
      ).toEqual(['AAPL:NASDAQ', 'MSFT:NASDAQ']);
      expect(extension.references.some((ref) => ref.ticker === 'AAPL:NASDAQ' && typeof ref.price === 'number')).toBe(
        true,
      );
    } finally {
      c.dispose();
    }
  });

  test('only the fields asked for come back, with aliases and fragments as written', async () => {
    const c = client();
    try {
      const [r] = await take<Record<string, unknown>>(
        c,
        `subscription {
        p: prices(tickers: ["BTC-USD"]) { symbol: ticker ...F }
      } fragment F on Quote { note: watchNote }`,
        {},
        1,
      );
      expect(r).toEqual({ data: { p: { symbol: 'BTC-USD', note: 'watching BTC-USD' } } });
    } finally {
      c.dispose();
    }
  });

  test('priceTicks: one event per interval with every ticker of the subscription', async () => {
    const c = client();
    try {
      const results = await take<{ priceTicks: { sequence: number; quotes: Quote[] } }>(
        c,
        'subscription T($t: [String!]) { priceTicks(tickers: $t) { sequence quotes { ticker watchNote } } }',
        { t: ['AAPL:NASDAQ', 'EUR-USD'] },
        3,
      );
      expect(results).toHaveLength(3);
      for (const r of results) {
        expect(r.data?.priceTicks.quotes.map((q) => q.ticker)).toEqual(['AAPL:NASDAQ', 'EUR-USD']);
        expect(r.data?.priceTicks.quotes.map((q) => q.watchNote)).toEqual(['watching AAPL:NASDAQ', 'watching EUR-USD']);
      }
      const sequences = results.map((r) => r.data?.priceTicks.sequence as number);
      expect(sequences[2]).toBeGreaterThan(sequences[1] as number);
    } finally {
      c.dispose();
    }
  });

  test('single-connection mode: several subscriptions on one stream, each with its own events', async () => {
    const c = client(true);
    try {
      const [a, b] = await Promise.all([
        take<{ prices: Quote }>(c, PRICES, { t: ['AAPL:NASDAQ'] }, 2),
        take<{ prices: Quote }>(c, PRICES, { t: ['THYAO:IST'] }, 2),
      ]);
      expect(a.map((r) => r.data?.prices.ticker)).toEqual(['AAPL:NASDAQ', 'AAPL:NASDAQ']);
      expect(b.map((r) => r.data?.prices.ticker)).toEqual(['THYAO:IST', 'THYAO:IST']);
    } finally {
      c.dispose();
    }
  });

  test('a bad ticker is an error of that subscription (BAD_USER_INPUT), before any event', async () => {
    const c = client();
    try {
      const results = await take<{ prices: Quote }>(c, PRICES, { t: ['not a ticker'] }, 1);
      expect(results).toHaveLength(1);
      expect(results[0]?.data ?? null).toBeNull();
      expect(results[0]?.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    } finally {
      c.dispose();
    }
  });

  test.each([
    ['an empty list', [], 'tickers', /at least one ticker/],
    ['a malformed ticker at index 1', ['AAPL:NASDAQ', 'AAPL'], 'tickers[1]', /SYMBOL:EXCHANGE/],
  ])('prices with %s is BAD_USER_INPUT naming %s', async (_label, tickers, field, message) => {
    const c = client();
    try {
      const [r] = await take(c, PRICES, { t: tickers }, 1);
      expect(r?.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field });
      expect(r?.errors?.[0]?.message).toMatch(message);
    } finally {
      c.dispose();
    }
  });

  test('an unknown ticker is NOT_FOUND before any event', async () => {
    const c = client();
    try {
      const results = await take(c, PRICES, { t: ['AAPL:NASDAQ', 'ZZZZ:NASDAQ'] }, 2);
      expect(results).toHaveLength(1);
      expect(results[0]?.errors?.[0]).toMatchObject({
        message: expect.stringContaining('ZZZZ:NASDAQ'),
        extensions: { code: 'NOT_FOUND' },
      });
    } finally {
      c.dispose();
    }
  });

  test("priceTicks: no tickers means the original stream's eight; repeated tickers count once", async () => {
    const c = client();
    try {
      const [all] = await take<{ priceTicks: { quotes: Quote[] } }>(
        c,
        'subscription { priceTicks { quotes { ticker } } }',
        {},
        1,
      );
      expect(all?.data?.priceTicks.quotes.map((q) => q.ticker)).toEqual([
        'GOOGL:NASDAQ',
        'AAPL:NASDAQ',
        'MSFT:NASDAQ',
        'BTC-USD',
        'THYAO:IST',
        'USD-TRY',
        'EUR-TRY',
        'EUR-USD',
      ]);
      const [twice] = await take<{ priceTicks: { quotes: Quote[] } }>(
        c,
        'subscription { priceTicks(tickers: ["BTC-USD", "BTC-USD"]) { quotes { ticker } } }',
        {},
        1,
      );
      expect(twice?.data?.priceTicks.quotes.map((q) => q.ticker)).toEqual(['BTC-USD']);
    } finally {
      c.dispose();
    }
  });

  test('liveSnapshot (a query): current quotes in order; over the ticker limit or unknown is an error naming it', async () => {
    const post = async (query: string) =>
      (await (
        await fetch(`${sys.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query }),
        })
      ).json()) as {
        data?: { liveSnapshot: Quote[] } | null;
        errors?: Array<{ message: string; extensions: Record<string, unknown> }>;
      };
    const ok = await post('{ liveSnapshot(tickers: ["EUR-USD", "AAPL:NASDAQ"]) { ticker price watchNote } }');
    expect(ok.data?.liveSnapshot.map((q) => [q.ticker, typeof q.price, q.watchNote])).toEqual([
      ['EUR-USD', 'number', 'watching EUR-USD'],
      ['AAPL:NASDAQ', 'number', 'watching AAPL:NASDAQ'],
    ]);
    const many = JSON.stringify(Array.from({ length: 51 }, (_, i) => `T${i}:NASDAQ`));
    const over = await post(`{ liveSnapshot(tickers: ${many}) { ticker } }`);
    expect(over.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'tickers' });
    expect(over.errors?.[0]?.message).toMatch(/at most 50 tickers/);
    const unknown = await post('{ liveSnapshot(tickers: ["ZZZZ:NASDAQ"]) { ticker } }');
    expect(unknown.errors?.[0]?.extensions).toMatchObject({ code: 'NOT_FOUND' });
  });

  test('an invalid subscription is refused by validation, naming the field', async () => {
    const res = await fetch(`${sys.url}/graphql/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'subscription { prices(tickers: ["AAPL:NASDAQ"]) { nope } }' }),
    });
    const text = await res.text();
    expect(text).toContain('Cannot query field \\"nope\\" on type \\"Quote\\"');
    expect(text).toContain('event: complete');
  });

  test('a subscription POSTed to /graphql is a 400 that says where subscriptions are served', async () => {
    const res = await fetch(`${sys.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'subscription { prices(tickers: ["AAPL:NASDAQ"]) { ticker } }' }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { errors: Array<{ message: string; extensions: { code: string } }> };
    expect(body.errors[0]?.message).toMatch(/graphql-sse at \/graphql\/stream/);
    expect(body.errors[0]?.message).toMatch(/WebSocket at \/graphql \(subprotocol graphql-transport-ws\)/);
    expect(body.errors[0]?.extensions.code).toBe('BAD_REQUEST');
  });

  test('queries work over the stream endpoint too', async () => {
    const c = client();
    try {
      const [r] = await take<{ quote: { ticker: string; watchNote: string } }>(
        c,
        '{ quote(ticker: "AAPL:NASDAQ") { ticker watchNote } }',
        {},
        1,
      );
      expect(r?.data).toEqual({ quote: { ticker: 'AAPL:NASDAQ', watchNote: 'watching AAPL:NASDAQ' } });
    } finally {
      c.dispose();
    }
  });
});

describe('limits of live streams', () => {
  test('subscriptions per connection (single-connection mode): the one past the limit gets an error naming it', async () => {
    const c = client(true);
    const its = [0, 1, 2].map(() => c.iterate({ query: PRICES, variables: { t: ['AAPL:NASDAQ'] } }));
    try {
      for (const it of its) expect((await it.next()).done).toBe(false); // three running
      const [over] = await take(c, PRICES, { t: ['AAPL:NASDAQ'] }, 1);
      expect(over?.errors?.[0]?.message).toMatch(/at most 3 \(liveMaxSubscriptionsPerConnection\)/);
      expect(over?.errors?.[0]?.extensions).toMatchObject({
        code: 'LIMIT_EXCEEDED',
        limit: 'liveMaxSubscriptionsPerConnection',
      });
    } finally {
      for (const it of its) await it.return?.();
      c.dispose();
    }
  });

  test('tickers per subscription: past the limit is a BAD_USER_INPUT naming it', async () => {
    const c = client();
    try {
      const many = Array.from({ length: 51 }, (_, i) => `T${i}:NASDAQ`);
      const [r] = await take(c, PRICES, { t: many }, 1);
      expect(r?.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
      expect(r?.errors?.[0]?.message).toMatch(/50/);
    } finally {
      c.dispose();
    }
  });
});

describe('a disconnect frees everything', () => {
  // Its own system with a slow tick: this test is about what a disconnect leaves behind, and 1 000 subscribers at
  // the 300 ms tick above (test clients, gateway and, in remote mode, the subgraph server all in this process)
  // would measure how fast one jest worker relays events instead.
  let sys: RunningSystem;
  const client = (): Client => createClient({ url: `${sys.url}/graphql/stream`, retryAttempts: 0 });
  beforeAll(async () => {
    sys = await startSystem(
      {
        LIVE_INTERVAL_MS: '10000',
        LIVE_MAX_CONNECTIONS: '2000',
        LIVE_MAX_CONNECTIONS_PER_CLIENT: '1500',
      },
      { extraSubgraphs: [extension], supergraphSdl: await supergraphWithExtension(extension) },
    );
  }, 30_000);
  afterAll(async () => sys?.close());

  test('1 000 subscriptions opened and dropped leave no stream, operation, hub entry, timer or listener', async () => {
    const market = sys.subgraphs.get('market') as unknown as { hub?: { stats: Record<string, unknown> } };
    expect(market.hub).toBeDefined();
    const clients = Array.from({ length: 1_000 }, () => client());
    const its: Array<AsyncIterableIterator<unknown>> = [];
    // In batches of 200, each waiting for its first events: 1 000 connects at once would queue past connect timeouts.
    for (let start = 0; start < clients.length; start += 200) {
      const batch = clients
        .slice(start, start + 200)
        .map((c, i) =>
          c.iterate({ query: PRICES, variables: { t: [(start + i) % 2 ? 'AAPL:NASDAQ' : 'MSFT:NASDAQ'] } }),
        );
      its.push(...batch);
      await Promise.all(batch.map((it) => it.next()));
    }
    expect(sys.system.live.endpoint?.stats().operations).toBe(1_000);
    expect(market.hub?.stats.listeners).toBeGreaterThanOrEqual(1_000);
    await Promise.all(its.map(async (it) => it.return?.()));
    for (const c of clients) c.dispose();
    await waitFor(() => sys.system.live.endpoint?.stats().streams === 0 && sys.system.live.connections.open === 0);
    await waitFor(() => market.hub?.stats.listeners === 0);
    expect(sys.system.live.endpoint?.stats()).toEqual({ streams: 0, reservations: 0, operations: 0, bufferedBytes: 0 });
    expect(sys.system.live.connections.clients).toBe(0);
    expect(market.hub?.stats).toMatchObject({ watchedTickers: 0, listeners: 0, timers: 0 });
    const metrics = await (await fetch(`${sys.url}/metrics`)).text();
    expect(metrics).toMatch(/^graphql_subscriptions 0$/m);
    expect(metrics).toMatch(/^live_connections\{kind="graphql"\} 0$/m);
    // a backstop: on an idle machine it takes seconds; a loaded one relays 1 000 streams' events far slower
  }, 180_000);
});
