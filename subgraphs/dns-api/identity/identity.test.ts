/**
 * The identity provider end to end on a SQLite user store: tokens (good, expired, tampered, forged, wrong
 * algorithm, issuer or audience, revoked), login and its throttling, users and the last-admin rules, bootstrap,
 * the JWKS checked by an independent verifier, and secrets kept out of logs.
 *
 * New hashes use scrypt N=2^10 here (fast); one test runs the default parameters.
 */
import { generateKeyPairSync, randomUUID, createPrivateKey, type JsonWebKey } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import {
  SignJWT,
  UnsecuredJWT,
  createLocalJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  jwtVerify,
  type JSONWebKeySet,
} from 'jose';
import { IdentityError } from './errors';
import { Identity, MAX_AUTHORIZATION_LENGTH, type Caller, type IdentityOptions } from './identity';
// the implementation module itself: the face's re-exports are getters jest cannot spy on
import * as passwords from '../../../platform/passwords/hashing';
import { openSqliteUserStore } from './store/sqlite';
import type { SigningKey, UserStore } from './store/types';
import { TestClock, expectIdentityError, TEST_VAULT } from './testing/index';

const FAST = { N: 2 ** 10, r: 8, p: 1 };
const START = '2024-06-01T09:00:00.000Z';
const ISO_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const dir = mkdtempSync(join(tmpdir(), 'identity-'));
let n = 0;
const stores: UserStore[] = [];

afterAll(async () => {
  for (const s of stores) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

async function newStore(): Promise<UserStore> {
  const store = await openSqliteUserStore({ file: join(dir, `identity-${++n}.sqlite`) });
  stores.push(store);
  return store;
}

interface Setup {
  identity: Identity;
  store: UserStore;
  clock: TestClock;
  admin: Caller;
  adminPassword: string;
}

/** A new identity on a new database, with one admin `root`. */
async function setup(options: Partial<IdentityOptions> = {}): Promise<Setup> {
  const store = options.store ?? (await newStore());
  const clock = new TestClock(START);
  const identity = new Identity({ vault: TEST_VAULT, store, now: clock.now, scrypt: FAST, ...options });
  const adminPassword = 'root password 1';
  const user = await identity.createUser({
    username: 'root',
    email: 'root@example.com',
    password: adminPassword,
    role: 'admin',
  });
  return { identity, store, clock, admin: { id: user.id, username: 'root', role: 'admin' }, adminPassword };
}

const bearer = (token: string) => `Bearer ${token}`;
const b64 = (json: unknown) => Buffer.from(JSON.stringify(json)).toString('base64url');
const ADDRESS = '192.0.2.10';

/** The stored signing key's private key (to make tokens the provider did not issue, with its key). */
async function storedPrivateKey(store: UserStore) {
  const [key] = await store.signingKeys();
  if (!key) throw new Error('no signing key stored yet');
  return { kid: key.kid, key: createPrivateKey({ key: openedJwk(key), format: 'jwk' }) };
}

/** A stored key's private JWK, opened with the test master key. */
function openedJwk(key: SigningKey): JsonWebKey {
  return JSON.parse(TEST_VAULT.open(key.privateKey, `dns-api-signing-key:${key.kid}`).toString('utf8')) as JsonWebKey;
}

describe('tokens', () => {
  test('login gives an EdDSA JWT with sub, name, role, iat, exp, iss, aud, jti, ver and kid; it authenticates', async () => {
    const { identity, admin, adminPassword } = await setup();
    const issued = await identity.login('root', adminPassword, ADDRESS);
    expect(issued.expiresAt).toBe('2024-06-01T10:00:00.000Z');
    expect(issued.expiresAt).toMatch(ISO_Z);
    const header = decodeProtectedHeader(issued.token);
    const { keys } = await identity.jwks();
    expect(header).toEqual({ alg: 'EdDSA', kid: keys[0]?.kid, typ: 'JWT' });
    const claims = decodeJwt(issued.token);
    expect(claims).toEqual({
      sub: admin.id,
      name: 'root',
      role: 'admin',
      ver: 0,
      iat: Date.parse(START) / 1000,
      exp: Date.parse(START) / 1000 + 3600,
      iss: 'onegraph-dns-api',
      aud: 'onegraph',
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(await identity.authenticate(bearer(issued.token))).toEqual(admin);
    // the scheme is case-insensitive, surrounding blanks are fine
    expect(await identity.authenticate(`  bearer   ${issued.token} `)).toEqual(admin);
  });

  test('lifetime, issuer and audience are options', async () => {
    const { identity, adminPassword, clock } = await setup({
      tokenLifetimeSeconds: 120,
      issuer: 'issuer-x',
      audience: 'aud-y',
    });
    const issued = await identity.login('root', adminPassword, ADDRESS);
    expect(issued.expiresAt).toBe('2024-06-01T09:02:00.000Z');
    expect(decodeJwt(issued.token)).toMatchObject({ iss: 'issuer-x', aud: 'aud-y' });
    clock.tick(119_000);
    await identity.authenticate(bearer(issued.token));
    clock.tick(1_000);
    await expectIdentityError(identity.authenticate(bearer(issued.token)), 'UNAUTHENTICATED', { reason: 'expired' });
  });

  test('expired: the clock moved past exp', async () => {
    const { identity, adminPassword, clock } = await setup();
    const { token } = await identity.login('root', adminPassword, ADDRESS);
    clock.tick(3599_000);
    await identity.authenticate(bearer(token));
    clock.tick(1_000);
    await expectIdentityError(identity.authenticate(bearer(token)), 'UNAUTHENTICATED', {
      reason: 'expired',
      message: 'the token has expired; log in again',
    });
  });

  test('tampered payload (a viewer makes itself admin) fails the signature', async () => {
    const { identity } = await setup();
    await identity.createUser({
      username: 'val',
      email: 'val@example.com',
      password: 'val password 1',
      role: 'viewer',
    });
    const { token } = await identity.login('val', 'val password 1', ADDRESS);
    const [h, p, s] = token.split('.') as [string, string, string];
    const forged = [h, b64({ ...decodeJwt(token), role: 'admin', exp: 4102444800 }), s].join('.');
    await expectIdentityError(identity.authenticate(bearer(forged)), 'UNAUTHENTICATED', {
      reason: 'signature',
      message: 'the token signature does not verify (the token was altered or forged)',
    });
    expect(p).not.toBe(forged.split('.')[1]);
  });

  test('tampered signature', async () => {
    const { identity, adminPassword } = await setup();
    const { token } = await identity.login('root', adminPassword, ADDRESS);
    const [h, p, s] = token.split('.') as [string, string, string];
    const i = 10; // a character in the middle: every bit of it is signature
    const flipped = s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    await expectIdentityError(identity.authenticate(bearer(`${h}.${p}.${flipped}`)), 'UNAUTHENTICATED', {
      reason: 'signature',
    });
  });

  test('alg none is refused', async () => {
    const { identity, adminPassword } = await setup();
    const { token } = await identity.login('root', adminPassword, ADDRESS);
    const unsecured = new UnsecuredJWT(decodeJwt(token)).encode();
    expect(unsecured.endsWith('.')).toBe(true);
    await expectIdentityError(identity.authenticate(bearer(unsecured)), 'UNAUTHENTICATED', {
      reason: 'algorithm',
      message: 'tokens signed with "none" are not accepted; only EdDSA',
    });
    // with our kid and a leftover signature
    const withKid = `${b64({ alg: 'none', kid: decodeProtectedHeader(token).kid })}.${token.split('.')[1]}.${token.split('.')[2]}`;
    await expectIdentityError(identity.authenticate(bearer(withKid)), 'UNAUTHENTICATED', { reason: 'algorithm' });
  });

  test('an HS256 token signed with the public key as the secret is refused (algorithm confusion)', async () => {
    const { identity, adminPassword } = await setup();
    const { token } = await identity.login('root', adminPassword, ADDRESS);
    const { keys } = await identity.jwks();
    const [jwk] = keys;
    if (!jwk?.x) throw new Error('no key published');
    for (const secret of [Buffer.from(jwk.x, 'base64url'), Buffer.from(JSON.stringify(jwk)), Buffer.from(jwk.x)]) {
      const forged = await new SignJWT({ ...decodeJwt(token), role: 'admin' })
        .setProtectedHeader({ alg: 'HS256', kid: jwk.kid })
        .sign(secret);
      await expectIdentityError(identity.authenticate(bearer(forged)), 'UNAUTHENTICATED', {
        reason: 'algorithm',
        message: 'tokens signed with "HS256" are not accepted; only EdDSA',
      });
    }
  });

  test('another issuer, another audience: refused even when signed with our key', async () => {
    const { identity, store, adminPassword } = await setup();
    const { token } = await identity.login('root', adminPassword, ADDRESS);
    const claims = decodeJwt(token);
    const { kid, key } = await storedPrivateKey(store);
    const sign = (extra: Record<string, unknown>) =>
      new SignJWT({ ...claims, ...extra }).setProtectedHeader({ alg: 'EdDSA', kid }).sign(key);
    await expectIdentityError(identity.authenticate(bearer(await sign({ iss: 'evil' }))), 'UNAUTHENTICATED', {
      reason: 'issuer',
      message: 'the token was not issued by onegraph-dns-api',
    });
    await expectIdentityError(identity.authenticate(bearer(await sign({ aud: 'another-app' }))), 'UNAUTHENTICATED', {
      reason: 'audience',
      message: 'the token is not meant for onegraph',
    });
    // the same claims re-signed are accepted: the refusals above are about iss and aud only
    expect((await identity.authenticate(bearer(await sign({})))).username).toBe('root');
    // and a provider of another issuer on the same store (same key) issues tokens this one refuses
    const other = new Identity({
      vault: TEST_VAULT,
      store,
      issuer: 'other-issuer',
      scrypt: FAST,
      now: () => new Date(START),
    });
    const foreign = await other.login('root', adminPassword, ADDRESS);
    await expectIdentityError(identity.authenticate(bearer(foreign.token)), 'UNAUTHENTICATED', { reason: 'issuer' });
  });

  test('a token signed by a different Ed25519 key: with our kid the signature fails; with its own kid the key is unknown', async () => {
    const { identity, adminPassword } = await setup();
    const { token } = await identity.login('root', adminPassword, ADDRESS);
    const claims = decodeJwt(token);
    const ourKid = decodeProtectedHeader(token).kid;
    const { privateKey } = generateKeyPairSync('ed25519');
    const withOurKid = await new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', kid: ourKid }).sign(privateKey);
    await expectIdentityError(identity.authenticate(bearer(withOurKid)), 'UNAUTHENTICATED', { reason: 'signature' });
    const withOwnKid = await new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', kid: 'attacker' }).sign(privateKey);
    await expectIdentityError(identity.authenticate(bearer(withOwnKid)), 'UNAUTHENTICATED', {
      reason: 'unknown_key',
      message: 'the token was not signed by a key of this server (unknown kid)',
    });
    const noKid = await new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA' }).sign(privateKey);
    await expectIdentityError(identity.authenticate(bearer(noKid)), 'UNAUTHENTICATED', { reason: 'unknown_key' });
  });

  test('a token without ver or with a non-UUID sub is refused, even when signed with our key', async () => {
    const { identity, store, adminPassword } = await setup();
    const { token } = await identity.login('root', adminPassword, ADDRESS);
    const { kid, key } = await storedPrivateKey(store);
    const claims = decodeJwt(token);
    const sign = (c: Record<string, unknown>) => new SignJWT(c).setProtectedHeader({ alg: 'EdDSA', kid }).sign(key);
    const { ver: _ver, ...withoutVer } = claims;
    for (const c of [withoutVer, { ...claims, ver: '0' }, { ...claims, ver: -1 }, { ...claims, sub: 'root' }]) {
      await expectIdentityError(identity.authenticate(bearer(await sign(c))), 'UNAUTHENTICATED', { reason: 'claims' });
    }
    const { jti: _jti, ...withoutJti } = claims;
    await expectIdentityError(identity.authenticate(bearer(await sign(withoutJti))), 'UNAUTHENTICATED', {
      reason: 'claims',
      message: "the token's jti claim is missing or invalid",
    });
  });

  test('the user deleted, disabled, or its password changed after issue: refused; a demotion applies at once', async () => {
    const { identity, adminPassword } = await setup();
    const mk = async (username: string) => {
      const u = await identity.createUser({
        username,
        email: `${username}@example.com`,
        password: `${username} password`,
        role: 'operator',
      });
      return { u, token: (await identity.login(username, `${username} password`, ADDRESS)).token };
    };
    const gone = await mk('gone');
    await identity.deleteUser(gone.u.id);
    await expectIdentityError(identity.authenticate(bearer(gone.token)), 'UNAUTHENTICATED', {
      reason: 'user_deleted',
      message: "the token's user no longer exists",
    });

    const off = await mk('off');
    await identity.updateUser(off.u.id, { disabled: true });
    await expectIdentityError(identity.authenticate(bearer(off.token)), 'UNAUTHENTICATED', {
      reason: 'user_disabled',
      message: "the token's user is disabled",
    });
    // enabled again: the old token stays revoked (disabling raised the token version)
    await identity.updateUser(off.u.id, { disabled: false });
    await expectIdentityError(identity.authenticate(bearer(off.token)), 'UNAUTHENTICATED', { reason: 'revoked' });

    const moved = await mk('moved');
    await identity.updateUser(moved.u.id, { password: 'a new password' });
    await expectIdentityError(identity.authenticate(bearer(moved.token)), 'UNAUTHENTICATED', {
      reason: 'revoked',
      message:
        "the token was revoked: its user's password changed or the user was disabled after it was issued; log in again",
    });
    const fresh = await identity.login('moved', 'a new password', ADDRESS);
    expect((await identity.authenticate(bearer(fresh.token))).username).toBe('moved');

    const demoted = await mk('demoted');
    await identity.updateUser(demoted.u.id, { role: 'viewer' });
    expect(decodeJwt(demoted.token).role).toBe('operator');
    expect(await identity.authenticate(bearer(demoted.token))).toEqual({
      id: demoted.u.id,
      username: 'demoted',
      role: 'viewer',
    });
    expect(adminPassword).toBeDefined();
  });

  test.each([
    [undefined, 'missing', 'no credential was sent; send the header Authorization: Bearer <token>'],
    ['', 'missing', undefined],
    ['   ', 'missing', undefined],
    [
      'Basic cm9vdDpwYXNzd29yZA==',
      'not_bearer',
      'the Authorization header must be Bearer <token>, with the token from login',
    ],
    ['Bearer', 'not_bearer', undefined],
    ['Bearer a b', 'not_bearer', undefined],
    ['Token abc.def.ghi', 'not_bearer', undefined],
    ['Bearer abc', 'malformed', 'the bearer token is not a JWT (three base64url parts separated by dots)'],
    ['Bearer a.b.c.d', 'malformed', undefined],
    ['Bearer a+b.c.d', 'malformed', undefined],
    [
      'Bearer bm90IGpzb24.e30.c2ln',
      'malformed',
      'the bearer token is not a JWT: its header is not base64url-encoded JSON',
    ],
    [
      `Bearer ${'a'.repeat(MAX_AUTHORIZATION_LENGTH)}`,
      'too_long',
      'the Authorization header is longer than 4096 characters; send Bearer <token>',
    ],
  ])('the header %j is refused (%s)', async (header, reason, message) => {
    const { identity } = await setup();
    await expectIdentityError(identity.authenticate(header), 'UNAUTHENTICATED', {
      reason: reason as IdentityError['reason'],
      ...(message !== undefined && { message }),
    });
  });

  test('a header with a non-JSON-object payload is malformed', async () => {
    const { identity, store, adminPassword } = await setup();
    await identity.login('root', adminPassword, ADDRESS);
    const { kid } = await storedPrivateKey(store);
    await expectIdentityError(
      identity.authenticate(`Bearer ${b64({ alg: 'EdDSA', kid })}.${Buffer.from('[1]').toString('base64url')}.AAAA`),
      'UNAUTHENTICATED',
      { reason: 'signature' }, // the signature is checked first: nothing of an unsigned payload is trusted
    );
  });
});

describe('JWKS', () => {
  test('publishes the public key only, with kid, alg and use; an independent verifier accepts our tokens', async () => {
    const { identity, admin, adminPassword } = await setup();
    const jwks = JSON.parse(JSON.stringify(await identity.jwks())) as JSONWebKeySet;
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toEqual({
      kty: 'OKP',
      crv: 'Ed25519',
      x: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      kid: expect.any(String),
      alg: 'EdDSA',
      use: 'sig',
    });
    const { token } = await identity.login('root', adminPassword, ADDRESS);
    const verify = createLocalJWKSet(jwks);
    const { payload, protectedHeader } = await jwtVerify(token, verify, {
      issuer: 'onegraph-dns-api',
      audience: 'onegraph',
      algorithms: ['EdDSA'],
      currentDate: new Date(START),
    });
    expect(payload.sub).toBe(admin.id);
    expect(protectedHeader.kid).toBe(jwks.keys[0]?.kid);
  });

  test('the key is made once and kept: a second provider on the same store publishes it and accepts our tokens', async () => {
    const { identity, store, adminPassword } = await setup();
    const first = await identity.jwks();
    const { token } = await identity.login('root', adminPassword, ADDRESS);
    const second = new Identity({ vault: TEST_VAULT, store, scrypt: FAST, now: () => new Date(START) });
    expect(await second.jwks()).toEqual(first);
    expect((await second.authenticate(bearer(token))).username).toBe('root');
  });
});

describe('login', () => {
  test('records last_login; a wrong password, an unknown user and a disabled user get the same error', async () => {
    const { identity, clock, adminPassword } = await setup();
    await identity.createUser({ username: 'dis', email: 'd@example.com', password: 'dis password', role: 'viewer' });
    const before = await identity.listUsers();
    expect(before.find((u) => u.username === 'root')?.lastLogin).toBeNull();
    clock.tick(5_000);
    await identity.login('ROOT', adminPassword, ADDRESS); // usernames are case-insensitive
    expect((await identity.listUsers()).find((u) => u.username === 'root')?.lastLogin).toBe('2024-06-01T09:00:05.000Z');
    const dis = (await identity.listUsers()).find((u) => u.username === 'dis')!;
    await identity.updateUser(dis.id, { disabled: true });
    const same = { reason: 'credentials' as const, message: 'the username or password is wrong' };
    await expectIdentityError(identity.login('root', 'wrong password', ADDRESS), 'UNAUTHENTICATED', same);
    await expectIdentityError(identity.login('nobody', 'wrong password', ADDRESS), 'UNAUTHENTICATED', same);
    await expectIdentityError(identity.login('dis', 'dis password', ADDRESS), 'UNAUTHENTICATED', same);
    await expectIdentityError(identity.login('bad name!', 'whatever', ADDRESS), 'UNAUTHENTICATED', same);
  });

  test('an unknown user costs one scrypt check like a known one (against a hash of the same parameters)', async () => {
    const { identity, adminPassword } = await setup();
    const spy = jest.spyOn(passwords, 'verifyPassword');
    try {
      await expectIdentityError(identity.login('root', 'wrong password', ADDRESS), 'UNAUTHENTICATED');
      await expectIdentityError(identity.login('nobody', 'wrong password', ADDRESS), 'UNAUTHENTICATED');
      expect(spy).toHaveBeenCalledTimes(2);
      const params = spy.mock.calls.map(([, hash]) => hash.split('$').slice(0, 4).join('$'));
      expect(params).toEqual(['scrypt$1024$8$1', 'scrypt$1024$8$1']);
      expect(adminPassword).toBeDefined();
    } finally {
      spy.mockRestore();
    }
  });

  test.each([
    ['', 'x', 'username', 'username must be a string of 1 to 64 characters'],
    ['a'.repeat(65), 'x', 'username', 'username must be a string of 1 to 64 characters'],
    ['root', '', 'password', 'password must be a string of 1 to 256 characters'],
    ['root', 'x'.repeat(257), 'password', 'password must be a string of 1 to 256 characters'],
  ])('login(%j, %j) is INVALID naming %s', async (username, password, field, message) => {
    const { identity } = await setup();
    await expectIdentityError(identity.login(username, password, ADDRESS), 'INVALID', { field, message });
  });

  test('a hash of older parameters is replaced on login (same password, token version kept)', async () => {
    const { identity, store, adminPassword } = await setup({ scrypt: { N: 2 ** 11, r: 8, p: 1 } });
    const before = await store.getUserByUsername('root');
    expect(before?.passwordHash.startsWith('scrypt$2048$')).toBe(true);
    const upgraded = new Identity({ vault: TEST_VAULT, store, scrypt: FAST, now: () => new Date(START) });
    const { token } = await upgraded.login('root', adminPassword, ADDRESS);
    const after = await store.getUserByUsername('root');
    expect(after?.passwordHash.startsWith('scrypt$1024$')).toBe(true);
    expect(after?.tokenVersion).toBe(before?.tokenVersion);
    expect((await upgraded.authenticate(bearer(token))).username).toBe('root');
    expect((await identity.login('root', adminPassword, ADDRESS)).token).toBeTruthy();
  });

  test('the default parameters (N=2^15) end to end', async () => {
    const store = await newStore();
    const identity = new Identity({ vault: TEST_VAULT, store });
    const boot = await identity.ensureAdmin('default params pw');
    expect(boot.created).toBe(true);
    expect((await store.getUserByUsername('admin'))?.passwordHash.startsWith('scrypt$32768$8$1$')).toBe(true);
    const { token } = await identity.login('admin', 'default params pw', ADDRESS);
    expect((await identity.authenticate(bearer(token))).role).toBe('admin');
  });
});

describe('login throttling', () => {
  test('5 failures from one address: its next attempt, even with the right password, is THROTTLED with Retry-After until the window ends; other addresses get in', async () => {
    const { identity, clock, adminPassword } = await setup();
    for (let i = 0; i < 5; i++) {
      await expectIdentityError(identity.login('root', `guess ${i}`, '198.51.100.7'), 'UNAUTHENTICATED');
      clock.tick(1000);
    }
    const err = await expectIdentityError(identity.login('root', adminPassword, '198.51.100.7'), 'THROTTLED', {
      message: 'too many failed logins for this username from this address; try again in 895 seconds',
    });
    expect(err.retryAfterSeconds).toBe(895);
    await expectIdentityError(identity.login('Root', adminPassword, '198.51.100.7'), 'THROTTLED'); // same name
    // Nobody locks root out by failing on its behalf: the right password from elsewhere works.
    expect((await identity.login('root', adminPassword, '203.0.113.1')).token).toBeTruthy();
    clock.tick(895_000);
    expect((await identity.login('root', adminPassword, '198.51.100.7')).token).toBeTruthy();
  });

  test('a success resets the count of its username and address', async () => {
    const { identity, adminPassword } = await setup();
    for (let i = 0; i < 4; i++)
      await expectIdentityError(identity.login('root', 'nope nope', ADDRESS), 'UNAUTHENTICATED');
    await identity.login('root', adminPassword, ADDRESS);
    for (let i = 0; i < 5; i++)
      await expectIdentityError(identity.login('root', 'nope nope', ADDRESS), 'UNAUTHENTICATED');
    await expectIdentityError(identity.login('root', adminPassword, ADDRESS), 'THROTTLED');
  });

  test('20 failures from one address (any usernames): the address is THROTTLED, other addresses are not', async () => {
    const { identity, adminPassword } = await setup();
    for (let i = 0; i < 20; i++) {
      await expectIdentityError(identity.login(`user${i}`, 'nope nope', '203.0.113.50'), 'UNAUTHENTICATED');
    }
    const err = await expectIdentityError(identity.login('root', adminPassword, '203.0.113.50'), 'THROTTLED', {
      message: 'too many failed logins from this address; try again in 900 seconds',
    });
    expect(err.retryAfterSeconds).toBe(900);
    expect((await identity.login('root', adminPassword, '203.0.113.51')).token).toBeTruthy();
  });

  test('limits and window are options', async () => {
    const { identity, clock, adminPassword } = await setup({
      throttle: { maxFailuresPerUsername: 2, windowSeconds: 60 },
    });
    for (let i = 0; i < 2; i++)
      await expectIdentityError(identity.login('root', 'nope nope', ADDRESS), 'UNAUTHENTICATED');
    const err = await expectIdentityError(identity.login('root', adminPassword, ADDRESS), 'THROTTLED');
    expect(err.retryAfterSeconds).toBe(60);
    clock.tick(60_000);
    await identity.login('root', adminPassword, ADDRESS);
  });

  test('parallel guesses from one address: no more than the limit get checked', async () => {
    const { identity } = await setup();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) => identity.login('root', `parallel ${i}`, '198.51.100.99')),
    );
    const codes = outcomes.map((o) => (o.status === 'rejected' ? (o.reason as IdentityError).code : 'OK'));
    expect(codes.filter((c) => c === 'UNAUTHENTICATED')).toHaveLength(5);
    expect(codes.filter((c) => c === 'THROTTLED')).toHaveLength(7);
  });

  test('parallel guesses from many addresses: past the limit they wait their turn, and those too far back are refused', async () => {
    const { identity } = await setup({ throttle: { slowdownBaseMs: 10, maxHoldMs: 100 } });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) => identity.login('root', `parallel ${i}`, `198.51.100.${i}`)),
    );
    const codes = outcomes.map((o) => (o.status === 'rejected' ? (o.reason as IdentityError).code : 'OK'));
    // 5 at once, then turns 0, 10, 30 and 70 ms away; the next would be 150 ms away (over 100): refused.
    expect(codes.filter((c) => c === 'UNAUTHENTICATED')).toHaveLength(9);
    expect(codes.filter((c) => c === 'THROTTLED')).toHaveLength(3);
  });

  test('spraying usernames does not grow memory without bound', async () => {
    const { identity } = await setup({ throttle: { maxTrackedKeys: 50, maxFailuresPerAddress: 1000 } });
    for (let i = 0; i < 120; i++) {
      await expectIdentityError(
        identity.login(`spray${i}`, 'nope nope', `10.0.${i >> 8}.${i & 255}`),
        'UNAUTHENTICATED',
      );
    }
    expect(identity.throttleSize).toEqual({ usernames: 50, addresses: 50, pairs: 50 });
  });
});

describe('users', () => {
  test('create, get, list (with last_login), update, delete; unknown ids are NOT_FOUND', async () => {
    const { identity, clock } = await setup();
    clock.tick(1000);
    const ann = await identity.createUser({
      username: 'Ann',
      email: 'Ann@Example.com',
      password: 'ann password',
      role: 'operator',
    });
    expect(ann).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      username: 'ann',
      email: 'Ann@example.com',
      role: 'operator',
      disabled: false,
      createdAt: '2024-06-01T09:00:01.000Z',
      updatedAt: '2024-06-01T09:00:01.000Z',
      lastLogin: null,
    });
    expect(await identity.getUser(ann.id)).toEqual(ann);
    expect(await identity.getUser(ann.id.toUpperCase())).toEqual(ann);
    expect((await identity.listUsers()).map((u) => [u.username, u.lastLogin])).toEqual([
      ['ann', null],
      ['root', null],
    ]);
    clock.tick(1000);
    const updated = await identity.updateUser(ann.id, { email: 'ann@example.org', role: 'viewer' });
    expect(updated).toEqual({
      ...ann,
      email: 'ann@example.org',
      role: 'viewer',
      updatedAt: '2024-06-01T09:00:02.000Z',
    });
    await identity.deleteUser(ann.id);
    const missing = randomUUID();
    await expectIdentityError(identity.getUser(ann.id), 'NOT_FOUND', { message: `no user has the id ${ann.id}` });
    await expectIdentityError(identity.updateUser(missing, { role: 'admin' }), 'NOT_FOUND');
    await expectIdentityError(identity.deleteUser(missing), 'NOT_FOUND');
    await expectIdentityError(identity.getUser("1' OR '1'='1"), 'NOT_FOUND', { message: 'no user has the id that id' });
  });

  test('every invalid field of a create is reported, the first named', async () => {
    const { identity } = await setup();
    const err = await expectIdentityError(
      identity.createUser({ username: 'bad name', email: 'nope', password: 'short', role: 'root' }),
      'INVALID',
      { field: 'username' },
    );
    expect(err.errors?.map((e) => e.field)).toEqual(['username', 'email', 'password', 'role']);
    await expectIdentityError(
      identity.createUser({ username: 'kate', email: 'k@example.com', password: 'KATE', role: 'viewer' }),
      'INVALID',
      { field: 'password', message: 'password must be 8 to 256 characters long (got 4)' },
    );
    await expectIdentityError(
      identity.createUser({ username: 'katherine', email: 'k@example.com', password: 'Katherine', role: 'viewer' }),
      'INVALID',
      { field: 'password', message: 'password must not be the username' },
    );
    expect((await identity.listUsers()).map((u) => u.username)).toEqual(['root']);
  });

  test('a duplicate username (in any case) is a CONFLICT', async () => {
    const { identity } = await setup();
    await identity.createUser({ username: 'lee', email: 'l@example.com', password: 'lee password', role: 'viewer' });
    await expectIdentityError(
      identity.createUser({ username: 'LEE', email: 'l2@example.com', password: 'lee password', role: 'admin' }),
      'CONFLICT',
      { message: 'the username lee is already taken' },
    );
  });

  test('update: at least one field; each field checked; disabled must be a boolean', async () => {
    const { identity, admin } = await setup();
    await expectIdentityError(identity.updateUser(admin.id, {}), 'INVALID', {
      field: 'input',
      message: 'give at least one of email, role, password or disabled to change',
    });
    await expectIdentityError(identity.updateUser(admin.id, { email: 'x' }), 'INVALID', { field: 'email' });
    await expectIdentityError(identity.updateUser(admin.id, { role: 'superuser' }), 'INVALID', { field: 'role' });
    await expectIdentityError(identity.updateUser(admin.id, { password: 'root' }), 'INVALID', { field: 'password' });
    await expectIdentityError(identity.updateUser(admin.id, { password: 'ROOTROOT'.slice(0, 4) }), 'INVALID', {
      field: 'password',
    });
    await expectIdentityError(identity.updateUser(admin.id, { disabled: 'yes' as unknown as boolean }), 'INVALID', {
      field: 'disabled',
      message: 'disabled must be true or false',
    });
  });

  test('the last enabled admin cannot be deleted, demoted or disabled; with a second admin it can', async () => {
    const { identity, admin } = await setup();
    const conflict = (what: string) => ({
      message: `root is the last enabled admin and cannot be ${what}; make another user an enabled admin first`,
    });
    await expectIdentityError(identity.deleteUser(admin.id), 'CONFLICT', conflict('deleted'));
    await expectIdentityError(
      identity.updateUser(admin.id, { role: 'operator' }),
      'CONFLICT',
      conflict('demoted to operator'),
    );
    await expectIdentityError(identity.updateUser(admin.id, { disabled: true }), 'CONFLICT', conflict('disabled'));
    expect((await identity.getUser(admin.id)).role).toBe('admin');
    const second = await identity.createUser({
      username: 'second',
      email: 's@example.com',
      password: 'second password',
      role: 'admin',
    });
    await identity.updateUser(second.id, { disabled: true });
    await expectIdentityError(identity.deleteUser(admin.id), 'CONFLICT'); // a disabled admin does not count
    await identity.updateUser(second.id, { disabled: false });
    expect((await identity.updateUser(admin.id, { role: 'viewer' })).role).toBe('viewer');
    await expectIdentityError(identity.deleteUser(second.id), 'CONFLICT', {
      message: /^second is the last enabled admin/,
    });
  });

  test('me, and changing one own password: the current one is required; old tokens stop, the new one works', async () => {
    const { identity, admin, adminPassword } = await setup();
    const { token } = await identity.login('root', adminPassword, ADDRESS);
    const caller = await identity.authenticate(bearer(token));
    expect((await identity.me(caller)).username).toBe('root');
    await expectIdentityError(identity.changeOwnPassword(caller, 'wrong one', 'brand new password'), 'INVALID', {
      field: 'currentPassword',
      message: 'currentPassword is not your password now',
    });
    await expectIdentityError(identity.changeOwnPassword(caller, '', 'brand new password'), 'INVALID', {
      field: 'currentPassword',
    });
    await expectIdentityError(identity.changeOwnPassword(caller, adminPassword, 'short'), 'INVALID', {
      field: 'newPassword',
      message: 'newPassword must be 8 to 256 characters long (got 5)',
    });
    await identity.authenticate(bearer(token)); // nothing changed yet
    const renewed = await identity.changeOwnPassword(caller, adminPassword, 'brand new password');
    await expectIdentityError(identity.authenticate(bearer(token)), 'UNAUTHENTICATED', { reason: 'revoked' });
    expect(await identity.authenticate(bearer(renewed.token))).toEqual(admin);
    await expectIdentityError(identity.login('root', adminPassword, ADDRESS), 'UNAUTHENTICATED');
    await identity.login('root', 'brand new password', ADDRESS);
  });

  test('wrong current passwords count against the login throttle (of that address), without locking the user out', async () => {
    const { identity, admin, adminPassword } = await setup();
    for (let i = 0; i < 5; i++) {
      await expectIdentityError(
        identity.changeOwnPassword(admin, `guess ${i}`, 'brand new password', ADDRESS),
        'INVALID',
      );
    }
    await expectIdentityError(
      identity.changeOwnPassword(admin, adminPassword, 'brand new password', ADDRESS),
      'THROTTLED',
    );
    await expectIdentityError(identity.login('root', adminPassword, ADDRESS), 'THROTTLED');
    expect((await identity.login('root', adminPassword, '203.0.113.9')).token).toBeTruthy();
  });
});

describe('bootstrap', () => {
  test('no user: admin is created with a random password, returned once; later starts do nothing', async () => {
    const store = await newStore();
    const identity = new Identity({ vault: TEST_VAULT, store, scrypt: FAST });
    const log = jest.spyOn(console, 'log');
    const boot = await identity.ensureAdmin();
    expect(boot.created).toBe(true);
    expect(boot.username).toBe('admin');
    expect(boot.generatedPassword).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(log).not.toHaveBeenCalled();
    log.mockRestore();
    const { token } = await identity.login('admin', boot.generatedPassword!, ADDRESS);
    const caller = await identity.authenticate(bearer(token));
    expect(caller.role).toBe('admin');
    expect((await identity.me(caller)).email).toBe('admin@localhost');
    const again = await identity.ensureAdmin();
    expect(again.created).toBe(false);
    expect(again.generatedPassword).toBeUndefined();
  });

  test('with ADMIN_PASSWORD: that password, nothing returned; a bad one is INVALID naming ADMIN_PASSWORD', async () => {
    const identity = new Identity({
      vault: TEST_VAULT,
      store: await newStore(),
      scrypt: FAST,
      adminEmail: 'ops@example.com',
    });
    await expectIdentityError(identity.ensureAdmin('short'), 'INVALID', {
      field: 'ADMIN_PASSWORD',
      message: 'ADMIN_PASSWORD must be 8 to 256 characters long (got 5)',
    });
    await expectIdentityError(identity.ensureAdmin('ADMIN'.padEnd(5)), 'INVALID', { field: 'ADMIN_PASSWORD' });
    await expectIdentityError(identity.ensureAdmin(''), 'INVALID', { field: 'ADMIN_PASSWORD' });
    const boot = await identity.ensureAdmin('from the environment');
    expect(boot).toMatchObject({ created: true, username: 'admin' });
    expect(boot.generatedPassword).toBeUndefined();
    const caller = await identity.authenticate(
      bearer((await identity.login('admin', 'from the environment', ADDRESS)).token),
    );
    expect((await identity.me(caller)).email).toBe('ops@example.com');
  });

  test('users exist already: nothing is created, whatever the password', async () => {
    const { identity } = await setup();
    expect((await identity.ensureAdmin('some password')).created).toBe(false);
    expect((await identity.listUsers()).map((u) => u.username)).toEqual(['root']);
  });

  test('several providers starting together: one admin', async () => {
    const store = await newStore();
    const providers = [1, 2, 3].map(() => new Identity({ vault: TEST_VAULT, store, scrypt: FAST }));
    const results = await Promise.all(providers.map((p) => p.ensureAdmin()));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(await store.countUsers()).toBe(1);
  });
});

describe('secrets stay out of logs', () => {
  test('toJSON and inspect of tokens, bootstrap results, users, the provider and errors hold no secret', async () => {
    const store = await newStore();
    const identity = new Identity({ vault: TEST_VAULT, store, scrypt: FAST });
    const boot = await identity.ensureAdmin();
    const password = boot.generatedPassword!;
    const issued = await identity.login('admin', password, ADDRESS);
    const stored = (await store.getUserByUsername('admin'))!;
    const [key] = await store.signingKeys();
    const secrets = [password, issued.token, stored.passwordHash, String(key && openedJwk(key).d)];
    expect(secrets.every((s) => s.length >= 20)).toBe(true);
    const errors: unknown[] = [];
    for (const attempt of [
      () => identity.login('admin', `${password}x`, ADDRESS),
      () => identity.authenticate(`Bearer ${issued.token}x`),
      () => identity.authenticate(`Bearer ${issued.token.slice(0, -3)}`),
      () =>
        identity.changeOwnPassword({ id: stored.id, username: 'admin', role: 'admin' }, password, password.slice(0, 5)),
    ]) {
      errors.push(await attempt().catch((e: unknown) => e));
    }
    const shown = [
      JSON.stringify(issued),
      inspect(issued),
      JSON.stringify(boot),
      inspect(boot),
      JSON.stringify(stored),
      inspect(stored),
      JSON.stringify({ ...stored }),
      JSON.stringify(key),
      inspect(key),
      JSON.stringify(identity),
      inspect(identity, { depth: 5 }),
      JSON.stringify(await identity.jwks()),
      ...errors.map((e) => `${String(e)} ${JSON.stringify(e)} ${inspect(e)}`),
    ];
    for (const text of shown) for (const secret of secrets) expect(text).not.toContain(secret);
    expect(JSON.stringify(issued)).toContain('[redacted]');
    expect(errors.map((e) => (e as IdentityError).code)).toEqual([
      'UNAUTHENTICATED',
      'UNAUTHENTICATED',
      'UNAUTHENTICATED',
      'INVALID',
    ]);
  });
});

describe('options', () => {
  test.each([
    [{ tokenLifetimeSeconds: 0 }, 'tokenLifetimeSeconds'],
    [{ tokenLifetimeSeconds: 59 }, 'tokenLifetimeSeconds'],
    [{ tokenLifetimeSeconds: 90.5 }, 'tokenLifetimeSeconds'],
    [{ tokenLifetimeSeconds: 31_536_001 }, 'tokenLifetimeSeconds'],
    [{ issuer: ' ' }, 'issuer'],
    [{ audience: '' }, 'audience'],
    [{ adminEmail: 'not an email' }, 'adminEmail'],
  ])('%j is INVALID naming %s', async (options, field) => {
    const store = await newStore();
    let caught: unknown;
    try {
      new Identity({ vault: TEST_VAULT, store, ...options });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(IdentityError);
    expect(caught).toMatchObject({ code: 'INVALID', field });
  });
});
