/** DNS API tokens in the tool: signed by the DNS API's keys, and then only as the DNS API sees their user now. */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { SignJWT, exportJWK, type JSONWebKeySet } from 'jose';
import { DnsApiTokens, type DnsApiClaims } from './jwt-trust';

const EXPECT = { issuer: 'onegraph-dns-api', audience: 'onegraph' };

async function keyPair(kid: string): Promise<{ privateKey: KeyObject; jwks: JSONWebKeySet }> {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { privateKey, jwks: { keys: [{ ...(await exportJWK(publicKey)), kid, alg: 'EdDSA', use: 'sig' }] } };
}

const token = (key: KeyObject, kid: string, claims: Record<string, unknown> = {}) =>
  new SignJWT({ name: 'alice', role: 'admin', ...claims })
    .setProtectedHeader({ alg: 'EdDSA', kid })
    .setIssuer(EXPECT.issuer)
    .setAudience(EXPECT.audience)
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(key);

test('a signed token is the user the DNS API says it is now: its current role, or nothing once revoked', async () => {
  const { privateKey, jwks } = await keyPair('k1');
  let now: DnsApiClaims | null = { username: 'alice', role: 'viewer' };
  const asked: string[] = [];
  const tokens = new DnsApiTokens(
    {
      jwks: async () => jwks,
      currentUser: async (t) => {
        asked.push(t);
        return now;
      },
    },
    EXPECT,
  );
  const t = await token(privateKey, 'k1');
  // The token says admin; the DNS API says viewer now: viewer it is.
  expect(await tokens.verify(t)).toEqual({ username: 'alice', role: 'viewer' });
  now = null; // disabled, deleted or password changed
  expect(await tokens.verify(t)).toBeNull();
  expect(asked).toEqual([t, t]); // asked every time: no cache to outlive a revocation
});

test('a token the keys do not verify never reaches the DNS API', async () => {
  const { jwks } = await keyPair('k1');
  const other = await keyPair('k1');
  const asked: string[] = [];
  const tokens = new DnsApiTokens(
    {
      jwks: async () => jwks,
      currentUser: async (t) => {
        asked.push(t);
        return { username: 'alice', role: 'admin' };
      },
    },
    EXPECT,
  );
  expect(await tokens.verify(await token(other.privateKey, 'k1'))).toBeNull();
  expect(await tokens.verify(await token(other.privateKey, 'k1', { iss: 'someone-else' }))).toBeNull();
  expect(asked).toEqual([]);
});
