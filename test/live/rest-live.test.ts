import { dataFrames, parseFrames, type Frame } from '../support/sse';
import { startSystem, type RunningSystem } from '../support/system';

/**
 * The market REST adapter's live stream, `/v1/live` (Server-Sent Events with the original's frames) and
 * `/v1/live/snapshot`, plus the limits every live stream shares.
 */
const DEFAULT_TICKERS = [
  'GOOGL:NASDAQ',
  'AAPL:NASDAQ',
  'MSFT:NASDAQ',
  'BTC-USD',
  'THYAO:IST',
  'USD-TRY',
  'EUR-TRY',
  'EUR-USD',
];
const ITEM_KEYS = ['ticker', 'name', 'price', 'change', 'changePercent', 'currency', 'type'];

/** Reads an SSE response until `enough(frames)` or the timeout, then aborts the request. */
async function readFrames(
  url: string,
  enough: (frames: Frame[]) => boolean,
  timeoutMs = 5_000,
): Promise<{ status: number; headers: Headers; frames: Frame[] }> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  const frames: Frame[] = [];
  try {
    const res = await fetch(url, { signal: abort.signal, headers: { accept: 'text/event-stream' } });
    if (!res.body || !res.headers.get('content-type')?.startsWith('text/event-stream')) {
      return { status: res.status, headers: res.headers, frames: [{ data: await res.text() }] };
    }
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      while (!enough(frames)) {
        const { value, done } = await reader.read();
        if (done) break;
        const parsed = parseFrames(buffer + decoder.decode(value, { stream: true }));
        frames.push(...parsed.frames);
        buffer = parsed.rest;
      }
    } catch (err) {
      if (!abort.signal.aborted) throw err;
    }
    return { status: res.status, headers: res.headers, frames };
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
}

describe('/v1/live and /v1/live/snapshot', () => {
  let sys: RunningSystem;
  beforeAll(async () => {
    sys = await startSystem({
      LIVE_INTERVAL_MS: '300',
      LIVE_HEARTBEAT_MS: '150',
      LIVE_MAX_CONNECTIONS_PER_CLIENT: '500',
    });
  });
  afterAll(async () => sys?.close());

  test('the default list, first frame at once, then one frame per interval with a rising id', async () => {
    const started = Date.now();
    const { status, headers, frames } = await readFrames(`${sys.url}/v1/live`, (f) => dataFrames(f).length >= 3);
    expect(status).toBe(200);
    expect(headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(headers.get('access-control-allow-origin')).toBe('*');
    const data = dataFrames(frames);
    expect(data).toHaveLength(3);
    for (const frame of data) {
      const items = JSON.parse(frame.data as string) as Array<Record<string, unknown>>;
      expect(items.map((i) => i.ticker)).toEqual(DEFAULT_TICKERS);
      for (const item of items) {
        expect(Object.keys(item)).toEqual(ITEM_KEYS);
        expect(['stock', 'index', 'crypto', 'etf', 'unknown']).toContain(item.type);
        expect(typeof item.price).toBe('number');
      }
      expect(frame.id).toMatch(/^\d+$/);
    }
    const ids = data.map((f) => Number(f.id));
    expect(ids[1]).toBeGreaterThan(ids[0] as number);
    expect(ids[2]).toBeGreaterThan(ids[1] as number);
    expect(Date.now() - started).toBeLessThan(4_000);
  });

  test('?tickers= chooses the list, in the order given', async () => {
    const { frames } = await readFrames(
      `${sys.url}/v1/live?tickers=BTC-USD,AAPL:NASDAQ`,
      (f) => dataFrames(f).length >= 1,
    );
    const items = JSON.parse(dataFrames(frames)[0]?.data as string) as Array<{ ticker: string; type: string }>;
    expect(items.map((i) => i.ticker)).toEqual(['BTC-USD', 'AAPL:NASDAQ']);
    expect(items.map((i) => i.type)).toEqual(['crypto', 'stock']);
  });

  test('heartbeat comment lines keep an idle stream alive', async () => {
    const { frames } = await readFrames(
      `${sys.url}/v1/live?tickers=AAPL:NASDAQ`,
      (f) => f.filter((x) => x.comment === 'heartbeat').length >= 2,
    );
    expect(frames.filter((f) => f.comment === 'heartbeat').length).toBeGreaterThanOrEqual(2);
  });

  test.each([
    ['a bad ticker', '?tickers=AAPL:NASDAQ,not%20a%20ticker', 400, /ticker/i],
    ['an unknown ticker', '?tickers=ZZZZ:NASDAQ', 404, /ZZZZ:NASDAQ/],
    ['tickers twice', '?tickers=AAPL:NASDAQ&tickers=BTC-USD', 400, /only once/],
  ])('%s is a JSON error with the REST status, not a stream', async (_label, query, status, message) => {
    const res = await fetch(`${sys.url}/v1/live${query}`);
    expect(res.status).toBe(status);
    const body = (await res.json()) as { error: string; message: string };
    expect(Object.keys(body)).toEqual(['error', 'message']);
    expect(body.message).toMatch(message);
  });

  test('snapshot: the latest quotes of the default list, or of ?tickers=', async () => {
    const res = await fetch(`${sys.url}/v1/live/snapshot`);
    expect(res.status).toBe(200);
    const items = (await res.json()) as Array<Record<string, unknown>>;
    expect(items.map((i) => i.ticker)).toEqual(DEFAULT_TICKERS);
    for (const item of items) expect(Object.keys(item)).toEqual(ITEM_KEYS);
    const chosen = (await (await fetch(`${sys.url}/v1/live/snapshot?tickers=EUR-USD`)).json()) as Array<{
      ticker: string;
    }>;
    expect(chosen.map((i) => i.ticker)).toEqual(['EUR-USD']);
    const bad = await fetch(`${sys.url}/v1/live/snapshot?tickers=%24%24%24`);
    expect(bad.status).toBe(400);
  });

  test('dropping 200 streams frees every slot, timer and hub entry', async () => {
    const aborts = Array.from({ length: 200 }, () => new AbortController());
    const responses = await Promise.all(
      aborts.map((a, i) => fetch(`${sys.url}/v1/live?tickers=${DEFAULT_TICKERS[i % 8]}`, { signal: a.signal })),
    );
    expect(responses.every((r) => r.status === 200)).toBe(true);
    expect(sys.system.live.connections.open).toBe(200);
    for (const a of aborts) a.abort();
    const market = sys.subgraphs.get('market') as unknown as { hub: { stats: { listeners: number } } };
    const until = Date.now() + 5_000;
    while ((sys.system.live.connections.open > 0 || market.hub.stats.listeners > 0) && Date.now() < until)
      await new Promise((r) => setTimeout(r, 20));
    expect(sys.system.live.connections.open).toBe(0);
    expect(market.hub.stats).toMatchObject({ listeners: 0, watchedTickers: 0, timers: 0 });
  });
});

describe('limits on live connections', () => {
  let sys: RunningSystem;
  beforeAll(async () => {
    sys = await startSystem({
      LIVE_INTERVAL_MS: '500',
      LIVE_MAX_CONNECTIONS: '3',
      LIVE_MAX_CONNECTIONS_PER_CLIENT: '2',
    });
  });
  afterAll(async () => sys?.close());

  test('per client address: /v1/live answers 503, /graphql/stream 429, each naming the limit; a freed slot is reusable', async () => {
    const a = new AbortController();
    const b = new AbortController();
    await fetch(`${sys.url}/v1/live`, { signal: a.signal });
    await fetch(`${sys.url}/v1/live`, { signal: b.signal });
    const rest = await fetch(`${sys.url}/v1/live`);
    expect(rest.status).toBe(503);
    expect(await rest.json()).toEqual({
      error: 'Service Unavailable',
      message: expect.stringContaining('at most 2 per client address (liveMaxConnectionsPerClient)'),
    });
    const gql = await fetch(`${sys.url}/graphql/stream`, {
      method: 'POST',
      headers: { accept: 'text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'subscription { prices(tickers: ["AAPL:NASDAQ"]) { ticker } }' }),
    });
    expect(gql.status).toBe(429);
    expect(await gql.json()).toEqual({
      errors: [
        {
          message: expect.stringContaining('liveMaxConnectionsPerClient'),
          extensions: { code: 'LIMIT_EXCEEDED', limit: 'liveMaxConnectionsPerClient' },
        },
      ],
    });
    a.abort();
    const until = Date.now() + 3_000;
    while (sys.system.live.connections.open > 1 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    const again = new AbortController();
    expect((await fetch(`${sys.url}/v1/live`, { signal: again.signal })).status).toBe(200);
    again.abort();
    b.abort();
  });
});
