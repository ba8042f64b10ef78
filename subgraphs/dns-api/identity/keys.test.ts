/**
 * Token signing keys at rest and their rotation: the private key is stored sealed under the master key, a key found
 * in clear (an older version's row) is sealed and replaced, a rotated key verifies its tokens until they have
 * expired and is then deleted, and a token that lives longer than the configured lifetime is refused.
 */
import { createPrivateKey, generateKeyPairSync, randomBytes, type JsonWebKey } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SignJWT, calculateJwkThumbprint, decodeProtectedHeader, type JWK } from 'jose';
import { KeyVault } from '../../../dns/dnssec/key-vault';
import { Identity, type IdentityOptions } from './identity';
import { openSqliteUserStore } from './store/sqlite';
import type { UserStore } from './store/types';
import { TEST_VAULT, TestClock, expectIdentityError } from './testing/index';

const FAST = { N: 2 ** 10, r: 8, p: 1 };
const START = '2024-06-01T09:00:00.000Z';
const PASSWORD = 'keys test password';
const HOUR = 3_600_000;
const dir = mkdtempSync(join(tmpdir(), 'identity-keys-'));
let n = 0;
const stores: UserStore[] = [];

afterAll(async () => {
  for (const s of stores) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Setup {
  identity: Identity;
  clock: TestClock;
  file: string;
  store: UserStore;
  login: () => Promise<string>;
}

async function setup(options: Partial<IdentityOptions> = {}, file = join(dir, `keys-${++n}.sqlite`)): Promise<Setup> {
  const store = await openSqliteUserStore({ file });
  stores.push(store);
  const clock = new TestClock(START);
  const identity = new Identity({ vault: TEST_VAULT, store, now: clock.now, scrypt: FAST, ...options });
  await identity.ensureAdmin(PASSWORD);
  const login = async () => (await identity.login('admin', PASSWORD, '192.0.2.1')).token;
  return { identity, clock, file, store, login };
}

const kidOf = (token: string): string => String(decodeProtectedHeader(token).kid);

/** The signing key rows as they are on disk. */
function rows(file: string): Array<{ kid: string; private_jwk: string; retired_at: string | null }> {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT kid, private_jwk, retired_at FROM api_signing_keys ORDER BY created_at').all() as Array<{
      kid: string;
      private_jwk: string;
      retired_at: string | null;
    }>;
  } finally {
    db.close();
  }
}

test('the private key is stored sealed: the database holds no part of it in clear', async () => {
  const { file, login } = await setup();
  await login();
  const [row] = rows(file);
  expect(row?.private_jwk).toMatch(/^v1:/);
  expect(row?.private_jwk).not.toContain('"d"');
  expect(row?.private_jwk).not.toContain('OKP');
});

test('a key stored in clear by an older version is sealed and replaced; its tokens still verify until they expire', async () => {
  const file = join(dir, `legacy-${++n}.sqlite`);
  // What an older version wrote: the private JWK in clear.
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const publicJwk = publicKey.export({ format: 'jwk' }) as JWK;
  const kid = await calculateJwkThumbprint(publicJwk, 'sha256');
  const clearJwk = JSON.stringify(privateKey.export({ format: 'jwk' }));
  const bootstrap = await openSqliteUserStore({ file });
  await bootstrap.close();
  const db = new Database(file);
  db.prepare(
    'INSERT INTO api_signing_keys (kid, algorithm, private_jwk, public_jwk, created_at) VALUES (?, ?, ?, ?, ?)',
  ).run(kid, 'EdDSA', clearJwk, JSON.stringify(publicJwk), '2024-05-01T00:00:00.000Z');
  db.close();
  // A token the older version signed with that key.
  const { identity, clock, login } = await setup({}, file);
  const admin = await identity.listUsers();
  const old = await new SignJWT({ name: 'admin', role: 'admin', ver: 0 })
    .setProtectedHeader({ alg: 'EdDSA', kid, typ: 'JWT' })
    .setSubject(admin[0]?.id ?? '')
    .setIssuer('onegraph-dns-api')
    .setAudience('onegraph')
    .setIssuedAt(Math.floor(clock.now().getTime() / 1000))
    .setExpirationTime(Math.floor(clock.now().getTime() / 1000) + 3600)
    .setJti('00000000-0000-4000-8000-000000000000')
    .sign(privateKey);

  const fresh = await login();
  expect(kidOf(fresh)).not.toBe(kid); // a new key signs: the clear one may have been read
  const stored = rows(file);
  expect(stored.every((r) => r.private_jwk.startsWith('v1:'))).toBe(true);
  expect(stored.find((r) => r.kid === kid)?.retired_at).toBe(START);
  expect((await identity.authenticate(`Bearer ${old}`)).username).toBe('admin');
  expect((await identity.jwks()).keys.map((k) => k.kid)).toEqual([kid, kidOf(fresh)]);
  clock.tick(HOUR - 60_000);
  expect((await identity.authenticate(`Bearer ${old}`)).username).toBe('admin');
  clock.tick(2 * 60_000); // the old key's last token has expired: the key is gone
  await expectIdentityError(identity.authenticate(`Bearer ${old}`), 'UNAUTHENTICATED', { reason: 'unknown_key' });
  expect((await identity.jwks()).keys.map((k) => k.kid)).toEqual([kidOf(fresh)]);
});

test('rotation: the new key signs, the old one verifies its tokens until they expire, then it is gone', async () => {
  const { identity, clock, file, login } = await setup();
  const before = await login();
  const rotation = await identity.rotateSigningKey();
  expect(rotation.previous?.kid).toBe(kidOf(before));
  expect(rotation.previous?.signing).toBe(false);
  expect(rotation.key.signing).toBe(true);
  // The old key verifies for a token lifetime plus the grace replicas need to notice.
  expect(Date.parse(rotation.previous?.verifiesUntil ?? '')).toBeGreaterThanOrEqual(Date.parse(START) + HOUR);
  const after = await login();
  expect(kidOf(after)).toBe(rotation.key.kid);
  expect((await identity.jwks()).keys.map((k) => k.kid)).toEqual([kidOf(before), kidOf(after)]);
  expect((await identity.authenticate(`Bearer ${before}`)).username).toBe('admin');
  expect((await identity.signingKeys()).map((k) => [k.kid, k.signing])).toEqual([
    [kidOf(before), false],
    [kidOf(after), true],
  ]);

  clock.set(rotation.previous?.verifiesUntil ?? START);
  clock.tick(11_000); // past the reload interval: the ring reads the store again
  const fresher = await login();
  expect((await identity.jwks()).keys.map((k) => k.kid)).toEqual([kidOf(after)]);
  expect(rows(file).map((r) => r.kid)).toEqual([kidOf(after)]);
  expect(kidOf(fresher)).toBe(kidOf(after));
});

test('a key past its lifetime is replaced on the next use; replicas on one store rotate once', async () => {
  const { identity, clock, store, login } = await setup({ signingKeyLifetimeSeconds: 86_400 });
  const replica = new Identity({
    vault: TEST_VAULT,
    store,
    now: clock.now,
    scrypt: FAST,
    signingKeyLifetimeSeconds: 86_400,
  });
  const first = await login();
  clock.tick(86_400_000 + 11_000);
  const [a, b] = await Promise.all([login(), replica.login('admin', PASSWORD, '192.0.2.2')]);
  expect(kidOf(a)).not.toBe(kidOf(first));
  expect(kidOf(b.token)).toBe(kidOf(a));
  expect(await identity.signingKeys()).toHaveLength(2);
});

test('another master key: no token can be issued (UNAVAILABLE, saying why), issued ones still verify', async () => {
  const { store, clock, login } = await setup();
  const token = await login();
  const stranger = new Identity({ vault: KeyVault.of(randomBytes(32)), store, now: clock.now, scrypt: FAST });
  await expectIdentityError(stranger.login('admin', PASSWORD, '192.0.2.3'), 'UNAVAILABLE', {
    message: /does not open with this master key.*every replica needs the same master key/,
  });
  expect((await stranger.authenticate(`Bearer ${token}`)).username).toBe('admin');
});

test('a token signed with our key that lives longer than the configured lifetime is refused', async () => {
  const { identity, store, clock, login } = await setup();
  await login();
  const [key] = await store.signingKeys();
  if (!key) throw new Error('no key');
  const jwk = JSON.parse(TEST_VAULT.open(key.privateKey, `dns-api-signing-key:${key.kid}`).toString()) as JWK;
  const signer = createPrivateKey({ key: jwk as JsonWebKey, format: 'jwk' });
  const [admin] = await identity.listUsers();
  const now = Math.floor(clock.now().getTime() / 1000);
  const forge = (iat: number, exp: number) =>
    new SignJWT({ name: 'admin', role: 'admin', ver: 0 })
      .setProtectedHeader({ alg: 'EdDSA', kid: key.kid, typ: 'JWT' })
      .setSubject(admin?.id ?? '')
      .setIssuer('onegraph-dns-api')
      .setAudience('onegraph')
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .setJti('00000000-0000-4000-8000-000000000001')
      .sign(signer);
  await expectIdentityError(
    identity.authenticate(`Bearer ${await forge(now, now + 10 * 365 * 86_400)}`),
    'UNAUTHENTICATED',
    {
      reason: 'lifetime',
      message: /lives 315360000 s \(exp − iat\), longer than the 3600 s this server issues/,
    },
  );
  await expectIdentityError(identity.authenticate(`Bearer ${await forge(now + 600, now + 1200)}`), 'UNAUTHENTICATED', {
    reason: 'claims',
    message: /issued in the future/,
  });
  expect((await identity.authenticate(`Bearer ${await forge(now, now + 3600)}`)).username).toBe('admin');
});
