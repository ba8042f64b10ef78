import { graphql, startSystem, type RunningSystem } from '../support/system';
import { startSubgraphs, type Fixture, type SubgraphModule } from '../federation/fixture';

/**
 * GRAPHQL_CONCURRENCY over the real HTTP server, with a general gateway over one remote subgraph whose resolver
 * holds each request until the test lets it go: a bound of 1 runs one operation at a time and shows the others
 * waiting in /metrics; `off` runs them all at once.
 */
let active = 0;
let most = 0;
let calls = 0;
const held: Array<() => void> = [];

const slow: SubgraphModule = {
  typeDefs: /* GraphQL */ `
    extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])
    type Query {
      held(n: Int!): Int!
    }
  `,
  resolvers: {
    Query: {
      held: async (_: unknown, { n }: { n: number }) => {
        calls++;
        most = Math.max(most, ++active);
        await new Promise<void>((release) => held.push(release));
        active--;
        return n;
      },
    },
  },
};

let fixture: Fixture<'slow'>;
const gateways: RunningSystem[] = [];

beforeAll(async () => {
  fixture = await startSubgraphs({ slow });
});

afterAll(async () => {
  held.splice(0).forEach((release) => release());
  await Promise.all(gateways.map((g) => g.close()));
  await fixture?.close();
});

beforeEach(() => {
  active = most = calls = 0;
});

async function gatewayWith(concurrency: string): Promise<RunningSystem> {
  const g = await startSystem({
    SUPERGRAPH_FILE: fixture.supergraphFile,
    GRAPHQL_CONCURRENCY: concurrency,
    RESPONSE_CACHE: 'false',
  });
  gateways.push(g);
  return g;
}

async function until(what: string, ok: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!ok()) throw new Error(`not within 5 s: ${what}`);
}

async function metric(g: RunningSystem, line: RegExp): Promise<number> {
  const text = await (await fetch(`${g.url}/metrics`)).text();
  const m = line.exec(text);
  if (!m?.[1]) throw new Error(`no ${line} in /metrics`);
  return m[1] === '+Inf' ? Infinity : Number(m[1]);
}

test('a bound of 1: one operation executes at a time, the others wait (shown in /metrics) and all are answered', async () => {
  const g = await gatewayWith('1');
  const answers = [1, 2, 3].map((n) => graphql(g.url, `{ held(n: ${n}) }`));
  await until('the first operation reaching the subgraph', () => held.length === 1);
  // the others wait in the gateway, not in the subgraph
  let waiting = 0;
  for (let i = 0; i < 500 && waiting < 2; i++) {
    waiting = await metric(g, /^graphql_operations\{state="waiting"\} (\d+)$/m);
    if (waiting < 2) await new Promise((r) => setTimeout(r, 10));
  }
  expect(waiting).toBe(2);
  expect(await metric(g, /^graphql_operations\{state="running"\} (\d+)$/m)).toBe(1);
  expect(await metric(g, /^graphql_operation_concurrency_limit (\S+)$/m)).toBe(1);
  expect(calls).toBe(1);
  for (let released = 0; released < 3; released++) {
    await until(`operation ${released + 1} reaching the subgraph`, () => held.length === 1);
    held.shift()?.();
  }
  const bodies = (await Promise.all(answers)).map((r) => r.body);
  expect(bodies).toEqual([1, 2, 3].map((n) => ({ data: { held: n } })));
  expect(most).toBe(1);
  expect(await metric(g, /^graphql_operations\{state="waiting"\} (\d+)$/m)).toBe(0);
});

test('off: every operation executes at once', async () => {
  const g = await gatewayWith('off');
  const answers = [1, 2, 3].map((n) => graphql(g.url, `{ held(n: ${n}) }`));
  await until('three operations in the subgraph at once', () => held.length === 3);
  expect(most).toBe(3);
  expect(await metric(g, /^graphql_operation_concurrency_limit (\S+)$/m)).toBe(Infinity);
  held.splice(0).forEach((release) => release());
  expect((await Promise.all(answers)).map((r) => r.body)).toEqual([1, 2, 3].map((n) => ({ data: { held: n } })));
});

test('auto (the default): operations waiting on a subgraph raise the bound past its starting 4, so all nine run', async () => {
  const g = await gatewayWith('auto');
  const answers = Array.from({ length: 9 }, (_, n) => graphql(g.url, `{ held(n: ${n}) }`));
  // the loop is idle while all wait on the subgraph: the bound rises within a few adaptations, and all nine run
  await until('all nine operations in the subgraph', () => held.length === 9);
  expect(await metric(g, /^graphql_operation_concurrency_limit (\S+)$/m)).toBeGreaterThan(4);
  held.splice(0).forEach((release) => release());
  expect((await Promise.all(answers)).map((r) => r.body)).toEqual(
    Array.from({ length: 9 }, (_, n) => ({ data: { held: n } })),
  );
});
