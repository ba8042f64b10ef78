// @needs build
import { rmSync } from 'node:fs';
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
    const api = `http://127.0.0.1:${apiPort}`;
    expect(listening.sort()).toEqual([
      `DNS API listener listening at ${api}: DNS API ${api}/api/v1/…`,
      `DNS server listening on 127.0.0.1:${p.dnsPort} (UDP and TCP)`,
      `gateway listening at ${base}: GraphQL ${base}/graphql, subscriptions ${base}/graphql/stream, market REST ${base}/v1/…, DNS API ${base}/api/v1/…, DNS tool ${base}/api.php`,
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
      expect(line).toBe(`gateway listening at ${base}: GraphQL ${base}/graphql, subscriptions ${base}/graphql/stream`);
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
      for (const path of ['/v1/quote/AAPL:NASDAQ', '/api/v1/zones', '/api.php'])
        expect((await fetch(`${base}${path}`)).status).toBe(404); // not served here: not advertised
    } finally {
      await fixture.close();
    }
  });
});
