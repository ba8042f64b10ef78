// @needs redis
import { randomBytes } from 'node:crypto';
import { RedisLink } from '../../platform/redis';
import { call } from '../dns-api/api';
import { api } from '../dns-tool/tool-system';
import { startSystem, TEST_ADMIN_PASSWORD, type RunningSystem } from '../support/system';

/**
 * The failed-login throttle across two gateway replicas, over the wire: with REDIS_URL they count the same failures
 * (the DNS API's `/auth/login` and the DNS tool's `login_token`), so two replicas allow what one does; without it
 * each counts its own. Redis at 127.0.0.1:6379; the keys of this run's prefix are deleted at the end.
 */
const REDIS_URL = 'redis://127.0.0.1:6379';
const PREFIX = `test-throttle-wire-${randomBytes(4).toString('hex')}`;

describe.each([
  ['in Redis', { REDIS_URL, REDIS_PREFIX: PREFIX }, true],
  ['in memory', {}, false],
])('login throttle %s, two replicas', (_label, env: Record<string, string>, shared: boolean) => {
  let a: RunningSystem;
  let b: RunningSystem;
  beforeAll(async () => {
    const settings = { ...env, DNS_API_LOGIN_FAILURES_PER_USER: '3' };
    a = await startSystem(settings);
    b = await startSystem(settings);
  }, 60_000);
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  test(`DNS API: 3 wrong passwords through both, then the right one ${shared ? 'is 429' : 'works'}`, async () => {
    for (const [i, sys] of [a, b, a].entries()) {
      const body = { username: 'admin', password: `wrong guess ${i}` };
      expect((await call(`${sys.url}/api/v1`, 'POST', '/auth/login', { body })).status).toBe(401);
    }
    const body = { username: 'admin', password: TEST_ADMIN_PASSWORD };
    const right = await call(`${b.url}/api/v1`, 'POST', '/auth/login', { body });
    expect(right.status).toBe(shared ? 429 : 200);
  });

  test(`DNS tool: 3 token guesses through both, then the next is ${shared ? 'refused' : 'checked'}`, async () => {
    for (const [i, sys] of [a, b, a].entries()) {
      const wrong = await api(sys.url, { action: 'login_token', token: `guess_${i}0000000` });
      expect(wrong.body).toMatchObject({ result: 'failure', message: 'Invalid username or password' });
    }
    const next = await api(b.url, { action: 'login_token', token: 'guess_99999999' });
    expect(next.body).toMatchObject({
      result: 'failure',
      message: shared ? expect.stringMatching(/^Too many failed logins/) : 'Invalid username or password',
    });
  });
});

afterAll(async () => {
  const link = new RedisLink({
    url: REDIS_URL,
    purpose: 'test cleanup',
    fallback: 'none',
    connectTimeoutMs: 1000,
    commandTimeoutMs: 1000,
  });
  try {
    for (let i = 0; i < 100 && !link.up; i++) await new Promise((r) => setTimeout(r, 20));
    const keys: string[] = [];
    for await (const batch of link.client.scanIterator({ MATCH: `${PREFIX}*`, COUNT: 1000 })) keys.push(...batch);
    if (keys.length > 0) await link.run((c) => c.del(keys));
  } finally {
    await link.close();
  }
});
