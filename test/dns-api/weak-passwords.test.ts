/**
 * Weak passwords are refused wherever a DNS API password is set — a new user, an admin's change, a user's own
 * change, over REST and GraphQL, and ADMIN_PASSWORD at first start — with a 422 naming the field and saying why.
 */
import { loadConfig } from '../../gateway/host/config/load';
import { createLogger } from '../../platform/log';
import { createSystem } from '../../gateway/host/system';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_ADMIN_PASSWORD } from '../support/system';
import { call, gql, startDnsApiSystem, userWithRole, type DnsApiSystem } from './api';

let api: DnsApiSystem;
beforeAll(async () => {
  api = await startDnsApiSystem({ DNS_PORT: '0' });
}, 60_000);
afterAll(() => api?.close());

const COMMON = 'is one of the 49,233 most common passwords, which attackers try first; choose another';
const WEAK: Array<[string, string]> = [
  ['12345678', COMMON],
  ['password', COMMON],
  ['Password1', COMMON],
  ['aaaaaaaa', 'must have at least 3 different characters (it is too easy to guess)'],
  ['        ', 'must not be only white space'],
];

type Problem = { error: string; errors: Array<{ field: string; message: string }> };

test.each(WEAK)('a new user with the password %j: 422 naming password (%s)', async (password, why) => {
  const res = await call<Problem>(api.gateway, 'POST', '/users', {
    token: api.adminToken,
    body: { username: 'weakling', email: 'weak@example.test', password, role: 'viewer' },
  });
  expect(res.status).toBe(422);
  expect(res.body.errors).toEqual([{ field: 'password', message: `password ${why}` }]);
  expect(
    (await call<{ users: unknown[] }>(api.gateway, 'GET', '/users', { token: api.adminToken })).body.users,
  ).toHaveLength(1);
});

test('the user name as password: 422', async () => {
  const res = await call<Problem>(api.gateway, 'POST', '/users', {
    token: api.adminToken,
    body: { username: 'deploy-bot', email: 'bot@example.test', password: 'Deploy-Bot', role: 'viewer' },
  });
  expect(res.status).toBe(422);
  expect(res.body.errors).toEqual([{ field: 'password', message: 'password must not be the username' }]);
});

test('an admin setting a weak password, and a user changing to one, are refused; the old password stays', async () => {
  const user = await userWithRole(api, 'changer', 'operator');
  const byAdmin = await call<Problem>(api.gateway, 'PUT', `/users/${user.id}`, {
    token: api.adminToken,
    body: { password: 'iloveyou' },
  });
  expect(byAdmin.status).toBe(422);
  expect(byAdmin.body.errors).toEqual([{ field: 'password', message: `password ${COMMON}` }]);
  const own = await call<Problem>(api.gateway, 'PUT', '/users/me/password', {
    token: user.token,
    body: { current_password: user.password, new_password: 'qwertyuiop' },
  });
  expect(own.status).toBe(422);
  expect(own.body.errors).toEqual([{ field: 'new_password', message: `new_password ${COMMON}` }]);
  // Nothing changed: the old password logs in, the token still works.
  expect((await call(api.gateway, 'GET', '/users/me', { token: user.token })).status).toBe(200);
  const again = await call(api.gateway, 'POST', '/auth/login', {
    body: { username: 'changer', password: user.password },
  });
  expect(again.status).toBe(200);
});

test('over GraphQL: BAD_USER_INPUT naming the field', async () => {
  const res = await gql(
    api.sys.url,
    'mutation { createUser(input: { username: "gqlweak", email: "g@example.test", password: "abababab", role: VIEWER }) { id } }',
    {},
    api.adminToken,
  );
  expect(res.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'password' });
  expect(res.body.errors?.[0]?.message).toBe(
    'password must have at least 3 different characters (it is too easy to guess)',
  );
});

test('a weak ADMIN_PASSWORD stops the first start, naming the setting', async () => {
  const config = loadConfig({
    env: {
      PORT: '0',
      DNS_PORT: '0',
      DNS_API_PORT: '0',
      LOG_LEVEL: 'silent',
      DATA_DIR: mkdtempSync(join(tmpdir(), 'onegraph-weak-admin-')),
      ADMIN_PASSWORD: 'password123',
    },
  });
  await expect(createSystem(config, createLogger('silent'))).rejects.toThrow(`ADMIN_PASSWORD ${COMMON}`);
  expect(TEST_ADMIN_PASSWORD).not.toBe('password123');
});
