import { startSystem, type RunningSystem } from '../support/system';

/**
 * An event stream's connection is closed by the server when the stream ends (endStream), so the response must say
 * `Connection: close`: a keep-alive client (Node's fetch) would otherwise put the socket back in its pool and send
 * its next request on a connection the server is closing ("other side closed").
 */
let sys: RunningSystem;
beforeAll(async () => {
  sys = await startSystem({ MARKET_CLOCK: '2026-11-20T18:00:00Z' });
}, 30_000);
afterAll(async () => sys?.close());

async function streamedQuery(): Promise<{ connection: string | null; body: string }> {
  const res = await fetch(`${sys.url}/graphql/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ query: '{ quote(ticker: "AAPL:NASDAQ") { ticker } }' }),
  });
  return { connection: res.headers.get('connection'), body: await res.text() };
}

test('a graphql-sse stream says Connection: close, and the next requests on the same client all succeed', async () => {
  for (let i = 0; i < 30; i++) {
    const stream = await streamedQuery();
    expect(stream.connection).toBe('close');
    expect(stream.body).toContain('"ticker":"AAPL:NASDAQ"');
    expect(stream.body).toContain('event: complete');
    const after = await fetch(`${sys.url}/v1/quote/AAPL:NASDAQ`);
    expect(after.status).toBe(200);
    await after.text();
  }
});

test('the /v1/live stream says Connection: close too', async () => {
  const abort = new AbortController();
  const res = await fetch(`${sys.url}/v1/live?tickers=AAPL:NASDAQ`, { signal: abort.signal });
  expect(res.status).toBe(200);
  expect(res.headers.get('connection')).toBe('close');
  abort.abort();
});
