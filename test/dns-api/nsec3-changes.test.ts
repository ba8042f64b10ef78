// @needs bind
import { axfrText, verifyZoneWithPeers, type PeerVerdict } from '../support/dnssec-peers';
import { soaSerial } from '../support/dns-peers';
import { call, gql, startDnsApiSystem, type DnsApiSystem } from './api';

/**
 * An NSEC3 zone changed through the DNS API (REST): every change — a name added, a name under new empty
 * non-terminals, records at a former empty non-terminal, a name removed — is served signed so that dnssec-verify,
 * ldns-verify-zone and kzonecheck pass the AXFR, each with the NSEC3 chain and no NSEC.
 */
const ZONE = 'changes.nsec3.test';
let api: DnsApiSystem;

const rest = <T = Record<string, unknown>>(method: string, path: string, body?: unknown) =>
  call<T>(api.gateway, method, path, { token: api.adminToken, body });
const failures = (verdicts: PeerVerdict[]) => verdicts.filter((v) => !v.ok).map((v) => `${v.tool}: ${v.output}`);

/** The zone's AXFR once DNS serves the serial the API reached, checked by the three verifiers. */
async function verified(): Promise<string> {
  const read = await gql<{ zone: { serial: number } }>(
    api.sys.url,
    'query Z($z: String!) { zone(name: $z) { serial } }',
    {
      z: ZONE,
    },
    api.adminToken,
  );
  const serial = read.body.data?.zone.serial;
  expect(serial).toEqual(expect.any(Number));
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline && (await soaSerial(api.dns, ZONE)) !== serial)
    await new Promise((r) => setTimeout(r, 100));
  expect(await soaSerial(api.dns, ZONE)).toBe(serial);
  const dump = await axfrText(api.dns, ZONE);
  expect(dump).toMatch(/\sNSEC3\s/);
  expect(dump).not.toMatch(/\sNSEC\s/);
  expect(failures(await verifyZoneWithPeers(ZONE, dump))).toEqual([]);
  return dump;
}

beforeAll(async () => {
  api = await startDnsApiSystem();
  expect((await rest('POST', '/zones', { name: ZONE })).status).toBe(201);
  for (const [name, type, value] of [
    ['www', 'A', '192.0.2.1'],
    ['deep.ent', 'TXT', '"below an empty non-terminal"'],
    ['*.wild', 'A', '192.0.2.2'],
    ['sub', 'NS', 'ns.elsewhere.test.'],
  ])
    expect((await rest('POST', `/zones/${ZONE}/records`, { name, type, value })).status).toBe(201);
  const on = await rest('POST', `/zones/${ZONE}/dnssec`, { enable: true, denial: 'NSEC3' });
  expect(on.status).toBe(200);
}, 60_000);
afterAll(async () => {
  await api?.close();
});

test('signed with NSEC3 as enabled', async () => {
  await verified();
}, 30_000);

test.each([
  ['a name added', { name: 'new', type: 'A', value: '192.0.2.3' }],
  ['a name under new empty non-terminals', { name: 'leaf.two.one', type: 'TXT', value: '"deep"' }],
  ['records at a former empty non-terminal', { name: 'ent', type: 'A', value: '192.0.2.4' }],
])(
  '%s: the zone still verifies',
  async (_, record) => {
    expect((await rest('POST', `/zones/${ZONE}/records`, record)).status).toBe(201);
    const dump = await verified();
    expect(dump).toMatch(
      new RegExp(`^${record.name.replace(/\./g, '\\.')}\\.${ZONE.replace(/\./g, '\\.')}\\.\\s`, 'm'),
    );
  },
  30_000,
);

test('a name removed (and the empty non-terminals above it): the zone still verifies', async () => {
  const records = await rest<{ records: Array<{ id: string; name: string }> }>('GET', `/zones/${ZONE}/records`);
  const leaf = records.body.records.find((r) => r.name.startsWith('leaf.two.one'));
  if (!leaf) throw new Error(`no leaf record in ${JSON.stringify(records.body)}`);
  expect((await rest('DELETE', `/zones/${ZONE}/records/${leaf.id}`)).status).toBe(200);
  const dump = await verified();
  expect(dump).not.toMatch(/^leaf\.two\.one\./m);
}, 30_000);
