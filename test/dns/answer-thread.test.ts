// @needs bind9-dnsutils
/**
 * DNS answers come from the engine's answer thread: they keep coming while the main thread (the control plane, the
 * HTTP APIs) is busy, a write is answered over DNS by the time it returns, and what needs the engine (UPDATE, zone
 * transfers) is handed over and answered from it.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { DnsClient } from '../../dns/client';
import { DnsEngine } from '../../dns/engine/engine';
import { openSqliteStore } from '../../dns/store';
import type { ZoneStore } from '../../dns/store/types';
import { parseKeySpec } from '../../dns/tsig/keyfile';
import { requireTool } from '../support/dns-peers';

const run = promisify(execFile);
const ZONE = 'thread.test';
const KEY = parseKeySpec('hmac-sha256:thr:c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MTI=');

let store: ZoneStore;
let engine: DnsEngine;
let port: number;

beforeAll(async () => {
  requireTool('dig');
  store = await openSqliteStore({ file: ':memory:' });
  await store.createZone(
    ZONE,
    {
      adminEmail: `hostmaster@${ZONE}`,
      primaryNs: `ns1.${ZONE}`,
      refresh: 3600,
      retry: 600,
      expire: 86400,
      minimum: 60,
      defaultTtl: 300,
    },
    [
      { name: ZONE, type: 'NS', ttl: 300, value: `ns1.${ZONE}.` },
      { name: `ns1.${ZONE}`, type: 'A', ttl: 300, value: '192.0.2.53' },
      { name: `www.${ZONE}`, type: 'A', ttl: 300, value: '192.0.2.1' },
    ],
  );
  engine = await DnsEngine.start({ store, host: '127.0.0.1', port: 0, keys: [KEY] });
  port = engine.server?.port as number;
});

afterAll(async () => {
  await engine?.close();
  await store?.close();
});

const dig = (...args: string[]) => run('dig', ['@127.0.0.1', '-p', String(port), '+tries=1', '+time=2', ...args]);

it('answers from a thread of its own', () => {
  expect(engine.thread).toBeDefined();
});

it('keeps answering while the main thread is blocked for 4 s', async () => {
  const asked = dig('+short', `www.${ZONE}`, 'A');
  // dig starts, asks and gets its answer meanwhile: one try, two seconds, so an answer after the block fails it
  const until = Date.now() + 4000;
  while (Date.now() < until); // the control plane stuck in a synchronous piece of work
  const { stdout } = await asked;
  expect(stdout.trim()).toBe('192.0.2.1');
});

it('serves a store write by the time `served` resolves, and answers UPDATE and AXFR through the engine', async () => {
  const change = await store.change(ZONE, [
    { op: 'add', record: { name: `new.${ZONE}`, type: 'A', ttl: 300, value: '192.0.2.7' } },
  ]);
  await engine.served(ZONE, change.zone.serial);
  expect((await dig('+short', `new.${ZONE}`, 'A')).stdout.trim()).toBe('192.0.2.7');

  const client = new DnsClient({ server: { host: '127.0.0.1', port }, key: KEY });
  await client.update(ZONE, [{ op: 'add', name: `upd.${ZONE}`, type: 'A', ttl: 300, value: '192.0.2.8' }]);
  expect((await dig('+short', `upd.${ZONE}`, 'A')).stdout.trim()).toBe('192.0.2.8');

  const axfr = (await dig('+tcp', ZONE, 'AXFR')).stdout;
  expect(axfr).toMatch(/^upd\.thread\.test\.\s+300\s+IN\s+A\s+192\.0\.2\.8$/m);
  expect(axfr.match(/\sSOA\s/g)).toHaveLength(2);
});

it('a thread that ends by itself is replaced on the same port, with every zone', async () => {
  const first = engine.thread;
  await first?.worker.terminate();
  for (let i = 0; i < 100 && engine.thread === first; i++) await new Promise((r) => setTimeout(r, 100));
  expect(engine.thread).not.toBe(first);
  expect(engine.server?.port).toBe(port);
  // every answer comes from the new thread: ten in a row (a socket the old one left bound would swallow some)
  for (let i = 0; i < 10; i++) expect((await dig('+short', `www.${ZONE}`, 'A')).stdout.trim()).toBe('192.0.2.1');
  expect((await dig('+short', '+tcp', `new.${ZONE}`, 'A')).stdout.trim()).toBe('192.0.2.7');
});
