// @needs redis
import { RedisLink } from '../../../platform/redis';
import { RedisSessionStore } from './redis-sessions';
import { sessionBytes, type Session, type SessionBounds } from './sessions';

/**
 * Sessions shared between replicas through Redis (127.0.0.1:6379): two stores on one Redis see the same sessions,
 * and both keep the bounds per user and in bytes (docs/dns-tool.md). The clock is injected: expiry never waits on time.
 */
let link: RedisLink;
let other: RedisLink;
const run = `test-${process.pid}-${Date.now()}`;
let tests = 0;
let prefix = '';
let now = Date.now();
const clock = () => now;

async function ready(l: RedisLink): Promise<void> {
  for (let i = 0; i < 100 && !l.up; i++) await new Promise((r) => setTimeout(r, 20));
  if (!l.up) throw new Error('Redis at 127.0.0.1:6379 is not answering (the tests need it)');
}

beforeAll(async () => {
  const options = {
    url: 'redis://127.0.0.1:6379',
    purpose: 'tool sessions',
    fallback: 'none',
    connectTimeoutMs: 1000,
    commandTimeoutMs: 1000,
  };
  link = new RedisLink(options);
  other = new RedisLink(options);
  await ready(link);
  await ready(other);
});
beforeEach(() => {
  prefix = `${run}-${++tests}:`;
});
afterAll(async () => {
  const keys: string[] = [];
  for await (const batch of link.client.scanIterator({ MATCH: `${run}-*`, COUNT: 1000 })) keys.push(...batch);
  if (keys.length > 0) await link.run((c) => c.del(keys));
  await link?.close();
  await other?.close();
});

const as = (user: string, via: Session['via'] = 'password'): Session => ({ user, rolesKey: user, via });
const stores = (options: { idleSeconds?: number; bounds?: SessionBounds } = {}) =>
  [link, other].map((l) => new RedisSessionStore(l, { prefix, now: clock, ...options }));
/** Opens a session a millisecond after the last one. */
const login = async (store: RedisSessionStore, session: Session) => {
  now += 1;
  return store.open(session);
};
const alive = async (store: RedisSessionStore, ids: readonly string[]) =>
  Promise.all(ids.map(async (id) => (await store.touch(id)) !== null));
const bytesKey = () => `${prefix}tool-session-bytes`;

test('a session opened on one replica works on another, ends everywhere, and expires when idle', async () => {
  const [a, b] = stores({ idleSeconds: 60 }) as [RedisSessionStore, RedisSessionStore];
  const id = await a.open({ user: 'alice', rolesKey: 'alice', fileRoles: ['editors'], via: 'password' });
  expect(await b.touch(id)).toEqual({ user: 'alice', rolesKey: 'alice', fileRoles: ['editors'], via: 'password' });
  // Redis drops the key itself once it is past its expiry, whoever cleans the indexes.
  const pttl = await link.run((c) => c.pTTL(`${prefix}tool-session:${id}`));
  expect(pttl).toBeGreaterThan(0);
  expect(pttl).toBeLessThanOrEqual(60_000);
  await b.end(id);
  expect(await a.touch(id)).toBeNull();
  const idle = await a.open({ user: 'bob', rolesKey: 'ops_x', via: 'token' });
  now += 50_000;
  expect(await b.touch(idle)).not.toBeNull();
  now += 50_000; // 100 s after opening, 50 s after the last request
  expect(await a.touch(idle)).not.toBeNull();
  now += 60_001;
  expect(await b.touch(idle)).toBeNull();
  expect(Number(await link.run((c) => c.get(bytesKey())))).toBe(0);
});

test('ids we never issue are not looked up; a value without a session shape is refused', async () => {
  const [store] = stores() as [RedisSessionStore];
  expect(await store.touch('../../etc')).toBeNull();
  const id = 'ab'.repeat(16);
  await link.run((c) =>
    c.set(`${prefix}tool-session:${id}`, JSON.stringify({ user: 1 }), { expiration: { type: 'EX', value: 5 } }),
  );
  expect(await store.touch(id)).toBeNull();
});

test('a session opened before the indexes existed (a rolling upgrade) still works and slides', async () => {
  const [store] = stores({ idleSeconds: 60 }) as [RedisSessionStore];
  const id = 'cd'.repeat(16);
  const key = `${prefix}tool-session:${id}`;
  await link.run((c) => c.set(key, JSON.stringify(as('carol')), { expiration: { type: 'EX', value: 5 } }));
  expect(await store.touch(id)).toEqual(as('carol'));
  expect(await link.run((c) => c.pTTL(key))).toBeGreaterThan(5_000);
});

test("one user's flood ends that user's least recently used sessions, never another user's", async () => {
  const [a, b] = stores({ bounds: { maxPerUser: 3, maxBytes: 1 << 30 } }) as [RedisSessionStore, RedisSessionStore];
  const bob = await login(a, as('bob'));
  const alice = [await login(a, as('alice')), await login(b, as('alice')), await login(a, as('alice'))];
  now += 1;
  await b.touch(alice[0] as string); // alice's first is used again: her second is now the least recent
  const fourth = await login(b, as('alice'));
  expect(await alive(a, [...alice, fourth])).toEqual([true, false, true, true]);
  for (let i = 0; i < 200; i++) await login(i % 2 ? a : b, as('alice'));
  const last = await login(a, as('alice'));
  expect(await alive(b, [bob, ...alice, fourth, last])).toEqual([true, false, false, false, false, true]);
  expect(Number(await link.run((c) => c.get(bytesKey())))).toBe(
    sessionBytes(as('bob')) + 3 * sessionBytes(as('alice')),
  );
});

test('logins at the same instant on two replicas: the bound holds, the byte count stays exact', async () => {
  const [a, b] = stores({ bounds: { maxPerUser: 5, maxBytes: 1 << 30 } }) as [RedisSessionStore, RedisSessionStore];
  const ids = await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 ? a : b).open(as('alice'))));
  expect((await alive(a, ids)).filter(Boolean)).toHaveLength(5);
  expect(await link.run((c) => c.zCard(`${prefix}tool-sessions`))).toBe(5);
  expect(Number(await link.run((c) => c.get(bytesKey())))).toBe(5 * sessionBytes(as('alice')));
});

test('a token and a user of the same name do not share a bound; the token is not in any key name', async () => {
  const [store] = stores({ bounds: { maxPerUser: 1, maxBytes: 1 << 30 } }) as [RedisSessionStore];
  const user = await login(store, { user: 'ops_9f2c1e0a', rolesKey: 'ops_9f2c1e0a', via: 'password' });
  const token = await login(store, { user: 'ops', rolesKey: 'ops_9f2c1e0a', via: 'token' });
  expect(await alive(store, [user, token])).toEqual([true, true]);
  const again = await login(store, { user: 'ops', rolesKey: 'ops_9f2c1e0a', via: 'token' });
  expect(await alive(store, [user, token, again])).toEqual([true, false, true]);
  const keys: string[] = [];
  for await (const batch of link.client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) keys.push(...batch);
  expect(keys.filter((k) => k.includes('9f2c1e0a'))).toEqual([]);
});

test("the byte bound: expired sessions go first, then the user's own oldest; else refused, others untouched", async () => {
  const size = sessionBytes(as('alice'));
  const bounds = { maxPerUser: 100, maxBytes: 4 * size };
  const [a, b] = stores({ idleSeconds: 60, bounds }) as [RedisSessionStore, RedisSessionStore];
  const bob = [await login(a, as('bobby')), await login(b, as('bobby'))];
  const alice = [await login(a, as('alice')), await login(b, as('alice'))];
  const third = await login(a, as('alice'));
  expect(await alive(b, [...bob, ...alice, third])).toEqual([true, true, false, true, true]);
  await expect(login(b, as('carol'))).rejects.toMatchObject({
    error: 'Session limit reached',
    code: 2,
    loginFailure: true,
    message: expect.stringContaining(`dnsTool.maxSessionBytes (${4 * size} bytes)`),
  });
  expect(await alive(a, [...bob, alice[1] as string, third])).toEqual([true, true, true, true]);
  now += 30_000;
  await alive(a, [alice[1] as string, third]);
  now += 31_000;
  const carol = await login(b, as('carol'));
  expect(await alive(a, [...bob, alice[1] as string, third, carol])).toEqual([false, false, true, true, true]);
  expect(Number(await link.run((c) => c.get(bytesKey())))).toBe(3 * size);
});
