// @needs redis
import { RedisLink } from '../../market/redis-link';
import { RedisSessionStore } from './redis-sessions';

/** Sessions shared between replicas through Redis (127.0.0.1:6379): two stores on one Redis see the same sessions. */
let link: RedisLink;
let other: RedisLink;
const prefix = `test-${process.pid}-${Date.now()}:`;

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
afterAll(async () => {
  await link?.run((c) => c.del(`${prefix}tool-session:${'ab'.repeat(16)}`));
  await link?.close();
  await other?.close();
});

test('a session opened on one replica works on another, ends everywhere, and expires when idle', async () => {
  const a = new RedisSessionStore(link, { prefix, idleSeconds: 2 });
  const b = new RedisSessionStore(other, { prefix, idleSeconds: 2 });
  const id = await a.open({ user: 'alice', rolesKey: 'alice', fileRoles: ['editors'], via: 'password' });
  expect(await b.touch(id)).toEqual({ user: 'alice', rolesKey: 'alice', fileRoles: ['editors'], via: 'password' });
  const ttl = await link.run((c) => c.ttl(`${prefix}tool-session:${id}`));
  expect(ttl).toBeGreaterThan(0);
  expect(ttl).toBeLessThanOrEqual(2);
  await b.end(id);
  expect(await a.touch(id)).toBeNull();
  const idle = await a.open({ user: 'bob', rolesKey: 'ops_x', via: 'token' });
  await new Promise((r) => setTimeout(r, 2300));
  expect(await b.touch(idle)).toBeNull();
});

test('ids we never issue are not looked up; a value without a session shape is refused', async () => {
  const store = new RedisSessionStore(link, { prefix });
  expect(await store.touch('../../etc')).toBeNull();
  const id = 'ab'.repeat(16);
  await link.run((c) =>
    c.set(`${prefix}tool-session:${id}`, JSON.stringify({ user: 1 }), { expiration: { type: 'EX', value: 5 } }),
  );
  expect(await store.touch(id)).toBeNull();
});
