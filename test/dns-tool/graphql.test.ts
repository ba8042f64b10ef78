// @needs bind
import { dig } from '../support/dns-peers';
import { TEST_ADMIN_PASSWORD } from '../support/system';
import { api, loginToken, OPS, READER, ROOT, startEditorsSystem, type ToolSystem } from './tool-system';

/**
 * The DNS tool through `/graphql`: its fields with a session id, an API token or a DNS API token as Bearer, its
 * errors (extensions.code and the original's body in extensions.tool), and its fields of the Zone entity next to
 * the DNS API's.
 */
let t: ToolSystem;
let ops: string;
let reader: string;
let adminJwt: string;
let viewerJwt: string;

interface GqlError {
  message: string;
  extensions?: { code?: string; field?: string; tool?: unknown };
}
interface GqlReply<T> {
  status: number;
  data?: T | null;
  errors?: GqlError[];
}

async function gql<T = Record<string, unknown>>(
  query: string,
  variables: Record<string, unknown> = {},
  bearer?: string,
): Promise<GqlReply<T>> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  const res = await fetch(`${t.url}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
  const body = (await res.json()) as { data?: T | null; errors?: GqlError[] };
  return { status: res.status, ...body };
}

async function dnsApiLogin(username: string, password: string): Promise<string> {
  const r = await gql<{ login: { token: string } }>(
    'mutation ($u: String!, $p: String!) { login(username: $u, password: $p) { token } }',
    { u: username, p: password },
  );
  if (!r.data?.login.token) throw new Error(`DNS API login of ${username}: ${JSON.stringify(r.errors)}`);
  return r.data.login.token;
}

beforeAll(async () => {
  t = await startEditorsSystem();
  ops = await loginToken(t.url, OPS);
  reader = await loginToken(t.url, READER);
  adminJwt = await dnsApiLogin('admin', TEST_ADMIN_PASSWORD);
  const created = await gql(
    'mutation ($in: CreateUserInput!) { createUser(input: $in) { id } }',
    { in: { username: 'vera', email: 'vera@example.test', password: 'vera-password-1', role: 'VIEWER' } },
    adminJwt,
  );
  if (created.errors) throw new Error(`createUser: ${JSON.stringify(created.errors)}`);
  viewerJwt = await dnsApiLogin('vera', 'vera-password-1');
  // A zone of the embedded server the tool is not configured to manage.
  const zone = await gql('mutation { createZone(input: { name: "unmanaged.test" }) { name } }', {}, adminJwt);
  if (zone.errors) throw new Error(`createZone: ${JSON.stringify(zone.errors)}`);
}, 30_000);
afterAll(() => t?.close());

const ZONES = 'query { toolZones { name updateServer transferServer readOnly note maintenanceNote inTransfer } }';

describe('the tool with a session id, a token or a DNS API token as Bearer', () => {
  test('toolZones: the zones the caller may read, every field', async () => {
    const server = `127.0.0.1 ${t.dns.port}`;
    const r = await gql<{ toolZones: unknown[] }>(ZONES, {}, ops);
    expect(r.errors).toBeUndefined();
    expect(r.data?.toolZones).toEqual([
      {
        name: 'example.test',
        updateServer: server,
        transferServer: server,
        readOnly: false,
        note: 'The main zone / ünïcode',
        maintenanceNote: 'Moving on Friday',
        inTransfer: false,
      },
      {
        name: 'other.test',
        updateServer: server,
        transferServer: server,
        readOnly: false,
        note: null,
        maintenanceNote: null,
        inTransfer: null,
      },
      {
        name: '2.0.192.in-addr.arpa',
        updateServer: server,
        transferServer: server,
        readOnly: false,
        note: null,
        maintenanceNote: null,
        inTransfer: null,
      },
    ]);
    // The API token itself works as well as its session.
    expect((await gql<{ toolZones: unknown[] }>(ZONES, {}, OPS)).data?.toolZones).toEqual(r.data?.toolZones);
  });

  test('toolRecords and toolRecord: rows as dig prints them', async () => {
    const r = await gql<{ toolRecords: Array<{ name: string; ttl: number; type: string; value: string }> }>(
      'query { toolRecords(zone: "other.test") { name ttl class type value } }',
      {},
      ops,
    );
    const soa = {
      name: 'other.test.',
      ttl: 300,
      class: 'IN',
      type: 'SOA',
      value: 'ns1.other.test. hostmaster.other.test. 1 10800 3600 604800 300',
    };
    expect(r.data?.toolRecords).toEqual([
      soa,
      { name: 'other.test.', ttl: 300, class: 'IN', type: 'NS', value: 'ns1.example.test.' },
      { name: 'www.other.test.', ttl: 300, class: 'IN', type: 'A', value: '198.51.100.7' },
      soa,
    ]);
    const one = await gql('query { toolRecord(record: "api.example.test") { name type value } }', {}, reader);
    expect(one.data).toEqual({
      toolRecord: [
        { name: 'api.example.test.', type: 'CNAME', value: 'www.example.test.' },
        { name: 'www.example.test.', type: 'A', value: '192.0.2.10' },
      ],
    });
  });

  test('toolCreateRecord: the change is served, the warnings come back', async () => {
    const r = await gql(
      'mutation ($in: ToolRecordInput!) { toolCreateRecord(input: $in) { success warnings } }',
      {
        in: { record: 'gql.example.test', type: 'A', ttl: 90, value: '203.0.113.5', ptr: true, comment: 'via graphql' },
      },
      ops,
    );
    expect(r.errors).toBeUndefined();
    expect(r.data).toEqual({
      toolCreateRecord: {
        success: true,
        warnings: ['PTR record was not created: there is no PTR zone for record 203.0.113.5'],
      },
    });
    expect((await dig(t.dns, ['gql.example.test', 'A'])).answer).toEqual(['gql.example.test. 90 IN A 203.0.113.5']);
    const replaced = await gql(
      'mutation ($in: ToolReplaceInput!) { toolReplaceRecord(input: $in) { success warnings } }',
      { in: { record: 'gql', zone: 'example.test', type: 'A', ttl: 91, newValue: '203.0.113.6' } },
      ops,
    );
    expect(replaced.data).toEqual({ toolReplaceRecord: { success: true, warnings: [] } });
    expect((await dig(t.dns, ['gql.example.test', 'A'])).answer).toEqual(['gql.example.test. 91 IN A 203.0.113.6']);
  });

  test('toolSession and toolLogout: the session ends', async () => {
    const id = await loginToken(t.url, OPS);
    expect((await gql('query { toolSession { loggedIn user roles } }', {}, id)).data).toEqual({
      toolSession: { loggedIn: true, user: 'ops', roles: 'editors' },
    });
    expect((await gql('mutation { toolLogout { success warnings } }', {}, id)).data).toEqual({
      toolLogout: { success: true, warnings: [] },
    });
    expect((await gql('query { toolSession { loggedIn user roles } }', {}, id)).data).toEqual({
      toolSession: { loggedIn: false, user: null, roles: null },
    });
  });
});

describe('errors: the graph code in extensions.code, the original body in extensions.tool', () => {
  const first = (r: GqlReply<unknown>) => r.errors?.[0];

  test.each([
    [
      'anonymous',
      ZONES,
      undefined,
      'UNAUTHENTICATED',
      {
        error: 'Not authenticated',
        message: 'This call requires authentication, but you are not logged in',
        code: 403,
        loginFailure: false,
      },
    ],
    [
      'a read-only zone',
      'mutation { toolCreateRecord(input: { record: "x.ro.test", type: "A", ttl: 60, value: "192.0.2.1" }) { success } }',
      ROOT,
      'FORBIDDEN',
      {
        error: 'Unable to write: Read-only zone',
        message: 'Domain ro.test is not writeable',
        code: -1,
        loginFailure: false,
      },
    ],
    [
      'no rw',
      'mutation { toolDeleteRecord(input: { record: "www.other.test", type: "A" }) { success } }',
      OPS,
      'FORBIDDEN',
      {
        error: 'Permission denied',
        message: 'You are not authorized to edit other.test',
        code: -1,
        loginFailure: false,
      },
    ],
    [
      'no read right on the zone listed (not [] as for an empty zone)',
      'query { toolRecords(zone: "ro.test") { name } }',
      OPS,
      'FORBIDDEN',
      {
        error: 'Permission denied',
        message: "You don't have access to read data from this zone",
        code: -1,
        loginFailure: false,
      },
    ],
    [
      'an unknown zone',
      'query { toolRecords(zone: "nope.test") { name } }',
      OPS,
      'NOT_FOUND',
      { error: 'No such zone', message: 'This zone is not in configuration file', code: -1, loginFailure: false },
    ],
    [
      'a bad type',
      'query { toolRecord(record: "www.example.test", type: "CAA") { name } }',
      OPS,
      'BAD_USER_INPUT',
      { error: 'Invalid type', message: 'Type CAA is not a valid DNS record type', code: -1, loginFailure: false },
    ],
    [
      'the server refusing',
      'mutation { toolCreateRecord(input: { record: "x.refused.test", type: "A", ttl: 60, value: "192.0.2.1" }) { success } }',
      ROOT,
      'UPSTREAM_UNAVAILABLE',
      { error: 'ERROR: update failed: REFUSED', message: 'update failed: REFUSED', code: -1, loginFailure: false },
    ],
    [
      'a wrong token login',
      'mutation { toolLoginToken(token: "ops_nope") { sessionId } }',
      undefined,
      'UNAUTHENTICATED',
      { error: 'Login failed', message: 'Invalid username or password', code: 2, loginFailure: true },
    ],
    [
      'a wrong token as Bearer',
      'query { toolVersion toolSession { loggedIn } }',
      'ops_nope_wrong',
      'UNAUTHENTICATED',
      { error: 'Login failed', message: 'Invalid username or password', code: -1, loginFailure: false },
    ],
  ])('%s', async (_what, query, bearer, code, tool) => {
    const r = await gql(query, {}, bearer);
    expect(first(r)?.extensions?.code).toBe(code);
    expect(first(r)?.extensions?.tool).toEqual(tool);
    expect(first(r)?.message).toBe(tool.message);
  });

  test.each([
    [
      'toolCreateRecord, an A of 300.1.2.3',
      'mutation { toolCreateRecord(input: { record: "bad.example.test", type: "A", ttl: 60, value: "300.1.2.3" }) { success } }',
      'value',
      'A value must be an IPv4 address in dotted-quad form like 192.0.2.1, four numbers 0-255 without leading zeros (got "300.1.2.3")',
    ],
    [
      'toolReplaceRecord, a new MX without its preference',
      'mutation { toolReplaceRecord(input: { record: "www.example.test", type: "MX", ttl: 60, newValue: "mail.example.test." }) { success } }',
      'newValue',
      'MX value must be "<preference 0-65535> <exchange name>" (got "mail.example.test."): 1 field(s) missing',
    ],
    [
      'toolDeleteRecord, an AAAA given an IPv4 address',
      'mutation { toolDeleteRecord(input: { record: "www.example.test", type: "AAAA", value: "192.0.2.1" }) { success } }',
      'value',
      'AAAA value must be an IPv6 address like 2001:db8::1 (got "192.0.2.1") — an IPv4 address belongs in an A record',
    ],
  ])(
    '%s: BAD_USER_INPUT naming the field and what is allowed; /api.php keeps its body',
    async (_what, query, field, why) => {
      const soa = async () => (await dig(t.dns, ['example.test', 'SOA'])).answer;
      const before = await soa();
      const r = await gql(query, {}, OPS);
      expect(r.data).toBeNull();
      expect(first(r)?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(first(r)?.extensions).toMatchObject({ field });
      expect(first(r)?.message).toBe(`${field}: ${why}`);
      expect(first(r)?.extensions?.tool).toEqual({
        error: `ERROR: update failed: ${why}`,
        message: `update failed: ${why}`,
        code: -1,
        loginFailure: false,
      });
      expect(await soa()).toEqual(before); // nothing was sent: the serial did not move
    },
  );
});

describe('DNS API tokens and the Zone entity', () => {
  test('a DNS API admin token is accepted by the tool (admin → root): all zones, changes allowed', async () => {
    expect((await gql('query { toolSession { loggedIn user roles } }', {}, adminJwt)).data).toEqual({
      toolSession: { loggedIn: true, user: 'admin', roles: null },
    });
    const zones = await gql<{ toolZones: Array<{ name: string }> }>('query { toolZones { name } }', {}, adminJwt);
    expect(zones.data?.toolZones.map((z) => z.name)).toEqual([
      'example.test',
      'other.test',
      'ro.test',
      'refused.test',
      'badkey.test',
      'dead.test',
      '2.0.192.in-addr.arpa',
    ]);
    const created = await gql(
      'mutation { toolCreateRecord(input: { record: "jwt.example.test", type: "TXT", ttl: 60, value: "by admin" }) { success warnings } }',
      {},
      adminJwt,
    );
    expect(created.data).toEqual({ toolCreateRecord: { success: true, warnings: [] } });
    expect((await dig(t.dns, ['jwt.example.test', 'TXT'])).answer).toEqual(['jwt.example.test. 60 IN TXT "by admin"']);
    // /api.php takes it as Bearer too.
    expect((await api(t.url, { action: 'is_logged' }, { bearer: adminJwt })).body).toEqual({
      is_logged: true,
      user: 'admin',
    });
  });

  test('zones { name updateServer readOnly }: the DNS API lists, the tool adds its fields (null where it does not manage)', async () => {
    const server = `127.0.0.1 ${t.dns.port}`;
    const r = await gql<{ zones: Array<{ name: string; updateServer: string | null; readOnly: boolean | null }> }>(
      'query { zones { name recordsCount updateServer readOnly } }',
      {},
      adminJwt,
    );
    expect(r.errors).toBeUndefined();
    const byName = Object.fromEntries((r.data?.zones ?? []).map((z) => [z.name, z]));
    expect(byName['example.test']).toEqual({
      name: 'example.test',
      recordsCount: expect.any(Number),
      updateServer: server,
      readOnly: false,
    });
    expect(byName['ro.test']).toMatchObject({ updateServer: server, readOnly: true });
    expect(byName['unmanaged.test']).toMatchObject({ updateServer: null, readOnly: null });
    // dead.test is configured in the tool only: the DNS API does not list it.
    expect(byName['dead.test']).toBeUndefined();
  });

  test('Zone.transferRecords: the zone by transfer where the tool manages it, null elsewhere', async () => {
    type Transferred = { name: string; transferRecords: Array<{ name: string; type: string; value: string }> | null };
    const transfer = (zone: string) =>
      `${zone.replace(/\W/g, '_')}: zone(name: "${zone}") { name transferRecords { name type value } }`;
    // Two transfers per document: a transfer for every zone listed is over the cost limit (test/gateway/cost-*).
    const r = await gql<Record<string, Transferred>>(
      `query { ${transfer('badkey.test')} ${transfer('other.test')} }`,
      {},
      adminJwt,
    );
    const unmanaged = await gql<Record<string, Transferred>>(`query { ${transfer('unmanaged.test')} }`, {}, adminJwt);
    expect(unmanaged.errors).toBeUndefined();
    // badkey.test's server does not know the key: that field fails alone, with the tool's error.
    expect(r.errors?.map((e) => e.extensions?.tool)).toEqual([
      {
        error: 'ERROR: Unable to retrieve SOA record for badkey.test: NOTAUTH (BADKEY)',
        message: 'Unable to retrieve SOA record for badkey.test: NOTAUTH (BADKEY)',
        code: -1,
        loginFailure: false,
      },
    ]);
    const zones = [...Object.values(r.data ?? {}), ...Object.values(unmanaged.data ?? {})];
    const byName = Object.fromEntries(zones.map((z) => [z.name, z.transferRecords]));
    expect(byName['badkey.test']).toBeNull();
    const other = byName['other.test'] ?? [];
    expect(other[0]).toMatchObject({ name: 'other.test.', type: 'SOA' });
    expect(other[other.length - 1]).toEqual(other[0]);
    expect(other).toContainEqual({ name: 'other.test.', type: 'NS', value: 'ns1.example.test.' });
    expect(other).toContainEqual({ name: 'www.other.test.', type: 'A', value: '198.51.100.7' });
    expect(byName['unmanaged.test']).toBeNull();
  });

  test('two callers never see each other’s zones (same query, alternately, by GraphQL and /api.php)', async () => {
    const names = async (bearer: string) =>
      ((await gql<{ toolZones: Array<{ name: string }> }>(ZONES, {}, bearer)).data?.toolZones ?? []).map((z) => z.name);
    for (let i = 0; i < 2; i++) {
      expect(await names(ops)).toEqual(['example.test', 'other.test', '2.0.192.in-addr.arpa']);
      expect(await names(reader)).toEqual(['example.test']);
      expect(await names(viewerJwt)).toEqual([]);
      expect(Object.keys((await api(t.url, { action: 'list_zones' }, { bearer: reader })).body as object)).toEqual([
        'example.test',
      ]);
      expect((await api(t.url, { action: 'list_zones' }, { bearer: viewerJwt })).text).toBe('[]\n');
    }
    const entity = 'query { zones { name updateServer } }';
    for (let i = 0; i < 2; i++) {
      const admin = await gql<{ zones: Array<{ name: string; updateServer: string | null }> }>(entity, {}, adminJwt);
      const viewer = await gql<{ zones: Array<{ name: string; updateServer: string | null }> }>(entity, {}, viewerJwt);
      expect(admin.data?.zones.find((z) => z.name === 'example.test')?.updateServer).toBe(`127.0.0.1 ${t.dns.port}`);
      // The viewer sees the DNS API's zones, but the tool gives it nothing.
      expect(viewer.data?.zones.length).toBeGreaterThan(0);
      expect(viewer.data?.zones.every((z) => z.updateServer === null)).toBe(true);
    }
  });
});
