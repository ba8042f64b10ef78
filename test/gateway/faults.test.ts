import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../gateway/host/config/load';
import { createLogger } from '../../platform/log';
import { buildSubgraphServer } from '../../gateway/host/subgraph-server';
import { buildSubgraph } from '../../gateway/host/subgraphs';
import { marketDescriptor } from '../../subgraphs/market/descriptor';
import { createSystem } from '../../gateway/host/system';
import type { MarketProvider } from '../../subgraphs/market/providers/provider';
import { freePort } from '../bench/processes';
import { StaticProvider } from '../support/static-provider';
import { getJson, graphql, startSystem } from '../support/system';

/** Faults: a remote subgraph that goes away and comes back; shutdown with a request in flight. */
const log = createLogger('silent');

async function startMarketService(port: number) {
  const config = loadConfig({ env: {} });
  const subgraph = await buildSubgraph(marketDescriptor, config, log, {}, { marketProvider: new StaticProvider() });
  const { app } = await buildSubgraphServer(subgraph, log);
  await app.listen({ port, host: '127.0.0.1' });
  return {
    close: async () => {
      await app.close();
      await subgraph.close();
    },
  };
}

test('a remote subgraph that stops: errors name it, /healthz answers 503, the gateway recovers when it is back', async () => {
  const port = await freePort();
  let market = await startMarketService(port);
  // the gateway, pointed at the remote market subgraph (response cache off: every query must reach it)
  const dataDir = mkdtempSync(join(tmpdir(), 'faults-'));
  const config = {
    ...loadConfig({ env: { DATA_DIR: dataDir, DNS_PORT: '0', RESPONSE_CACHE: 'false' } }),
    subgraphUrls: { market: `http://127.0.0.1:${port}/graphql` },
  };
  const system = await createSystem(config, log);
  const url = await system.app.listen({ port: 0, host: '127.0.0.1' });
  try {
    expect((await graphql(url, '{ quote(ticker: "AAPL:NASDAQ") { price } }')).body.data).toEqual({
      quote: { price: 190.5 },
    });
    expect((await getJson(`${url}/healthz`)).status).toBe(200);

    await market.close();
    const down = await graphql(url, '{ quote(ticker: "AAPL:NASDAQ") { price } }');
    expect(down.body.data?.quote ?? null).toBeNull();
    expect(down.body.errors?.[0]).toMatchObject({
      message: expect.stringMatching(/^subgraph market is unavailable: /),
      extensions: { code: 'SUBGRAPH_UNAVAILABLE', serviceName: 'market' },
    });
    const health = await getJson(`${url}/healthz`);
    expect(health.status).toBe(503);
    expect(health.body).toMatchObject({ status: 'unavailable', subgraphs: { market: { status: 'down' } } });
    const rest = await getJson(`${url}/v1/quote/AAPL:NASDAQ`);
    expect(rest.status).toBe(503);
    expect((rest.body as { message: string }).message).toMatch(/^subgraph market is unavailable: /);

    market = await startMarketService(port);
    expect((await graphql(url, '{ quote(ticker: "AAPL:NASDAQ") { price } }')).body.data).toEqual({
      quote: { price: 190.5 },
    });
    expect((await getJson(`${url}/healthz`)).status).toBe(200);
  } finally {
    await system.close();
    await market.close();
  }
});

test('shutdown finishes a request in flight and then stops accepting', async () => {
  const slow: MarketProvider = {
    name: 'slow',
    fetch: async (requests) => {
      await new Promise((r) => setTimeout(r, 400));
      return new StaticProvider().fetch(requests);
    },
  };
  const sys = await startSystem({}, { marketProvider: slow });
  const inFlight = fetch(`${sys.url}/v1/quote/AAPL:NASDAQ`);
  await new Promise((r) => setTimeout(r, 100));
  const closing = sys.close();
  const res = await inFlight;
  expect(res.status).toBe(200);
  expect(await res.json()).toMatchObject({ ticker: 'AAPL:NASDAQ', price: 190.5 });
  await closing;
  await expect(fetch(`${sys.url}/healthz`)).rejects.toThrow();
});
