import { call, gql, startDnsApiSystem, userWithRole, type DnsApiSystem } from './api';

/**
 * Roles × operation classes (docs/dns-api.md): admin may everything, operator reads and writes zones and
 * records but not users, viewer only reads; without a token every path but login and the JWKS is 401 with
 * WWW-Authenticate. Over REST and over the GraphQL fields alike.
 */
type Role = 'admin' | 'operator' | 'viewer';
type Who = Role | 'anonymous';
type OpClass = 'read' | 'write' | 'users';

let api: DnsApiSystem;
const tokens: Partial<Record<Who, string>> = {};
/** Per caller: its own zone (with two records) and a user it may try to manage, so successful writes do not collide. */
const fixtures: Partial<
  Record<Who, { zone: string; doomedZone: string; rec: string; doomedRec: string; user: string }>
> = {};

async function admin<T = Record<string, unknown>>(method: string, path: string, body?: unknown) {
  const res = await call<T>(api.gateway, method, path, { token: api.adminToken, body });
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${res.text}`);
  return res.body;
}

beforeAll(async () => {
  api = await startDnsApiSystem();
  tokens.admin = api.adminToken;
  tokens.operator = (await userWithRole(api, 'op', 'operator')).token;
  tokens.viewer = (await userWithRole(api, 'view', 'viewer')).token;
  for (const who of ['admin', 'operator', 'viewer', 'anonymous'] as const) {
    const zone = `${who}.roles.test`;
    const doomedZone = `doomed-${who}.roles.test`;
    await admin('POST', '/zones', { name: zone });
    await admin('POST', '/zones', { name: doomedZone });
    const rec = await admin<{ id: string }>('POST', `/zones/${zone}/records`, {
      name: 'a',
      type: 'A',
      value: '192.0.2.1',
    });
    const doomedRec = await admin<{ id: string }>('POST', `/zones/${zone}/records`, {
      name: 'b',
      type: 'A',
      value: '192.0.2.2',
    });
    const user = await admin<{ id: string }>('POST', '/users', {
      username: `target-${who}`,
      email: `target-${who}@example.test`,
      password: 'target-password',
      role: 'viewer',
    });
    fixtures[who] = { zone, doomedZone, rec: rec.id, doomedRec: doomedRec.id, user: user.id };
  }
}, 60_000);
afterAll(() => api?.close());

interface Op {
  name: string;
  cls: OpClass;
  request(f: NonNullable<(typeof fixtures)[Who]>, who: Who): { method: string; path: string; body?: unknown };
}

const OPS: Op[] = [
  { name: 'GET /zones', cls: 'read', request: () => ({ method: 'GET', path: '/zones' }) },
  { name: 'GET /zones/{zone}', cls: 'read', request: (f) => ({ method: 'GET', path: `/zones/${f.zone}` }) },
  {
    name: 'GET /zones/{zone}/records',
    cls: 'read',
    request: (f) => ({ method: 'GET', path: `/zones/${f.zone}/records` }),
  },
  {
    name: 'GET /zones/{zone}/records/{id}',
    cls: 'read',
    request: (f) => ({ method: 'GET', path: `/zones/${f.zone}/records/${f.rec}` }),
  },
  {
    name: 'GET /zones/{zone}/export',
    cls: 'read',
    request: (f) => ({ method: 'GET', path: `/zones/${f.zone}/export` }),
  },
  { name: 'GET /users/me', cls: 'read', request: () => ({ method: 'GET', path: '/users/me' }) },
  {
    name: 'POST /zones',
    cls: 'write',
    request: (_f, who) => ({ method: 'POST', path: '/zones', body: { name: `new-${who}.roles.test` } }),
  },
  {
    name: 'PUT /zones/{zone}',
    cls: 'write',
    request: (f) => ({ method: 'PUT', path: `/zones/${f.zone}`, body: { minimum: 60 } }),
  },
  {
    name: 'POST /zones/{zone}/records',
    cls: 'write',
    request: (f) => ({
      method: 'POST',
      path: `/zones/${f.zone}/records`,
      body: { name: 'c', type: 'TXT', value: 'hello' },
    }),
  },
  {
    name: 'PUT /zones/{zone}/records/{id}',
    cls: 'write',
    request: (f) => ({ method: 'PUT', path: `/zones/${f.zone}/records/${f.rec}`, body: { ttl: 60 } }),
  },
  {
    name: 'DELETE /zones/{zone}/records/{id}',
    cls: 'write',
    request: (f) => ({ method: 'DELETE', path: `/zones/${f.zone}/records/${f.doomedRec}` }),
  },
  {
    name: 'POST /zones/{zone}/records/batch',
    cls: 'write',
    request: (f) => ({
      method: 'POST',
      path: `/zones/${f.zone}/records/batch`,
      body: { operations: [{ operation: 'create', name: 'd', type: 'A', value: '192.0.2.4' }] },
    }),
  },
  {
    name: 'GET /zones/{zone}/dnssec',
    cls: 'read',
    request: (f) => ({ method: 'GET', path: `/zones/${f.zone}/dnssec` }),
  },
  {
    name: 'POST /zones/{zone}/dnssec',
    cls: 'write',
    request: (f) => ({ method: 'POST', path: `/zones/${f.zone}/dnssec`, body: { enable: true, algorithm: 'ED25519' } }),
  },
  {
    name: 'POST /zones/{zone}/dnssec/rotate',
    cls: 'write',
    request: (f) => ({ method: 'POST', path: `/zones/${f.zone}/dnssec/rotate` }),
  },
  {
    name: 'DELETE /zones/{zone}',
    cls: 'write',
    request: (f) => ({ method: 'DELETE', path: `/zones/${f.doomedZone}` }),
  },
  { name: 'GET /users', cls: 'users', request: () => ({ method: 'GET', path: '/users' }) },
  { name: 'GET /users/{id}', cls: 'users', request: (f) => ({ method: 'GET', path: `/users/${f.user}` }) },
  {
    name: 'POST /users',
    cls: 'users',
    request: (_f, who) => ({
      method: 'POST',
      path: '/users',
      body: { username: `made-by-${who}`, email: 'x@example.test', password: 'some-password', role: 'viewer' },
    }),
  },
  {
    name: 'PUT /users/{id}',
    cls: 'users',
    request: (f) => ({ method: 'PUT', path: `/users/${f.user}`, body: { email: 'changed@example.test' } }),
  },
  { name: 'DELETE /users/{id}', cls: 'users', request: (f) => ({ method: 'DELETE', path: `/users/${f.user}` }) },
];

const MAY: Record<Role, readonly OpClass[]> = {
  admin: ['read', 'write', 'users'],
  operator: ['read', 'write'],
  viewer: ['read'],
};

const CASES = (['admin', 'operator', 'viewer', 'anonymous'] as const).flatMap((who) =>
  OPS.map((op) => ({ who, op: op.name, cls: op.cls, run: op })),
);

describe('REST', () => {
  test.each(CASES)('$who: $op ($cls)', async ({ who, cls, run }) => {
    const f = fixtures[who];
    if (!f) throw new Error('fixtures missing');
    const { method, path, body } = run.request(f, who);
    const res = await call(api.gateway, method, path, { token: tokens[who], body });
    if (who === 'anonymous') {
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="dns-api"/);
      expect(res.body).toEqual({ error: expect.stringContaining('Authorization') as unknown });
    } else if (MAY[who].includes(cls)) {
      expect([200, 201]).toContain(res.status);
    } else {
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: expect.stringContaining(`the role ${who} may not`) as unknown });
      expect(res.headers.get('www-authenticate')).toBeNull();
    }
  });

  test('a refused write changed nothing', async () => {
    expect((await call(api.gateway, 'GET', '/zones/new-viewer.roles.test', { token: tokens.viewer })).status).toBe(404);
    expect((await call(api.gateway, 'GET', '/zones/doomed-viewer.roles.test', { token: tokens.viewer })).status).toBe(
      200,
    );
    const dnssec = await call(api.gateway, 'GET', '/zones/viewer.roles.test/dnssec', { token: tokens.viewer });
    expect(dnssec.body).toEqual({ enabled: false, keys: [], ds_records: [], denial: null, nsec3param: null });
    const users = await call<{ users: Array<{ username: string; email: string }> }>(api.gateway, 'GET', '/users', {
      token: api.adminToken,
    });
    const names = users.body.users.map((u) => u.username);
    expect(names).toContain('made-by-admin');
    expect(names).not.toContain('made-by-operator');
    expect(names).not.toContain('made-by-anonymous');
    expect(users.body.users.find((u) => u.username === 'target-viewer')?.email).toBe('target-viewer@example.test');
  });

  test('login and the JWKS need no token', async () => {
    expect((await call(api.gateway, 'GET', '/.well-known/jwks.json')).status).toBe(200);
    expect(
      (await call(api.gateway, 'POST', '/auth/login', { body: { username: 'view', password: 'view-password-1' } }))
        .status,
    ).toBe(200);
  });

  test('a demotion applies at once, whatever the token says', async () => {
    const demoted = await userWithRole(api, 'demoted', 'operator');
    const zone = fixtures.operator?.zone as string;
    const body = { name: 'e', type: 'A', value: '192.0.2.5' };
    expect((await call(api.gateway, 'POST', `/zones/${zone}/records`, { token: demoted.token, body })).status).toBe(
      201,
    );
    await admin('PUT', `/users/${demoted.id}`, { role: 'viewer' });
    const res = await call(api.gateway, 'POST', `/zones/${zone}/records`, {
      token: demoted.token,
      body: { ...body, value: '192.0.2.6' },
    });
    expect(res.status).toBe(403);
  });
});

describe('GraphQL', () => {
  const FIELDS: Array<{ cls: OpClass; query: string; variables?: (who: Who) => Record<string, unknown> }> = [
    { cls: 'read', query: '{ zones { name } }' },
    { cls: 'read', query: '{ me { username } }' },
    { cls: 'read', query: '{ zone(name: "admin.roles.test") { records { records { id } } } }' },
    {
      cls: 'write',
      query: 'mutation ($n: String!) { createZone(input: { name: $n }) { name } }',
      variables: (who) => ({ n: `gql-${who}.roles.test` }),
    },
    {
      cls: 'write',
      query:
        'mutation ($z: String!) { createRecord(zone: $z, input: { name: "g", type: "A", value: "192.0.2.9" }) { id } }',
      variables: (who) => ({ z: fixtures[who]?.zone }),
    },
    { cls: 'read', query: '{ zone(name: "admin.roles.test") { dnssec { enabled keys { keyType } } } }' },
    {
      cls: 'write',
      query:
        'mutation ($z: String!) { setZoneDnssec(zone: $z, input: { enable: true, algorithm: "ED25519" }) { enabled } }',
      variables: (who) => ({ z: `gql-${who}.roles.test` }),
    },
    { cls: 'users', query: '{ users { username } }' },
    {
      cls: 'users',
      query:
        'mutation ($u: String!) { createUser(input: { username: $u, email: "g@example.test", password: "gql-password", role: VIEWER }) { id } }',
      variables: (who) => ({ u: `gql-${who}` }),
    },
  ];
  const GQL_CASES = (['admin', 'operator', 'viewer', 'anonymous'] as const).flatMap((who) =>
    FIELDS.map((f) => ({ who, cls: f.cls, field: f.query.slice(0, 40), f })),
  );

  test.each(GQL_CASES)('$who: $field… ($cls)', async ({ who, cls, f }) => {
    const res = await gql(api.sys.url, f.query, f.variables?.(who) ?? {}, tokens[who]);
    const code = res.body.errors?.[0]?.extensions?.code;
    if (who === 'anonymous') expect(code).toBe('UNAUTHENTICATED');
    else if (MAY[who].includes(cls)) {
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data).toBeTruthy();
    } else {
      expect(code).toBe('FORBIDDEN');
      expect(res.body.errors?.[0]?.message).toContain(`the role ${who} may not`);
    }
  });
});
