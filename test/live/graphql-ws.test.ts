import { createClient, type Client, type FormattedExecutionResult } from 'graphql-ws';
import WebSocket from 'ws';
import { createClient as createSseClient } from 'graphql-sse';
import {
  expectExtendedQuote,
  PRICES_WITH_EXTENSION,
  quoteExtensionSubgraph,
  supergraphWithExtension,
  type ExtendedQuote,
  type QuoteExtension,
} from '../support/quote-extension';
import { startSystem, SUBGRAPH_MODE, TEST_ADMIN_PASSWORD, type RunningSystem } from '../support/system';
import { waitFor } from '../support/sse';
import { takeResults } from '../support/iterate-results';

/**
 * GraphQL over WebSocket (graphql-transport-ws) at /graphql and /graphql/ws, with graphql-ws's own client: the same
 * planning and execution as /graphql/stream (events completed with another subgraph's fields), the caller from the
 * connection_init payload or the upgrade's header, the shared connection limits, and the protocol's close codes.
 */
const INTERVAL_MS = 300;
const PER_CLIENT = 4;

type Quote = ExtendedQuote;
const PRICES = PRICES_WITH_EXTENSION;
const ZONE_CHANGES = 'subscription Z($z: [String!]) { zoneChanges(zones: $z) { zone serial kind } }';

let sys: RunningSystem;
let extension: QuoteExtension;
let wsUrl: string;
let admin: string;
const clients: Client[] = [];
const sockets: WebSocket[] = [];

beforeAll(async () => {
  extension = quoteExtensionSubgraph();
  sys = await startSystem(
    {
      LIVE_INTERVAL_MS: String(INTERVAL_MS),
      LIVE_MAX_CONNECTIONS_PER_CLIENT: String(PER_CLIENT),
      LIVE_MAX_SUBSCRIPTIONS_PER_CONNECTION: '3',
      LIVE_WS_INIT_TIMEOUT_MS: '500',
      LIVE_WS_KEEPALIVE_MS: '300',
    },
    { extraSubgraphs: [extension], supergraphSdl: await supergraphWithExtension(extension) },
  );
  wsUrl = sys.url.replace(/^http/, 'ws');
  const login = await fetch(`${sys.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      query: `mutation { login(username: "admin", password: "${TEST_ADMIN_PASSWORD}") { token } }`,
    }),
  });
  admin = ((await login.json()) as { data: { login: { token: string } } }).data.login.token;
}, 30_000);

afterEach(async () => {
  for (const c of clients.splice(0)) await c.dispose();
  for (const s of sockets.splice(0)) s.terminate();
  // every socket of a test is gone before the next (they count against the per-client limit)
  await waitFor(() => sys.system.live.wsEndpoint?.stats().sockets === 0, 5_000, 'sockets closed');
});

afterAll(async () => {
  await sys?.close();
});

function client(
  options: { path?: string; connectionParams?: Record<string, unknown>; headers?: Record<string, string> } = {},
): Client {
  const headers = options.headers;
  const c = createClient({
    url: `${wsUrl}${options.path ?? '/graphql'}`,
    webSocketImpl: headers
      ? class extends WebSocket {
          constructor(address: string, protocols?: string | string[]) {
            super(address, protocols, { headers });
          }
        }
      : WebSocket,
    connectionParams: options.connectionParams,
    retryAttempts: 0,
    lazy: true,
  });
  clients.push(c);
  return c;
}

/** Collects `count` results of one operation (bounded by `timeoutMs`), then completes it. */
function take<T>(
  c: Client,
  query: string,
  variables: Record<string, unknown>,
  count: number,
  timeoutMs = 5_000,
): Promise<Array<FormattedExecutionResult<T, unknown>>> {
  return takeResults(() => c.iterate<T>({ query, variables }), count, timeoutMs);
}

/** A raw socket, and the close it ends with. */
function rawSocket(
  protocols: string | string[] | undefined,
  path = '/graphql',
): { ws: WebSocket; closed: Promise<{ code: number; reason: string }>; opened: Promise<void> } {
  const ws = new WebSocket(`${wsUrl}${path}`, protocols);
  sockets.push(ws);
  ws.on('error', () => undefined);
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  const opened = new Promise<void>((resolve) => ws.once('open', () => resolve()));
  return { ws, closed, opened };
}

describe(`graphql-ws through the gateway (${SUBGRAPH_MODE} subgraphs)`, () => {
  test("a price subscription: live events, each completed with the extension subgraph's fields", async () => {
    const results = await take<{ prices: Quote }>(client(), PRICES, { t: ['AAPL:NASDAQ', 'MSFT:NASDAQ'] }, 4);
    expect(results).toHaveLength(4);
    for (const r of results) expectExtendedQuote(r, ['AAPL:NASDAQ', 'MSFT:NASDAQ']);
    // two at once (one per ticker), then the first tick's two
    expect(
      results
        .slice(2)
        .map((r) => r.data?.prices.ticker)
        .sort(),
    ).toEqual(['AAPL:NASDAQ', 'MSFT:NASDAQ']);
  });

  test('/graphql/ws serves the same; several operations share one socket', async () => {
    const c = client({ path: '/graphql/ws' });
    const [a, b] = await Promise.all([
      take<{ prices: Quote }>(c, PRICES, { t: ['AAPL:NASDAQ'] }, 2),
      take<{ prices: Quote }>(c, PRICES, { t: ['THYAO:IST'] }, 2),
    ]);
    expect(a.map((r) => r.data?.prices.ticker)).toEqual(['AAPL:NASDAQ', 'AAPL:NASDAQ']);
    expect(b.map((r) => r.data?.prices.ticker)).toEqual(['THYAO:IST', 'THYAO:IST']);
    expect(sys.system.live.wsEndpoint?.stats().sockets).toBe(1);
  });

  test('queries and mutations over the socket, through the same pipeline as /graphql', async () => {
    const c = client();
    const [q] = await take<{ quote: { ticker: string; watchNote: string } }>(
      c,
      '{ quote(ticker: "AAPL:NASDAQ") { ticker watchNote } }',
      {},
      1,
    );
    expect(q).toEqual({ data: { quote: { ticker: 'AAPL:NASDAQ', watchNote: 'watching AAPL:NASDAQ' } } });
    const [m] = await take<{ login: { token: string } }>(
      c,
      'mutation L($p: String!) { login(username: "admin", password: $p) { token } }',
      { p: TEST_ADMIN_PASSWORD },
      1,
    );
    expect(typeof m?.data?.login.token).toBe('string');
  });

  test('an invalid operation is an error message naming the field; a syntax error too', async () => {
    const c = client();
    await expect(take(c, 'subscription { prices(tickers: ["AAPL:NASDAQ"]) { nope } }', {}, 1)).rejects.toEqual([
      expect.objectContaining({ message: expect.stringContaining('Cannot query field "nope" on type "Quote".') }),
    ]);
    await expect(take(c, 'subscription {', {}, 1)).rejects.toEqual([
      expect.objectContaining({ message: expect.stringContaining('Syntax Error') }),
    ]);
  });

  test('variables nested past maxVariablesDepth are refused before anything walks them', async () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 40; i++) deep = [deep];
    await expect(take(client(), PRICES, { t: deep }, 1)).rejects.toEqual([
      expect.objectContaining({
        message: expect.stringContaining('(maxVariablesDepth)'),
        extensions: { code: 'BAD_REQUEST', limit: 'maxVariablesDepth' },
      }),
    ]);
  });
});

describe('the caller', () => {
  test('a field that needs a credential is refused without one', async () => {
    const [q] = await take<{ me: { username: string } }>(client(), '{ me { username } }', {}, 1);
    expect(q?.errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED' });
    const [s] = await take(client(), ZONE_CHANGES, { z: null }, 1);
    expect(s?.errors?.[0]).toMatchObject({ path: ['zoneChanges'], extensions: { code: 'UNAUTHENTICATED' } });
  });

  test.each<[string, 'Authorization' | 'authorization' | 'header']>([
    ['connection_init payload { Authorization }', 'Authorization'],
    ['connection_init payload { authorization }', 'authorization'],
    ['the upgrade request header', 'header'],
  ])('the credential from %s reaches the subgraphs, for queries and subscriptions', async (_label, how) => {
    const bearer = `Bearer ${admin}`;
    const c = client(
      how === 'header' ? { headers: { authorization: bearer } } : { connectionParams: { [how]: bearer } },
    );
    const [q] = await take<{ me: { username: string } }>(c, '{ me { username } }', {}, 1);
    expect(q).toEqual({ data: { me: { username: 'admin' } } });
    // The subscription is accepted: it stays open (no error) and sees a change written after it started.
    const changes: unknown[] = [];
    const errors: unknown[] = [];
    const stop = c.subscribe(
      { query: ZONE_CHANGES, variables: { z: null } },
      {
        next: (r) => void (r.errors ? errors.push(...r.errors) : changes.push(r.data)),
        error: (e) => void errors.push(e),
        complete: () => undefined,
      },
    );
    try {
      for (let i = 0; changes.length === 0 && errors.length === 0 && i < 100; i++) {
        await fetch(`${sys.url}/api/v1/zones`, {
          method: 'POST',
          headers: { authorization: bearer, 'content-type': 'application/json' },
          body: JSON.stringify({ name: `ws${Date.now()}-${i}.test` }),
        });
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(errors).toEqual([]);
      expect(changes[0]).toMatchObject({ zoneChanges: { kind: 'ZONE_CREATED' } });
    } finally {
      stop();
    }
  });

  test('an Authorization in connection_init that is not a string closes the socket with 4400', async () => {
    const { ws, closed, opened } = rawSocket('graphql-transport-ws');
    await opened;
    ws.send(JSON.stringify({ type: 'connection_init', payload: { Authorization: 42 } }));
    expect(await closed).toEqual({
      code: 4400,
      reason: 'the Authorization of the connection_init payload must be a string',
    });
  });
});

describe('the protocol and its limits', () => {
  test.each([
    ['subscriptions-transport-ws', 'graphql-ws'],
    ['none', undefined],
  ])('subprotocol %s: closed with 4406', async (_label, protocol) => {
    const { closed } = rawSocket(protocol);
    expect((await closed).code).toBe(4406);
  });

  test('a path other than /graphql or /graphql/ws is a 404', async () => {
    const ws = new WebSocket(`${wsUrl}/graphql/nope`, 'graphql-transport-ws');
    const status = await new Promise<number | undefined>((resolve) => {
      ws.once('unexpected-response', (_req, res) => resolve(res.statusCode));
      ws.once('error', () => resolve(undefined));
    });
    expect(status).toBe(404);
  });

  test('no connection_init within LIVE_WS_INIT_TIMEOUT_MS: closed with 4408', async () => {
    const { closed } = rawSocket('graphql-transport-ws');
    expect(await closed).toEqual({ code: 4408, reason: 'Connection initialisation timeout' });
  });

  test('a message over MAX_BODY_BYTES: closed with 1009', async () => {
    const { ws, closed, opened } = rawSocket('graphql-transport-ws');
    await opened;
    ws.send(JSON.stringify({ type: 'connection_init', payload: { pad: 'x'.repeat(1024 * 1024 + 1) } }));
    expect((await closed).code).toBe(1009);
  });

  test('a socket that answers no ping is cut (keep-alive)', async () => {
    const { ws, closed, opened } = rawSocket('graphql-transport-ws');
    await opened;
    ws.send(JSON.stringify({ type: 'connection_init' }));
    await waitFor(() => sys.system.live.wsEndpoint?.stats().sockets === 1, 5_000, 'socket open');
    ws.pause(); // reads nothing more: pings go unanswered
    await waitFor(() => sys.system.live.wsEndpoint?.stats().sockets === 0, 5_000, 'socket cut');
    ws.resume();
    expect((await closed).code).toBe(1006); // cut, not closed
  });

  test('operations per socket: the one past liveMaxSubscriptionsPerConnection gets an error naming it', async () => {
    const c = client();
    const its = [0, 1, 2].map(() => c.iterate({ query: PRICES, variables: { t: ['AAPL:NASDAQ'] } }));
    try {
      for (const it of its) expect((await it.next()).done).toBe(false);
      await expect(take(c, PRICES, { t: ['AAPL:NASDAQ'] }, 1)).rejects.toEqual([
        expect.objectContaining({
          message: expect.stringMatching(/at most 3 \(liveMaxSubscriptionsPerConnection\)/),
          extensions: { code: 'LIMIT_EXCEEDED', limit: 'liveMaxSubscriptionsPerConnection' },
        }),
      ]);
    } finally {
      for (const it of its) await it.return?.();
    }
  });

  test('connections per client are shared with graphql-sse: past the limit a socket is closed with 1013 naming it', async () => {
    // one SSE stream and PER_CLIENT - 1 sockets take every slot of this address
    const sse = createSseClient({ url: `${sys.url}/graphql/stream`, retryAttempts: 0 });
    const sseIt = sse.iterate({ query: PRICES, variables: { t: ['AAPL:NASDAQ'] } });
    try {
      await sseIt.next();
      const open = Array.from({ length: PER_CLIENT - 1 }, () => client());
      await Promise.all(open.map((c) => take(c, '{ quote(ticker: "AAPL:NASDAQ") { ticker } }', {}, 1)));
      expect(sys.system.live.connections.open).toBe(PER_CLIENT);
      const { closed } = rawSocket('graphql-transport-ws');
      expect(await closed).toEqual({
        code: 1013,
        reason: `too many live connections from 127.0.0.1: at most ${PER_CLIENT} per client address (liveMaxConnectionsPerClient)`,
      });
    } finally {
      await sseIt.return?.();
      sse.dispose();
    }
  });
});

describe('a disconnect frees everything', () => {
  test('500 sockets with a subscription each, dropped, leave no socket, slot, operation, hub listener or byte', async () => {
    const own = await startSystem({ LIVE_INTERVAL_MS: '10000', LIVE_MAX_CONNECTIONS_PER_CLIENT: '1000' });
    const mine: Client[] = [];
    try {
      const market = own.subgraphs.get('market') as unknown as { hub?: { stats: Record<string, unknown> } };
      const endpoint = own.system.live.wsEndpoint;
      if (!endpoint) throw new Error('no WebSocket endpoint');
      const its: Array<AsyncIterableIterator<unknown>> = [];
      // in batches, each waiting for its first events: 500 handshakes at once would queue past connect timeouts
      for (let start = 0; start < 500; start += 100) {
        const batch = Array.from({ length: 100 }, (_, i) => {
          const c = createClient({
            url: `${own.url.replace(/^http/, 'ws')}/graphql`,
            webSocketImpl: WebSocket,
            retryAttempts: 0,
          });
          mine.push(c);
          return c.iterate({
            query: 'subscription P($t: [String!]!) { prices(tickers: $t) { ticker price } }',
            variables: { t: [(start + i) % 2 ? 'AAPL:NASDAQ' : 'MSFT:NASDAQ'] },
          });
        });
        its.push(...batch);
        await Promise.all(batch.map((it) => it.next()));
      }
      expect(endpoint.stats()).toMatchObject({ sockets: 500, operations: 500 });
      expect(own.system.live.connections.open).toBe(500);
      expect(market.hub?.stats.listeners).toBeGreaterThanOrEqual(500);
      await Promise.all(its.map(async (it) => it.return?.()));
      for (const c of mine.splice(0)) await c.dispose();
      await waitFor(() => endpoint.stats().sockets === 0 && own.system.live.connections.open === 0, 20_000, 'closed');
      await waitFor(() => market.hub?.stats.listeners === 0, 20_000, 'hub released');
      expect(endpoint.stats()).toEqual({ sockets: 0, operations: 0, bufferedBytes: 0 });
      expect(own.system.live.connections.clients).toBe(0);
      expect(market.hub?.stats).toMatchObject({ watchedTickers: 0, listeners: 0, timers: 0 });
      const metrics = await (await fetch(`${own.url}/metrics`)).text();
      expect(metrics).toMatch(/^live_connections\{kind="graphql-ws"\} 0$/m);
      expect(metrics).toMatch(/^graphql_subscriptions 0$/m);
    } finally {
      for (const c of mine) await c.dispose();
      await own.close();
    }
  }, 120_000);
});

describe('shutdown', () => {
  test('closing the server closes every socket with 1001 and frees its slot', async () => {
    const own = await startSystem({ LIVE_INTERVAL_MS: '300' });
    try {
      const c = createClient({
        url: `${own.url.replace(/^http/, 'ws')}/graphql`,
        webSocketImpl: WebSocket,
        retryAttempts: 0,
      });
      const closes: number[] = [];
      c.on('closed', (event) => closes.push((event as { code: number }).code));
      const it = c.iterate({ query: 'subscription { prices(tickers: ["AAPL:NASDAQ"]) { ticker } }' });
      expect((await it.next()).done).toBe(false);
      expect(own.system.live.connections.open).toBe(1);
      const started = Date.now();
      await own.close();
      expect(Date.now() - started).toBeLessThan(5_000);
      await waitFor(() => closes.length > 0, 5_000, 'client told');
      expect(closes).toEqual([1001]);
      expect(own.system.live.connections.open).toBe(0);
      await c.dispose();
    } finally {
      await own.close();
    }
  });
});
