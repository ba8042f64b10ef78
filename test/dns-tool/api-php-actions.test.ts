// @needs bind
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VERSION } from '../../platform/version';
import { dig } from '../support/dns-peers';
import { TEST_ADMIN_PASSWORD } from '../support/system';
import {
  api,
  expectError,
  expectOk,
  loginToken,
  NOBODY,
  OPS,
  ROOT,
  startToolSystem,
  type ToolReply,
  type ToolSystem,
} from './tool-system';

/**
 * The actions of `/api.php` doing what they should against the whole system: the tool follows the embedded
 * server's zones (the demo zone example.test, and zones created through the DNS API), every change is checked with
 * `dig` against the embedded server, and each change leaves its audit lines.
 */
let t: ToolSystem;
let root: string;
let ops: string;
let auditFile: string;
let demoListing: ToolReply;

const REVERSE4 = '2.0.192.in-addr.arpa';
const REVERSE6 = '8.b.d.0.1.0.0.2.ip6.arpa';

/** A call to the DNS API's REST interface as its admin. */
async function dnsApi(method: string, path: string, body?: unknown): Promise<Response> {
  const base = `${t.url}/api/v1`;
  const login = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: TEST_ADMIN_PASSWORD }),
  });
  const { token } = (await login.json()) as { token: string };
  return fetch(`${base}${path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      authorization: `Bearer ${token}`,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** Creates a zone through the DNS API (optionally from a master file). */
async function createZone(name: string, zoneFile?: string): Promise<void> {
  const res = await dnsApi('POST', '/zones', { name, ...(zoneFile === undefined ? {} : { zone_file: zoneFile }) });
  if (res.status !== 201) throw new Error(`creating ${name} answered ${res.status}: ${await res.text()}`);
}

/** Waits until the tool lists the zones, or (absent) no longer lists them: it follows the embedded server's list. */
async function toolKnows(zones: string[], present = true): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const listed = Object.keys((await api(t.url, { action: 'list_zones' }, { bearer: root })).body as object);
    if (zones.every((z) => listed.includes(z) === present)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the tool did not ${present ? 'pick up' : 'drop'} ${zones.join(', ')}`);
}

const answer = async (name: string, type: string): Promise<string[]> => (await dig(t.dns, [name, type])).answer;

beforeAll(async () => {
  auditFile = join(mkdtempSync(join(tmpdir(), 'dns-tool-audit-')), 'audit.log');
  t = await startToolSystem({
    dnsTool: {
      tokens: [ROOT, OPS, NOBODY],
      roles: { editors: { 'example.test': 'rw', [REVERSE4]: 'rw', [REVERSE6]: 'rw' } },
      usersRoles: { [ROOT]: ['root'], [OPS]: ['editors'] },
      auditFile,
    },
  });
  root = await loginToken(t.url, ROOT);
  ops = await loginToken(t.url, OPS);
  demoListing = await api(t.url, { action: 'list_records', zone: 'Example.Test.' }, { bearer: ops });
  // A zone under the demo zone, created through the DNS API: the tool follows it.
  await createZone('sub.example.test');
  // The reverse zones of the PTR steps.
  await createZone(REVERSE4);
  await createZone(REVERSE6);
  await toolKnows(['sub.example.test', REVERSE4, REVERSE6]);
}, 30_000);
afterAll(() => t?.close());

describe('reading', () => {
  test('help page: no action, 200 text/html, "API: help", every action in order with its notes', async () => {
    for (const reply of [
      await api(t.url, {}, { method: 'GET' }),
      await api(t.url, {}),
      await api(t.url, { action: '' }, { method: 'GET' }),
    ]) {
      expect(reply.status).toBe(200);
      expect(reply.headers.get('content-type')).toMatch(/^text\/html/);
      const html = reply.text;
      expect(html).toContain('<title>API: help</title>');
      const order = [
        'API documentation',
        'Action APIs',
        ...[
          'is_logged',
          'login',
          'logout',
          'login_token',
          'list_zones',
          'list_records',
          'create_record',
          'delete_record',
          'replace_record',
          'get_zone_for_fqdn',
          'get_record',
          'get_version',
        ].map((a) => `<h3>${a}</h3>`),
      ];
      const at = order.map((s) => html.indexOf(s));
      expect(at.every((i) => i >= 0)).toBe(true);
      expect([...at].sort((a, b) => a - b)).toEqual(at);
      const section = (name: string) => html.slice(html.indexOf(`<h3>${name}</h3>`)).split('</section>')[0] ?? '';
      expect(section('login')).toContain('This action must be called via POST method');
      expect(section('login')).toContain('<b>loginUsername</b> (<code>String</code>)');
      expect(section('list_zones')).toContain('This action requires authentication');
      expect(section('list_zones')).toContain('This action has no parameters');
      expect(section('create_record')).toContain('Parameters (required)');
      expect(section('create_record')).toContain('<b>ttl</b> (<code>Number</code>)');
      expect(section('create_record')).toContain('Parameters (optional)');
      expect(section('create_record')).toContain('<b>ptr</b> (<code>Boolean</code>)');
      expect(section('get_version')).toContain('Example: <code>/api.php?action=get_version</code>');
      expect(section('get_version')).not.toContain('This action requires authentication');
      // Self-contained: nothing fetched from elsewhere.
      expect(html).not.toMatch(/<(script|link)[^>]+(src|href)=/);
    }
  });

  test('get_version, the action in any case, by GET or POST, without login', async () => {
    expectOk(await api(t.url, { action: 'get_version' }, { method: 'GET' }), { version: VERSION });
    expectOk(await api(t.url, { action: 'GET_Version' }), { version: VERSION });
  });

  test('get_zone_for_fqdn: case-insensitive, trailing dot, the zone itself, the longest suffix', async () => {
    expectOk(await api(t.url, { action: 'get_zone_for_fqdn', fqdn: 'WWW.Example.TEST.' }, { method: 'GET' }), {
      zone: 'example.test',
    });
    expectOk(await api(t.url, { action: 'get_zone_for_fqdn', fqdn: 'example.test' }), { zone: 'example.test' });
    expectOk(await api(t.url, { action: 'get_zone_for_fqdn', fqdn: 'a.b.sub.example.test' }), {
      zone: 'sub.example.test',
    });
    expectOk(await api(t.url, { action: 'get_zone_for_fqdn', fqdn: 'a.bsub.example.test' }), { zone: 'example.test' });
  });

  test('parameters: the query string first, then the form body; JSON bodies are not read', async () => {
    expectOk(
      await api(
        t.url,
        { fqdn: 'nothing.invalid' },
        { query: { action: 'get_zone_for_fqdn', fqdn: 'www.example.test' } },
      ),
      { zone: 'example.test' },
    );
    // A form body with a charset parameter in its content type is a form body.
    expectOk(
      await api(
        t.url,
        { action: 'get_zone_for_fqdn', fqdn: 'www.example.test' },
        { headers: { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' } },
      ),
      { zone: 'example.test' },
    );
    // A JSON body is no body at all: without an action in the URL that is the help page.
    const json = await api(
      t.url,
      {},
      {
        headers: { 'content-type': 'application/json' },
        rawBody: JSON.stringify({ action: 'get_version' }),
      },
    );
    expect(json.status).toBe(200);
    expect(json.text).toContain('<title>API: help</title>');
    expectError(
      await api(
        t.url,
        {},
        {
          query: { action: 'get_zone_for_fqdn' },
          headers: { 'content-type': 'application/json' },
          rawBody: JSON.stringify({ fqdn: 'www.example.test' }),
        },
      ),
      'Missing parameter: fqdn',
      'This parameter is required',
    );
  });

  test('list_zones: keys in order, unset ones left out; [] for a caller who may read none', async () => {
    const port = t.dns.port;
    const zones = await api(t.url, { action: 'list_zones' }, { bearer: ops });
    const item = (domain: string) => ({
      domain,
      update_server: `127.0.0.1 ${port}`,
      transfer_server: `127.0.0.1 ${port}`,
      read_only: false,
    });
    // In the embedded server's order; the DNS API's zone sub.example.test is not the editors'.
    expectOk(zones, { [REVERSE4]: item(REVERSE4), [REVERSE6]: item(REVERSE6), 'example.test': item('example.test') });
    const nobody = await loginToken(t.url, NOBODY);
    expect((await api(t.url, { action: 'list_zones' }, { bearer: nobody })).text).toBe('[]\n');
  });

  test('list_records: every record as dig prints it, SOA first and last', async () => {
    const soa = [
      'example.test.',
      '3600',
      'IN',
      'SOA',
      'ns1.example.test. hostmaster.example.test. 1 10800 3600 604800 300',
    ];
    // Listed before any test changed the demo zone.
    expectOk(demoListing, [
      soa,
      ['example.test.', '3600', 'IN', 'MX', '10 mail.example.test.'],
      ['example.test.', '3600', 'IN', 'NS', 'ns1.example.test.'],
      ['example.test.', '3600', 'IN', 'TXT', '"v=spf1 mx -all"'],
      ['api.example.test.', '3600', 'IN', 'CNAME', 'www.example.test.'],
      ['mail.example.test.', '3600', 'IN', 'A', '192.0.2.25'],
      ['ns1.example.test.', '3600', 'IN', 'A', '127.0.0.1'],
      ['www.example.test.', '3600', 'IN', 'A', '192.0.2.10'],
      ['www.example.test.', '3600', 'IN', 'AAAA', '2001:db8::10'],
      soa,
    ]);
  });

  test('get_record: a CNAME chain, a relative name with zone, the apex, no data and NXDOMAIN as []', async () => {
    expectOk(await api(t.url, { action: 'get_record', record: 'api.example.test' }, { bearer: ops }), [
      ['api.example.test.', '3600', 'IN', 'CNAME', 'www.example.test.'],
      ['www.example.test.', '3600', 'IN', 'A', '192.0.2.10'],
    ]);
    expectOk(
      await api(t.url, { action: 'get_record', record: 'www', zone: 'example.test', type: 'AAAA' }, { bearer: ops }),
      [['www.example.test.', '3600', 'IN', 'AAAA', '2001:db8::10']],
    );
    expectOk(
      await api(t.url, { action: 'get_record', record: '@', zone: 'example.test', type: 'MX' }, { bearer: ops }),
      [['example.test.', '3600', 'IN', 'MX', '10 mail.example.test.']],
    );
    expectOk(await api(t.url, { action: 'get_record', record: 'www.example.test', type: 'TXT' }, { bearer: ops }), []);
    expect((await api(t.url, { action: 'get_record', record: 'nothing.example.test' }, { bearer: ops })).text).toBe(
      '[]\n',
    );
  });
});

describe('what the embedded server holds', () => {
  test('zones created and deleted through the DNS API come and go; types the tool does not edit are listed too', async () => {
    const lookup = () => api(t.url, { action: 'get_zone_for_fqdn', fqdn: 'host.gen.test' });
    expectError(await lookup(), 'No such zone', 'Zone for given fqdn was not found');
    await createZone(
      'gen.test',
      `$ORIGIN gen.test.
$TTL 300
@ IN SOA ns1.gen.test. hostmaster.gen.test. 7 3600 600 86400 60
  IN NS ns1.gen.test.
ns1 IN A 192.0.2.53
odd IN CAA 0 issue "ca.example"
`,
    );
    await toolKnows(['gen.test']);
    expectOk(await lookup(), { zone: 'gen.test' });
    const soa = ['gen.test.', '300', 'IN', 'SOA', 'ns1.gen.test. hostmaster.gen.test. 7 3600 600 86400 60'];
    expectOk(await api(t.url, { action: 'list_records', zone: 'gen.test' }, { bearer: root }), [
      soa,
      ['gen.test.', '300', 'IN', 'NS', 'ns1.gen.test.'],
      ['ns1.gen.test.', '300', 'IN', 'A', '192.0.2.53'],
      ['odd.gen.test.', '300', 'IN', 'CAA', '0 issue "ca.example"'],
      soa,
    ]);
    // Not the editors' zone: ops may not read it, and is told so (not [] as if the zone were empty).
    expectError(
      await api(t.url, { action: 'list_records', zone: 'gen.test' }, { bearer: ops }),
      'Permission denied',
      "You don't have access to read data from this zone",
    );
    const deleted = await dnsApi('DELETE', '/zones/gen.test');
    expect(deleted.status).toBeLessThan(300);
    await toolKnows(['gen.test'], false);
    expectError(await lookup(), 'No such zone', 'Zone for given fqdn was not found');
    expectError(
      await api(t.url, { action: 'list_records', zone: 'gen.test' }, { bearer: root }),
      'No such zone',
      'This zone is not in configuration file',
    );
  });

  test('SSHFP data as dig prints it (hex upper case); a delegation answers get_record with []', async () => {
    const fp = 'abcdef0123456789abcdef0123456789abcdef01';
    expectOk(
      await api(
        t.url,
        { action: 'create_record', record: 'ssh.example.test', ttl: '60', type: 'SSHFP', value: `1 1 ${fp}` },
        { bearer: ops },
      ),
      { result: 'success' },
    );
    expectOk(await api(t.url, { action: 'get_record', record: 'ssh.example.test', type: 'SSHFP' }, { bearer: ops }), [
      ['ssh.example.test.', '60', 'IN', 'SSHFP', `1 1 ${fp.toUpperCase()}`],
    ]);
    expect(await answer('ssh.example.test', 'SSHFP')).toEqual([
      `ssh.example.test. 60 IN SSHFP 1 1 ${fp.toUpperCase()}`,
    ]);
    expectOk(
      await api(
        t.url,
        {
          action: 'create_record',
          record: 'deleg.example.test',
          ttl: '60',
          type: 'NS',
          value: 'ns.elsewhere.invalid.',
        },
        { bearer: ops },
      ),
      { result: 'success' },
    );
    expectOk(await api(t.url, { action: 'get_record', record: 'host.deleg.example.test' }, { bearer: ops }), []);
    expectOk(await api(t.url, { action: 'get_record', record: 'deleg.example.test', type: 'NS' }, { bearer: ops }), []);
  });
});

describe('changing', () => {
  test('create_record (FQDN, or relative to zone): served at once', async () => {
    expectOk(
      await api(
        t.url,
        { action: 'create_record', record: 'new1.example.test', ttl: '300', type: 'A', value: '192.0.2.31' },
        { bearer: ops },
      ),
      { result: 'success' },
    );
    expectOk(
      await api(
        t.url,
        {
          action: 'create_record',
          zone: 'example.test',
          record: 'new2',
          ttl: '301',
          type: 'MX',
          value: '20 mail.example.test.',
        },
        { bearer: ops },
      ),
      { result: 'success' },
    );
    expect(await answer('new1.example.test', 'A')).toEqual(['new1.example.test. 300 IN A 192.0.2.31']);
    expect(await answer('new2.example.test', 'MX')).toEqual(['new2.example.test. 301 IN MX 20 mail.example.test.']);
    expectOk(await api(t.url, { action: 'get_record', record: 'new2.example.test', type: 'MX' }, { bearer: ops }), [
      ['new2.example.test.', '301', 'IN', 'MX', '20 mail.example.test.'],
    ]);
  });

  test('TXT: quoted as dig prints it, longer than 255 characters split, non-ASCII bytes as \\DDD', async () => {
    const long = `${'a'.repeat(255)}${'b'.repeat(45)}`;
    expectOk(
      await api(
        t.url,
        { action: 'create_record', record: 'long.example.test', ttl: '60', type: 'TXT', value: long },
        { bearer: ops },
      ),
      { result: 'success' },
    );
    expect(await answer('long.example.test', 'TXT')).toEqual([
      `long.example.test. 60 IN TXT "${'a'.repeat(255)}" "${'b'.repeat(45)}"`,
    ]);
    expectOk(
      await api(
        t.url,
        {
          action: 'create_record',
          record: 'quoted.example.test',
          ttl: '60',
          type: 'TXT',
          value: '"hello world" "second string"',
        },
        { bearer: ops },
      ),
      { result: 'success' },
    );
    expectOk(
      await api(
        t.url,
        { action: 'create_record', record: 'utf.example.test', ttl: '60', type: 'TXT', value: 'café' },
        { bearer: ops },
      ),
      { result: 'success' },
    );
    const got = await api(t.url, { action: 'get_record', record: 'quoted.example.test', type: 'TXT' }, { bearer: ops });
    expect(got.text).toBe(
      '[\n    [\n        "quoted.example.test.",\n        "60",\n        "IN",\n        "TXT",\n        "\\"hello world\\" \\"second string\\""\n    ]\n]\n',
    );
    expectOk(await api(t.url, { action: 'get_record', record: 'utf.example.test', type: 'TXT' }, { bearer: ops }), [
      ['utf.example.test.', '60', 'IN', 'TXT', '"caf\\195\\169"'],
    ]);
    expectOk(await api(t.url, { action: 'get_record', record: 'long.example.test', type: 'TXT' }, { bearer: ops }), [
      ['long.example.test.', '60', 'IN', 'TXT', `"${'a'.repeat(255)}" "${'b'.repeat(45)}"`],
    ]);
  });

  test('a wildcard answers under the queried name', async () => {
    expectOk(
      await api(
        t.url,
        { action: 'create_record', record: '*.wild.example.test', ttl: '60', type: 'A', value: '192.0.2.50' },
        { bearer: ops },
      ),
      { result: 'success' },
    );
    expectOk(await api(t.url, { action: 'get_record', record: 'anything.wild.example.test' }, { bearer: ops }), [
      ['anything.wild.example.test.', '60', 'IN', 'A', '192.0.2.50'],
    ]);
  });

  test('delete_record: with a value that record, without one the whole set', async () => {
    for (const value of ['192.0.2.61', '192.0.2.62', '192.0.2.63'])
      await api(
        t.url,
        { action: 'create_record', record: 'multi.example.test', ttl: '60', type: 'A', value },
        { bearer: ops },
      );
    expect((await answer('multi.example.test', 'A')).sort()).toEqual([
      'multi.example.test. 60 IN A 192.0.2.61',
      'multi.example.test. 60 IN A 192.0.2.62',
      'multi.example.test. 60 IN A 192.0.2.63',
    ]);
    expectOk(
      await api(
        t.url,
        { action: 'delete_record', record: 'multi.example.test', type: 'A', value: '192.0.2.62', ttl: 'ignored' },
        { bearer: ops },
      ),
      { result: 'success' },
    );
    expect((await answer('multi.example.test', 'A')).sort()).toEqual([
      'multi.example.test. 60 IN A 192.0.2.61',
      'multi.example.test. 60 IN A 192.0.2.63',
    ]);
    await api(
      t.url,
      { action: 'create_record', record: 'multi.example.test', ttl: '60', type: 'TXT', value: 'stays' },
      { bearer: ops },
    );
    expectOk(
      await api(t.url, { action: 'delete_record', zone: 'example.test', record: 'multi', type: 'A' }, { bearer: ops }),
      {
        result: 'success',
      },
    );
    expect(await answer('multi.example.test', 'A')).toEqual([]);
    expect(await answer('multi.example.test', 'TXT')).toEqual(['multi.example.test. 60 IN TXT "stays"']);
  });

  test('replace_record: the value in one UPDATE; ttl is the new TTL', async () => {
    await api(
      t.url,
      { action: 'create_record', record: 'rep.example.test', ttl: '60', type: 'A', value: '192.0.2.71' },
      { bearer: ops },
    );
    expectOk(
      await api(
        t.url,
        {
          action: 'replace_record',
          record: 'rep.example.test',
          type: 'A',
          ttl: '90',
          value: '192.0.2.71',
          new_value: '192.0.2.72',
        },
        { bearer: ops },
      ),
      { result: 'success' },
    );
    expect(await answer('rep.example.test', 'A')).toEqual(['rep.example.test. 90 IN A 192.0.2.72']);
  });

  test('replace_record: renames and changes type inside the zone; refuses a name in another zone', async () => {
    await api(
      t.url,
      { action: 'create_record', record: 'old.example.test', ttl: '60', type: 'CNAME', value: 'www.example.test.' },
      { bearer: ops },
    );
    expectOk(
      await api(
        t.url,
        {
          action: 'replace_record',
          zone: 'example.test',
          record: 'old',
          type: 'CNAME',
          ttl: '120',
          new_record: 'renamed',
          new_type: 'A',
          new_value: '192.0.2.81',
        },
        { bearer: ops },
      ),
      { result: 'success' },
    );
    expect((await dig(t.dns, ['old.example.test', 'CNAME'])).status).toBe('NXDOMAIN');
    expect(await answer('renamed.example.test', 'A')).toEqual(['renamed.example.test. 120 IN A 192.0.2.81']);
    // Across zones: refused, nothing changed.
    expectError(
      await api(
        t.url,
        {
          action: 'replace_record',
          record: 'renamed.example.test',
          type: 'A',
          ttl: '120',
          new_record: 'x.sub.example.test',
          new_value: '192.0.2.82',
        },
        { bearer: root },
      ),
      'Permission denied',
      'You are not authorized to edit x.sub.example.test',
    );
    // With zone given, a relative new name stays in that zone, even under a subzone (a parent zone named on purpose).
    expectOk(
      await api(
        t.url,
        {
          action: 'replace_record',
          zone: 'example.test',
          record: 'renamed',
          type: 'A',
          ttl: '120',
          new_record: 'hidden.sub',
          new_value: '192.0.2.81',
        },
        { bearer: root },
      ),
      { result: 'success' },
    );
    const rows = (await api(t.url, { action: 'list_records', zone: 'example.test' }, { bearer: root }))
      .body as string[][];
    expect(rows).toContainEqual(['hidden.sub.example.test.', '120', 'IN', 'A', '192.0.2.81']);
    expect(rows.filter((r) => r[0] === 'renamed.example.test.')).toEqual([]);
    // A new name written absolute (a trailing dot) outside the zone is another zone: refused.
    expectError(
      await api(
        t.url,
        {
          action: 'replace_record',
          zone: 'example.test',
          record: 'hidden.sub',
          type: 'A',
          ttl: '120',
          new_record: 'y.other.test.',
          new_value: '192.0.2.83',
        },
        { bearer: root },
      ),
      'Permission denied',
      'You are not authorized to edit y.other.test',
    );
    expect((await dig(t.dns, ['x.sub.example.test', 'A'])).status).toBe('NXDOMAIN');
    expectOk(
      await api(t.url, { action: 'get_record', zone: 'example.test', record: 'hidden.sub' }, { bearer: root }),
      [],
    );
    const after = (await api(t.url, { action: 'list_records', zone: 'example.test' }, { bearer: root }))
      .body as string[][];
    expect(after).toContainEqual(['hidden.sub.example.test.', '120', 'IN', 'A', '192.0.2.81']);
  });
});

describe('PTR records', () => {
  test('ptr=true with A: the PTR is created in the in-addr.arpa zone, and deleted with the record', async () => {
    expectOk(
      await api(
        t.url,
        {
          action: 'create_record',
          record: 'host4.example.test',
          ttl: '300',
          type: 'A',
          value: '192.0.2.5',
          ptr: 'true',
        },
        { bearer: ops },
      ),
      { result: 'success' },
    );
    expect(await answer('host4.example.test', 'A')).toEqual(['host4.example.test. 300 IN A 192.0.2.5']);
    expect(await answer('5.2.0.192.in-addr.arpa', 'PTR')).toEqual([
      '5.2.0.192.in-addr.arpa. 300 IN PTR host4.example.test.',
    ]);
    expectOk(
      await api(
        t.url,
        { action: 'delete_record', record: 'host4.example.test', type: 'A', value: '192.0.2.5', ptr: 't' },
        { bearer: ops },
      ),
      { result: 'success' },
    );
    expect(await answer('host4.example.test', 'A')).toEqual([]);
    expect(await answer('5.2.0.192.in-addr.arpa', 'PTR')).toEqual([]);
  });

  test('ptr=true with AAAA: the PTR in ip6.arpa, nibble format', async () => {
    expectOk(
      await api(
        t.url,
        {
          action: 'create_record',
          record: 'host6.example.test',
          ttl: '300',
          type: 'AAAA',
          value: '2001:db8::5',
          ptr: '1',
        },
        { bearer: ops },
      ),
      { result: 'success' },
    );
    const reverse = '5.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa';
    expect(await answer(reverse, 'PTR')).toEqual([`${reverse}. 300 IN PTR host6.example.test.`]);
  });

  test('replace with ptr: the old PTR goes, the new one comes', async () => {
    await api(
      t.url,
      { action: 'create_record', record: 'moving.example.test', ttl: '60', type: 'A', value: '192.0.2.6', ptr: 'true' },
      { bearer: ops },
    );
    expect(await answer('6.2.0.192.in-addr.arpa', 'PTR')).toEqual([
      '6.2.0.192.in-addr.arpa. 60 IN PTR moving.example.test.',
    ]);
    expectOk(
      await api(
        t.url,
        {
          action: 'replace_record',
          record: 'moving.example.test',
          type: 'A',
          ttl: '60',
          value: '192.0.2.6',
          new_value: '192.0.2.7',
          ptr: 'true',
        },
        { bearer: ops },
      ),
      { result: 'success' },
    );
    expect(await answer('6.2.0.192.in-addr.arpa', 'PTR')).toEqual([]);
    expect(await answer('7.2.0.192.in-addr.arpa', 'PTR')).toEqual([
      '7.2.0.192.in-addr.arpa. 60 IN PTR moving.example.test.',
    ]);
  });

  test('PTR problems are warnings: no reverse zone, not an A record, no old value', async () => {
    expectOk(
      await api(
        t.url,
        {
          action: 'create_record',
          record: 'far.example.test',
          ttl: '60',
          type: 'A',
          value: '203.0.113.9',
          ptr: 'true',
        },
        { bearer: ops },
      ),
      { result: 'success', warnings: ['PTR record was not created: there is no PTR zone for record 203.0.113.9'] },
    );
    expect(await answer('far.example.test', 'A')).toEqual(['far.example.test. 60 IN A 203.0.113.9']);
    expectOk(
      await api(
        t.url,
        { action: 'create_record', record: 'txt.example.test', ttl: '60', type: 'TXT', value: 'x', ptr: 'true' },
        { bearer: ops },
      ),
      {
        result: 'success',
        warnings: [
          'Requested PTR record was not created: PTR record can be only created when you are inserting A record, you created TXT record instead',
        ],
      },
    );
    expectOk(
      await api(
        t.url,
        { action: 'delete_record', record: 'txt.example.test', type: 'TXT', ptr: 'true' },
        { bearer: ops },
      ),
      {
        result: 'success',
        warnings: [
          'Requested PTR record was not deleted: PTR record can be only deleted when you are changing A record, you deleted TXT record instead',
        ],
      },
    );
    expectOk(
      await api(
        t.url,
        {
          action: 'replace_record',
          record: 'far.example.test',
          type: 'A',
          ttl: '60',
          new_value: '192.0.2.8',
          ptr: 'true',
        },
        { bearer: ops },
      ),
      {
        result: 'success',
        warnings: [
          "Old PTR record was not deleted, because parameter value was not provided - so we don't know what to delete",
        ],
      },
    );
    expect(await answer('8.2.0.192.in-addr.arpa', 'PTR')).toEqual([
      '8.2.0.192.in-addr.arpa. 60 IN PTR far.example.test.',
    ]);
    await api(
      t.url,
      { action: 'create_record', record: 'cn.example.test', ttl: '60', type: 'CNAME', value: 'www.example.test.' },
      { bearer: ops },
    );
    expectOk(
      await api(
        t.url,
        {
          action: 'replace_record',
          record: 'cn.example.test',
          type: 'CNAME',
          ttl: '60',
          new_value: 'mail.example.test.',
          ptr: 'true',
        },
        { bearer: ops },
      ),
      {
        result: 'success',
        warnings: [
          'You requested to modify underlying PTR record, but neither new or old record type is A record, ignoring PTR update request',
        ],
      },
    );
  });

  test('ptr false, 0 or absent: no PTR (delete reads ptr as create does)', async () => {
    await api(
      t.url,
      { action: 'create_record', record: 'noptr.example.test', ttl: '60', type: 'A', value: '192.0.2.9', ptr: 'false' },
      { bearer: ops },
    );
    expect(await answer('9.2.0.192.in-addr.arpa', 'PTR')).toEqual([]);
    await api(
      t.url,
      { action: 'create_record', record: 'noptr.example.test', ttl: '60', type: 'A', value: '192.0.2.10', ptr: 'true' },
      { bearer: ops },
    );
    await api(
      t.url,
      { action: 'delete_record', record: 'noptr.example.test', type: 'A', value: '192.0.2.10', ptr: 'false' },
      { bearer: ops },
    );
    expect(await answer('noptr.example.test', 'A')).toEqual(['noptr.example.test. 60 IN A 192.0.2.9']);
    expect(await answer('10.2.0.192.in-addr.arpa', 'PTR')).toEqual([
      '10.2.0.192.in-addr.arpa. 60 IN PTR noptr.example.test.',
    ]);
  });
});

describe('audit lines', () => {
  const LINE =
    /^(\d\d)\/(\d\d)\/(\d{4}) (\d\d):(\d\d):(\d\d) (am|pm) entry point: api\.php eid: ([0-9a-f]{16}) user: (\S+) ip: (\S+) operation: (\S+)(?: record: (.*?))?(?: comment: (.*))?$/;
  interface Line {
    eid: string;
    user: string;
    ip: string;
    operation: string;
    record?: string;
    comment?: string;
  }
  async function linesAfter(count: number, wanted: number): Promise<Line[]> {
    for (let i = 0; i < 100; i++) {
      const text = (() => {
        try {
          return readFileSync(auditFile, 'utf8');
        } catch {
          return '';
        }
      })();
      const lines = text.split('\n').filter(Boolean);
      if (lines.length >= count + wanted)
        return lines.slice(count).map((l) => {
          const m = LINE.exec(l);
          if (!m) throw new Error(`not an audit line: ${l}`);
          return {
            eid: m[8] as string,
            user: m[9] as string,
            ip: m[10] as string,
            operation: m[11] as string,
            ...(m[12] !== undefined ? { record: m[12] } : {}),
            ...(m[13] !== undefined ? { comment: m[13] } : {}),
          };
        });
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`fewer than ${count + wanted} lines in ${auditFile}`);
  }
  const lineCount = () => {
    try {
      return readFileSync(auditFile, 'utf8').split('\n').filter(Boolean).length;
    } catch {
      return 0;
    }
  };

  test('a login, a create with its comment, a replace (two lines, one eid), a failed login', async () => {
    const before = lineCount();
    const started = Date.now();
    const session = await loginToken(t.url, OPS);
    await api(
      t.url,
      {
        action: 'create_record',
        record: 'audit.example.test',
        ttl: '60',
        type: 'A',
        value: '192.0.2.99',
        comment: 'first one',
      },
      { bearer: session },
    );
    await api(
      t.url,
      {
        action: 'replace_record',
        record: 'audit.example.test',
        type: 'A',
        ttl: '61',
        value: '192.0.2.99',
        new_value: '192.0.2.98',
      },
      { bearer: session },
    );
    await api(t.url, { action: 'delete_record', record: 'audit.example.test', type: 'A' }, { bearer: session });
    await api(t.url, { action: 'login_token', token: 'ops_wrong' });
    await api(
      t.url,
      {
        action: 'create_record',
        record: 'audit2.example.test',
        ttl: '60',
        type: 'A',
        value: '192.0.2.97',
        ptr: 'true',
      },
      { bearer: session },
    );
    const lines = await linesAfter(before, 8);
    const ops = { user: 'ops', ip: '127.0.0.1' };
    // One event id per request (a replace's two lines, a change and its PTR step share theirs). The lines of one
    // request are compared in any order: they are appended to the file one by one, without waiting for each other.
    const key = (v: unknown) => JSON.stringify(v);
    const byRequest = (groups: object[][]) =>
      groups.map((g) => g.map(key).sort()).sort((a, b) => key(a).localeCompare(key(b)));
    const groups = [...new Set(lines.map((l) => l.eid))].map((eid) =>
      lines.filter((l) => l.eid === eid).map(({ eid: _eid, ...rest }) => rest),
    );
    expect(byRequest(groups)).toEqual(
      byRequest([
        [{ ...ops, operation: 'login_success' }],
        [{ ...ops, operation: 'create', record: 'audit.example.test 60 A 192.0.2.99', comment: 'first one' }],
        [
          { ...ops, operation: 'replace_delete', record: 'audit.example.test A 192.0.2.99' },
          { ...ops, operation: 'replace_create', record: 'audit.example.test 61 A 192.0.2.98' },
        ],
        [{ ...ops, operation: 'delete', record: 'audit.example.test A' }],
        [{ ...ops, operation: 'login_fail' }],
        [
          { ...ops, operation: 'create', record: 'audit2.example.test 60 A 192.0.2.97' },
          { ...ops, operation: 'create', record: '97.2.0.192.in-addr.arpa 60 PTR audit2.example.test.' },
        ],
      ]),
    );
    // The time of the request, in UTC, as PHP's m/d/Y h:i:s a (12-hour clock).
    const text = readFileSync(auditFile, 'utf8').split('\n').filter(Boolean);
    const [, mm, dd, yyyy, hh, mi, ss, ampm] = LINE.exec(text[text.length - 1] ?? '') ?? [];
    const hour = (Number(hh) % 12) + (ampm === 'pm' ? 12 : 0);
    expect(Number(hh)).toBeGreaterThanOrEqual(1);
    expect(Number(hh)).toBeLessThanOrEqual(12);
    const at = Date.UTC(Number(yyyy), Number(mm) - 1, Number(dd), hour, Number(mi), Number(ss));
    expect(at).toBeGreaterThanOrEqual(Math.floor(started / 1000) * 1000);
    expect(at).toBeLessThanOrEqual(Date.now());
  });
});
