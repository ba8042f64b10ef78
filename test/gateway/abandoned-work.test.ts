import type { DnsApiSubgraph } from '../../subgraphs/dns-api';
import type { RecordFilter } from '../../dns/store/types';
import { api, ROOT, startToolSystem, type ToolSystem } from '../dns-tool/tool-system';
import { call, gql, login } from '../dns-api/api';
import { startEndlessTransferServer, type EndlessTransferServer } from '../support/endless-transfer';
import { startSystem, TEST_ADMIN_PASSWORD, type RunningSystem } from '../support/system';

/**
 * Work nobody awaits any more stops: a subgraph fetch past SUBGRAPH_TIMEOUT_MS, or a request whose client went away,
 * stops the zone transfer (its connection closed) or the export (no page read after it) it started. Each stop is
 * seen by its effect — the transfer server seeing its connection closed, the store asked for no further page —
 * never by how long something took.
 */

/** A tool system managing slow.test, whose transfers come from a server that never ends them. */
async function toolSystemWithEndlessZone(env: Record<string, string>) {
  const endless = await startEndlessTransferServer();
  const tool = await startToolSystem({
    env,
    dnsTool: {
      tokens: [ROOT],
      usersRoles: { [ROOT]: ['root'] },
      // a message every few ms: without a stop, the tool would read this transfer for good
      dnsTimeoutMs: 60_000,
      zones: { 'slow.test': { updateServer: endless.address, transferServer: endless.address } },
    },
  });
  return { endless, tool };
}

async function closeAll(tool: ToolSystem | undefined, endless: EndlessTransferServer | undefined) {
  await tool?.close();
  await endless?.close();
}

test('a zone transfer past the subgraph deadline is closed, and the gateway answers the next request', async () => {
  // The transfer starts within milliseconds; the deadline comes while it runs (and would run for good).
  const { endless, tool } = await toolSystemWithEndlessZone({ SUBGRAPH_TIMEOUT_MS: '1000' });
  try {
    const answer = await gql(tool.url, '{ toolRecords(zone: "slow.test") { name } }', {}, ROOT);
    expect(answer.body.errors?.[0]?.extensions).toMatchObject({ code: 'SUBGRAPH_TIMEOUT', serviceName: 'dns-tool' });
    const transfer = await endless.nextTransfer();
    await transfer.closed; // the DNS tool closed the connection: the transfer stopped
    const sent = transfer.sent();
    expect((await gql(tool.url, '{ toolVersion }', {}, ROOT)).body.data).toEqual({ toolVersion: expect.any(String) });
    expect(transfer.sent()).toBe(sent);
  } finally {
    await closeAll(tool, endless);
  }
});

test('a zone transfer whose client went away is closed, over GraphQL and /api.php alike', async () => {
  // A deadline far away: only the client's going away can stop these transfers within the test's time.
  const { endless, tool } = await toolSystemWithEndlessZone({ SUBGRAPH_TIMEOUT_MS: '600000' });
  try {
    const requests = [
      (signal: AbortSignal) =>
        fetch(`${tool.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${ROOT}` },
          body: JSON.stringify({ query: '{ toolRecords(zone: "slow.test") { name } }' }),
          signal,
        }),
      (signal: AbortSignal) =>
        fetch(`${tool.url}/api.php?action=list_records&zone=slow.test`, {
          headers: { authorization: `Bearer ${ROOT}` },
          signal,
        }),
    ];
    for (const request of requests) {
      const client = new AbortController();
      const pending = request(client.signal).catch((err: unknown) => err);
      const transfer = await endless.nextTransfer();
      client.abort();
      expect(await pending).toMatchObject({ name: 'AbortError' });
      await transfer.closed;
    }
    // still serving
    expect((await api(tool.url, { action: 'list_zones' }, { bearer: ROOT })).status).toBe(200);
  } finally {
    await closeAll(tool, endless);
  }
});

describe('an export past the subgraph deadline', () => {
  let sys: RunningSystem;
  let token: string;
  const ZONE = 'export.test';
  const RECORDS = 12_000; // three pages of the export's reading (dns/zonefile/zone-files.test.ts: the file they make)

  beforeAll(async () => {
    sys = await startSystem({ SUBGRAPH_TIMEOUT_MS: '1000' });
    token = await login(`${sys.url}/api/v1`, 'admin', TEST_ADMIN_PASSWORD);
    const lines = Array.from({ length: RECORDS }, (_, i) => `h${i} A 10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`);
    const zoneFile = `$ORIGIN ${ZONE}.\n$TTL 300\n@ SOA ns1 hostmaster 1 3600 600 86400 300\n@ NS ns1\n${lines.join('\n')}\n`;
    const created = await call(`${sys.url}/api/v1`, 'POST', '/zones', {
      token,
      body: { name: ZONE, zone_file: zoneFile },
    });
    expect(created.status).toBe(201);
  }, 60_000);
  afterAll(async () => sys?.close());

  test('reads no page after it: the export stops, and the gateway answers the next request', async () => {
    const store = sys.system.dns?.store;
    const dnsApi = sys.subgraphs.get('dns-api') as DnsApiSubgraph | undefined;
    if (!store || !dnsApi) throw new Error('the system runs no DNS API');
    // The export's second page waits until the client has had its SUBGRAPH_TIMEOUT.
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const pages: RecordFilter[] = [];
    const listRecords = store.listRecords.bind(store);
    store.listRecords = async (zone, filter) => {
      if (zone === ZONE && filter?.limit !== undefined) {
        pages.push(filter);
        if (pages.length === 2) await gate;
      }
      return listRecords(zone, filter);
    };
    const exports: Array<{ made: Promise<string>; signal: AbortSignal | undefined }> = [];
    const exportZone = dnsApi.api.zones.export.bind(dnsApi.api.zones);
    dnsApi.api.zones.export = (name, signal) => {
      const made = exportZone(name, signal);
      exports.push({ made, signal });
      return made;
    };
    try {
      const answer = await gql(sys.url, `{ zone(name: "${ZONE}") { zoneFile } }`, {}, token);
      expect(answer.body.errors?.[0]?.extensions).toMatchObject({ code: 'SUBGRAPH_TIMEOUT', serviceName: 'dns-api' });
      // Served alone (SUBGRAPH_MODE=remote) the subgraph learns it from the gateway closing its request: let it.
      const [{ made, signal } = { made: Promise.resolve(''), signal: undefined }] = exports;
      if (signal && !signal.aborted) await new Promise((resolve) => signal.addEventListener('abort', resolve));
      release();
      expect(exports).toHaveLength(1);
      // in-process: the fetch's deadline; served alone: the gateway closed its request
      await expect(made).rejects.toThrow(
        /^(no answer from subgraph dns-api is awaited any more|the client went away before its answer was sent)$/,
      );
      expect(pages.length).toBeLessThan(3); // the last page was never read (the second waited for the deadline)
      const served = await gql<{ zone: { serial: number } }>(
        sys.url,
        `{ zone(name: "${ZONE}") { serial } }`,
        {},
        token,
      );
      expect(served.body.data?.zone.serial).toEqual(expect.any(Number));
    } finally {
      release();
      store.listRecords = listRecords;
      dnsApi.api.zones.export = exportZone;
    }
  });
});
