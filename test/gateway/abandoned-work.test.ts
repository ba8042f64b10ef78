import { api, ROOT, startToolSystem, type ToolSystem } from '../dns-tool/tool-system';
import { gql } from '../dns-api/api';
import { startEndlessTransferServer, type EndlessTransferServer } from '../helpers/endless-transfer';

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
