import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClient, type Client } from 'graphql-sse';
import { ConfigError } from '../../gateway/host/config/load';
import { takeResults } from '../support/iterate-results';
import { graphql, startSystem, type RunningSystem } from '../support/system';
import { startSubgraphs, type Fixture } from './fixture';
import { progressiveOverrideSubgraphs } from './fixture/progressive';

/**
 * Progressive @override (Federation 2.7) through the general gateway over HTTP: three fields of Product move from
 * subgraph `a` to subgraph `b` with `percent(0)`, `percent(100)` and `percent(50)`. Each subgraph answers its own
 * name, so a response shows which one served the field; each request rolls the labels anew.
 */
let fixture: Fixture<'a' | 'b'>;
let gateway: RunningSystem;
let client: Client;

beforeAll(async () => {
  fixture = await startSubgraphs(progressiveOverrideSubgraphs());
  gateway = await startSystem({ SUPERGRAPH_FILE: fixture.supergraphFile });
  client = createClient({ url: `${gateway.url}/graphql/stream`, retryAttempts: 0 });
});

afterAll(async () => {
  client?.dispose();
  await gateway?.close();
  await fixture?.close();
});

const planner = () => gateway.system.planner;

/** Who served `field` of product 1 on each of `n` requests, one after the other. */
async function owners(field: string, n: number): Promise<string[]> {
  const seen: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await graphql(gateway.url, `{ product(id: "1") { id ${field} } }`);
    const product = (res.body as { data?: { product?: Record<string, string> } }).data?.product;
    seen.push(product?.[field] ?? JSON.stringify(res.body));
  }
  return seen;
}

test('the supergraph composed with the labels on both join__fields, and the gateway read three percent labels', () => {
  expect(fixture.supergraphSdl).toContain('overrideLabel: "percent(50)"');
  expect([...planner().overrides.percentLabels].sort()).toEqual([
    ['percent(0)', 0],
    ['percent(100)', 100],
    ['percent(50)', 50],
  ]);
});

test('percent(0): always the subgraph it is overridden from, with one plan', async () => {
  const before = planner().stats.plans;
  expect(new Set(await owners('zero', 60))).toEqual(new Set(['a']));
  expect(planner().stats.plans - before).toBe(1);
});

test('percent(100): always the new owner, with one plan', async () => {
  const before = planner().stats.plans;
  expect(new Set(await owners('full', 60))).toEqual(new Set(['b']));
  expect(planner().stats.plans - before).toBe(1);
});

test('percent(50): both owners over 300 requests, one plan per label set (two), near half each', async () => {
  // Each request rolls the label on its own: all 300 on one side has probability 2 × 0.5^300 ≈ 1e-90; fewer than
  // 90 on a side (the bound below) has probability under 1e-12.
  const before = planner().stats.plans;
  const seen = await owners('half', 300);
  const fromB = seen.filter((o) => o === 'b').length;
  expect(seen.filter((o) => o !== 'a' && o !== 'b')).toEqual([]);
  expect(fromB).toBeGreaterThan(90);
  expect(fromB).toBeLessThan(210);
  expect(planner().stats.plans - before).toBe(2);
});

test('an operation no label can change is planned once, whatever the rolls', async () => {
  const before = planner().stats.plans;
  for (let i = 0; i < 40; i++) {
    const res = await graphql(gateway.url, '{ product(id: "2") { id name } }');
    expect(res.body).toEqual({ data: { product: { id: '2', name: 'product 2' } } });
  }
  expect(planner().stats.plans - before).toBe(1);
});

test('subscriptions: each event is completed by the owner the labels rolled at subscription say', async () => {
  const [first] = await takeResults(
    () => client.iterate({ query: 'subscription { productTicks { id zero full } } ' }),
    3,
  );
  expect(first).toEqual({ data: { productTicks: { id: '0', zero: 'a', full: 'b' } } });
  // 40 subscriptions to the percent(50) field: all on one side has probability 2 × 0.5^40 ≈ 2e-12.
  const halves = new Set<string>();
  for (let i = 0; i < 40; i++) {
    const events = await takeResults(() => client.iterate({ query: 'subscription { productTicks { half } }' }), 3);
    const owners = new Set(events.map((e) => (e.data as { productTicks: { half: string } }).productTicks.half));
    expect(owners.size).toBe(1); // one roll per subscription, kept for its events
    owners.forEach((o) => halves.add(o));
  }
  expect(halves).toEqual(new Set(['a', 'b']));
});

describe('labels that are not valid stop the start, naming the field and the label', () => {
  test.each([
    ['percent(150)', /percent\(N\), N from 0 to 100/],
    ['percent(-5)', /percent\(N\), N from 0 to 100/],
    ['percent(half)', /percent\(N\), N from 0 to 100/],
    ['9lives', /a label is percent\(N\) or a name/],
  ])('%s', async (label, why) => {
    const file = join(fixture.supergraphFile, '..', `bad-${label.replace(/\W/g, '_')}.graphql`);
    writeFileSync(file, fixture.supergraphSdl.replaceAll('"percent(50)"', JSON.stringify(label)));
    const start = startSystem({ SUPERGRAPH_FILE: file });
    await expect(start).rejects.toThrow(
      `SUPERGRAPH_FILE (supergraphFile): ${file}: @override label "${label}" on Product.half (graph A)`,
    );
    await expect(start).rejects.toThrow(why);
    await expect(start).rejects.toBeInstanceOf(ConfigError); // main prints it as one line: `cannot start: …`
  });
});
