import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DnsClient } from '../../dns/client';
import type { ZoneStore } from '../../dns/store/types';
import { GENERATED_TOKEN_FILE } from '../../subgraphs/dns-tool/token-file';
import { api as toolApi } from '../dns-tool/tool-system';
import { call, gql, startDnsApiSystem, type DnsApiSystem } from './api';
import { holdPast, holdStore, type HeldMethod } from './store-holds';

/**
 * A write the gateway stops waiting for (SUBGRAPH_TIMEOUT_MS) goes on in its subgraph and may be applied after the
 * answer: the answer keeps SUBGRAPH_TIMEOUT (504 over REST) but says the outcome is unknown, never that it failed.
 * The store's write is held until the answer has come, then let go: no timing luck, the timeout always fires first.
 * Long-running writes (`@longRunning`: a zone create or import, DNSSEC on, off, a rollover) are not cut at all: held
 * past the timeout, they answer with their outcome once they are done.
 */
const TIMEOUT_MS = 1500; // room for a login's password hash on a busy machine; the held write never ends in time
let api: DnsApiSystem;
let store: ZoneStore;

beforeAll(async () => {
  api = await startDnsApiSystem({ SUBGRAPH_TIMEOUT_MS: String(TIMEOUT_MS) });
  const dns = api.sys.system.dns;
  if (!dns) throw new Error('the test system has no DNS part');
  store = dns.store;
  expect(
    (await call(api.gateway, 'POST', '/zones', { token: api.adminToken, body: { name: 'late.test' } })).status,
  ).toBe(201);
}, 60_000);
afterAll(() => api?.close());

const hold = (method: HeldMethod) => holdStore(store, method);
const holdPastTimeout = (method: HeldMethod) => holdPast(store, method, TIMEOUT_MS);

const dns = () => new DnsClient({ server: api.dns });

const UNKNOWN =
  `did not answer within ${TIMEOUT_MS} ms (subgraphTimeoutMs): the outcome of the mutation is unknown, ` +
  'its change may still be applied; read what it changes back before retrying';

test('REST: a zone change past the timeout is a 504 saying the outcome is unknown; the change is there afterwards', async () => {
  const held = hold('updateZone');
  const res = await call(api.gateway, 'PUT', '/zones/late.test', { token: api.adminToken, body: { refresh: 7201 } });
  expect({ status: res.status, body: res.body }).toEqual({
    status: 504,
    body: { error: `subgraph dns-api ${UNKNOWN}` },
  });
  await held.release();
  const zone = await call<{ refresh: number }>(api.gateway, 'GET', '/zones/late.test', { token: api.adminToken });
  expect(zone.body.refresh).toBe(7201);
});

describe('long-running writes wait past the subgraph timeout and answer with their outcome', () => {
  test('REST: an import held past the timeout is a 201, and DNS answers with its records', async () => {
    const zoneFile = [
      '$ORIGIN slow-import.test.',
      '@ 3600 IN SOA ns1.slow-import.test. hostmaster.slow-import.test. 2024010101 10800 3600 604800 3600',
      '@ 3600 IN NS ns1.slow-import.test.',
      'www 300 IN A 192.0.2.44',
      '',
    ].join('\n');
    const answer = call(api.gateway, 'POST', '/zones', {
      token: api.adminToken,
      body: { name: 'slow-import.test', zone_file: zoneFile },
    });
    await holdPastTimeout('createZone');
    const res = await answer;
    expect({ status: res.status, body: res.body }).toEqual({
      status: 201,
      body: expect.objectContaining({ name: 'slow-import.test', records_count: 2 }),
    });
    const www = await dns().query('www.slow-import.test', 'A');
    expect(www.answers.map((r) => r.value)).toEqual(['192.0.2.44']);
  });

  test('REST: DNSSEC on held past the timeout is a 200 with the keys, and DNS answers with the DNSKEYs (type 48)', async () => {
    expect(
      (await call(api.gateway, 'POST', '/zones', { token: api.adminToken, body: { name: 'slow-sign.test' } })).status,
    ).toBe(201);
    const answer = call<{ enabled: boolean; keys: Array<{ key_type: string }> }>(
      api.gateway,
      'POST',
      '/zones/slow-sign.test/dnssec',
      { token: api.adminToken, body: { enable: true } },
    );
    await holdPastTimeout('changeDnssecKeys');
    const res = await answer;
    expect(res.status).toBe(200);
    expect(res.body.enabled).toBe(true);
    expect(res.body.keys.map((k) => k.key_type).sort()).toEqual(['KSK', 'ZSK']);
    expect((await dns().query('slow-sign.test', 'TYPE48')).answers).toHaveLength(2);
  });

  test('GraphQL: a zone create held past the timeout has its data, no error', async () => {
    const answer = gql<{ createZone: { name: string } }>(
      api.sys.url,
      'mutation { createZone(input: { name: "slow-gql.test" }) { name } }',
      {},
      api.adminToken,
    );
    await holdPastTimeout('createZone');
    const res = await answer;
    expect(res.body).toEqual({ data: { createZone: { name: 'slow-gql.test' } } });
  });
});

test.each([
  ['run directly on the subgraph', true],
  ['planned by the federated executor', false],
])('GraphQL, %s: the mutation error keeps SUBGRAPH_TIMEOUT and says the outcome is unknown', async (_how, direct) => {
  const value = direct ? '192.0.2.1' : '192.0.2.2';
  const held = hold('change');
  api.sys.system.graph.direct.enabled = direct;
  const res = await gql(
    api.sys.url,
    `mutation { createRecord(zone: "late.test", input: { name: "gql", type: "A", value: "${value}" }) { id } }`,
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
  const read = await call<{ records: Array<{ value: string }> }>(
    api.gateway,
    'GET',
    '/zones/late.test/records?type=A',
    {
      token: api.adminToken,
    },
  );
  expect(read.body.records.map((r) => r.value)).toContain(value);
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
  expect(records.body.records).toEqual([
    expect.objectContaining({ name: 'ns1.tool-late.test' }), // the zone's name server's address
    expect.objectContaining({ name: 'www.tool-late.test', value: '192.0.2.7' }),
  ]);
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
