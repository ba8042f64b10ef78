// @needs build
/**
 * /readyz is 200 only when every listener is bound — the gateway's HTTP port, DNS_API_PORT's, and the DNS server
 * with every zone loaded — and goes back to 503 while the DNS answer thread is being replaced after a crash (nothing
 * answers DNS then); /livez stays 200 throughout.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DnsClient } from '../../dns/client';
import { loadConfig } from '../../gateway/host/config/load';
import { createSystem, type System } from '../../gateway/host/system';
import { createLogger } from '../../platform/log';
import { freeDnsPort } from '../bench/processes';
import { TEST_ADMIN_PASSWORD } from '../support/system';
import { until } from '../support/gateway-process';

jest.setTimeout(60_000);

let system: System;
const dataDir = mkdtempSync(join(tmpdir(), 'readiness-'));

afterAll(async () => {
  await system?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test('/readyz: 503 until every listener is bound, 503 while the DNS answer thread is replaced', async () => {
  const dnsPort = await freeDnsPort();
  const config = loadConfig({
    env: {
      PORT: '0',
      DNS_PORT: String(dnsPort),
      DNS_API_PORT: '0', // replaced below by a port of its own: 0 would turn it off
      DNS_WORKERS: '0',
      LOG_LEVEL: 'silent',
      DATA_DIR: dataDir,
      ADMIN_PASSWORD: TEST_ADMIN_PASSWORD,
    },
  });
  system = await createSystem({ ...config, dnsApiPort: 1 }, createLogger('silent'));
  expect(system.apiApp).toBeDefined();
  // the DNS server answers (zones loaded); the gateway's port listens, DNS_API_PORT's not yet
  const dns = new DnsClient({ server: { host: '127.0.0.1', port: dnsPort } });
  expect((await dns.query('www.example.test', 'A')).rcode).toBe(0);
  const url = await system.app.listen({ port: 0, host: '127.0.0.1' });
  const early = await fetch(`${url}/readyz`);
  expect(early.status).toBe(503);
  expect(await early.json()).toMatchObject({ ready: false, notListening: ['DNS_API_PORT 1'] });

  await system.apiApp?.listen({ port: 0, host: '127.0.0.1' });
  const res = await fetch(`${url}/readyz`);
  expect(res.status).toBe(200);
  expect(((await res.json()) as { ready: boolean }).ready).toBe(true);

  // the answer thread dies: not ready until another answers, then ready again; alive all along
  const engine = system.dns?.engine;
  const exited = new Promise((done) => engine?.thread?.worker.once('exit', done));
  await engine?.thread?.worker.terminate();
  await exited;
  expect((await fetch(`${url}/readyz`)).status).toBe(503);
  expect((await fetch(`${url}/livez`)).status).toBe(200);
  await until('ready again', async () => ((await fetch(`${url}/readyz`)).status === 200 ? true : undefined), 20_000);
  expect((await dns.query('www.example.test', 'A')).rcode).toBe(0);
});
