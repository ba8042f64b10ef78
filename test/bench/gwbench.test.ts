import { ApolloGateway } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSystem, type RunningSystem } from '../support/system';
import { generateBigResponseData, loadBigResponseWorkload } from './gwbench-big-response';
import { generateHeavyPlanData, loadHeavyPlanWorkload } from './gwbench-heavy-plan';
import { generateGwbenchData } from './gwbench-schema';
import { createGwbenchSubgraphServer } from './gwbench-subgraphs';
import { loadWorkload, selection, WORKLOAD_NAMES, workloadSubgraphs, type BenchWorkload } from './gwbench-workloads';
import {
  compareWithPublic,
  DEFAULT_PUBLIC_DIR,
  expectedResponse,
  firstDifference,
  loadGwbenchWorkload,
  SUPERGRAPH_URL_PREFIX,
  type GwbenchWorkload,
} from './gwbench-workload';

/**
 * The workloads of `npm run bench -- gwbench`, no load. gwbench from the repository alone: the published supergraph and
 * query, the generated subgraph data and the expected response derived from it without a gateway. heavy-plan and
 * big-response: they compose, have the shape they are there for, and their derived expected responses are what
 * Apollo Gateway (an independent federation implementation) answers over their subgraphs. One request through our
 * gateway over each workload's subgraphs (HTTP) must give exactly the expected response.
 *
 * The public benchmark's expected.json (../shared/gwbench beside the checkout, as in CI) is compared when that folder
 * is present; GWBENCH_PUBLIC=required makes its absence a failure. Without either, that test is skipped, and its name
 * says so.
 */
const REQUIRED = process.env.GWBENCH_PUBLIC === 'required';
const HERE = existsSync(DEFAULT_PUBLIC_DIR);
const NOWHERE = join(tmpdir(), `gwbench-absent-${process.pid}-${Date.now()}`);

let workload: GwbenchWorkload;
const savedDir = process.env.GWBENCH_DIR;

beforeAll(() => {
  process.env.GWBENCH_DIR = NOWHERE; // nothing from outside the repository
  workload = loadGwbenchWorkload();
});

afterAll(() => {
  if (savedDir === undefined) delete process.env.GWBENCH_DIR;
  else process.env.GWBENCH_DIR = savedDir;
});

test('the workload is built from the repository alone (GWBENCH_DIR at a folder that does not exist)', () => {
  expect(existsSync(NOWHERE)).toBe(false);
  expect(workload.body).toBe(JSON.stringify({ query: workload.query }));
  const data = (workload.expected as { data: { users: unknown[]; topProducts: unknown[] } }).data;
  expect(data.users).toHaveLength(6);
  expect(data.topProducts).toHaveLength(5);
  expect(Buffer.byteLength(JSON.stringify(workload.expected))).toBeGreaterThan(80_000);
  // GWBENCH_DIR now names no folder: nothing is compared, and the report says so
  expect(compareWithPublic(workload)).toMatch(/not present at .*gwbench-absent.*not compared/);
  expect(() => compareWithPublic(workload, NOWHERE, true)).toThrow(/GWBENCH_PUBLIC=required/);
});

test('the expected response follows the generated data (derived from it, not a copy)', () => {
  const data = generateGwbenchData();
  const renamed = {
    ...data,
    products: data.products.map((p) => (p.upc === '3' ? { ...p, name: 'Cup' } : p)),
  };
  const derived = expectedResponse(workload.supergraph, workload.query, renamed);
  expect(firstDifference(derived, workload.expected)).toMatch(/\.name: got "Cup", expected "Glass"/);
  expect(expectedResponse(workload.supergraph, workload.query, generateGwbenchData())).toEqual(workload.expected);
});

/** A workload's subgraph server on an ephemeral port and its supergraph file pointing there. */
async function serveWorkload(w: BenchWorkload): Promise<{ server: Server; supergraphFile: string; dir: string }> {
  const server = createGwbenchSubgraphServer(workloadSubgraphs(w.name));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const dir = mkdtempSync(join(tmpdir(), 'gwbench-test-'));
  const supergraphFile = join(dir, 'supergraph.graphql');
  writeFileSync(supergraphFile, w.supergraph.replaceAll(SUPERGRAPH_URL_PREFIX, base));
  return { server, supergraphFile, dir };
}

async function closeServer(server: Server | undefined): Promise<void> {
  if (!server) return;
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

describe.each(WORKLOAD_NAMES)('our gateway over the %s subgraphs (HTTP)', (name) => {
  let served: Awaited<ReturnType<typeof serveWorkload>> | undefined;
  let gateway: RunningSystem | undefined;
  let w: BenchWorkload;

  beforeAll(async () => {
    w = loadWorkload(name);
    served = await serveWorkload(w);
    // as the bench runs it: no response cache, the workload's limits raised (see BenchWorkload.oursLimits)
    gateway = await startSystem({ SUPERGRAPH_FILE: served.supergraphFile, RESPONSE_CACHE: 'false', ...w.oursLimits });
  });

  afterAll(async () => {
    await gateway?.close();
    await closeServer(served?.server);
    if (served) rmSync(served.dir, { recursive: true, force: true });
  });

  test('one request with the workload body answers exactly the expected response', async () => {
    const res = await fetch(`${gateway?.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer gwbench-test' },
      body: w.body,
    });
    expect(res.status).toBe(200);
    const got: unknown = await res.json();
    expect(firstDifference(got, w.expected)).toBeUndefined();
  });
});

describe('the heavy-plan workload', () => {
  const heavy = loadHeavyPlanWorkload();

  test('six subgraphs with an interface and two unions across them, @requires, @provides and 19 fragments', () => {
    expect([...workloadSubgraphs('heavy-plan').keys()]).toHaveLength(6);
    const sg = heavy.supergraph;
    expect(sg).toMatch(/interface Product\b/);
    for (const kind of ['Book', 'Furniture', 'Gadget'])
      expect(sg).toMatch(new RegExp(`type ${kind} implements Product`));
    expect(sg.match(/@join__implements\(graph: CATALOG, interface: "Product"\)/g)).toHaveLength(3);
    expect(sg).toMatch(/union Reviewable\b[^=]*= Book \| Furniture \| Gadget/);
    expect(sg).toMatch(/union SearchResult\b[^=]*= User \| Book \| Furniture \| Gadget \| Review/);
    expect(sg.match(/requires: "price weight"/g)).toHaveLength(3);
    expect(sg).toMatch(/provides: "username"/);
    expect(heavy.query.match(/^fragment /gm)).toHaveLength(19);
  });

  test('the expected response follows the data: every abstract type resolved, @requires computed', () => {
    const data = (heavy.expected as { data: Record<string, unknown> }).data;
    const hits = data.search as { __typename: string }[];
    expect(new Set(hits.map((h) => h.__typename))).toEqual(new Set(['User', 'Book', 'Furniture', 'Gadget', 'Review']));
    const products = data.products as { __typename: string; price: number; weight: number; shippingEstimate: number }[];
    expect(products).toHaveLength(12);
    for (const p of products) expect(p.shippingEstimate).toBe(p.price > 1000 ? 0 : Math.trunc(p.weight / 2));
    expect(products.some((p) => p.shippingEstimate === 0) && products.some((p) => p.shippingEstimate > 0)).toBe(true);
    // derived from the data, not a copy: a renamed product shows
    const fresh = generateHeavyPlanData();
    const renamed = { ...fresh, products: fresh.products.map((p) => (p.id === 'p2' ? { ...p, name: 'renamed' } : p)) };
    expect(firstDifference(loadHeavyPlanWorkload(renamed).expected, heavy.expected)).toMatch(/name: got "renamed"/);
  });
});

describe('the big-response workload', () => {
  test('answers more than 4 MB: every product with its reviews and their authors', () => {
    const big = loadBigResponseWorkload();
    expect(Buffer.byteLength(JSON.stringify(big.expected))).toBeGreaterThan(4 * 1024 * 1024);
    const products = (big.expected as { data: { products: { reviews: { author: { id: string } }[] }[] } }).data
      .products;
    expect(products).toHaveLength(big.data.products.length);
    expect(products.every((p) => p.reviews.length === 4 && p.reviews.every((r) => r.author.id !== ''))).toBe(true);
    const fresh = generateBigResponseData();
    const renamed = { ...fresh, users: fresh.users.map((u) => (u.id === '8' ? { ...u, name: 'renamed' } : u)) };
    expect(firstDifference(loadBigResponseWorkload(renamed).expected, big.expected)).toMatch(/name: got "renamed"/);
  });
});

describe.each(['heavy-plan', 'big-response'] as const)(
  'Apollo Gateway over the %s subgraphs answers the derived expected response (it is right)',
  (name) => {
    let served: Awaited<ReturnType<typeof serveWorkload>> | undefined;
    let apollo: ApolloServer | undefined;
    let w: BenchWorkload;

    beforeAll(async () => {
      w = loadWorkload(name);
      served = await serveWorkload(w);
      apollo = new ApolloServer({
        gateway: new ApolloGateway({ supergraphSdl: readFileSync(served.supergraphFile, 'utf8') }),
      });
      await apollo.start();
    });

    afterAll(async () => {
      await apollo?.stop();
      await closeServer(served?.server);
      if (served) rmSync(served.dir, { recursive: true, force: true });
    });

    test('deep-equal', async () => {
      const request = JSON.parse(w.body) as { query: string; variables?: Record<string, unknown> };
      const res = await apollo?.executeOperation(request);
      if (res?.body.kind !== 'single') throw new Error('expected a single result');
      const got = JSON.parse(JSON.stringify(res.body.singleResult)) as unknown;
      expect(firstDifference(got, w.expected)).toBeUndefined();
    });
  },
);

test('BENCH_GWBENCH_WORKLOADS and _MODES: a part, all when unset, an unknown name named with its key', () => {
  expect(selection('BENCH_GWBENCH_WORKLOADS', undefined, WORKLOAD_NAMES)).toEqual([...WORKLOAD_NAMES]);
  expect(selection('BENCH_GWBENCH_WORKLOADS', 'big-response, gwbench', WORKLOAD_NAMES)).toEqual([
    'gwbench',
    'big-response',
  ]);
  expect(() => selection('BENCH_GWBENCH_MODES', 'shared,bogus', ['shared', 'unique'])).toThrow(
    /BENCH_GWBENCH_MODES: unknown bogus/,
  );
  expect(() => selection('BENCH_GWBENCH_MODES', ',', ['shared'])).toThrow(/BENCH_GWBENCH_MODES/);
});

const publicTest = HERE || REQUIRED ? test : test.skip;
publicTest(
  "the derived expected response deep-equals the public benchmark's expected.json in ../shared/gwbench " +
    `(compared only when that folder is present or GWBENCH_PUBLIC=required; ${HERE ? 'present here' : 'absent here'})`,
  () => {
    expect(compareWithPublic(workload, DEFAULT_PUBLIC_DIR, REQUIRED || HERE)).toMatch(
      /expected\.json deep-equals our derived expected response/,
    );
  },
);
