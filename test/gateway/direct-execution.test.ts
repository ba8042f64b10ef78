import type { MarketProvider } from '../../subgraphs/market/providers/provider';
import { quoteExtensionSubgraph, supergraphWithExtension } from '../support/quote-extension';
import { startSystem, SUBGRAPH_MODE, type RunningSystem } from '../support/system';

/**
 * Operations one in-process subgraph answers whole run directly on it (gateway/graph/federation/single-subgraph-executor):
 * every such response must be byte for byte what the federated executor gives for the same request, and operations that
 * need another subgraph, introspection or a remote subgraph must still go through the federated executor.
 */
let sys: RunningSystem;

beforeAll(async () => {
  const extension = quoteExtensionSubgraph();
  sys = await startSystem(
    { RESPONSE_CACHE: 'false', MARKET_CLOCK: '2026-11-20T18:00:00Z' },
    {
      extraSubgraphs: [extension],
      supergraphSdl: await supergraphWithExtension(extension),
    },
  );
});

afterAll(async () => sys?.close());

async function post(body: Record<string, unknown>): Promise<{ status: number; text: string }> {
  const res = await fetch(`${sys.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

/** The same request through the direct path and through the federated executor; returns which path ran and both answers. */
async function both(
  body: Record<string, unknown>,
): Promise<{ direct: boolean; fast: { status: number; text: string }; planned: { status: number; text: string } }> {
  const direct = sys.system.graph.direct;
  const before = direct.stats.direct;
  const fast = await post(body);
  const ran = direct.stats.direct > before;
  direct.enabled = false;
  try {
    return { direct: ran, fast, planned: await post(body) };
  } finally {
    direct.enabled = true;
  }
}

const SAME_AS_APOLLO: Array<[string, Record<string, unknown>]> = [
  [
    'a nested quote with aliases, fragments and a variable',
    {
      query: `query Q($t: String!) { q: quote(ticker: $t) { ticker ...F chart(range: FIVE_DAYS) { previousClose points { date price } } news { title } } }
      fragment F on Quote { name price afterHours { price } company { ceo marketCap } }`,
      variables: { t: 'AAPL:NASDAQ' },
    },
  ],
  [
    'several quotes with an unknown ticker (null with NOT_FOUND at its index)',
    { query: '{ quotes(tickers: ["MSFT:NASDAQ", "ZZZZ:NASDAQ", "BTC-USD"]) { ticker price } }' },
  ],
  ['an unknown ticker on a non-null path', { query: '{ quote(ticker: "ZZZZ:NASDAQ") { ticker } indices { ticker } }' }],
  ['a bad argument (BAD_USER_INPUT naming it)', { query: '{ movers(count: 0) { ticker } }' }],
  [
    'market lists with __typename',
    {
      query:
        '{ __typename indices { __typename ticker name } trending { ticker } headline { title } earnings { date } }',
    },
  ],
  [
    'one operation picked by name from several',
    { query: 'query A { indices { ticker } } query B { trending { ticker } }', operationName: 'B' },
  ],
];

describe(`direct execution (${SUBGRAPH_MODE} subgraphs)`, () => {
  test.each(SAME_AS_APOLLO)('%s: the same bytes as the federated executor', async (_label, body) => {
    const { direct, fast, planned } = await both(body);
    expect(direct).toBe(SUBGRAPH_MODE === 'in-process');
    expect(fast.status).toBe(planned.status);
    expect(JSON.parse(fast.text)).toEqual(JSON.parse(planned.text));
    expect(fast.text).toBe(planned.text);
  });

  test.each([
    ['a field of another subgraph', '{ quote(ticker: "AAPL:NASDAQ") { price watchNote } }'],
    ['introspection', '{ __schema { queryType { name } } }'],
    ['__type introspection inside a fragment', '{ ...F } fragment F on Query { __type(name: "Quote") { name } }'],
  ])('%s goes through the federated executor, with the same answer as the direct path', async (_label, query) => {
    const { direct, fast, planned } = await both({ query });
    expect(direct).toBe(false);
    expect(fast.text).toBe(planned.text);
    expect(JSON.parse(fast.text).errors).toBeUndefined();
  });

  test('a directly run request is logged and measured like any other subgraph fetch', async () => {
    await post({ query: 'query DirectProbe { indices { ticker } }' });
    const metrics = await (await fetch(`${sys.url}/metrics`)).text();
    expect(metrics).toMatch(/subgraph_fetch_duration_seconds_count\{subgraph="market",outcome="ok"\} [1-9]/);
    expect(metrics).toMatch(
      /graphql_operation_duration_seconds_count\{operation="DirectProbe",type="query",cached="false"\} 1/,
    );
  });
});

describe(`a subgraph fetch that fails whole (${SUBGRAPH_MODE} subgraphs)`, () => {
  const slow: MarketProvider = {
    name: 'slow',
    fetch: (requests) =>
      new Promise((resolve) => {
        setTimeout(() => resolve(requests.map(() => ({ ok: true, value: null }))), 1_000).unref();
      }),
  };
  let slowSys: RunningSystem;
  beforeAll(async () => {
    slowSys = await startSystem({ RESPONSE_CACHE: 'false', SUBGRAPH_TIMEOUT_MS: '150' }, { marketProvider: slow });
  });
  afterAll(async () => slowSys?.close());

  const postTo = async (body: Record<string, unknown>) => {
    const res = await fetch(`${slowSys.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, text: await res.text() };
  };

  test.each([
    ['a nullable root field', '{ headline { title } }', { headline: null }],
    [
      'aliases and __typename',
      '{ __typename h: headline { title } q: quote(ticker: "AAPL:NASDAQ") { price } }',
      { __typename: 'Query', h: null, q: null },
    ],
    ['a non-null root field (null bubbles to data)', '{ headline { title } indices { ticker } }', null],
  ])(
    "%s: HTTP 200 with the fields null and SUBGRAPH_TIMEOUT, as Apollo's executor answers (never a 400)",
    async (_label, query, data) => {
      const direct = slowSys.system.graph.direct;
      const before = direct.stats.direct;
      const fast = await postTo({ query });
      expect(direct.stats.direct > before).toBe(SUBGRAPH_MODE === 'in-process');
      direct.enabled = false;
      const planned = await postTo({ query }).finally(() => {
        direct.enabled = true;
      });
      expect(fast.status).toBe(200);
      expect(JSON.parse(fast.text)).toEqual({
        errors: [
          {
            message: 'subgraph market did not answer within 150 ms (subgraphTimeoutMs)',
            extensions: { code: 'SUBGRAPH_TIMEOUT', serviceName: 'market' },
          },
        ],
        data,
      });
      expect(fast.text).toBe(planned.text);
      expect(planned.status).toBe(200);
    },
  );
});
