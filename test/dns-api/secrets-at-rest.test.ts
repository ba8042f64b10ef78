/**
 * Secrets at rest and the token signing key, attacked as a local user would: the data directory the server makes
 * is 0700 and every file in it 0600 (the SQLite WAL and shared-memory files and the key files too); the signing
 * key is stored sealed; a token forged with the key and a 10-year lifetime is refused; the key can be rotated over
 * REST and GraphQL, the old key verifying its tokens until they expire, the JWKS showing both.
 */
import { createPrivateKey, type JsonWebKey } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SignJWT, decodeJwt, decodeProtectedHeader } from 'jose';
import { call, gql, login, startDnsApiSystem, userWithRole, type DnsApiSystem } from './api';

const mode = (path: string): number => statSync(path).mode & 0o777;

/** Every file and directory under `dir` whose mode lets anyone but the owner in. */
function looseEntries(dir: string): string[] {
  const loose: string[] = [];
  if ((mode(dir) & 0o077) !== 0) loose.push(`${dir} ${mode(dir).toString(8)}`);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) loose.push(...looseEntries(path));
    else if ((mode(path) & 0o077) !== 0) loose.push(`${path} ${mode(path).toString(8)}`);
  }
  return loose;
}

describe('a data directory the server creates', () => {
  let api: DnsApiSystem;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = join(mkdtempSync(join(tmpdir(), 'onegraph-perm-')), 'data');
    api = await startDnsApiSystem({ DATA_DIR: dataDir, SEED_DEMO: 'true' });
  }, 60_000);
  afterAll(() => api?.close());

  test('is 0700 and every file in it 0600, the SQLite WAL/SHM and key files included', async () => {
    // Writes, so that the WAL and shared-memory files exist while the server runs.
    const created = await call(api.gateway, 'POST', '/zones/example.test/records', {
      token: api.adminToken,
      body: { name: 'perm', type: 'A', value: '192.0.2.77', ttl: 300 },
    });
    expect(created.status).toBe(201);
    const files = readdirSync(dataDir);
    expect(files).toEqual(
      expect.arrayContaining(['zones.sqlite', 'zones.sqlite-wal', 'zones.sqlite-shm', 'dnssec-master.key']),
    );
    expect(mode(dataDir)).toBe(0o700);
    expect(looseEntries(dataDir)).toEqual([]);
  });

  test('the signing key is stored sealed: the database file gives no private key', () => {
    const db = new Database(join(dataDir, 'zones.sqlite'), { readonly: true });
    try {
      const rows = db.prepare('SELECT private_jwk FROM api_signing_keys').all() as Array<{ private_jwk: string }>;
      expect(rows.length).toBeGreaterThan(0);
      for (const { private_jwk: stored } of rows) {
        expect(stored).toMatch(/^v1:[^:]+:[^:]+:[^:]+$/);
        expect(stored).not.toContain('"d"');
      }
    } finally {
      db.close();
    }
  });

  test('a token forged with the signing key and a 10-year lifetime is refused (401, saying why)', async () => {
    const dns = api.sys.system.dns;
    if (!dns) throw new Error('no DNS part');
    const db = new Database(join(dataDir, 'zones.sqlite'), { readonly: true });
    const row = db.prepare('SELECT kid, private_jwk FROM api_signing_keys WHERE retired_at IS NULL').get() as {
      kid: string;
      private_jwk: string;
    };
    db.close();
    // The attacker who also has the master key: what stops this token is its lifetime alone.
    const jwk = JSON.parse(dns.vault.open(row.private_jwk, `dns-api-signing-key:${row.kid}`).toString()) as JsonWebKey;
    const claims = decodeJwt(api.adminToken);
    const now = Math.floor(Date.now() / 1000);
    const forged = await new SignJWT({ ...claims, iat: now, exp: now + 10 * 365 * 86_400 })
      .setProtectedHeader({ alg: 'EdDSA', kid: row.kid, typ: 'JWT' })
      .sign(createPrivateKey({ key: jwk, format: 'jwk' }));
    const res = await call<{ error: string }>(api.gateway, 'GET', '/zones', { token: forged });
    expect(res.status).toBe(401);
    expect(res.body.error).toMatch(/lives 315360000 s \(exp − iat\), longer than the 3600 s this server issues/);
  });
});

describe('an existing data directory left readable by an older version', () => {
  test('is tightened at start: directory 0700, files 0600', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'onegraph-perm-')), 'data');
    mkdirSync(dataDir, { mode: 0o755 });
    chmodSync(dataDir, 0o755);
    writeFileSync(join(dataDir, 'dns-tool-token'), 'admin_0123456789abcdef0123456789abcdef01234567\n', { mode: 0o644 });
    chmodSync(join(dataDir, 'dns-tool-token'), 0o644);
    const api = await startDnsApiSystem({ DATA_DIR: dataDir });
    try {
      expect(mode(dataDir)).toBe(0o700);
      expect(looseEntries(dataDir)).toEqual([]);
    } finally {
      await api.close();
    }
  }, 60_000);
});

describe('signing key rotation', () => {
  let api: DnsApiSystem;
  beforeAll(async () => {
    api = await startDnsApiSystem({ DNS_PORT: '0' });
  }, 60_000);
  afterAll(() => api?.close());

  const kid = (token: string): string => String(decodeProtectedHeader(token).kid);

  test('only an admin may list or rotate the keys', async () => {
    const viewer = await userWithRole(api, 'keyviewer', 'viewer');
    for (const [method, path] of [
      ['GET', '/auth/keys'],
      ['POST', '/auth/keys/rotate'],
    ] as const) {
      expect((await call(api.gateway, method, path)).status).toBe(401);
      const res = await call<{ error: string }>(api.gateway, method, path, { token: viewer.token });
      expect(res.status).toBe(403);
      expect(res.body.error).toContain('may not manage the token signing keys');
    }
  });

  test('the new key signs; the old one still verifies its tokens; the JWKS shows both', async () => {
    const before = await login(api.gateway, 'admin', 'admin-password-for-tests');
    const listed = await call<{ keys: Array<{ kid: string; signing: boolean; verifies_until: string | null }> }>(
      api.gateway,
      'GET',
      '/auth/keys',
      { token: before },
    );
    expect(listed.status).toBe(200);
    expect(listed.body.keys.at(-1)).toMatchObject({ kid: kid(before), signing: true, verifies_until: null });

    const rotated = await call<Record<string, unknown>>(api.gateway, 'POST', '/auth/keys/rotate', { token: before });
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({ success: true, old_key_id: kid(before) });
    const until = Date.parse(String(rotated.body.old_key_verifies_until));
    expect(until).toBeGreaterThanOrEqual(Date.now() + 3_600_000 - 60_000); // a whole token lifetime

    const after = await login(api.gateway, 'admin', 'admin-password-for-tests');
    expect(kid(after)).toBe(rotated.body.new_key_id);
    expect(kid(after)).not.toBe(kid(before));
    expect((await call(api.gateway, 'GET', '/zones', { token: before })).status).toBe(200);
    expect((await call(api.gateway, 'GET', '/zones', { token: after })).status).toBe(200);
    const jwks = await call<{ keys: Array<{ kid: string }> }>(api.own, 'GET', '/.well-known/jwks.json');
    expect(jwks.body.keys.map((k) => k.kid)).toEqual([kid(before), kid(after)]);
  });

  test('over GraphQL too', async () => {
    const token = await login(api.gateway, 'admin', 'admin-password-for-tests');
    const res = await gql<{ rotateDnsApiSigningKey: { key: { kid: string }; previous: { kid: string } | null } }>(
      api.sys.url,
      'mutation { rotateDnsApiSigningKey { key { kid signing } previous { kid verifiesUntil } } }',
      {},
      token,
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data?.rotateDnsApiSigningKey.previous?.kid).toBe(kid(token));
    const keys = await gql<{ dnsApiSigningKeys: Array<{ kid: string; signing: boolean }> }>(
      api.sys.url,
      '{ dnsApiSigningKeys { kid signing } }',
      {},
      token,
    );
    expect(keys.body.data?.dnsApiSigningKeys.filter((k) => k.signing).map((k) => k.kid)).toEqual([
      res.body.data?.rotateDnsApiSigningKey.key.kid,
    ]);
  });
});
