// @needs redis
import { randomBytes } from 'node:crypto';
import { sessionBytes } from '../../subgraphs/dns-tool/tool/sessions';
import {
  api,
  expectError,
  expectOk,
  loginToken,
  OPS,
  READER,
  ROOT,
  startEditorsSystem,
  type ToolSystem,
} from './tool-system';

/**
 * Session floods (docs/dns-tool.md): one token opened 124 779 sessions and, past the store's bound, the oldest
 * sessions of other users ended. Over `/api.php`, in memory and in Redis: a user's logins past
 * dnsTool.maxSessionsPerUser end that user's own least recently used session, and a login the byte bound
 * (dnsTool.maxSessionBytes) has no room for is refused — another user's session never ends.
 */
const STORES: Array<[string, Record<string, string>]> = [
  ['in memory', {}],
  [
    'in Redis',
    {
      REDIS_URL: 'redis://127.0.0.1:6379',
      REDIS_PREFIX: `test-bounds-${randomBytes(4).toString('hex')}:`,
      // The bounds are under test, not Redis' latency: on a loaded machine the 1 s / 500 ms defaults gave up.
      REDIS_CONNECT_TIMEOUT_MS: '10000',
      REDIS_COMMAND_TIMEOUT_MS: '10000',
    },
  ],
];

const isLogged = async (url: string, session: string): Promise<boolean> =>
  ((await api(url, { action: 'is_logged' }, { bearer: session })).body as { is_logged: boolean }).is_logged;

const sessionOf = (token: string, user: string) => ({ user, rolesKey: token, via: 'token' as const });

describe.each(STORES)('sessions %s', (_label, env) => {
  describe('per user (dnsTool.maxSessionsPerUser: 3)', () => {
    let t: ToolSystem;
    beforeAll(async () => {
      t = await startEditorsSystem({ maxSessionsPerUser: 3 }, env);
    }, 30_000);
    afterAll(() => t?.close());

    test("user B's session survives user A's flood; A's least recently used sessions end", async () => {
      const b = await loginToken(t.url, READER);
      const a = [await loginToken(t.url, OPS), await loginToken(t.url, OPS), await loginToken(t.url, OPS)];
      expect(await isLogged(t.url, a[0] as string)).toBe(true); // A's first is used again: the second is the oldest
      const fourth = await loginToken(t.url, OPS);
      expect(await Promise.all([...a, fourth].map((s) => isLogged(t.url, s)))).toEqual([true, false, true, true]);
      const flood = [];
      for (let i = 0; i < 50; i++) flood.push(await loginToken(t.url, OPS));
      expectOk(await api(t.url, { action: 'is_logged' }, { bearer: b }), {
        is_logged: true,
        user: 'reader',
        role: 'readers',
      });
      const states = await Promise.all([...a, fourth, ...flood].map((s) => isLogged(t.url, s)));
      expect(states.filter(Boolean)).toHaveLength(3);
      expect(states.slice(-3)).toEqual([true, true, true]);
      // The ended ones are gone for good: an action with one is Not authenticated.
      expectError(
        await api(t.url, { action: 'list_zones' }, { bearer: a[0] as string }),
        'Not authenticated',
        'This call requires authentication, but you are not logged in',
        403,
      );
    });
  });

  describe('in bytes (dnsTool.maxSessionBytes: room for three sessions)', () => {
    let t: ToolSystem;
    const ops = sessionBytes(sessionOf(OPS, 'ops'));
    const reader = sessionBytes(sessionOf(READER, 'reader'));
    const maxBytes = 2 * ops + reader;
    beforeAll(async () => {
      t = await startEditorsSystem({ maxSessionBytes: maxBytes }, env);
    }, 30_000);
    afterAll(() => t?.close());

    test("full: a login ends its own user's oldest session, or is refused; never another user's", async () => {
      const o = [await loginToken(t.url, OPS), await loginToken(t.url, OPS)];
      const r = await loginToken(t.url, READER);
      // root has no session to give up: refused with the tool's login failure shape, naming the limit.
      const refused = await api(t.url, { action: 'login_token', token: ROOT });
      expectError(
        refused,
        'Session limit reached',
        `The tool holds as many sessions as dnsTool.maxSessionBytes (${maxBytes} bytes) allows: log in again when sessions have ended, or send an API token as Authorization: Bearer instead of logging in`,
        2,
        true,
      );
      expect(refused.headers.get('set-cookie')).toBeNull();
      expect(await Promise.all([...o, r].map((s) => isLogged(t.url, s)))).toEqual([true, true, true]);
      // ops may log in again: its own oldest session makes room.
      const third = await loginToken(t.url, OPS);
      expect(await Promise.all([...o, r, third].map((s) => isLogged(t.url, s)))).toEqual([false, true, true, true]);
      // A logout gives the room back.
      expectOk(await api(t.url, { action: 'logout' }, { bearer: r }), { result: 'success' });
      expect(await isLogged(t.url, await loginToken(t.url, ROOT))).toBe(true);
    });
  });
});
