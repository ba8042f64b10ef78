// @needs bind
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { dig, requireTool, type DigAnswer } from '../support/dns-peers';
import { TEST_ADMIN_PASSWORD } from '../support/system';
import { call, login, startDnsApiSystem, type DnsApiSystem } from './api';

/**
 * The DNS API's paths doing what they should, on the gateway's port and alone on DNS_API_PORT; after each kind of
 * write the embedded DNS server already answers with the change when the call returns (no waiting, no retry).
 */
let api: DnsApiSystem;
const run = promisify(execFile);

beforeAll(async () => {
  api = await startDnsApiSystem();
}, 60_000);
afterAll(() => api?.close());

interface RecordBody {
  id: string;
  name: string;
  type: string;
  value: string;
  ttl: number;
  created_at?: string;
  updated_at?: string;
}
interface ZoneBody {
  name: string;
  records_count: number;
  created_at: string;
  updated_at: string;
  [field: string]: unknown;
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const ask = (name: string, type: string): Promise<DigAnswer> => dig(api.dns, [name, type]);

/** The SOA's fields as dig shows them. */
async function soaOf(zone: string): Promise<{ mname: string; rname: string; serial: number; minimum: number }> {
  const res = await ask(zone, 'SOA');
  const fields = (res.answer[0] ?? '').split(' ');
  return {
    mname: fields[4] ?? '',
    rname: fields[5] ?? '',
    serial: Number(fields[6]),
    minimum: Number(fields[10]),
  };
}

describe.each([
  ['the gateway port', 'gw'],
  ['the DNS API port', 'own'],
] as const)('on %s', (_where, tag) => {
  const base = (): string => (tag === 'gw' ? api.gateway : api.own);
  const zone = `${tag}.example.test`;
  let token: string;

  test('login gives a token and its expiry; /users/me says who is calling', async () => {
    const res = await call<{ token: string; expires_at: string }>(base(), 'POST', '/auth/login', {
      body: { username: 'admin', password: TEST_ADMIN_PASSWORD },
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['expires_at', 'token']);
    expect(res.body.token.split('.')).toHaveLength(3);
    expect(res.body.expires_at).toMatch(ISO);
    const ttl = Date.parse(res.body.expires_at) - Date.now();
    expect(ttl).toBeGreaterThan(3_500_000); // the default lifetime, one hour
    expect(ttl).toBeLessThanOrEqual(3_600_000);
    token = res.body.token;
    const me = await call(base(), 'GET', '/users/me', { token });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ username: 'admin', role: 'admin', disabled: false });
    expect(me.body.last_login).toMatch(ISO);
    const jwks = await call<{ keys: Array<Record<string, string>> }>(base(), 'GET', '/.well-known/jwks.json');
    expect(jwks.status).toBe(200);
    expect(jwks.body.keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' });
  });

  test('create zone: 201 summary with Location and ETag; details with defaults; DNS answers the SOA and NS', async () => {
    const res = await call<ZoneBody>(base(), 'POST', '/zones', {
      token,
      body: { name: zone, admin_email: 'dns-admin@example.test', minimum: 300 },
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['created_at', 'name', 'records_count', 'updated_at']);
    // the NS record from configuration, and its name server's address (ns1.<zone> is inside the zone)
    expect(res.body).toMatchObject({ name: zone, records_count: 2 });
    expect(res.body.created_at).toMatch(ISO);
    expect(res.headers.get('location')).toBe(`/api/v1/zones/${zone}`);
    expect(res.headers.get('etag')).toMatch(/^"[^"]+"$/);
    const soa = await soaOf(zone);
    expect(soa).toMatchObject({ mname: `ns1.${zone}.`, rname: `dns-admin.example.test.`, minimum: 300 });
    expect(String(soa.serial)).toMatch(/^\d{10}$/); // YYYYMMDDnn
    expect((await ask(zone, 'NS')).answer).toEqual([`${zone}. 3600 IN NS ns1.${zone}.`]);

    const details = await call<ZoneBody>(base(), 'GET', `/zones/${zone}`, { token });
    expect(details.status).toBe(200);
    expect(details.body).toEqual({
      name: zone,
      admin_email: 'dns-admin@example.test',
      refresh: 10800,
      retry: 3600,
      expire: 604800,
      minimum: 300,
      default_ttl: 3600,
      records_count: 2,
      created_at: res.body.created_at,
      updated_at: res.body.updated_at,
      nameservers: [`ns1.${zone}`],
      dnssec_enabled: false,
    });
    expect(details.headers.get('etag')).toBe(res.headers.get('etag'));
    const list = await call<{ zones: ZoneBody[] }>(base(), 'GET', '/zones', { token });
    expect(list.body.zones.find((z) => z.name === zone)).toEqual({
      name: zone,
      records_count: 2,
      created_at: res.body.created_at,
      updated_at: res.body.updated_at,
    });
  });

  // Each type: what is sent, and what dig answers at once (names in values come back fully qualified).
  const RECORDS: Array<{ name: string; type: string; value: string; ttl?: number; value_out: string; dig: string }> = [
    { name: 'www', type: 'A', value: '192.0.2.10', value_out: '192.0.2.10', dig: `www.${zone}. 3600 IN A 192.0.2.10` },
    {
      name: `v6.${zone}`,
      type: 'AAAA',
      value: '2001:DB8::0:1',
      ttl: 600,
      value_out: '2001:db8::1',
      dig: `v6.${zone}. 600 IN AAAA 2001:db8::1`,
    },
    {
      name: '@',
      type: 'MX',
      value: '10 mail',
      value_out: `10 mail.${zone}.`,
      dig: `${zone}. 3600 IN MX 10 mail.${zone}.`,
    },
    {
      name: 'txt',
      type: 'TXT',
      value: '"v=spf1 -all" "second string"',
      value_out: '"v=spf1 -all" "second string"',
      dig: `txt.${zone}. 3600 IN TXT "v=spf1 -all" "second string"`,
    },
    {
      name: `alias.${zone}.`,
      type: 'CNAME',
      value: 'www',
      value_out: `www.${zone}.`,
      dig: `alias.${zone}. 3600 IN CNAME www.${zone}.`,
    },
    {
      name: '_sip._tcp',
      type: 'SRV',
      value: '10 5 5060 sip.example.net.',
      value_out: '10 5 5060 sip.example.net.',
      dig: `_sip._tcp.${zone}. 3600 IN SRV 10 5 5060 sip.example.net.`,
    },
    {
      name: '@',
      type: 'CAA',
      value: '0 issue "letsencrypt.org"',
      value_out: '0 issue "letsencrypt.org"',
      dig: `${zone}. 3600 IN CAA 0 issue "letsencrypt.org"`,
    },
  ];
  const ids: Record<string, string> = {};

  test.each(RECORDS)('add a $type record: 201, and dig answers it when the call returns', async (r) => {
    const res = await call<RecordBody>(base(), 'POST', `/zones/${zone}/records`, {
      token,
      body: { name: r.name, type: r.type, value: r.value, ...(r.ttl === undefined ? {} : { ttl: r.ttl }) },
    });
    expect(res.status).toBe(201);
    expect(res.body.id).toMatch(UUID);
    const owner =
      r.name === '@'
        ? zone
        : r.name.endsWith('.')
          ? r.name.slice(0, -1)
          : r.name.includes(zone)
            ? r.name
            : `${r.name}.${zone}`;
    expect(res.body).toEqual({
      id: res.body.id,
      name: owner,
      type: r.type,
      value: r.value_out,
      ttl: r.ttl ?? 3600,
      created_at: expect.stringMatching(ISO),
    });
    ids[r.type] = res.body.id;
    expect((await ask(owner, r.type)).answer).toEqual([r.dig]);
  });

  test('get one record: ETag, created_at and updated_at', async () => {
    const res = await call<RecordBody>(base(), 'GET', `/zones/${zone}/records/${ids.A}`, { token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: ids.A, name: `www.${zone}`, type: 'A', value: '192.0.2.10', ttl: 3600 });
    expect(res.body.created_at).toMatch(ISO);
    expect(res.body.updated_at).toMatch(ISO);
    expect(res.headers.get('etag')).toMatch(/^"[^"]+"$/);
  });

  test('update a record value, then its TTL alone: dig answers each change at once', async () => {
    const res = await call<RecordBody>(base(), 'PUT', `/zones/${zone}/records/${ids.A}`, {
      token,
      body: { value: '192.0.2.11' },
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['id', 'name', 'ttl', 'type', 'updated_at', 'value']);
    expect(res.body).toMatchObject({ id: ids.A, value: '192.0.2.11', ttl: 3600 });
    expect((await ask(`www.${zone}`, 'A')).answer).toEqual([`www.${zone}. 3600 IN A 192.0.2.11`]);
    const ttl = await call<RecordBody>(base(), 'PUT', `/zones/${zone}/records/${ids.A}`, {
      token,
      body: { ttl: 120 },
    });
    expect(ttl.status).toBe(200);
    expect(ttl.body).toMatchObject({ value: '192.0.2.11', ttl: 120 });
    expect((await ask(`www.${zone}`, 'A')).answer).toEqual([`www.${zone}. 120 IN A 192.0.2.11`]);
  });

  test('list: the seed shape, the type filter (any case), records_count without the SOA', async () => {
    const all = await call<{ zone: string; records: RecordBody[] }>(base(), 'GET', `/zones/${zone}/records`, {
      token,
    });
    expect(all.status).toBe(200);
    expect(all.body.zone).toBe(zone);
    expect(all.body).not.toHaveProperty('next_cursor');
    expect(all.body.records.map((r) => r.type).sort()).toEqual(
      ['A', 'A', 'AAAA', 'CAA', 'CNAME', 'MX', 'NS', 'SRV', 'TXT'].sort(), // A: www and ns1
    );
    for (const r of all.body.records) expect(Object.keys(r).sort()).toEqual(['id', 'name', 'ttl', 'type', 'value']);
    const mx = await call<{ records: RecordBody[] }>(base(), 'GET', `/zones/${zone}/records?type=mx`, { token });
    expect(mx.status).toBe(200);
    expect(mx.body.records).toEqual([{ id: ids.MX, name: zone, type: 'MX', value: `10 mail.${zone}.`, ttl: 3600 }]);
    const details = await call<ZoneBody>(base(), 'GET', `/zones/${zone}`, { token });
    expect(details.body.records_count).toBe(9);
  });

  test('paging: limit and cursor walk every record once, in a stable order; the last page has next_cursor null', async () => {
    const whole = await call<{ records: RecordBody[] }>(base(), 'GET', `/zones/${zone}/records`, { token });
    const seen: RecordBody[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 10; page++) {
      const query: string = `?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const res = await call<{ records: RecordBody[]; next_cursor: string | null }>(
        base(),
        'GET',
        `/zones/${zone}/records${query}`,
        { token },
      );
      expect(res.status).toBe(200);
      expect(res.body.records.length).toBeLessThanOrEqual(3);
      seen.push(...res.body.records);
      cursor = res.body.next_cursor;
      if (cursor === null) break;
    }
    expect(cursor).toBeNull();
    expect(seen).toEqual(whole.body.records); // same records, same order, none twice
    const typed = await call<{ records: RecordBody[]; next_cursor: string | null }>(
      base(),
      'GET',
      `/zones/${zone}/records?type=A&limit=5`,
      { token },
    );
    expect(typed.body).toMatchObject({ records: [{ name: `ns1.${zone}` }, { id: ids.A }], next_cursor: null });
  });

  test('delete a record: {success, message}; dig no longer answers it', async () => {
    const res = await call(base(), 'DELETE', `/zones/${zone}/records/${ids.CAA}`, { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: expect.any(String) as unknown });
    expect((await ask(zone, 'CAA')).answer).toEqual([]);
    expect((await call(base(), 'GET', `/zones/${zone}/records/${ids.CAA}`, { token })).status).toBe(404);
  });

  test('batch: creates, an update and a delete in one call; results per operation; dig answers all of it', async () => {
    const res = await call<{ success: boolean; results: Array<{ operation: string; id: string; status: string }> }>(
      base(),
      'POST',
      `/zones/${zone}/records/batch`,
      {
        token,
        body: {
          operations: [
            { operation: 'create', name: 'b1', type: 'A', value: '192.0.2.21' },
            { operation: 'create', name: 'b1', type: 'A', value: '192.0.2.22', ttl: 3600 },
            { operation: 'update', id: ids.AAAA, value: '2001:db8::2' },
            { operation: 'delete', id: ids.SRV },
          ],
        },
      },
    );
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.results.map((r) => [r.operation, r.status])).toEqual([
      ['create', 'success'],
      ['create', 'success'],
      ['update', 'success'],
      ['delete', 'success'],
    ]);
    expect(res.body.results[0]?.id).toMatch(UUID);
    expect(res.body.results[2]?.id).toBe(ids.AAAA);
    expect(res.body.results[3]?.id).toBe(ids.SRV);
    expect((await ask(`b1.${zone}`, 'A')).answer.sort()).toEqual([
      `b1.${zone}. 3600 IN A 192.0.2.21`,
      `b1.${zone}. 3600 IN A 192.0.2.22`,
    ]);
    expect((await ask(`v6.${zone}`, 'AAAA')).answer).toEqual([`v6.${zone}. 600 IN AAAA 2001:db8::2`]);
    expect((await ask(`_sip._tcp.${zone}`, 'SRV')).status).toBe('NXDOMAIN');
  });

  test('update zone: name, the changed fields and updated_at; the SOA says so at once, its serial raised', async () => {
    const before = await soaOf(zone);
    const res = await call<ZoneBody>(base(), 'PUT', `/zones/${zone}`, {
      token,
      body: { minimum: 900, admin_email: 'other@example.test' },
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['admin_email', 'minimum', 'name', 'updated_at']);
    expect(res.body).toMatchObject({ name: zone, minimum: 900, admin_email: 'other@example.test' });
    const after = await soaOf(zone);
    expect(after).toMatchObject({ minimum: 900, rname: 'other.example.test.' });
    expect(after.serial).toBeGreaterThan(before.serial);
  });

  test('ETag / If-Match: a current tag lets the write through, a stale one is 412 and changes nothing', async () => {
    const read = await call(base(), 'GET', `/zones/${zone}`, { token });
    const tag = read.headers.get('etag') as string;
    const ok = await call(base(), 'PUT', `/zones/${zone}`, {
      token,
      body: { refresh: 7200 },
      headers: { 'if-match': tag },
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('etag')).not.toBe(tag);
    const stale = await call(base(), 'PUT', `/zones/${zone}`, {
      token,
      body: { refresh: 1 },
      headers: { 'if-match': tag },
    });
    expect(stale.status).toBe(412);
    expect(stale.body).toEqual({ error: expect.stringContaining('changed since it was read') as unknown });
    expect((await call(base(), 'GET', `/zones/${zone}`, { token })).body).toMatchObject({ refresh: 7200 });
    const staleDelete = await call(base(), 'DELETE', `/zones/${zone}`, { token, headers: { 'if-match': tag } });
    expect(staleDelete.status).toBe(412);

    const rec = await call(base(), 'GET', `/zones/${zone}/records/${ids.TXT}`, { token });
    const recTag = rec.headers.get('etag') as string;
    const changed = await call(base(), 'PUT', `/zones/${zone}/records/${ids.TXT}`, {
      token,
      body: { value: 'plain text' },
      headers: { 'if-match': recTag },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ value: '"plain text"' });
    const staleRec = await call(base(), 'PUT', `/zones/${zone}/records/${ids.TXT}`, {
      token,
      body: { value: 'lost update' },
      headers: { 'if-match': recTag },
    });
    expect(staleRec.status).toBe(412);
    const staleRecDelete = await call(base(), 'DELETE', `/zones/${zone}/records/${ids.TXT}`, {
      token,
      headers: { 'if-match': recTag },
    });
    expect(staleRecDelete.status).toBe(412);
    expect((await ask(`txt.${zone}`, 'TXT')).answer).toEqual([`txt.${zone}. 3600 IN TXT "plain text"`]);
    const star = await call(base(), 'PUT', `/zones/${zone}/records/${ids.TXT}`, {
      token,
      body: { ttl: 60 },
      headers: { 'if-match': '*' },
    });
    expect(star.status).toBe(200);
  });

  test('export, delete and import again: the same records answered over DNS', async () => {
    // An in-zone name server needs an address for BIND to load the zone (the default NS is ns1.<zone>).
    const glue = await call(base(), 'POST', `/zones/${zone}/records`, {
      token,
      body: { name: 'ns1', type: 'A', value: '192.0.2.53' },
    });
    expect(glue.status).toBe(201);
    const exported = await call(base(), 'GET', `/zones/${zone}/export`, { token });
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-type')).toMatch(/^text\/dns/);
    expect(exported.text).toContain(`$ORIGIN ${zone}.`);
    // BIND reads our export as it is
    const file = join(mkdtempSync(join(tmpdir(), 'dns-api-export-')), 'zone.db');
    writeFileSync(file, exported.text);
    requireTool('named-checkzone');
    const checked = await run('named-checkzone', [zone, file], { timeout: 10_000 });
    expect(checked.stdout).toContain('OK');
    const before = await call<{ records: RecordBody[] }>(base(), 'GET', `/zones/${zone}/records`, { token });

    const deleted = await call(base(), 'DELETE', `/zones/${zone}`, { token });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ success: true, message: expect.stringContaining(zone) as unknown });
    expect((await ask(`www.${zone}`, 'A')).status).toBe('REFUSED'); // not authoritative any more
    expect((await call(base(), 'GET', `/zones/${zone}`, { token })).status).toBe(404);

    const imported = await call<ZoneBody>(base(), 'POST', '/zones', {
      token,
      body: { name: zone, zone_file: exported.text },
    });
    expect(imported.status).toBe(201);
    expect(imported.body.records_count).toBe(before.body.records.length);
    const after = await call<{ records: RecordBody[] }>(base(), 'GET', `/zones/${zone}/records`, { token });
    const shape = (r: RecordBody) => `${r.name} ${r.type} ${r.value} ${r.ttl}`;
    expect(after.body.records.map(shape)).toEqual(before.body.records.map(shape));
    expect((await ask(`www.${zone}`, 'A')).answer).toEqual([`www.${zone}. 120 IN A 192.0.2.11`]);
  });

  test('import keeps the SOA serial of the master file', async () => {
    const name = `serial-${tag}.example.test`;
    const file = `$ORIGIN ${name}.\n$TTL 300\n@ IN SOA ns1 hostmaster 2020010107 3600 600 86400 60\n  IN NS ns1\nns1 IN A 192.0.2.1\n`;
    const res = await call(base(), 'POST', '/zones', { token, body: { name, zone_file: file } });
    expect(res.status).toBe(201);
    expect((await soaOf(name)).serial).toBe(2020010107);
  });

  test('an imported zone in mixed case: DNS answers in its case; the API shows and matches the lower-case form', async () => {
    const name = `case-${tag}.example.test`;
    const file = `$ORIGIN ${name}.\n$TTL 300\n@ IN SOA ns1 hostmaster 1 3600 600 86400 60\n  IN NS Ns1\nNs1 IN A 192.0.2.1\nWwW IN CNAME Ns1.Case-${tag}.Example.Test.\n`;
    expect((await call(base(), 'POST', '/zones', { token, body: { name, zone_file: file } })).status).toBe(201);
    // BIND's answer: the owner and the target as the master file wrote them, whatever case the question has
    expect((await ask(`WWW.${name}`, 'CNAME')).answer).toEqual([
      `WwW.${name}. 300 IN CNAME Ns1.Case-${tag}.Example.Test.`,
    ]);
    // the reference says nothing of case: the API keeps its output (model form, lower case), and paths match any case
    const listed = await call<{ records: RecordBody[] }>(base(), 'GET', `/zones/${name.toUpperCase()}/records`, {
      token,
    });
    expect(listed.status).toBe(200);
    expect(listed.body.records.map((r) => `${r.name} ${r.type} ${r.value}`).sort()).toEqual([
      `${name} NS ns1.${name}.`,
      `ns1.${name} A 192.0.2.1`,
      `www.${name} CNAME ns1.${name}.`,
    ]);
    // a record that differs only in case is the same record: 409
    const again = await call(base(), 'POST', `/zones/${name}/records`, {
      token,
      body: { name: 'WWW', type: 'CNAME', value: `NS1.${name.toUpperCase()}.` },
    });
    expect(again.status).toBe(409);
  });

  test('users: create, list, get, update, delete', async () => {
    const name = `user-${tag}`;
    const created = await call<{ id: string }>(base(), 'POST', '/users', {
      token,
      body: { username: name, email: `${name}@example.test`, password: 'a-long-password', role: 'viewer' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(UUID) as unknown,
      username: name,
      email: `${name}@example.test`,
      role: 'viewer',
      created_at: expect.stringMatching(ISO) as unknown,
    });
    const id = created.body.id;
    const list = await call<{ users: Array<Record<string, unknown>> }>(base(), 'GET', '/users', { token });
    expect(list.status).toBe(200);
    expect(list.body.users.find((u) => u.id === id)).toMatchObject({
      username: name,
      role: 'viewer',
      last_login: null,
    });
    await login(base(), name, 'a-long-password');
    const one = await call(base(), 'GET', `/users/${id}`, { token });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id, username: name, last_login: expect.stringMatching(ISO) as unknown });
    const updated = await call(base(), 'PUT', `/users/${id}`, {
      token,
      body: { email: `new-${name}@example.test`, role: 'operator' },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id, email: `new-${name}@example.test`, role: 'operator' });
    const removed = await call(base(), 'DELETE', `/users/${id}`, { token });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ success: true, message: expect.any(String) as unknown });
    expect((await call(base(), 'GET', `/users/${id}`, { token })).status).toBe(404);
  });

  test('password change: a new token comes back, the old one stops working, the new password logs in', async () => {
    const name = `pw-${tag}`;
    await call(base(), 'POST', '/users', {
      token,
      body: { username: name, email: `${name}@example.test`, password: 'first-password', role: 'operator' },
    });
    const old = await login(base(), name, 'first-password');
    const res = await call<{ token: string; expires_at: string }>(base(), 'PUT', '/users/me/password', {
      token: old,
      body: { current_password: 'first-password', new_password: 'second-password' },
    });
    expect(res.status).toBe(200);
    expect(res.body.expires_at).toMatch(ISO);
    expect((await call(base(), 'GET', '/users/me', { token: res.body.token })).status).toBe(200);
    const refused = await call(base(), 'GET', '/users/me', { token: old });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer /);
    await login(base(), name, 'second-password');
    const oldPassword = await call(base(), 'POST', '/auth/login', {
      body: { username: name, password: 'first-password' },
    });
    expect(oldPassword.status).toBe(401);
  });
});

describe('both listeners', () => {
  test('DNS_API_PORT serves /api/v1 alone: GraphQL, the market REST paths and the playground are not there', async () => {
    const root = api.own.replace(/\/api\/v1$/, '');
    for (const path of ['/graphql', '/v1/quote/AAPL:NASDAQ', '/']) {
      const res = await fetch(`${root}${path}`);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
    }
    const gw = await fetch(`${api.sys.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect(gw.status).toBe(200);
  });

  test('a zone with its own default_ttl: its NS and records without a ttl take it, dig answers with it', async () => {
    const zone = 'ttl.example.test';
    const token = api.adminToken;
    expect((await call(api.own, 'POST', '/zones', { token, body: { name: zone, default_ttl: 600 } })).status).toBe(201);
    const rec = await call<RecordBody>(api.gateway, 'POST', `/zones/${zone}/records`, {
      token,
      body: { name: 'www', type: 'A', value: '192.0.2.60' },
    });
    expect(rec.body.ttl).toBe(600);
    expect((await ask(`www.${zone}`, 'A')).answer).toEqual([`www.${zone}. 600 IN A 192.0.2.60`]);
    expect((await ask(zone, 'NS')).answer).toEqual([`${zone}. 600 IN NS ns1.${zone}.`]);
  });

  test('the longest zone name its SOA names leave room for (242 characters): created, served, exported', async () => {
    const zone = `${`${'z'.repeat(62)}.`.repeat(3)}${'z'.repeat(48)}.test`;
    expect(zone).toHaveLength(242);
    const token = api.adminToken;
    expect((await call(api.gateway, 'POST', '/zones', { token, body: { name: zone } })).status).toBe(201);
    expect(await soaOf(zone)).toMatchObject({ mname: `ns1.${zone}.`, rname: `hostmaster.${zone}.` });
    const exported = await call(api.gateway, 'GET', `/zones/${zone}/export`, { token });
    expect(exported.status).toBe(200);
    expect(exported.text).toContain(`$ORIGIN ${zone}.\n`);
    expect(exported.text).toMatch(/\tSOA\tns1 hostmaster \d+ /);
  });

  test('what one listener writes, the other reads at once', async () => {
    const zone = 'shared.example.test';
    const token = api.adminToken;
    expect((await call(api.own, 'POST', '/zones', { token, body: { name: zone } })).status).toBe(201);
    const rec = await call<RecordBody>(api.own, 'POST', `/zones/${zone}/records`, {
      token,
      body: { name: 'x', type: 'A', value: '192.0.2.70' },
    });
    const read = await call<RecordBody>(api.gateway, 'GET', `/zones/${zone}/records/${rec.body.id}`, { token });
    expect(read.body).toMatchObject({ id: rec.body.id, value: '192.0.2.70' });
  });

  test('paging while the zone changes: the cursor survives the deletion of its record, nothing is seen twice', async () => {
    const zone = 'moving.example.test';
    const token = api.adminToken;
    expect((await call(api.gateway, 'POST', '/zones', { token, body: { name: zone } })).status).toBe(201);
    const ids: Record<string, string> = {};
    for (const n of ['b', 'd', 'f', 'h', 'j']) {
      const res = await call<RecordBody>(api.gateway, 'POST', `/zones/${zone}/records`, {
        token,
        body: { name: n, type: 'A', value: '192.0.2.1' },
      });
      ids[n] = res.body.id;
    }
    type Page = { records: RecordBody[]; next_cursor: string | null };
    const page = (cursor: string | null) =>
      call<Page>(
        api.gateway,
        'GET',
        `/zones/${zone}/records?type=A&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        { token },
      );
    const first = await page(null);
    expect(first.body.records.map((r) => r.name)).toEqual([`b.${zone}`, `d.${zone}`]);
    // the record the cursor points at goes, one appears before the cursor and one after it
    await call(api.gateway, 'DELETE', `/zones/${zone}/records/${ids.d}`, { token });
    for (const n of ['a', 'g'])
      await call(api.gateway, 'POST', `/zones/${zone}/records`, {
        token,
        body: { name: n, type: 'A', value: '192.0.2.1' },
      });
    const seen = first.body.records.map((r) => r.name.split('.')[0]);
    let cursor = first.body.next_cursor;
    for (let i = 0; i < 10 && cursor; i++) {
      const next = await page(cursor);
      expect(next.status).toBe(200);
      seen.push(...next.body.records.map((r) => r.name.split('.')[0]));
      cursor = next.body.next_cursor;
    }
    expect(seen).toEqual(['b', 'd', 'f', 'g', 'h', 'j', 'ns1']); // ns1: the zone's name server's address
  });
});
