import { createHash } from 'node:crypto';
import type { MarketProvider } from '../../subgraphs/market/providers/provider';
import { StaticProvider } from '../support/static-provider';
import { graphql, startSystem, type RunningSystem } from '../support/system';

/** Every limit of the gateway: the over-limit request gets a clear error naming the limit. */
async function withSystem(
  env: Record<string, string>,
  fn: (sys: RunningSystem) => Promise<void>,
  provider: MarketProvider = new StaticProvider(),
): Promise<void> {
  const sys = await startSystem(env, { marketProvider: provider });
  try {
    await fn(sys);
  } finally {
    await sys.close();
  }
}

test('query depth over maxQueryDepth is refused before any subgraph is asked', async () => {
  const provider = new StaticProvider();
  await withSystem(
    { MAX_QUERY_DEPTH: '2' },
    async (sys) => {
      const three = await graphql(sys.url, '{ quote(ticker: "AAPL:NASDAQ") { company { ceo } } }');
      expect(three.status).toBe(400);
      expect(three.body.errors).toEqual([
        expect.objectContaining({
          message: 'query depth 3 exceeds the limit of 2 (maxQueryDepth)',
          extensions: { code: 'GRAPHQL_VALIDATION_FAILED', limit: 'maxQueryDepth' },
        }),
      ]);
      const res = await graphql(sys.url, '{ quote(ticker: "AAPL:NASDAQ") { ticker } }');
      expect(res.body.errors).toBeUndefined();
      const deep = await graphql(sys.url, 'query Deep { quote(ticker: "AAPL:NASDAQ") { chart { points { date } } } }');
      expect(deep.status).toBe(400);
      expect(deep.body.errors?.[0]).toMatchObject({
        message: 'query depth 4 exceeds the limit of 2 (maxQueryDepth)',
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED', limit: 'maxQueryDepth' },
      });
    },
    provider,
  );
  expect(provider.calls).toHaveLength(1); // only the query within the limit reached the provider
});

test('fragments count toward depth and field limits', async () => {
  await withSystem({ MAX_FIELDS: '4' }, async (sys) => {
    const res = await graphql(
      sys.url,
      'query F { quote(ticker: "AAPL:NASDAQ") { ...Q } } fragment Q on Quote { ticker price change name }',
    );
    expect(res.body.errors?.[0]).toMatchObject({
      message: 'number of fields 5 exceeds the limit of 4 (maxFields)',
      extensions: { limit: 'maxFields' },
    });
  });
});

test('aliases over maxAliases are refused', async () => {
  await withSystem({ MAX_ALIASES: '2' }, async (sys) => {
    const ok = await graphql(sys.url, '{ a: headline { title } b: headline { title } }');
    expect(ok.body.errors).toBeUndefined();
    const res = await graphql(sys.url, '{ a: headline { title } b: headline { title } c: headline { title } }');
    expect(res.body.errors?.[0]).toMatchObject({
      message: 'number of aliases 3 exceeds the limit of 2 (maxAliases)',
      extensions: { limit: 'maxAliases' },
    });
  });
});

test('a body over maxBodyBytes is a 413 naming the limit', async () => {
  await withSystem({ MAX_BODY_BYTES: '2048' }, async (sys) => {
    const query = `{ headline { title } } # ${'x'.repeat(3000)}`;
    const res = await fetch(`${sys.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({
      errors: [
        {
          message: 'request body exceeds the limit of 2048 bytes (maxBodyBytes)',
          extensions: { code: 'PAYLOAD_TOO_LARGE', limit: 'maxBodyBytes' },
        },
      ],
    });
  });
});

test('introspection can be turned off', async () => {
  await withSystem({ INTROSPECTION: 'false' }, async (sys) => {
    const res = await graphql(sys.url, '{ __schema { queryType { name } } }');
    expect(res.body.errors?.[0]?.message).toMatch(/introspection is not allowed/i);
  });
  await withSystem({}, async (sys) => {
    expect((await graphql(sys.url, '{ __schema { queryType { name } } }')).body.data).toEqual({
      __schema: { queryType: { name: 'Query' } },
    });
  });
});

test('a subgraph slower than subgraphTimeoutMs gives an error naming it and the limit; the gateway answers on time', async () => {
  const slow: MarketProvider = {
    name: 'slow',
    fetch: (requests) =>
      new Promise((resolve) => {
        setTimeout(() => resolve(requests.map(() => ({ ok: true, value: null }))), 1_500).unref();
      }),
  };
  await withSystem(
    { SUBGRAPH_TIMEOUT_MS: '200' },
    async (sys) => {
      const started = Date.now();
      const res = await graphql(sys.url, '{ headline { title } }');
      expect(Date.now() - started).toBeLessThan(1_200);
      expect(res.body.errors?.[0]).toMatchObject({
        message: 'subgraph market did not answer within 200 ms (subgraphTimeoutMs)',
        extensions: { code: 'SUBGRAPH_TIMEOUT', serviceName: 'market' },
      });
    },
    slow,
  );
});

test('CORS origins are configurable', async () => {
  await withSystem({ CORS_ORIGINS: 'https://app.example' }, async (sys) => {
    const allowed = await fetch(`${sys.url}/v1/quote/AAPL:NASDAQ`, { headers: { origin: 'https://app.example' } });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example');
    const other = await fetch(`${sys.url}/v1/quote/AAPL:NASDAQ`, { headers: { origin: 'https://evil.example' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});

test('/metrics exposes request, operation, subgraph-fetch and error metrics in Prometheus format', async () => {
  await withSystem({}, async (sys) => {
    await graphql(sys.url, 'query MetricsProbe { quote(ticker: "AAPL:NASDAQ") { price } }');
    await graphql(sys.url, 'query Missing { quote(ticker: "NOPE:NASDAQ") { price } }');
    await fetch(`${sys.url}/v1/quote/AAPL:NASDAQ`);
    const res = await fetch(`${sys.url}/metrics`);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await res.text();
    expect(text).toMatch(
      /graphql_operation_duration_seconds_count\{operation="MetricsProbe",type="query",cached="false"\} 1/,
    );
    expect(text).toMatch(/subgraph_fetch_duration_seconds_count\{subgraph="market",outcome="ok"\} [1-9]/);
    expect(text).toMatch(/graphql_errors_total\{code="NOT_FOUND"\} 1/);
    expect(text).toMatch(/http_requests_total\{route="\/v1\/quote\/:ticker",method="GET",status="200"\} 1/);
  });
});

/** F0 selects one field; each F_i spreads F_{i-1} twice, so F_n expands to 2^n fields in ~40 bytes per fragment. */
function doublingFragments(n: number): string {
  const parts = ['fragment F0 on Quote { ticker }'];
  for (let i = 1; i <= n; i++) parts.push(`fragment F${i} on Quote { ...F${i - 1} ...F${i - 1} }`);
  return `query Hostile { quote(ticker: "AAPL:NASDAQ") { ...F${n} } } ${parts.join(' ')}`;
}

test('a document of doubling fragments is refused at once on /graphql and /graphql/stream (limits are counted per fragment, not per expansion)', async () => {
  const provider = new StaticProvider();
  await withSystem(
    {},
    async (sys) => {
      const query = doublingFragments(40); // 2^40 fields once expanded: hours to count one by one
      expect(Buffer.byteLength(query)).toBeLessThan(2_048);
      const started = Date.now();
      const res = await graphql(sys.url, query);
      expect(res.status).toBe(400);
      expect(res.body.errors?.[0]).toMatchObject({
        message: `number of fields ${2 ** 40 + 1} exceeds the limit of 500 (maxFields)`,
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED', limit: 'maxFields' },
      });
      const stream = await fetch(`${sys.url}/graphql/stream`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ query }),
      });
      const text = await stream.text(); // the validation error is one event, then the stream completes
      expect(text).toContain(`number of fields ${2 ** 40 + 1} exceeds the limit of 500 (maxFields)`);
      // Counted one by one, 2^40 fields would take hours; a second is a margin of many orders of magnitude.
      expect(Date.now() - started).toBeLessThan(5_000);
    },
    provider,
  );
  expect(provider.calls).toHaveLength(0);
});

test('fragments spread many times count every expansion toward the limits, and depth goes through fragments', async () => {
  await withSystem({ MAX_FIELDS: '8', MAX_QUERY_DEPTH: '3' }, async (sys) => {
    const ok = await graphql(sys.url, doublingFragments(3)); // quote + 8 tickers = 9 fields
    expect(ok.body.errors?.[0]).toMatchObject({
      message: 'number of fields 9 exceeds the limit of 8 (maxFields)',
      extensions: { limit: 'maxFields' },
    });
    const deep = await graphql(
      sys.url,
      'query D { quote(ticker: "AAPL:NASDAQ") { ...C } } fragment C on Quote { chart { ...P } } fragment P on Chart { points { date } }',
    );
    expect(deep.body.errors?.[0]).toMatchObject({
      message: 'query depth 4 exceeds the limit of 3 (maxQueryDepth)',
      extensions: { limit: 'maxQueryDepth' },
    });
    const within = await graphql(sys.url, doublingFragments(2)); // quote + 4 tickers
    expect(within.body.errors).toBeUndefined();
  });
});

/** What these tests read of a JSON answer. */
interface PostedBody {
  data?: { headline?: { url: string }; quote?: { ticker: string } } | null;
  errors?: Array<{ message: string; extensions?: Record<string, unknown> }>;
}

async function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: PostedBody }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) as PostedBody };
  } catch {
    throw new Error(`HTTP ${res.status} answered with something other than JSON: ${text.slice(0, 200)}`);
  }
}

test("an operation name that names no operation, or several unnamed operations, is a 400 with graphql-js's message", async () => {
  await withSystem({}, async (sys) => {
    const unknown = await post(`${sys.url}/graphql`, { query: 'query A { headline { title } }', operationName: 'B' });
    expect(unknown).toEqual({
      status: 400,
      body: {
        errors: [{ message: 'Unknown operation named "B".', extensions: { code: 'OPERATION_RESOLUTION_FAILURE' } }],
      },
    });
    const two = await post(`${sys.url}/graphql`, {
      query: 'query A { headline { title } } query B { headline { url } }',
    });
    expect(two).toEqual({
      status: 400,
      body: {
        errors: [
          {
            message: 'Must provide operation name if query contains multiple operations.',
            extensions: { code: 'OPERATION_RESOLUTION_FAILURE' },
          },
        ],
      },
    });
    const named = await post(`${sys.url}/graphql`, {
      query: 'query A { headline { title } } query B { headline { url } }',
      operationName: 'B',
    });
    expect(named.status).toBe(200);
    expect(named.body.data?.headline?.url).toEqual(expect.any(String));
  });
});

test('variables nested past maxVariablesDepth are a 400 naming the limit, on /graphql and /graphql/stream', async () => {
  await withSystem({ MAX_VARIABLES_DEPTH: '8' }, async (sys) => {
    // 400 000 levels within a megabyte: a recursive walk of it overflows the stack (it was a 500)
    const deep = `{"query":"query Q($x: String) { headline { title } }","variables":{"x":${'['.repeat(400_000)}1${']'.repeat(400_000)}}}`;
    const expected = {
      errors: [
        {
          message: 'variables are nested deeper than the limit of 8 levels (maxVariablesDepth)',
          extensions: { code: 'BAD_REQUEST', limit: 'maxVariablesDepth' },
        },
      ],
    };
    expect(await post(`${sys.url}/graphql`, deep)).toEqual({ status: 400, body: expected });
    expect(await post(`${sys.url}/graphql/stream`, deep, { accept: 'text/event-stream' })).toEqual({
      status: 400,
      body: expected,
    });
    const shallow = await post(`${sys.url}/graphql`, {
      query: 'query Q($x: [[String]]) { headline { title } }',
      variables: { x: [['a']] },
    });
    expect(shallow.status).toBe(400); // x is declared but unused: graphql-js's own rule, not ours
    expect(shallow.body.errors?.[0]?.message).toMatch(/Variable "\$x" is never used/);
    const ok = await post(`${sys.url}/graphql`, {
      query: 'query Q($t: String!) { quote(ticker: $t) { ticker } }',
      variables: { t: 'AAPL:NASDAQ', extra: [[[[[[[1]]]]]]] },
    });
    expect(ok.body).toEqual({ data: { quote: { ticker: 'AAPL:NASDAQ' } } });
  });
});

test('the response cache keys on the variables an operation uses and is bounded in bytes', async () => {
  // The simulated market (fixed clock) knows every ticker used here.
  const sys = await startSystem({
    RESPONSE_CACHE_BYTES: '300000',
    RESPONSE_CACHE_MAX_ENTRY_BYTES: '50000',
    MARKET_CLOCK: '2026-11-20T18:00:00Z',
  });
  try {
    const cache = sys.system.graph.cache;
    const query = 'query Q($t: String!) { quote(ticker: $t) { ticker price } }';
    for (let i = 0; i < 200; i++) {
      const res = await post(`${sys.url}/graphql`, {
        query,
        variables: { t: 'AAPL:NASDAQ', unused: `padding-${i}-${'x'.repeat(2_000)}` },
      });
      expect(res.body.data?.quote?.ticker).toBe('AAPL:NASDAQ');
    }
    expect(cache.size).toBe(1); // variables the operation does not declare do not make new entries
    // Distinct used variables fill the cache up to its byte bound and no further.
    const chart =
      'query C($t: String!, $r: ChartRange) { quote(ticker: $t) { chart(range: $r) { points { date price volume } } } }';
    for (const t of ['AAPL:NASDAQ', 'MSFT:NASDAQ', 'GOOGL:NASDAQ', 'BTC-USD', 'EUR-USD', 'THYAO:IST']) {
      for (const r of ['ONE_DAY', 'FIVE_DAYS', 'ONE_MONTH', 'SIX_MONTHS', 'ONE_YEAR', 'FIVE_YEARS']) {
        const res = await post(`${sys.url}/graphql`, { query: chart, variables: { t, r } });
        expect(res.body.errors).toBeUndefined();
        expect(cache.bytes).toBeLessThanOrEqual(300_000);
      }
    }
    expect(cache.size).toBeGreaterThan(3);
    const keyOf = (r: string) =>
      cache.keyOf('', createHash('sha256').update(chart).digest('hex'), undefined, { t: 'THYAO:IST', r }) as string;
    expect(cache.get(keyOf('FIVE_DAYS'))).toBeDefined(); // the last rounds are still there
    const max = await post(`${sys.url}/graphql`, { query: chart, variables: { t: 'THYAO:IST', r: 'MAX' } });
    expect(JSON.stringify(max.body).length).toBeGreaterThan(50_000 / 2.5); // ~2.5 bytes held per JSON byte: over the bound
    expect(cache.get(keyOf('MAX'))).toBeUndefined(); // too large to cache: never stored
    expect(cache.get(keyOf('FIVE_DAYS'))).toBeDefined(); // and it evicted nothing
  } finally {
    await sys.close();
  }
});

test("errors raised before routing use the interface's own shape, carry CORS headers and do not echo the URL", async () => {
  await withSystem({ CORS_ORIGINS: 'https://app.example' }, async (sys) => {
    const bad = await fetch(`${sys.url}/v1/quote/%ZZ`, { headers: { origin: 'https://app.example' } });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(await bad.json()).toEqual({
      error: 'Bad Request',
      message: 'the URL is not valid (a bad percent-escape or character)',
    });
    const gql = await fetch(`${sys.url}/graphql/%ZZ`);
    expect(await gql.json()).toEqual({
      errors: [
        { message: 'the URL is not valid (a bad percent-escape or character)', extensions: { code: 'BAD_REQUEST' } },
      ],
    });
    const long = await fetch(`${sys.url}/v1/quote/${'A'.repeat(1_000)}:NASDAQ`, {
      headers: { origin: 'https://app.example' },
    });
    expect(long.status).toBe(400);
    expect(long.headers.get('access-control-allow-origin')).toBe('https://app.example');
    const body = (await long.json()) as { error: string; message: string };
    expect(body.message).toMatch(/longer than 40 characters/);
    expect(body.message.length).toBeLessThan(300);
  });
});

test("OPTIONS without preflight headers is a 204 with Allow listing the path's methods", async () => {
  await withSystem({}, async (sys) => {
    const rest = await fetch(`${sys.url}/v1/quote/AAPL:NASDAQ`, { method: 'OPTIONS' });
    expect(rest.status).toBe(204);
    expect(rest.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    const gql = await fetch(`${sys.url}/graphql`, { method: 'OPTIONS' });
    expect(gql.status).toBe(204);
    expect(gql.headers.get('allow')).toBe('GET, HEAD, POST, OPTIONS');
  });
});
