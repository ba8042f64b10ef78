import { prepareOperation } from '../../gateway/graph/prepared-operation';
import { graphql, startSystem, type RunningSystem } from '../support/system';
import { startSubgraphs, type Fixture } from './fixture';
import { progressiveOverrideSubgraphs } from './fixture/progressive';

/**
 * The response cache under progressive @override, over the real server: an answer depends on which subgraph served
 * an overridden field, so a cached answer is kept per set of active labels that can change its plan, and a request
 * is answered from the cache only with the labels it rolled. The subgraphs declare their answers cacheable; the
 * planner's randomness is the test's, so that each request's labels are chosen: at 0.25 `percent(50)` is on (the
 * field `half` comes from `b`), at 0.75 it is off (from `a`); `percent(100)` is always on, `percent(0)` never.
 */
let fixture: Fixture<'a' | 'b'>;
let gateway: RunningSystem;
/** What the planner's `random` returns, and how often it was called (each roll calls it once per percent label). */
const random = { value: 0.75, calls: 0 };
const ON = 0.25;
const OFF = 0.75;
const PERCENT_LABELS = 3;

beforeAll(async () => {
  fixture = await startSubgraphs(progressiveOverrideSubgraphs(60));
  gateway = await startSystem(
    { SUPERGRAPH_FILE: fixture.supergraphFile, RESPONSE_CACHE: 'true' },
    {
      plannerRandom: () => {
        random.calls++;
        return random.value;
      },
    },
  );
});

afterAll(async () => {
  await gateway?.close();
  await fixture?.close();
});

interface Answer {
  /** The product's fields as answered. */
  product: Record<string, string> | undefined;
  /** Requests the subgraphs received for it (0: answered from the cache). */
  fetches: number;
  cacheControl: string | null;
}

/** Sends `query` with the labels `roll` gives (POST: the cache's fast path; GET: through Apollo Server's plugin). */
async function ask(query: string, roll: number, method: 'POST' | 'GET' = 'POST'): Promise<Answer> {
  random.value = roll;
  const before = fixture.subgraphs.a.rec.requests + fixture.subgraphs.b.rec.requests;
  let body: { data?: { product?: Record<string, string> } };
  let cacheControl: string | null = null;
  if (method === 'POST') {
    body = (await graphql(gateway.url, query)).body as typeof body;
  } else {
    const res = await fetch(`${gateway.url}/graphql?query=${encodeURIComponent(query)}`, {
      headers: { 'apollo-require-preflight': 'true' },
    });
    expect(res.status).toBe(200);
    cacheControl = res.headers.get('cache-control');
    body = (await res.json()) as typeof body;
  }
  const fetches = fixture.subgraphs.a.rec.requests + fixture.subgraphs.b.rec.requests - before;
  return { product: body.data?.product, fetches, cacheControl };
}

test.each(['POST', 'GET'] as const)(
  '%s: each label set has its own cached answer, from the subgraph its labels pick; a matching request is a hit',
  async (method) => {
    const query = `{ product(id: "${method}") { id half } }`;
    const entries = gateway.system.graph.cache.size;
    const calls = random.calls;
    // the first request of each label set is planned and fetched, and cached under its labels
    expect(await ask(query, OFF, method)).toMatchObject({ product: { id: method, half: 'a' }, fetches: 1 });
    expect(await ask(query, ON, method)).toMatchObject({ product: { id: method, half: 'b' }, fetches: 2 });
    expect(gateway.system.graph.cache.size - entries).toBe(2);
    // then requests alternating between the two sets are each answered from their own entry
    for (const [roll, owner] of [
      [OFF, 'a'],
      [ON, 'b'],
      [OFF, 'a'],
      [ON, 'b'],
    ] as const) {
      const answer = await ask(query, roll, method);
      expect(answer).toMatchObject({ product: { id: method, half: owner }, fetches: 0 });
      if (method === 'GET') expect(answer.cacheControl).toMatch(/^public, max-age=\d+$/);
    }
    expect(gateway.system.graph.cache.size - entries).toBe(2);
    // one roll per request: the cache's lookup and the planning of a miss used the same labels
    expect(random.calls - calls).toBe(6 * PERCENT_LABELS);
  },
);

test('an operation no label can change has one cached answer, whatever the roll', async () => {
  const query = '{ product(id: "plain") { id name } }';
  const entries = gateway.system.graph.cache.size;
  expect(await ask(query, OFF)).toMatchObject({ product: { name: 'product plain' }, fetches: 1 });
  for (const roll of [ON, OFF, ON])
    expect(await ask(query, roll)).toMatchObject({ product: { name: 'product plain' }, fetches: 0 });
  expect(gateway.system.graph.cache.size - entries).toBe(1);
});

test('a label always on (percent(100)) or never on (percent(0)) keeps one entry per operation', async () => {
  const query = '{ product(id: "fixed") { id zero full } }';
  const entries = gateway.system.graph.cache.size;
  expect(await ask(query, ON)).toMatchObject({ product: { zero: 'a', full: 'b' }, fetches: 2 });
  for (const roll of [OFF, ON, OFF])
    expect(await ask(query, roll)).toMatchObject({ product: { zero: 'a', full: 'b' }, fetches: 0 });
  expect(gateway.system.graph.cache.size - entries).toBe(1);
});

test("a fixed operation (Graph.run: the REST adapters' and internal operations) is cached per label set too", async () => {
  const op = prepareOperation('FixedHalf', 'query FixedHalf { product(id: "run") { id half } }');
  const run = async (roll: number) => {
    random.value = roll;
    const before = fixture.subgraphs.a.rec.requests + fixture.subgraphs.b.rec.requests;
    const { result, cached } = await gateway.system.graph.run(op, {}, `run-${roll}`);
    const fetches = fixture.subgraphs.a.rec.requests + fixture.subgraphs.b.rec.requests - before;
    return { half: (result.data as { product: { half: string } }).product.half, fetches, cached: cached !== undefined };
  };
  const calls = random.calls;
  expect(await run(OFF)).toEqual({ half: 'a', fetches: 1, cached: true });
  expect(await run(ON)).toEqual({ half: 'b', fetches: 2, cached: true });
  expect(await run(OFF)).toEqual({ half: 'a', fetches: 0, cached: true });
  expect(await run(ON)).toEqual({ half: 'b', fetches: 0, cached: true });
  expect(random.calls - calls).toBe(4 * PERCENT_LABELS);
});
