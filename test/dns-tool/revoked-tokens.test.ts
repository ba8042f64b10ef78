// @needs bind
/**
 * A DNS API token the DNS API has revoked must not work in the DNS tool either (`/api.php` and GraphQL): after its
 * user is disabled, deleted or changes password, and with the current role after a demotion. Attacked as a client
 * holding an old token would: each refused change must also not reach the DNS server.
 */
import { call, gql, login, startDnsApiSystem, userWithRole, type DnsApiSystem } from '../dns-api/api';
import { dig } from '../support/dns-peers';
import { api, expectError } from './tool-system';

let sys: DnsApiSystem;

beforeAll(async () => {
  sys = await startDnsApiSystem({ SEED_DEMO: 'true' });
}, 60_000);
afterAll(() => sys?.close());

/** create_record over /api.php with `token` as Bearer. */
const create = (token: string, name: string) =>
  api(
    sys.sys.url,
    { action: 'create_record', record: `${name}.example.test`, type: 'A', ttl: '60', value: '192.0.2.99' },
    { bearer: token },
  );

/** toolCreateRecord over GraphQL with `token`. */
const createOverGraphql = (token: string, name: string) =>
  gql(
    sys.sys.url,
    'mutation ($r: String!) { toolCreateRecord(input: { record: $r, type: "A", ttl: 60, value: "192.0.2.98" }) { success } }',
    { r: `${name}.example.test` },
    token,
  );

/** The A records the embedded server answers for the name (asked with dig). */
async function served(name: string): Promise<string[]> {
  return (await dig(sys.dns, [`${name}.example.test`, 'A'])).answer.map((line) => line.split(/\s+/).at(-1) ?? '');
}

const revocations: Array<[string, (id: string, password: string) => Promise<void>]> = [
  [
    'disabled',
    async (id) => {
      expect(
        (await call(sys.gateway, 'PUT', `/users/${id}`, { token: sys.adminToken, body: { disabled: true } })).status,
      ).toBe(200);
    },
  ],
  [
    'deleted',
    async (id) => {
      expect((await call(sys.gateway, 'DELETE', `/users/${id}`, { token: sys.adminToken })).status).toBe(200);
    },
  ],
  [
    'given a new password',
    async (id) => {
      const res = await call(sys.gateway, 'PUT', `/users/${id}`, {
        token: sys.adminToken,
        body: { password: 'a brand-new password 77' },
      });
      expect(res.status).toBe(200);
    },
  ],
  [
    'changing their own password',
    async (_id, password) => {
      const res = await call(sys.gateway, 'PUT', '/users/me/password', {
        token: await login(sys.gateway, current, password),
        body: { current_password: password, new_password: 'a brand-new password 78' },
      });
      expect(res.status).toBe(200);
    },
  ],
];
let current = '';

describe.each(revocations)('a token of a user %s', (what, revoke) => {
  test('is refused by /api.php and by GraphQL, and nothing reaches the DNS server', async () => {
    current = `revoked-${what.replace(/\W+/g, '-')}`;
    const user = await userWithRole(sys, current, 'admin');
    // Before: the token is as good in the tool as in the DNS API (admin → root).
    expect((await create(user.token, `${current}-before`)).status).toBe(200);
    await revoke(user.id, user.password);
    expect((await call(sys.gateway, 'GET', '/zones', { token: user.token })).status).toBe(401);

    expectError(
      await create(user.token, `${current}-after`),
      'Not authenticated',
      'This call requires authentication, but you are not logged in',
      403,
    );
    const viaGraphql = await createOverGraphql(user.token, `${current}-gql`);
    expect(viaGraphql.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(await served(`${current}-after`)).toEqual([]);
    expect(await served(`${current}-gql`)).toEqual([]);
    const logged = await api(sys.sys.url, { action: 'is_logged' }, { bearer: user.token });
    expect(logged.body).toEqual({ is_logged: false });
  });
});

test('a demoted user acts with the role they have now, not the one in the token', async () => {
  const user = await userWithRole(sys, 'demoted', 'admin');
  expect((await create(user.token, 'demoted-before')).status).toBe(200);
  const res = await call(sys.gateway, 'PUT', `/users/${user.id}`, { token: sys.adminToken, body: { role: 'viewer' } });
  expect(res.status).toBe(200);
  // A DNS API viewer has no role in the tool (dnsApiRoles maps only admin → root): no right to change anything.
  const refused = await create(user.token, 'demoted-after');
  expect(refused.status).toBe(400);
  expect(refused.body).toMatchObject({ error: 'Permission denied' });
  expect(await served('demoted-after')).toEqual([]);
  expect(await served('demoted-before')).toEqual(['192.0.2.99']);
});
