// @needs redis
/**
 * The login throttle on Redis: the contract every ledger passes (throttle.contract.ts), then what sharing adds — two
 * throttles on one prefix are two replicas behind a load balancer: what one counts the other refuses, and attempts
 * sent at once through both cannot pass the limit — and Redis away: attempts count per process meanwhile, nobody is
 * locked out, and Redis's counts apply again once it answers.
 *
 * Needs Redis at 127.0.0.1:6379 (the tests FAIL when it does not answer) and `redis-server` for the outage test.
 * Every key is under a prefix of this run, deleted at the end. Clocks are injected: nothing waits on time.
 */
import { RedisLink } from '../redis';
import { TestClock } from '../../subgraphs/dns-api/identity/testing/index';
import { startTestRedis } from '../../test/support/redis-server';
import type { ThrottleOptions } from './ledger';
import { keyPart, redisLedger } from './redis-ledger';
import { describeThrottleContract, fail, throttleHarness, throttled, type Harness } from './throttle.contract';

const URL = 'redis://127.0.0.1:6379';
const run = `test-throttle-${process.pid}-${Date.now()}`;
let prefixes = 0;
const newPrefix = () => `${run}-${++prefixes}`;
const linkOptions = (url: string) => ({
  url,
  purpose: 'login throttle test',
  fallback: 'counting per process',
  connectTimeoutMs: 1000,
  commandTimeoutMs: 1000,
});

let link: RedisLink;
let other: RedisLink;

async function ready(l: RedisLink): Promise<void> {
  for (let i = 0; i < 100 && !l.up; i++) await new Promise((r) => setTimeout(r, 20));
  if (!l.up) throw new Error(`Redis at ${URL} is not answering (the tests need it)`);
}

beforeAll(async () => {
  link = new RedisLink(linkOptions(URL));
  other = new RedisLink(linkOptions(URL));
  await ready(link);
  await ready(other);
});
afterAll(async () => {
  const keys: string[] = [];
  for await (const batch of link.client.scanIterator({ MATCH: `${run}-*`, COUNT: 1000 })) keys.push(...batch);
  if (keys.length > 0) await link.run((c) => c.del(keys));
  await link?.close();
  await other?.close();
});

/** What the contract's ledgers said about Redis: they must have counted there, never in memory instead. */
const fellBack: string[] = [];
describeThrottleContract('redis', () => (limits, context) => {
  const log = { info: () => {}, warn: (_: object, msg: string) => fellBack.push(msg) };
  return redisLedger(link, { prefix: newPrefix(), namespace: 'test' })(limits, { ...context, log });
});
afterEach(() => expect(fellBack).toEqual([]));

/** Two throttles sharing one prefix through two connections (two replicas), on one clock. */
function replicas(options: ThrottleOptions = {}): { a: Harness; b: Harness; clock: TestClock; prefix: string } {
  const prefix = newPrefix();
  const clock = new TestClock('2024-05-01T12:00:00.000Z');
  const a = throttleHarness(options, redisLedger(link, { prefix, namespace: 'test' }), clock);
  const b = throttleHarness(options, redisLedger(other, { prefix, namespace: 'test' }), clock);
  return { a, b, clock, prefix };
}

describe('two replicas on one Redis', () => {
  test('failures through one count against the other, per (username, address)', async () => {
    const { a, b } = replicas();
    await fail(a.t, 'alice', '192.0.2.1', 3);
    await fail(b.t, 'alice', '192.0.2.1', 2);
    expect((await throttled(a.t.begin('alice', '192.0.2.1'))).retryAfterSeconds).toBe(900);
    expect((await throttled(b.t.begin('alice', '192.0.2.1'))).message).toMatch(/for this username from this address/);
    (await b.t.begin('alice', '198.51.100.7')).succeeded(); // another address is not affected
  });

  test('failures through one count against the other, per address', async () => {
    const { a, b } = replicas();
    for (let i = 0; i < 20; i++) (await (i % 2 ? a : b).t.begin(`user${i}`, '203.0.113.9')).failed();
    expect((await throttled(a.t.begin('someone-new', '203.0.113.9'))).message).toMatch(/^too many failed logins from/);
    await throttled(b.t.begin('someone-new', '203.0.113.9'));
  });

  test("a username's slow-down is one queue across replicas", async () => {
    const { a, b } = replicas();
    for (let i = 1; i <= 5; i++) (await a.t.begin('admin', `10.0.0.${i}`)).failed();
    (await b.t.begin('admin', '10.0.1.1')).failed(); // the first over the limit goes at once
    (await a.t.begin('admin', '10.0.1.2')).failed(); // its turn 250 ms on
    (await b.t.begin('admin', '10.0.1.3')).failed(); // 250 + 500 ms on
    expect({ a: a.holds, b: b.holds }).toEqual({ a: [250], b: [750] });
  });

  test('a success through one clears its pair on the other', async () => {
    const { a, b } = replicas();
    await fail(a.t, 'alice', '192.0.2.1', 4);
    (await b.t.begin('alice', '192.0.2.1')).succeeded();
    await b.t.settled(); // recorded through b's connection before a's next attempt
    await fail(a.t, 'alice', '192.0.2.1', 5); // five more are allowed after the reset
    await throttled(b.t.begin('alice', '192.0.2.1'));
  });

  test('an address that logged in through one skips the queue on the other', async () => {
    const { a, b } = replicas();
    (await a.t.begin('admin', '198.51.100.1')).succeeded();
    await a.t.settled();
    for (let i = 1; i <= 10; i++) (await b.t.begin('admin', `10.0.2.${i}`)).failed();
    expect(b.holds).toEqual([250, 750, 1750, 3750]);
    (await a.t.begin('admin', '198.51.100.1')).succeeded();
    expect(a.holds).toEqual([]);
  });

  test('20 wrong passwords sent at once through both, limit 5: exactly 5 are checked, 15 refused', async () => {
    const { a, b } = replicas();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).t.begin('alice', '192.0.2.9')),
    );
    const started = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    expect({ started: started.length, refused: outcomes.length - started.length }).toEqual({ started: 5, refused: 15 });
    for (const attempt of started) attempt.failed();
    await throttled(a.t.begin('alice', '192.0.2.9'));
  });

  test('a slowed username at once from many addresses through both: each turn taken once', async () => {
    const { a, b } = replicas({ slowdownBaseMs: 10, maxHoldMs: 100 });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).t.begin('root', `198.51.100.${i}`)),
    );
    // 5 at once, then turns 0, 10, 30 and 70 ms away; the next would be 150 ms away (over 100): refused.
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(9);
    expect([...a.holds, ...b.holds].sort((x, y) => x - y)).toEqual([10, 30, 70]);
  });

  test('every key expires (nothing stays behind) and names its user and address safely', async () => {
    const { a, prefix } = replicas();
    await fail(a.t, 'a b|c', '192.0.2.1', 5);
    (await a.t.begin('a b|c', '192.0.2.2')).succeeded();
    (await a.t.begin('a b|c', '192.0.2.3')).failed(); // slowed: takes a turn
    await a.t.settled();
    const keys: string[] = [];
    for await (const batch of link.client.scanIterator({ MATCH: `${prefix}:*`, COUNT: 100 })) keys.push(...batch);
    const base = `${prefix}:login-throttle:test:`;
    expect(keys.sort()).toEqual(
      [
        'failed-address:192.0.2.1',
        'failed-address:192.0.2.3',
        'failed-pair:a%0020b%007cc|192.0.2.1',
        'failed-pair:a%0020b%007cc|192.0.2.3',
        'failed-user:a%0020b%007cc',
        'trusted:a%0020b%007cc|192.0.2.2',
        'turn:a%0020b%007cc',
      ].map((k) => `${base}${k}`),
    );
    for (const key of keys) {
      const ttl = await link.run((c) => c.pTTL(key));
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(key.includes(':trusted:') ? 30 * 86_400_000 : 900_000);
    }
  });
});

test('key parts: plain ones readable, others escaped (| never appears), long ones hashed', () => {
  expect(keyPart('user:alice')).toBe('user:alice');
  expect(keyPart('2001:db8::/64')).toBe('2001:db8::/64');
  expect(keyPart('a|b %')).toBe('a%007cb%0020%0025');
  expect(keyPart('\u00e9\ud83d')).toBe('%00e9%d83d');
  const long = keyPart('x'.repeat(201));
  expect(long).toMatch(/^#[A-Za-z0-9_-]{43}$/);
  expect(keyPart('x'.repeat(200))).toBe('x'.repeat(200));
  expect(keyPart('y'.repeat(201))).not.toBe(long);
});

describe('Redis away', () => {
  test('unreachable: attempts are throttled per process, and the right password still gets in', async () => {
    const away = new RedisLink({ ...linkOptions('redis://127.0.0.1:1'), commandTimeoutMs: 200 }); // nothing listens
    try {
      const { t, logs } = throttleHarness({}, redisLedger(away, { prefix: newPrefix(), namespace: 'test' }));
      await fail(t, 'alice', '192.0.2.1', 5);
      await throttled(t.begin('alice', '192.0.2.1'));
      (await t.begin('alice', '198.51.100.7')).succeeded();
      await t.settled();
      expect(t.tracked).toEqual({ usernames: 1, addresses: 1, pairs: 1 });
      expect(logs.filter((l) => l.msg.includes('Redis'))).toEqual([
        {
          level: 'warn',
          msg: 'test: the login throttle cannot reach Redis; failed logins count per process until it answers',
          obj: { redis: 'login throttle', err: expect.stringContaining('Redis is unreachable') },
        },
      ]);
    } finally {
      await away.close();
    }
  });

  test('an outage: per process meanwhile, said once when it starts and once when it ends; then Redis counts again', async () => {
    const redis = await startTestRedis();
    const own = new RedisLink({ ...linkOptions(redis.url), commandTimeoutMs: 200 });
    try {
      await ready(own);
      const { t, logs } = throttleHarness({}, redisLedger(own, { prefix: newPrefix(), namespace: 'test' }));
      await fail(t, 'alice', '192.0.2.1', 5);
      await throttled(t.begin('alice', '192.0.2.1')); // refused by Redis's counts
      redis.pause(); // connected, answering nothing: the next attempt times out
      // Counted in this process meanwhile: never refused for want of Redis, never let through uncounted.
      await fail(t, 'alice', '192.0.2.1', 5);
      await throttled(t.begin('alice', '192.0.2.1'));
      (await t.begin('alice', '198.51.100.7')).succeeded();
      redis.resume();
      await ready(own);
      await throttled(t.begin('alice', '192.0.2.1')); // Redis's counts again
      (await t.begin('bob', '192.0.2.1')).failed();
      await t.settled();
      expect(logs.filter((l) => l.msg.includes('Redis')).map((l) => `${l.level}: ${l.msg}`)).toEqual([
        'warn: test: the login throttle cannot reach Redis; failed logins count per process until it answers',
        'info: test: the login throttle reaches Redis again; failed logins count across replicas again',
      ]);
    } finally {
      redis.resume();
      await own.close();
      await redis.kill();
    }
  });
});
