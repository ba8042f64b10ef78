import { isSessionId, MemorySessionStore, sessionBytes, type Session } from './sessions';
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
});

describe('sessions in memory: bounded per user and in bytes (one token flooded out other users)', () => {
  let now = 1_000_000;
  const clock = () => now;
  const as = (user: string, via: Session['via'] = 'password'): Session => ({ user, rolesKey: user, via });
  /** Opens a session a millisecond after the last one. */
  const login = async (store: MemorySessionStore, session: Session) => {
    now += 1;
    return store.open(session);
  };
  const alive = async (store: MemorySessionStore, ids: readonly string[]) =>
    Promise.all(ids.map(async (id) => (await store.touch(id)) !== null));

  test("one user's flood ends that user's least recently used sessions, never another user's", async () => {
    const store = new MemorySessionStore({ now: clock, bounds: { maxPerUser: 3, maxBytes: 1 << 30 } });
    const bob = await login(store, as('bob'));
    const alice = [await login(store, as('alice')), await login(store, as('alice')), await login(store, as('alice'))];
    now += 1;
    await store.touch(alice[0] as string); // alice's first is used again: her second is now the least recent
    const fourth = await login(store, as('alice'));
    expect(await alive(store, [...alice, fourth])).toEqual([true, false, true, true]);
    for (let i = 0; i < 1000; i++) await login(store, as('alice'));
    const last = await login(store, as('alice'));
    expect(await alive(store, [bob, ...alice, fourth, last])).toEqual([true, false, false, false, false, true]);
  });

  test('a token and a user of the same name do not share a bound; two tokens of one USER part neither', async () => {
    const store = new MemorySessionStore({ now: clock, bounds: { maxPerUser: 1, maxBytes: 1 << 30 } });
    const user = await login(store, { user: 'ops_9f2c1e0a', rolesKey: 'ops_9f2c1e0a', via: 'password' });
    const token = await login(store, { user: 'ops', rolesKey: 'ops_9f2c1e0a', via: 'token' });
    const other = await login(store, { user: 'ops', rolesKey: 'ops_00000000', via: 'token' });
    expect(await alive(store, [user, token, other])).toEqual([true, true, true]);
    const again = await login(store, { user: 'ops', rolesKey: 'ops_9f2c1e0a', via: 'token' });
    expect(await alive(store, [user, token, other, again])).toEqual([true, false, true, true]);
  });

  test("the byte bound: expired sessions go first, then the user's own oldest; else refused, others untouched", async () => {
    const size = sessionBytes(as('alice'));
    expect(sessionBytes(as('bobby'))).toBe(size);
    const store = new MemorySessionStore({
      now: clock,
      idleSeconds: 60,
      bounds: { maxPerUser: 100, maxBytes: 4 * size },
    });
    const bob = [await login(store, as('bobby')), await login(store, as('bobby'))];
    const alice = [await login(store, as('alice')), await login(store, as('alice'))];
    // Full: alice's next login ends her own oldest session.
    const third = await login(store, as('alice'));
    expect(await alive(store, [...bob, ...alice, third])).toEqual([true, true, false, true, true]);
    // carol has no session to give up: refused, and nobody else's session ends.
    await expect(login(store, as('carol'))).rejects.toMatchObject({
      error: 'Session limit reached',
      code: 2,
      loginFailure: true,
      message: expect.stringContaining(`dnsTool.maxSessionBytes (${4 * size} bytes)`),
    });
    expect(await alive(store, [...bob, alice[1] as string, third])).toEqual([true, true, true, true]);
    // bob's sessions expire (alice's are used): carol's login takes their room.
    now += 30_000;
    await alive(store, [alice[1] as string, third]);
    now += 31_000;
    const carol = await login(store, as('carol'));
    expect(await alive(store, [...bob, alice[1] as string, third, carol])).toEqual([false, false, true, true, true]);
  });

  test('a refused login ends none of its own sessions either, when ending them all would not make room', async () => {
    const size = sessionBytes(as('alice'));
    const store = new MemorySessionStore({ now: clock, bounds: { maxPerUser: 100, maxBytes: 2 * size } });
    const bob = await login(store, as('bobby'));
    const alice = await login(store, as('alice'));
    await expect(
      login(store, { ...as('alice'), fileRoles: ['a-role-name-that-makes-it-bigger'] }),
    ).rejects.toMatchObject({ error: 'Session limit reached' });
    expect(await alive(store, [bob, alice])).toEqual([true, true]);
  });

  test('ended and expired sessions give their bytes back', async () => {
    const size = sessionBytes(as('alice'));
    const store = new MemorySessionStore({ now: clock, idleSeconds: 60, bounds: { maxPerUser: 100, maxBytes: size } });
    const first = await login(store, as('bobby'));
    await store.end(first);
    const second = await login(store, as('carol'));
    now += 61_000;
    expect(await store.touch(second)).toBeNull();
    await expect(login(store, as('alice'))).resolves.toMatch(/^[0-9a-f]{32}$/);
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
