import { RECORDS_PAGE_MAX } from '../../gateway/rest/dns-api/operations';
import { gql, login } from '../dns-api/api';
import { StaticProvider } from '../support/static-provider';
import { graphql, startSystem, TEST_ADMIN_PASSWORD, type RunningSystem } from '../support/system';

/**
 * The cost limit of one document (maxQueryCost, gateway/limits.ts and cost.ts): over HTTP, on /graphql and
 * /graphql/stream, refused before any subgraph is asked, with the limit and the measured cost named.
 */
async function withSystem(
  env: Record<string, string>,
  fn: (sys: RunningSystem, provider: StaticProvider) => Promise<void>,
) {
  const provider = new StaticProvider();
  const sys = await startSystem(env, { marketProvider: provider });
  try {
    await fn(sys, provider);
  } finally {
    await sys.close();
  }
}

const records = (alias: string, limit: number) =>
  `${alias}: zone(name: "example.test") { records(limit: ${limit}) { records { id name type value ttl } } }`;

test('fifty aliased pages of the largest size are refused by default, naming the limit and the cost; one page is not', async () => {
  await withSystem({}, async (sys) => {
    const token = await login(`${sys.url}/api/v1`, 'admin', TEST_ADMIN_PASSWORD);
    const fifty = Array.from({ length: 50 }, (_, i) => records(`z${i}`, RECORDS_PAGE_MAX));
    const refused = await gql(sys.url, `{ ${fifty.join(' ')} }`, {}, token);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      errors: [
        {
          message: `estimated cost ${50 * (1 + 1 + 1 + RECORDS_PAGE_MAX * 5)} exceeds the limit of 100000 (maxQueryCost)`,
          locations: [{ line: 1, column: 1 }],
          extensions: { code: 'GRAPHQL_VALIDATION_FAILED', limit: 'maxQueryCost' },
        },
      ],
    });
    const one = await gql<{ z: { records: { records: unknown[] } } }>(
      sys.url,
      `{ ${records('z', RECORDS_PAGE_MAX)} }`,
      {},
      token,
    );
    expect(one.body.errors).toBeUndefined();
    expect(one.body.data?.z.records.records.length).toBeGreaterThan(0);
  });
});

test('page sizes given in variables count: the same document passes or not by its variables', async () => {
  await withSystem({ MAX_QUERY_COST: '1000' }, async (sys) => {
    const token = await login(`${sys.url}/api/v1`, 'admin', TEST_ADMIN_PASSWORD);
    const query = 'query Page($n: Int) { zone(name: "example.test") { records(limit: $n) { records { id name } } } }';
    expect((await gql(sys.url, query, { n: 10 }, token)).body.errors).toBeUndefined();
    const over = await gql(sys.url, query, { n: 500 }, token);
    expect(over.status).toBe(400);
    expect(over.body.errors?.[0]).toMatchObject({
      message: 'estimated cost 1003 exceeds the limit of 1000 (maxQueryCost)',
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED', limit: 'maxQueryCost' },
    });
    // without a limit: the field's default page (1 000 records)
    expect((await gql(sys.url, query, {}, token)).body.errors?.[0]?.message).toBe(
      'estimated cost 2003 exceeds the limit of 1000 (maxQueryCost)',
    );
  });
});

test('MAX_QUERY_COST is configurable; a refused document reaches no subgraph, on /graphql and /graphql/stream', async () => {
  await withSystem({ MAX_QUERY_COST: '20' }, async (sys, provider) => {
    // a list without cost directives counts 10 items: 1 + 10 × 2
    const quotes = '{ quotes(tickers: ["AAPL:NASDAQ"]) { ticker price } }';
    expect((await graphql(sys.url, quotes)).body.errors?.[0]).toMatchObject({
      message: 'estimated cost 21 exceeds the limit of 20 (maxQueryCost)',
      extensions: { limit: 'maxQueryCost' },
    });
    const streamed = await fetch(`${sys.url}/graphql/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({
        query: 'subscription { priceTicks(tickers: ["AAPL:NASDAQ"]) { sequence quotes { ticker price } } }',
      }),
    });
    const text = await streamed.text(); // 1 + 1 + (1 + 10 × 2): one event, then the stream completes
    expect(text).toContain('estimated cost 23 exceeds the limit of 20 (maxQueryCost)');
    expect(provider.calls).toHaveLength(0);
    const within = await graphql(sys.url, '{ quote(ticker: "AAPL:NASDAQ") { ticker price } }');
    expect(within.body.errors).toBeUndefined();
  });
});
