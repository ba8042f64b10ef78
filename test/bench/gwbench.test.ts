import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSystem, type RunningSystem } from '../support/system';
import { generateGwbenchData } from './gwbench-schema';
import { createGwbenchSubgraphServer } from './gwbench-subgraphs';
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
 * The gwbench workload (`npm run bench -- gwbench`) from the repository alone: the published supergraph and query, the
 * generated subgraph data and the expected response derived from it without a gateway. One request through our
 * gateway over the benchmark's four subgraphs (HTTP) must give exactly that response; no load.
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

describe('our gateway over the gwbench subgraphs (HTTP)', () => {
  let subgraphs: Server;
  let gateway: RunningSystem;
  let dir: string;

  beforeAll(async () => {
    subgraphs = createGwbenchSubgraphServer();
    subgraphs.listen(0, '127.0.0.1');
    await once(subgraphs, 'listening');
    const base = `http://127.0.0.1:${(subgraphs.address() as AddressInfo).port}/`;
    dir = mkdtempSync(join(tmpdir(), 'gwbench-test-'));
    const supergraphFile = join(dir, 'supergraph.graphql');
    writeFileSync(supergraphFile, workload.supergraph.replaceAll(SUPERGRAPH_URL_PREFIX, base));
    // as the bench runs it: no response cache, the cost bound raised for this query (see gwbench.ts, OURS_ENV)
    gateway = await startSystem({
      SUPERGRAPH_FILE: supergraphFile,
      RESPONSE_CACHE: 'false',
      MAX_QUERY_COST: '1000000',
    });
  });

  afterAll(async () => {
    await gateway?.close();
    subgraphs?.closeAllConnections();
    await new Promise((resolve) => subgraphs?.close(resolve));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('one request with the benchmark body answers exactly the expected response', async () => {
    const res = await fetch(`${gateway.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: workload.body,
    });
    expect(res.status).toBe(200);
    const got: unknown = await res.json();
    expect(firstDifference(got, workload.expected)).toBeUndefined();
    expect(got).toEqual(workload.expected);
  });
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
