/**
 * The one contract every UserStore passes (SQLite: sqlite.test.ts, PostgreSQL: postgres.test.ts).
 *
 * `newDatabase` makes an empty database (a temp SQLite file, a PostgreSQL schema) and returns how to open stores
 * on it; tests that need "no user at all" or several processes get a database of their own. Every store opened is
 * closed before `cleanup` runs.
 */
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { inspect } from 'node:util';
import type { JWK } from 'jose';
import { expectIdentityError } from '../testing/index';
import type { Role } from '../roles';
import { SigningKey, type NewUser, type UserStore } from './types';

export interface ContractDatabase {
  open(): Promise<UserStore>;
}

const ISO_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const HASH = 'scrypt$1024$8$1$c2FsdHNhbHRzYWx0$a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5';

let seq = 0;
const newUser = (username: string, role: Role = 'viewer', createdAt = '2024-03-05T10:00:00.123Z'): NewUser => ({
  id: randomUUID(),
  username,
  email: `${username}@example.com`,
  role,
  passwordHash: `${HASH}-${++seq}`,
  createdAt,
});

/** A key as the identity library stores it: the private part is opaque (sealed) text to the store. */
function newKey(createdAt: string): SigningKey {
  const { publicKey } = generateKeyPairSync('ed25519');
  return new SigningKey({
    kid: randomUUID(),
    algorithm: 'EdDSA',
    privateKey: `v1:${randomUUID()}:sealed:${randomUUID()}`,
    publicJwk: publicKey.export({ format: 'jwk' }) as JWK,
    createdAt,
  });
}

export function describeUserStoreContract(
  name: string,
  newDatabase: () => Promise<ContractDatabase>,
  cleanup: () => Promise<void>,
): void {
  describe(`UserStore contract: ${name}`, () => {
    const opened: UserStore[] = [];
    /** A store on a new, empty database. */
    const fresh = async (): Promise<{ store: UserStore; another: () => Promise<UserStore> }> => {
      const db = await newDatabase();
      const open = async () => {
        const s = await db.open();
        opened.push(s);
        return s;
      };
      return { store: await open(), another: open };
    };
    afterAll(async () => {
      for (const s of opened) await s.close();
      await cleanup();
    });

    test('a new database has no users and no keys', async () => {
      const { store } = await fresh();
      expect(store.kind).toBe(name);
      expect(await store.countUsers()).toBe(0);
      expect(await store.listUsers()).toEqual([]);
      expect(await store.signingKeys()).toEqual([]);
    });

    test('createUser stores every field; get by id and by username; list by username', async () => {
      const { store } = await fresh();
      const bob = newUser('bob', 'operator');
      const created = await store.createUser(bob);
      const expected = {
        id: bob.id,
        username: 'bob',
        email: 'bob@example.com',
        role: 'operator',
        disabled: false,
        createdAt: '2024-03-05T10:00:00.123Z',
        updatedAt: '2024-03-05T10:00:00.123Z',
        lastLogin: null,
      };
      expect(created.toUser()).toEqual(expected);
      expect(created.passwordHash).toBe(bob.passwordHash);
      expect(created.tokenVersion).toBe(0);
      expect((await store.getUser(bob.id))?.toUser()).toEqual(expected);
      expect((await store.getUserByUsername('bob'))?.passwordHash).toBe(bob.passwordHash);
      expect(await store.getUser(randomUUID())).toBeNull();
      expect(await store.getUser('not-a-uuid')).toBeNull();
      expect(await store.getUserByUsername('nobody')).toBeNull();
      await store.createUser(newUser('alice'));
      await store.createUser(newUser('carol'));
      expect((await store.listUsers()).map((u) => u.username)).toEqual(['alice', 'bob', 'carol']);
      expect(await store.countUsers()).toBe(3);
    });

    test('a taken username is a CONFLICT and changes nothing', async () => {
      const { store } = await fresh();
      const first = await store.createUser(newUser('dave'));
      await expectIdentityError(store.createUser(newUser('dave', 'admin')), 'CONFLICT', {
        message: 'the username dave is already taken',
      });
      expect((await store.listUsers()).map((u) => u.toUser())).toEqual([first.toUser()]);
      // The store still works after the refused insert (no aborted transaction left behind).
      await store.createUser(newUser('erin'));
      expect(await store.countUsers()).toBe(2);
    });

    test('updateUser changes the fields given, stamps updated_at and raises token_version on request', async () => {
      const { store } = await fresh();
      await store.createUser(newUser('root', 'admin'));
      const u = await store.createUser(newUser('frank'));
      const changed = await store.updateUser(u.id, {
        email: 'f@example.org',
        role: 'operator',
        updatedAt: '2024-03-06T00:00:00.000Z',
      });
      expect(changed?.toUser()).toEqual({
        ...u.toUser(),
        email: 'f@example.org',
        role: 'operator',
        updatedAt: '2024-03-06T00:00:00.000Z',
      });
      expect(changed?.tokenVersion).toBe(0);
      const rehashed = await store.updateUser(u.id, {
        passwordHash: 'scrypt$new',
        bumpTokenVersion: true,
        updatedAt: '2024-03-07T00:00:00.000Z',
      });
      expect(rehashed?.passwordHash).toBe('scrypt$new');
      expect(rehashed?.tokenVersion).toBe(1);
      const disabled = await store.updateUser(u.id, {
        disabled: true,
        bumpTokenVersion: true,
        updatedAt: '2024-03-08T00:00:00.000Z',
      });
      expect(disabled).toMatchObject({ disabled: true, tokenVersion: 2, email: 'f@example.org' });
      expect(await store.getUser(u.id)).toMatchObject({ disabled: true, tokenVersion: 2 });
      expect(await store.updateUser(randomUUID(), { role: 'admin', updatedAt: '2024-03-08T00:00:00.000Z' })).toBeNull();
    });

    test('recordLogin sets last_login, and a rehash keeps token_version', async () => {
      const { store } = await fresh();
      const u = await store.createUser(newUser('gina'));
      await store.recordLogin(u.id, '2024-04-01T08:30:00.250Z');
      expect(await store.getUser(u.id)).toMatchObject({ lastLogin: '2024-04-01T08:30:00.250Z', tokenVersion: 0 });
      await store.recordLogin(u.id, '2024-04-02T08:30:00.000Z', 'scrypt$rehashed');
      const after = await store.getUser(u.id);
      expect(after).toMatchObject({ lastLogin: '2024-04-02T08:30:00.000Z', tokenVersion: 0 });
      expect(after?.passwordHash).toBe('scrypt$rehashed');
      expect(after?.lastLogin).toMatch(ISO_Z);
    });

    describe('the last enabled admin', () => {
      test('cannot be demoted, disabled or deleted; other changes to it are fine', async () => {
        const { store } = await fresh();
        const admin = await store.createUser(newUser('root', 'admin'));
        await store.createUser(newUser('viewer1'));
        const at = '2024-03-06T00:00:00.000Z';
        await expectIdentityError(store.updateUser(admin.id, { role: 'operator', updatedAt: at }), 'CONFLICT', {
          message:
            'root is the last enabled admin and cannot be demoted to operator; make another user an enabled admin first',
        });
        await expectIdentityError(store.updateUser(admin.id, { disabled: true, updatedAt: at }), 'CONFLICT', {
          message: 'root is the last enabled admin and cannot be disabled; make another user an enabled admin first',
        });
        await expectIdentityError(store.deleteUser(admin.id), 'CONFLICT', {
          message: 'root is the last enabled admin and cannot be deleted; make another user an enabled admin first',
        });
        expect((await store.getUser(admin.id))?.toUser()).toEqual(admin.toUser());
        expect(await store.updateUser(admin.id, { email: 'root@example.net', updatedAt: at })).toMatchObject({
          email: 'root@example.net',
        });
      });

      test('a disabled admin does not count; an enabled one does', async () => {
        const { store } = await fresh();
        const a = await store.createUser(newUser('a', 'admin'));
        const b = await store.createUser(newUser('b', 'admin'));
        const at = '2024-03-06T00:00:00.000Z';
        await store.updateUser(b.id, { disabled: true, updatedAt: at });
        await expectIdentityError(store.deleteUser(a.id), 'CONFLICT');
        await store.updateUser(b.id, { disabled: false, updatedAt: at });
        expect(await store.updateUser(a.id, { role: 'viewer', updatedAt: at })).toMatchObject({ role: 'viewer' });
        await expectIdentityError(store.deleteUser(b.id), 'CONFLICT');
        await store.updateUser(a.id, { role: 'admin', updatedAt: at });
        expect(await store.deleteUser(b.id)).toBe(true);
        expect(await store.deleteUser(b.id)).toBe(false);
        expect(await store.getUser(b.id)).toBeNull();
      });

      test('two stores demoting the only two admins at once: one succeeds, one is refused', async () => {
        const { store, another } = await fresh();
        const other = await another();
        const a = await store.createUser(newUser('a', 'admin'));
        const b = await store.createUser(newUser('b', 'admin'));
        const at = '2024-03-06T00:00:00.000Z';
        const outcomes = await Promise.allSettled([
          store.updateUser(a.id, { role: 'viewer', updatedAt: at }),
          other.updateUser(b.id, { disabled: true, updatedAt: at }),
        ]);
        expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
        const enabledAdmins = (await store.listUsers()).filter((u) => u.isEnabledAdmin);
        expect(enabledAdmins).toHaveLength(1);
      });
    });

    describe('createFirstUser', () => {
      test('creates only into an empty table', async () => {
        const { store } = await fresh();
        const first = await store.createFirstUser(newUser('admin', 'admin'));
        expect(first?.username).toBe('admin');
        expect(await store.createFirstUser(newUser('admin2', 'admin'))).toBeNull();
        expect((await store.listUsers()).map((u) => u.username)).toEqual(['admin']);
      });

      test('several stores at once: exactly one creates', async () => {
        const { store, another } = await fresh();
        const stores = [store, await another(), await another()];
        const results = await Promise.all(stores.map((s, i) => s.createFirstUser(newUser(`first${i}`, 'admin'))));
        expect(results.filter((r) => r !== null)).toHaveLength(1);
        expect(await store.countUsers()).toBe(1);
      });
    });

    describe('signing keys', () => {
      test('the first candidate is kept and returned to every later call; the private key round-trips', async () => {
        const { store } = await fresh();
        const k1 = newKey('2024-03-05T10:00:00.000Z');
        const kept = await store.ensureSigningKey(k1);
        expect(kept.kid).toBe(k1.kid);
        const again = await store.ensureSigningKey(newKey('2024-03-05T11:00:00.000Z'));
        expect(again.kid).toBe(k1.kid);
        expect(again.privateKey).toBe(k1.privateKey);
        expect(again.retiredAt).toBeNull();
        expect(again.publicJwk).toEqual(k1.publicJwk);
        expect(again.createdAt).toBe('2024-03-05T10:00:00.000Z');
        expect((await store.signingKeys()).map((k) => k.kid)).toEqual([k1.kid]);
      });

      test('stores starting together agree on one key', async () => {
        const { store, another } = await fresh();
        const stores = [store, await another(), await another()];
        const keys = await Promise.all(stores.map((s) => s.ensureSigningKey(newKey('2024-03-05T10:00:00.000Z'))));
        expect(new Set(keys.map((k) => k.kid)).size).toBe(1);
        expect(await store.signingKeys()).toHaveLength(1);
      });

      test('rotation retires the key in use and stores the new one, which ensureSigningKey then returns', async () => {
        const { store } = await fresh();
        const k1 = await store.ensureSigningKey(newKey('2024-03-05T10:00:00.000Z'));
        const k2 = newKey('2024-03-06T10:00:00.000Z');
        expect((await store.rotateSigningKey(k1.kid, k2, '2024-03-06T10:00:00.000Z')).kid).toBe(k2.kid);
        const keys = await store.signingKeys();
        expect(keys.map((k) => [k.kid, k.retiredAt])).toEqual([
          [k1.kid, '2024-03-06T10:00:00.000Z'],
          [k2.kid, null],
        ]);
        expect((await store.ensureSigningKey(newKey('2024-03-07T10:00:00.000Z'))).kid).toBe(k2.kid);
      });

      test('a rotation that expects a key no longer in use changes nothing (replicas rotate once)', async () => {
        const { store, another } = await fresh();
        const k1 = await store.ensureSigningKey(newKey('2024-03-05T10:00:00.000Z'));
        const stores = [store, await another(), await another()];
        const results = await Promise.all(
          stores.map((s) => s.rotateSigningKey(k1.kid, newKey('2024-03-06T10:00:00.000Z'), '2024-03-06T10:00:00.000Z')),
        );
        expect(new Set(results.map((k) => k.kid)).size).toBe(1);
        expect(await store.signingKeys()).toHaveLength(2);
      });

      test('a private key is replaced only when it still is what the caller read', async () => {
        const { store } = await fresh();
        const k1 = await store.ensureSigningKey(newKey('2024-03-05T10:00:00.000Z'));
        expect(await store.replaceSigningKeyPrivate(k1.kid, 'something else', 'v1:new')).toBe(false);
        expect(await store.replaceSigningKeyPrivate(k1.kid, k1.privateKey, 'v1:new')).toBe(true);
        expect((await store.signingKeys())[0]?.privateKey).toBe('v1:new');
      });

      test('only a retired key can be deleted', async () => {
        const { store } = await fresh();
        const k1 = await store.ensureSigningKey(newKey('2024-03-05T10:00:00.000Z'));
        expect(await store.deleteRetiredSigningKey(k1.kid)).toBe(false);
        const k2 = await store.rotateSigningKey(k1.kid, newKey('2024-03-06T10:00:00.000Z'), '2024-03-06T10:00:00.000Z');
        expect(await store.deleteRetiredSigningKey(k2.kid)).toBe(false);
        expect(await store.deleteRetiredSigningKey(k1.kid)).toBe(true);
        expect((await store.signingKeys()).map((k) => k.kid)).toEqual([k2.kid]);
      });
    });

    test('secrets stay out of toJSON and inspect: password hash, private key', async () => {
      const { store } = await fresh();
      const u = await store.createUser(newUser('harry'));
      const key = await store.ensureSigningKey(newKey('2024-03-05T10:00:00.000Z'));
      const d = key.privateKey;
      expect(d.length).toBeGreaterThan(20);
      for (const shown of [JSON.stringify(u), inspect(u), JSON.stringify({ ...u }), JSON.stringify([u])]) {
        expect(shown).toContain('harry');
        expect(shown).not.toContain(u.passwordHash);
      }
      for (const shown of [JSON.stringify(key), inspect(key), JSON.stringify({ ...key })]) {
        expect(shown).toContain(key.kid);
        expect(shown).not.toContain(String(d));
      }
    });

    test('the data is still there after reopening', async () => {
      const { store, another } = await fresh();
      const u = await store.createUser(newUser('ivan', 'operator'));
      const key = await store.ensureSigningKey(newKey('2024-03-05T10:00:00.000Z'));
      await store.close();
      const reopened = await another();
      expect((await reopened.getUser(u.id))?.toUser()).toEqual(u.toUser());
      expect((await reopened.signingKeys()).map((k) => k.kid)).toEqual([key.kid]);
    });

    test('a closed store refuses calls with UNAVAILABLE', async () => {
      const { store } = await fresh();
      await store.close();
      await expectIdentityError(store.countUsers(), 'UNAVAILABLE', { message: 'the user store is closed' });
      await store.close(); // twice is fine
    });
  });
}
