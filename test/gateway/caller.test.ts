import { createClient } from 'graphql-sse';
import { callerEchoSubgraph, supergraphWithCallerEcho } from '../support/caller-echo';
import { startSystem, SUBGRAPH_MODE, type RunningSystem } from '../support/system';

/**
 * The caller travels end to end (docs/design.md, "Identity"): the Authorization header reaches every
 * subgraph — in its context in-process, as the header when remote — for queries, mutations-to-be and subscriptions,
 * and one caller's answers are never served to another, by the response cache or by shared subscription results.
 */
let sys: RunningSystem;

beforeAll(async () => {
  const echo = callerEchoSubgraph();
  sys = await startSystem(
    { LIVE_INTERVAL_MS: '300', MARKET_CLOCK: '2026-11-20T18:00:00Z' },
    { extraSubgraphs: [echo], supergraphSdl: await supergraphWithCallerEcho(echo) },
  );
}, 30_000);

afterAll(async () => sys?.close());

async function query(q: string, authorization?: string): Promise<{ status: number; body: unknown }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (authorization) headers.authorization = authorization;
  const res = await fetch(`${sys.url}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query: q }) });
  return { status: res.status, body: await res.json() };
}

describe(`the caller (${SUBGRAPH_MODE} subgraphs)`, () => {
  test('each caller sees their own answer, cached or not; an anonymous caller sees null', async () => {
    for (let round = 0; round < 2; round++) {
      // the second round is answered from the response cache: still each caller's own
      expect((await query('{ viewer }', 'Bearer alice')).body).toEqual({ data: { viewer: 'alice' } });
      expect((await query('{ viewer }', 'Bearer bob')).body).toEqual({ data: { viewer: 'bob' } });
      expect((await query('{ viewer }')).body).toEqual({ data: { viewer: null } });
    }
    expect(sys.system.graph.cache.size).toBeGreaterThanOrEqual(3); // the answers were cached, once per caller
  });

  test('entity fields fetched from another subgraph are completed with the same caller', async () => {
    const q = '{ quote(ticker: "AAPL:NASDAQ") { ticker seenBy } }';
    expect((await query(q, 'Bearer carol')).body).toEqual({
      data: { quote: { ticker: 'AAPL:NASDAQ', seenBy: 'carol' } },
    });
    expect((await query(q)).body).toEqual({ data: { quote: { ticker: 'AAPL:NASDAQ', seenBy: null } } });
  });

  test('subscriptions: every event is completed for its own subscriber; results are never shared across callers', async () => {
    const subscription = 'subscription { prices(tickers: ["AAPL:NASDAQ"]) { ticker seenBy } }';
    const firstEvents = async (authorization?: string): Promise<unknown[]> => {
      const client = createClient({
        url: `${sys.url}/graphql/stream`,
        retryAttempts: 0,
        headers: authorization ? { authorization } : {},
      });
      const seen: unknown[] = [];
      try {
        for await (const event of client.iterate({ query: subscription })) {
          seen.push(event);
          if (seen.length >= 2) break;
        }
      } finally {
        client.dispose();
      }
      return seen;
    };
    const [dave, erin, anonymous] = await Promise.all([
      firstEvents('Bearer dave'),
      firstEvents('Bearer erin'),
      firstEvents(),
    ]);
    for (const [events, who] of [
      [dave, 'dave'],
      [erin, 'erin'],
      [anonymous, null],
    ] as const) {
      expect(events).toEqual([
        { data: { prices: { ticker: 'AAPL:NASDAQ', seenBy: who } } },
        { data: { prices: { ticker: 'AAPL:NASDAQ', seenBy: who } } },
      ]);
    }
  });

  test('queries sent over the stream endpoint carry the caller too', async () => {
    const res = await fetch(`${sys.url}/graphql/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: 'Bearer frank' },
      body: JSON.stringify({ query: '{ viewer }' }),
    });
    expect(await res.text()).toContain('"viewer":"frank"');
  });
});
