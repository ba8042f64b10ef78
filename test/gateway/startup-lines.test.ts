// @needs build
import { rmSync } from 'node:fs';
import WebSocket from 'ws';
import { freePort } from '../bench/processes';
import { startFixture, type Fixture } from '../federation/fixture';
import { gatewayStarted, launchGateway, stopGateway, until, type GatewayProcess } from '../support/gateway-process';

/**
 * The built program's start-up log says once per listener where it listens and what it serves there: the gateway's
 * port, the DNS API's own port and the DNS server — never Fastify's bare "Server listening at" besides.
 */
const messages = (p: GatewayProcess): string[] =>
  p
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => (JSON.parse(l) as { msg: string }).msg);

describe('start-up lines', () => {
  let p: GatewayProcess | undefined;
  afterEach(async () => {
    if (p) {
      await stopGateway(p);
      rmSync(p.dataDir, { recursive: true, force: true });
    }
    p = undefined;
  });

  test('one line per listener, each naming what it serves', async () => {
    const apiPort = await freePort();
    p = await gatewayStarted(await launchGateway({ LOG_LEVEL: 'info', DNS_API_PORT: String(apiPort) }));
    const gateway = p;
    await until('the start-up lines', async () =>
      messages(gateway).some((m) => m.startsWith('gateway listening')) ? true : undefined,
    );
    const listening = messages(p).filter((m) => /listening|answering/i.test(m));
    const base = p.base;
    const ws = base.replace(/^http/, 'ws');
    const api = `http://127.0.0.1:${apiPort}`;
    expect(listening.sort()).toEqual([
      `DNS API listener listening at ${api}: DNS API ${api}/api/v1/…`,
      `DNS server listening on 127.0.0.1:${p.dnsPort} (UDP and TCP)`,
      `gateway listening at ${base}: GraphQL ${base}/graphql, subscriptions ${base}/graphql/stream, WebSocket ${ws}/graphql/ws and ${ws}/graphql, market REST ${base}/v1/…, DNS API ${base}/api/v1/…, DNS tool ${base}/api.php`,
    ]);
  });

  test('--supergraph: only what is served there is advertised, and each advertised URL answers', async () => {
    const fixture: Fixture = await startFixture();
    try {
      p = await gatewayStarted(await launchGateway({ LOG_LEVEL: 'info', SUPERGRAPH_FILE: fixture.supergraphFile }));
      const gateway = p;
      const line = await until('the gateway line', async () =>
        messages(gateway).find((m) => m.startsWith('gateway listening')),
      );
      const base = p.base;
      const ws = base.replace(/^http/, 'ws');
      expect(line).toBe(
        `gateway listening at ${base}: GraphQL ${base}/graphql, subscriptions ${base}/graphql/stream, WebSocket ${ws}/graphql/ws and ${ws}/graphql`,
      );
      expect(messages(p).filter((m) => /listening/i.test(m))).toEqual([line]);
      const urls = line.match(/http:\/\/\S+?(?=,|$)/g) ?? []; // what is served (the address itself ends in ":")
      expect(urls).toEqual([`${base}/graphql`, `${base}/graphql/stream`]);
      for (const [url, accept] of [
        [`${base}/graphql`, 'application/json'],
        [`${base}/graphql/stream`, 'text/event-stream'],
      ] as const) {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept },
          body: JSON.stringify({ query: '{ __typename }' }),
        });
        expect({ url, status: res.status, body: await res.text() }).toMatchObject({
          url,
          status: 200,
          body: expect.stringContaining('"__typename":"Query"'),
        });
      }
      for (const url of line.match(/ws:\/\/\S+?(?=,| |$)/g) ?? []) {
        // each advertised WebSocket URL takes a graphql-transport-ws socket
        const socket = new WebSocket(url, 'graphql-transport-ws');
        const opened = await new Promise<string>((resolve) => {
          socket.once('open', () => resolve(socket.protocol));
          socket.once('error', (err) => resolve(String(err)));
        });
        socket.terminate();
        expect({ url, opened }).toEqual({ url, opened: 'graphql-transport-ws' });
      }
      for (const path of ['/v1/quote/AAPL:NASDAQ', '/api/v1/zones', '/api.php'])
        expect((await fetch(`${base}${path}`)).status).toBe(404); // not served here: not advertised
    } finally {
      await fixture.close();
    }
  });
});
