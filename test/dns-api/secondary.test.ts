// @needs bind
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dig, startNamed, type Named } from '../support/dns-peers';
import { freeDnsPort } from '../bench/processes';
import { call, startDnsApiSystem, type DnsApiSystem } from './api';

/**
 * BIND 9 `named` as a secondary of the embedded server: every kind of write through the API sends it a NOTIFY, and it
 * transfers the change. named's primary port must be known before it starts and our NOTIFY target after: the system
 * starts, the zone is created and transferred once, then the system restarts on the same port and data with named as
 * its NOTIFY target.
 */
const ZONE = 'secondary.example.test';
const dataDir = mkdtempSync(join(tmpdir(), 'dns-api-secondary-'));
let dnsPort: number;
let api: DnsApiSystem;
let named: Named;

async function serialAt(server: { host: string; port: number }): Promise<number | undefined> {
  const res = await dig(server, [ZONE, 'SOA']);
  const serial = res.status === 'NOERROR' ? res.answer[0]?.split(' ')[6] : undefined;
  return serial === undefined ? undefined : Number(serial);
}

/** Waits (bounded) until named serves the serial our server serves now; returns named's last serial. */
async function secondaryCaughtUp(): Promise<{ ours: number | undefined; theirs: number | undefined }> {
  const ours = await serialAt(api.dns);
  let theirs: number | undefined;
  for (let i = 0; i < 100 && theirs !== ours; i++) {
    theirs = await serialAt(named);
    if (theirs !== ours) await new Promise((r) => setTimeout(r, 100));
  }
  return { ours, theirs };
}

beforeAll(async () => {
  dnsPort = await freeDnsPort();
  api = await startDnsApiSystem({ DATA_DIR: dataDir, DNS_PORT: String(dnsPort) });
  const created = await call(api.gateway, 'POST', '/zones', { token: api.adminToken, body: { name: ZONE } });
  if (created.status !== 201) throw new Error(`zone not created: ${created.text}`);
  named = await startNamed([
    {
      name: ZONE,
      text: '',
      options: `type secondary; primaries { 127.0.0.1 port ${dnsPort}; }; allow-notify { 127.0.0.1; };`,
    },
  ]);
  const first = await secondaryCaughtUp();
  if (first.theirs !== first.ours) throw new Error(`named did not load the zone (serial ${String(first.theirs)})`);
  await api.close();
  api = await startDnsApiSystem({
    DATA_DIR: dataDir,
    DNS_PORT: String(dnsPort),
    NOTIFY_TARGETS: `127.0.0.1:${named.port}`,
  });
}, 60_000);
afterAll(async () => {
  await api?.close();
  await named?.stop();
});

const records = `/zones/${ZONE}/records`;

// The zone's refresh is 3 hours: named catching up within seconds is NOTIFY's doing, not its refresh timer.
test('a new record, an update, a batch, a delete and a zone change each reach the secondary', async () => {
  const token = api.adminToken;
  const created = await call<{ id: string }>(api.gateway, 'POST', records, {
    token,
    body: { name: 'www', type: 'A', value: '192.0.2.1' },
  });
  expect(created.status).toBe(201);
  let sync = await secondaryCaughtUp();
  expect(sync.theirs).toBe(sync.ours);
  expect((await dig(named, [`www.${ZONE}`, 'A'])).answer).toEqual([`www.${ZONE}. 3600 IN A 192.0.2.1`]);

  expect(
    (await call(api.gateway, 'PUT', `${records}/${created.body.id}`, { token, body: { value: '192.0.2.2' } })).status,
  ).toBe(200);
  sync = await secondaryCaughtUp();
  expect(sync.theirs).toBe(sync.ours);
  expect((await dig(named, [`www.${ZONE}`, 'A'])).answer).toEqual([`www.${ZONE}. 3600 IN A 192.0.2.2`]);

  const batch = await call(api.gateway, 'POST', `${records}/batch`, {
    token,
    body: {
      operations: [
        { operation: 'create', name: 'mail', type: 'A', value: '192.0.2.25' },
        { operation: 'create', name: '@', type: 'MX', value: '10 mail' },
      ],
    },
  });
  expect(batch.status).toBe(200);
  sync = await secondaryCaughtUp();
  expect(sync.theirs).toBe(sync.ours);
  expect((await dig(named, [ZONE, 'MX'])).answer).toEqual([`${ZONE}. 3600 IN MX 10 mail.${ZONE}.`]);

  expect((await call(api.gateway, 'DELETE', `${records}/${created.body.id}`, { token })).status).toBe(200);
  sync = await secondaryCaughtUp();
  expect(sync.theirs).toBe(sync.ours);
  expect((await dig(named, [`www.${ZONE}`, 'A'])).status).toBe('NXDOMAIN');

  expect((await call(api.own, 'PUT', `/zones/${ZONE}`, { token, body: { minimum: 120 } })).status).toBe(200);
  sync = await secondaryCaughtUp();
  expect(sync.theirs).toBe(sync.ours);
  expect((await dig(named, [ZONE, 'SOA'])).answer[0]?.split(' ')[10]).toBe('120');
});
