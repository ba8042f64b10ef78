import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ZoneStore } from '../../dns/store/types';
import { GENERATED_TOKEN_FILE } from '../../subgraphs/dns-tool/token-file';
import { api as toolApi } from '../dns-tool/tool-system';
import { call, gql, startDnsApiSystem, type DnsApiSystem } from './api';

/**
 * A write the gateway stops waiting for (SUBGRAPH_TIMEOUT_MS) goes on in its subgraph and may be applied after the
 * answer: the answer keeps SUBGRAPH_TIMEOUT (504 over REST) but says the outcome is unknown, never that it failed.
 * The store's write is held until the answer has come, then let go: no timing luck, the timeout always fires first.
 */
const TIMEOUT_MS = 1500; // room for a login's password hash on a busy machine; the held write never ends in time
let api: DnsApiSystem;
let store: ZoneStore;

beforeAll(async () => {
  api = await startDnsApiSystem({ SUBGRAPH_TIMEOUT_MS: String(TIMEOUT_MS) });
  const dns = api.sys.system.dns;
  if (!dns) throw new Error('the test system has no DNS part');
  store = dns.store;
}, 60_000);
afterAll(() => api?.close());

type Method = 'createZone' | 'change' | 'getZone';

/** Holds the store's next `method` call until `release()`, which gives that call's own outcome. */
function hold(method: Method): { release(): Promise<unknown> } {
  const real = store[method].bind(store) as (...args: unknown[]) => Promise<unknown>;
  let open = (): void => undefined;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let finish = (_outcome: Promise<unknown>): void => undefined;
  const done = new Promise<unknown>((resolve) => (finish = resolve));
  const spy = jest.spyOn(store, method).mockImplementation((async (...args: unknown[]) => {
    spy.mockRestore(); // only this one call is held
    await gate;
    const outcome = real(...args);
    finish(outcome);
    return outcome;
  }) as never);
  return {
    release: () => {
      open();
      return done;
    },
  };
}

const UNKNOWN =
  `did not answer within ${TIMEOUT_MS} ms (subgraphTimeoutMs): the outcome of the mutation is unknown, ` +
  'its change may still be applied; read what it changes back before retrying';

test('REST: a zone create past the timeout is a 504 saying the outcome is unknown; the zone is there afterwards', async () => {
  const held = hold('createZone');
  const res = await call(api.gateway, 'POST', '/zones', { token: api.adminToken, body: { name: 'late.test' } });
  expect({ status: res.status, body: res.body }).toEqual({
    status: 504,
    body: { error: `subgraph dns-api ${UNKNOWN}` },
  });
  await held.release();
  expect((await call(api.gateway, 'GET', '/zones/late.test', { token: api.adminToken })).status).toBe(200);
});

test.each([
  ['run directly on the subgraph', true],
  ['planned by the federated executor', false],
])('GraphQL, %s: the mutation error keeps SUBGRAPH_TIMEOUT and says the outcome is unknown', async (_how, direct) => {
  const zone = `late-${direct ? 'direct' : 'planned'}.test`;
  const held = hold('createZone');
  api.sys.system.graph.direct.enabled = direct;
  const res = await gql(
    api.sys.url,
    `mutation { createZone(input: { name: "${zone}" }) { name } }`,
    {},
    api.adminToken,
  ).finally(() => {
    api.sys.system.graph.direct.enabled = true;
  });
  expect(res.body.errors?.[0]).toMatchObject({
    message: `subgraph dns-api ${UNKNOWN}`,
    extensions: { code: 'SUBGRAPH_TIMEOUT', serviceName: 'dns-api' },
  });
  await held.release();
  const read = await gql<{ zone: { name: string } | null }>(
    api.sys.url,
    `query { zone(name: "${zone}") { name } }`,
    {},
    api.adminToken,
  );
  expect(read.body.data?.zone).toEqual({ name: zone });
});

test('a read past the timeout still says it did not answer (nothing was changed)', async () => {
  const held = hold('getZone');
  const res = await call(api.gateway, 'GET', '/zones/late.test', { token: api.adminToken });
  expect({ status: res.status, body: res.body }).toEqual({
    status: 504,
    body: { error: `subgraph dns-api did not answer within ${TIMEOUT_MS} ms (subgraphTimeoutMs)` },
  });
  await held.release();
});

test('the DNS tool: a record change past the timeout is an ERROR saying the outcome is unknown; it is applied', async () => {
  const token = api.adminToken;
  expect((await call(api.gateway, 'POST', '/zones', { token, body: { name: 'tool-late.test' } })).status).toBe(201);
  // The tool's own root token, made on first start (no tool token is configured here).
  const root = readFileSync(join(api.sys.system.config.dataDir, GENERATED_TOKEN_FILE), 'utf8').trim();
  await toolKnows('tool-late.test', root);
  const held = hold('change');
  const res = await toolApi(
    api.sys.url,
    { action: 'create_record', record: 'www.tool-late.test', ttl: '60', type: 'A', value: '192.0.2.7' },
    { bearer: root },
  );
  const message = `subgraph dns-tool ${UNKNOWN}`;
  expect({ status: res.status, body: res.body }).toEqual({
    status: 400,
    body: { error: `ERROR: ${message}`, message, code: -1 },
  });
  await held.release();
  const records = await call<{ records: Array<{ name: string; value: string }> }>(
    api.gateway,
    'GET',
    '/zones/tool-late.test/records?type=A',
    { token },
  );
  expect(records.body.records).toEqual([expect.objectContaining({ name: 'www.tool-late.test', value: '192.0.2.7' })]);
});

/** Waits until the DNS tool lists `zone` (it learns zones of the embedded server from the store's changes). */
async function toolKnows(zone: string, token: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const res = await toolApi(api.sys.url, { action: 'list_zones' }, { method: 'GET', bearer: token });
    if (res.status === 200 && typeof res.body === 'object' && res.body !== null && zone in res.body) return;
    if (Date.now() > deadline) throw new Error(`the DNS tool does not list ${zone}: ${res.text}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
