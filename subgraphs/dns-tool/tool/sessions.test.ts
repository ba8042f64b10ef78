import { isSessionId, MemorySessionStore } from './sessions';
import { matchToken, tokenUser } from './tokens';

describe('sessions in memory', () => {
  let now = 1_000_000;
  const clock = () => now;

  test('a session slides: it ends after the idle time without a request, not after the idle time in all', async () => {
    const store = new MemorySessionStore({ idleSeconds: 3600, now: clock });
    const id = await store.open({ user: 'alice', rolesKey: 'alice', via: 'password' });
    expect(isSessionId(id)).toBe(true);
    now += 3000_000;
    expect(await store.touch(id)).toMatchObject({ user: 'alice' });
    now += 3000_000; // 6000 s after opening, 3000 s after the last request
    expect(await store.touch(id)).toMatchObject({ user: 'alice' });
    now += 3600_000;
    expect(await store.touch(id)).toBeNull();
  });

  test('ended sessions and ids we never issued are unknown; each login gets a new id', async () => {
    const store = new MemorySessionStore({ now: clock });
    const a = await store.open({ user: 'bob', rolesKey: 'bob', via: 'password' });
    const b = await store.open({ user: 'bob', rolesKey: 'bob', via: 'password' });
    expect(a).not.toBe(b);
    await store.end(a);
    expect(await store.touch(a)).toBeNull();
    expect(await store.touch(b)).not.toBeNull();
    expect(await store.touch('../../etc/passwd')).toBeNull();
    expect(await store.touch('')).toBeNull();
  });

  test('bounded: past maxSessions the least recently used session ends', async () => {
    const store = new MemorySessionStore({ maxSessions: 3, now: clock });
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(await store.open({ user: `u${i}`, rolesKey: `u${i}`, via: 'token' }));
    await store.touch(ids[0] as string); // u0 used again: u1 is now the least recent
    await store.open({ user: 'u3', rolesKey: 'u3', via: 'token' });
    expect(await store.touch(ids[1] as string)).toBeNull();
    expect(await store.touch(ids[0] as string)).not.toBeNull();
    expect(await store.touch(ids[2] as string)).not.toBeNull();
  });
});

describe('tokens', () => {
  test('exact comparison: no loose equality, no prefix, case matters', () => {
    const tokens = ['ops_9f2c1e', '1000'];
    expect(matchToken(tokens, 'ops_9f2c1e')).toBe('ops_9f2c1e');
    expect(matchToken(tokens, '1e3')).toBeNull();
    expect(matchToken(tokens, 'ops_9f2c1')).toBeNull();
    expect(matchToken(tokens, 'OPS_9F2C1E')).toBeNull();
    expect(matchToken(tokens, '')).toBeNull();
    expect(matchToken([], 'x')).toBeNull();
  });
  test('the user of a token is the part before the last underscore', () => {
    expect(tokenUser('ops_9f2c1e')).toBe('ops');
    expect(tokenUser('deploy_bot_abc')).toBe('deploy_bot');
    expect(tokenUser('plaintoken')).toBe('token');
    expect(tokenUser('_lead')).toBe('token');
  });
});
