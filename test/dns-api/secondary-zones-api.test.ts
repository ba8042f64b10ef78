// @needs bind
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeDnsPort } from '../bench/processes';
import { axfrLines, dig, soaSerial } from '../support/dns-peers';
import { call, gql, startDnsApiSystem, userWithRole, type DnsApiSystem } from './api';

/**
 * Secondary zones through the API: system B serves a zone of system A (another instance of ours) as its secondary,
 * added with POST /secondary-zones. A NOTIFYs B of every change (NOTIFY_TARGETS), so B follows within moments; the
 * zone survives B's restart; DELETE stops serving it. Every validation rule is sent its bad value.
 */
const ZONE = 'sec-api.example.test';
const dataDir = mkdtempSync(join(tmpdir(), 'secondary-zones-api-'));
let primary: DnsApiSystem;
let secondary: DnsApiSystem;
let secondaryPort: number;

const secondaryEnv = (): Record<string, string> => ({ DATA_DIR: dataDir, DNS_PORT: String(secondaryPort) });

beforeAll(async () => {
  secondaryPort = await freeDnsPort();
  primary = await startDnsApiSystem({ NOTIFY_TARGETS: `127.0.0.1:${secondaryPort}` });
  const created = await call(primary.gateway, 'POST', '/zones', { token: primary.adminToken, body: { name: ZONE } });
  if (created.status !== 201) throw new Error(`zone not created: ${created.text}`);
  await call(primary.gateway, 'POST', `/zones/${ZONE}/records`, {
    token: primary.adminToken,
    body: { name: 'www', type: 'A', value: '192.0.2.10' },
  });
  secondary = await startDnsApiSystem(secondaryEnv());
}, 60_000);
afterAll(async () => {
  await secondary?.close();
  await primary?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Waits (at most 10 s) until B serves the serial A serves now. */
async function caughtUp(): Promise<void> {
  const want = await soaSerial(primary.dns, ZONE);
  for (let i = 0; i < 200; i++) {
    if ((await soaSerial(secondary.dns, ZONE)) === want) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the secondary did not reach serial ${want}; it has ${await soaSerial(secondary.dns, ZONE)}`);
}

const add = (body: unknown, token = secondary.adminToken) =>
  call(secondary.gateway, 'POST', '/secondary-zones', { token, body });

describe('bad input: 422 naming the field, nothing added', () => {
  test.each([
    ['no primary', { name: 'x.example.test' }, 'primary', /primary is required/],
    ['a host name as primary', { name: 'x.example.test', primary: 'ns1.example:53' }, 'primary', /IP address/],
    ['no port', { name: 'x.example.test', primary: '192.0.2.1' }, 'primary', /address:port/],
    ['port 0', { name: 'x.example.test', primary: '192.0.2.1:0' }, 'primary', /from 1 to 65535/],
    ['port 70000', { name: 'x.example.test', primary: '192.0.2.1:70000' }, 'primary', /from 1 to 65535/],
    [
      'IPv6 without brackets',
      { name: 'x.example.test', primary: '2001:db8::1:53' },
      'primary',
      /address:port|brackets/,
    ],
    ['IPv4 in brackets', { name: 'x.example.test', primary: '[192.0.2.1]:53' }, 'primary', /brackets/],
    ['an upper-case name', { name: 'X.Example.Test', primary: '192.0.2.1:53' }, 'name', /lower case/],
    ['a name that is no domain name', { name: 'a..b', primary: '192.0.2.1:53' }, 'name', /valid domain name/],
    [
      'an unknown TSIG key',
      { name: 'x.example.test', primary: '192.0.2.1:53', tsig_key: 'nokey' },
      'tsig_key',
      /TSIG key "nokey" is not configured/,
    ],
  ])('%s', async (_, body, field, message) => {
    const res = await add(body);
    expect(res.status).toBe(422);
    const errors = res.body.errors as { field: string; message: string }[];
    expect(errors[0]?.field).toBe(field);
    expect(errors[0]?.message).toMatch(message);
    const list = await call<{ secondary_zones: unknown[] }>(secondary.gateway, 'GET', '/secondary-zones', {
      token: secondary.adminToken,
    });
    expect(list.body.secondary_zones).toEqual([]);
  });

  test('unknown fields, wrong types and a missing name are 422s naming each field', async () => {
    const unknown = await add({ name: 'x.example.test', primary: '192.0.2.1:53', primaries: ['192.0.2.1'] });
    expect(unknown.status).toBe(422);
    expect(JSON.stringify(unknown.body)).toMatch(/primaries/);
    const wrongType = await add({ name: 'x.example.test', primary: 53 });
    expect(wrongType.status).toBe(422);
    expect((wrongType.body.errors as { field: string }[])[0]?.field).toBe('primary');
    const missing = await add({ primary: '192.0.2.1:53' });
    expect(missing.status).toBe(422);
    expect((missing.body.errors as { field: string }[])[0]?.field).toBe('name');
  });
});

describe('roles', () => {
  test('no token 401; a viewer reads but may not add or delete (403)', async () => {
    expect((await call(secondary.gateway, 'GET', '/secondary-zones')).status).toBe(401);
    const viewer = await userWithRole(secondary, 'sec-viewer', 'viewer');
    expect((await call(secondary.gateway, 'GET', '/secondary-zones', { token: viewer.token })).status).toBe(200);
    const refused = await add({ name: 'v.example.test', primary: '192.0.2.1:53' }, viewer.token);
    expect(refused.status).toBe(403);
    expect(String(refused.body.error)).toMatch(/viewer/);
    expect(
      (await call(secondary.gateway, 'DELETE', '/secondary-zones/v.example.test', { token: viewer.token })).status,
    ).toBe(403);
  });
});

describe('a secondary of another instance of ours', () => {
  test("added: 201 with Location, transferred at once, the AXFR equal to the primary's", async () => {
    const res = await add({ name: ZONE, primary: `127.0.0.1:${primary.dns.port}` });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`/api/v1/secondary-zones/${ZONE}`);
    expect(res.body).toMatchObject({
      name: ZONE,
      primary: `127.0.0.1:${primary.dns.port}`,
      tsig_key: null,
      origin: 'api',
    });
    await caughtUp();
    expect(await axfrLines(secondary.dns, ZONE)).toEqual(await axfrLines(primary.dns, ZONE));
    const got = await call(secondary.gateway, 'GET', `/secondary-zones/${ZONE.toUpperCase()}.`, {
      token: secondary.adminToken,
    });
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      name: ZONE,
      serial: await soaSerial(primary.dns, ZONE),
      expired: false,
      error: null,
    });
  });

  test('a change on the primary reaches it by NOTIFY', async () => {
    const res = await call(primary.gateway, 'POST', `/zones/${ZONE}/records`, {
      token: primary.adminToken,
      body: { name: 'new', type: 'TXT', value: 'after the add' },
    });
    expect(res.status).toBe(201);
    await caughtUp();
    expect((await dig(secondary.dns, [`new.${ZONE}`, 'TXT'])).answer).toEqual([
      `new.${ZONE}. 3600 IN TXT "after the add"`,
    ]);
  });

  test('the name is taken: a zone of the same name, the same secondary zone again, both 409', async () => {
    const zone = await call(secondary.gateway, 'POST', '/zones', { token: secondary.adminToken, body: { name: ZONE } });
    expect(zone.status).toBe(409);
    expect(String(zone.body.error)).toMatch(/secondary/);
    const again = await add({ name: ZONE, primary: '192.0.2.1:53' });
    expect(again.status).toBe(409);
    const own = await call(secondary.gateway, 'POST', '/zones', {
      token: secondary.adminToken,
      body: { name: 'own.example.test' },
    });
    expect(own.status).toBe(201);
    const clash = await add({ name: 'own.example.test', primary: '192.0.2.1:53' });
    expect(clash.status).toBe(409);
    expect(String(clash.body.error)).toMatch(/zone of the store/);
  });

  test('over GraphQL too: listed with its transfer state', async () => {
    const res = await gql<{ secondaryZones: { name: string; origin: string; serial: number | null }[] }>(
      secondary.sys.url,
      '{ secondaryZones { name origin serial } }',
      {},
      secondary.adminToken,
    );
    expect(res.body.data?.secondaryZones).toEqual([
      { name: ZONE, origin: 'API', serial: await soaSerial(primary.dns, ZONE) },
    ]);
  });

  test('after a restart it is served again (from the store, and its copy on disk)', async () => {
    await secondary.close();
    secondary = await startDnsApiSystem(secondaryEnv());
    await caughtUp();
    expect(await axfrLines(secondary.dns, ZONE)).toEqual(await axfrLines(primary.dns, ZONE));
  });

  test('deleted: 200, REFUSED over DNS at once, 404 afterwards; the name is free for a zone', async () => {
    const res = await call(secondary.gateway, 'DELETE', `/secondary-zones/${ZONE}`, { token: secondary.adminToken });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: `secondary zone ${ZONE} deleted` });
    expect((await dig(secondary.dns, [ZONE, 'SOA'])).status).toBe('REFUSED');
    expect(
      (await call(secondary.gateway, 'GET', `/secondary-zones/${ZONE}`, { token: secondary.adminToken })).status,
    ).toBe(404);
    expect(
      (await call(secondary.gateway, 'DELETE', `/secondary-zones/${ZONE}`, { token: secondary.adminToken })).status,
    ).toBe(404);
    expect(
      (await call(secondary.gateway, 'POST', '/zones', { token: secondary.adminToken, body: { name: ZONE } })).status,
    ).toBe(201);
  });
});
