import { generateKeyPairSync } from 'node:crypto';
import { decodeProtectedHeader, importJWK, jwtVerify, SignJWT, type JWK } from 'jose';
import type { KeyVault } from '../../dns/dnssec/key-vault';
import { Identity, openUserStore, type UserStore } from '../../subgraphs/dns-api/identity';
import { TEST_ADMIN_PASSWORD } from '../support/system';
import { call, gql, login, startDnsApiSystem, userWithRole, type DnsApiSystem } from './api';

/**
 * Tokens the DNS API must refuse (401 with WWW-Authenticate, the reason in `error`) and login throttling (429 with
 * Retry-After). Expired and foreign-issuer tokens are made by a second Identity over the system's own user store
 * (the same signing key) with another clock or issuer: real tokens, only their claims differ.
 */
let api: DnsApiSystem;
let users: UserStore;
/** The system's master key: a second Identity opens the same signing key with it. */
let vault: KeyVault;

beforeAll(async () => {
  api = await startDnsApiSystem({ DNS_PORT: '0', DNS_API_LOGIN_FAILURES_PER_USER: '3' });
  users = await openUserStore({ dataDir: api.sys.system.config.dataDir });
  const dns = api.sys.system.dns;
  if (!dns) throw new Error('the DNS API system runs without its DNS part');
  vault = dns.vault;
}, 60_000);
afterAll(async () => {
  await users?.close();
  await api?.close();
});

const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
const parts = (token: string): [string, string, string] => token.split('.') as [string, string, string];

async function refused(token: string | undefined, authorization?: string) {
  const headers = authorization === undefined ? undefined : { authorization };
  const res = await call<{ error: string }>(api.gateway, 'GET', '/zones', { token, headers });
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="dns-api"/);
  expect(Object.keys(res.body)).toEqual(['error']);
  return res.body.error;
}

test('the JWKS publishes the public key only, and it verifies our tokens', async () => {
  const jwks = await call<{ keys: Array<JWK & { kty: string; kid: string }> }>(
    api.own,
    'GET',
    '/.well-known/jwks.json',
  );
  expect(jwks.status).toBe(200);
  expect(jwks.body.keys).toHaveLength(1);
  const [key] = jwks.body.keys;
  if (!key) throw new Error('no key published');
  expect(Object.keys(key).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x']); // no private "d"
  const { payload, protectedHeader } = await jwtVerify(api.adminToken, await importJWK(key, 'EdDSA'), {
    issuer: 'onegraph-dns-api',
    audience: 'onegraph',
  });
  expect(protectedHeader).toMatchObject({ alg: 'EdDSA', kid: key.kid });
  expect(payload).toMatchObject({ name: 'admin', role: 'admin' });
  expect(Object.keys(payload)).toEqual(expect.arrayContaining(['sub', 'iat', 'exp', 'iss', 'aud', 'jti']));
});

describe('refused tokens (401)', () => {
  test('no Authorization header: the challenge carries no error code (RFC 6750 §3.1)', async () => {
    expect(await refused(undefined)).toContain('no credential was sent');
    const res = await call(api.gateway, 'GET', '/zones');
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="dns-api"');
  });

  test('a refused token: the challenge says invalid_token', async () => {
    const res = await call(api.gateway, 'GET', '/zones', { token: 'not-a-token' });
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="dns-api", error="invalid_token"');
  });

  test('another scheme than Bearer', async () => {
    expect(
      await refused(undefined, `Basic ${Buffer.from(`admin:${TEST_ADMIN_PASSWORD}`).toString('base64')}`),
    ).toContain('must be Bearer');
  });

  test('a bearer token that is no JWT', async () => {
    expect(await refused('not-a-token')).toContain('not a JWT');
  });

  test('an Authorization header too long to be ours', async () => {
    expect(await refused('a'.repeat(5000))).toContain('longer than');
  });

  test('a tampered token (role raised in the payload, signature kept)', async () => {
    const viewer = await userWithRole(api, 'tamper', 'viewer');
    const [header, payload, signature] = parts(viewer.token);
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const forged = `${header}.${b64({ ...claims, role: 'admin', name: 'admin' })}.${signature}`;
    expect(await refused(forged)).toContain('signature does not verify');
    // the untouched token still works: only the change was refused
    expect((await call(api.gateway, 'GET', '/zones', { token: viewer.token })).status).toBe(200);
  });

  test('a token with a flipped signature byte', async () => {
    const [header, payload, signature] = parts(api.adminToken);
    const bytes = Buffer.from(signature, 'base64url');
    bytes[0] = (bytes[0] ?? 0) ^ 1;
    expect(await refused(`${header}.${payload}.${bytes.toString('base64url')}`)).toContain('signature does not verify');
  });

  test('alg: none (an unsigned token with valid claims)', async () => {
    const [header, payload] = parts(api.adminToken);
    const { kid } = decodeProtectedHeader(`${header}.${payload}.x`);
    const unsigned = `${b64({ alg: 'none', typ: 'JWT', kid })}.${payload}.`;
    expect(await refused(unsigned)).toContain('are not accepted; only EdDSA');
  });

  test('HS256 with the public key as the secret (algorithm confusion)', async () => {
    const jwks = await call<{ keys: Array<{ x: string; kid: string }> }>(api.gateway, 'GET', '/.well-known/jwks.json');
    const key = jwks.body.keys[0];
    if (!key) throw new Error('no key published');
    const [, payload] = parts(api.adminToken);
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const token = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', kid: key.kid })
      .sign(Buffer.from(key.x, 'base64url'));
    expect(await refused(token)).toContain('"HS256" are not accepted');
  });

  test('signed by another key under our key id', async () => {
    const [header, payload] = parts(api.adminToken);
    const { kid } = decodeProtectedHeader(`${header}.${payload}.x`);
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const { privateKey } = generateKeyPairSync('ed25519');
    const token = await new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', kid }).sign(privateKey);
    expect(await refused(token)).toContain('signature does not verify');
  });

  test('signed by another key with a key id we do not know', async () => {
    const [, payload] = parts(api.adminToken);
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const { privateKey } = generateKeyPairSync('ed25519');
    const token = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'EdDSA', kid: 'someone-elses-key' })
      .sign(privateKey);
    expect(await refused(token)).toContain('unknown kid');
  });

  test('expired (issued two hours ago with a one-hour lifetime)', async () => {
    const past = new Identity({ vault, store: users, now: () => new Date(Date.now() - 2 * 3_600_000) });
    const { token } = await past.login('admin', TEST_ADMIN_PASSWORD, '192.0.2.200');
    expect(await refused(token)).toContain('expired');
  });

  test('issued by another issuer with our key', async () => {
    const other = new Identity({ vault, store: users, issuer: 'another-issuer' });
    const { token } = await other.login('admin', TEST_ADMIN_PASSWORD, '192.0.2.201');
    expect(await refused(token)).toContain('not issued by onegraph-dns-api');
  });

  test('meant for another audience', async () => {
    const other = new Identity({ vault, store: users, audience: 'another-service' });
    const { token } = await other.login('admin', TEST_ADMIN_PASSWORD, '192.0.2.202');
    expect(await refused(token)).toContain('not meant for onegraph');
  });

  test('the same refusals on GraphQL: UNAUTHENTICATED with the reason', async () => {
    const [header, payload] = parts(api.adminToken);
    const res = await gql(api.sys.url, '{ zones { name } }', {}, `${header}.${payload}.`);
    expect(res.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(res.body.errors?.[0]?.message).toContain('signature');
    expect(res.body.data ?? null).toBeNull();
  });
});

describe('tokens of users that changed (401)', () => {
  test('a deleted user', async () => {
    const gone = await userWithRole(api, 'gone', 'operator');
    expect((await call(api.gateway, 'GET', '/zones', { token: gone.token })).status).toBe(200);
    expect((await call(api.gateway, 'DELETE', `/users/${gone.id}`, { token: api.adminToken })).status).toBe(200);
    expect(await refused(gone.token)).toContain('no longer exists');
  });

  test('a disabled user, who can neither log in; enabled again, a new login works', async () => {
    const off = await userWithRole(api, 'off', 'operator');
    const disable = await call(api.gateway, 'PUT', `/users/${off.id}`, {
      token: api.adminToken,
      body: { disabled: true },
    });
    expect(disable.status).toBe(200);
    expect(disable.body).toMatchObject({ disabled: true });
    expect(await refused(off.token)).toContain('disabled');
    const again = await call(api.gateway, 'POST', '/auth/login', { body: { username: 'off', password: off.password } });
    expect(again.status).toBe(401);
    await call(api.gateway, 'PUT', `/users/${off.id}`, { token: api.adminToken, body: { disabled: false } });
    const fresh = await login(api.gateway, 'off', off.password);
    expect((await call(api.gateway, 'GET', '/zones', { token: fresh })).status).toBe(200);
  });

  test('issued before an admin set a new password', async () => {
    const reset = await userWithRole(api, 'reset', 'viewer');
    const res = await call(api.gateway, 'PUT', `/users/${reset.id}`, {
      token: api.adminToken,
      body: { password: 'brand-new-password' },
    });
    expect(res.status).toBe(200);
    expect(await refused(reset.token)).toMatch(/password/);
    await login(api.gateway, 'reset', 'brand-new-password');
  });

  test('issued before the user changed their own password', async () => {
    const self = await userWithRole(api, 'self', 'viewer');
    const other = await login(api.gateway, 'self', self.password); // a second session of the same user
    const res = await call<{ token: string }>(api.gateway, 'PUT', '/users/me/password', {
      token: self.token,
      body: { current_password: self.password, new_password: 'self-new-password' },
    });
    expect(res.status).toBe(200);
    await refused(self.token);
    await refused(other);
    expect((await call(api.gateway, 'GET', '/users/me', { token: res.body.token })).status).toBe(200);
  });
});

describe('login throttling', () => {
  test('after 3 failures for one user name from one address: 429 with Retry-After there, even with the right password', async () => {
    const target = await userWithRole(api, 'throttled', 'viewer');
    for (let i = 0; i < 3; i++) {
      const res = await call(api.gateway, 'POST', '/auth/login', {
        body: { username: 'throttled', password: `wrong-password-${i}` },
      });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'the username or password is wrong' });
    }
    const blocked = await call<{ error: string }>(api.gateway, 'POST', '/auth/login', {
      body: { username: 'throttled', password: target.password },
    });
    expect(blocked.status).toBe(429);
    const retryAfter = Number(blocked.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(900);
    expect(blocked.body).toEqual({
      error: `too many failed logins for this username from this address; try again in ${retryAfter} seconds`,
    });
    // on the other listener too: the throttle is the identity's, not a listener's
    expect(
      (await call(api.own, 'POST', '/auth/login', { body: { username: 'throttled', password: target.password } }))
        .status,
    ).toBe(429);
    // another user name logs in as usual
    expect(await login(api.gateway, 'admin', TEST_ADMIN_PASSWORD)).toEqual(expect.any(String));
    // the token the user had before the failures still works: throttling is about logins
    expect((await call(api.gateway, 'GET', '/zones', { token: target.token })).status).toBe(200);
  });

  test('nobody can lock a user out: failures from one address leave the right password working from others', async () => {
    const target = await userWithRole(api, 'lockout-target', 'viewer');
    // The attacker fails far past the limit from 127.0.0.3 (a hostile neighbour on the same host).
    for (let i = 0; i < 6; i++) {
      const res = await call(api.gateway, 'POST', '/auth/login', {
        from: '127.0.0.3',
        body: { username: 'lockout-target', password: `attacker-guess-${i}` },
      });
      expect([401, 429]).toContain(res.status);
    }
    const body = { username: 'lockout-target', password: target.password };
    expect((await call(api.gateway, 'POST', '/auth/login', { from: '127.0.0.3', body })).status).toBe(429);
    // The user, from their own address, on both ports and over GraphQL.
    for (const base of [api.gateway, api.own]) {
      const res = await call<{ token: string }>(base, 'POST', '/auth/login', { from: '127.0.0.4', body });
      expect(res.status).toBe(200);
    }
    const viaGraphql = await call<{ data?: { login?: { token: string } } }>(api.sys.url, 'POST', '/graphql', {
      from: '127.0.0.5',
      body: {
        query: 'mutation($u: String!, $p: String!) { login(username: $u, password: $p) { token } }',
        variables: { u: body.username, p: body.password },
      },
    });
    expect(viaGraphql.body.data?.login?.token).toEqual(expect.any(String));
  });

  test('an unknown user name is answered like a wrong password', async () => {
    const res = await call(api.gateway, 'POST', '/auth/login', {
      body: { username: 'nobody-here', password: 'whatever-1' },
    });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'the username or password is wrong' });
  });
});

describe('login throttling per client address', () => {
  let own: DnsApiSystem;
  beforeAll(async () => {
    own = await startDnsApiSystem({ DNS_PORT: '0', DNS_API_LOGIN_FAILURES_PER_ADDRESS: '4' });
  }, 60_000);
  afterAll(() => own?.close());

  test('4 failures for 4 user names from one address: then every login from it is 429, tokens still work', async () => {
    for (let i = 0; i < 4; i++) {
      const res = await call(own.gateway, 'POST', '/auth/login', {
        body: { username: `spray-${i}`, password: 'guessed-password' },
      });
      expect(res.status).toBe(401);
    }
    const admin = await call(own.gateway, 'POST', '/auth/login', {
      body: { username: 'admin', password: TEST_ADMIN_PASSWORD },
    });
    expect(admin.status).toBe(429);
    expect(Number(admin.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(admin.body).toEqual({ error: expect.any(String) as unknown });
    expect((await call(own.gateway, 'GET', '/zones', { token: own.adminToken })).status).toBe(200);
  });
});
