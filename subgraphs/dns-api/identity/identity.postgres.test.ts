// @needs postgres
/**
 * Two providers on one PostgreSQL schema behave as replicas: one key made and shared (each verifies the other's
 * tokens, both publish the same JWKS), one bootstrap admin, revocation seen by both at once.
 *
 * Needs PostgreSQL: TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test; unreachable = FAIL.
 */
import { randomBytes } from 'node:crypto';
import { dropSchemas } from '../../../dns/testing/postgres';
import { Identity } from './identity';
import { openPostgresUserStore } from './store/postgres';
import type { UserStore } from './store/types';
import { expectIdentityError, TEST_VAULT } from './testing/index';

const url = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `idp_${process.pid}_${randomBytes(4).toString('hex')}`;
const FAST = { N: 2 ** 10, r: 8, p: 1 };
const stores: UserStore[] = [];

async function open(): Promise<UserStore> {
  try {
    const s = await openPostgresUserStore({ url, schema });
    stores.push(s);
    return s;
  } catch (err) {
    throw new Error(`PostgreSQL test database unreachable at ${url}: ${(err as Error).message}`, { cause: err });
  }
}

afterAll(async () => {
  for (const s of stores) await s.close();
  await dropSchemas(url, [schema]);
});

test('replicas share one key, one admin, and see revocations at once', async () => {
  const [a, b] = [
    new Identity({ vault: TEST_VAULT, store: await open(), scrypt: FAST }),
    new Identity({ vault: TEST_VAULT, store: await open(), scrypt: FAST }),
  ];
  const boots = await Promise.all([a.ensureAdmin('replica admin pw'), b.ensureAdmin('replica admin pw')]);
  expect(boots.filter((r) => r.created)).toHaveLength(1);
  const [jwksA, jwksB] = await Promise.all([a.jwks(), b.jwks()]);
  expect(jwksA).toEqual(jwksB);
  expect(jwksA.keys).toHaveLength(1);

  const fromA = await a.login('admin', 'replica admin pw', '192.0.2.1');
  const fromB = await b.login('admin', 'replica admin pw', '192.0.2.1');
  const caller = await b.authenticate(`Bearer ${fromA.token}`);
  expect(caller).toMatchObject({ username: 'admin', role: 'admin' });
  expect(await a.authenticate(`Bearer ${fromB.token}`)).toEqual(caller);

  await b.updateUser(caller.id, { password: 'another admin pw' });
  await expectIdentityError(a.authenticate(`Bearer ${fromA.token}`), 'UNAUTHENTICATED', { reason: 'revoked' });
  expect((await a.listUsers()).map((u) => [u.username, typeof u.lastLogin])).toEqual([['admin', 'string']]);
});
