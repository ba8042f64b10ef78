/** Login throttling: limits per username and per address, Retry-After, reset on success, sliding window, bounds. */
import { IdentityError } from './errors';
import { LoginThrottle, addressKey } from './throttle';
import { TestClock } from './testing';

const START = '2024-05-01T12:00:00.000Z';

function throttled(fn: () => unknown): IdentityError {
  try {
    fn();
  } catch (err) {
    if (err instanceof IdentityError && err.code === 'THROTTLED') return err;
    throw err;
  }
  throw new Error('expected THROTTLED, the attempt was allowed');
}

/** `n` failed attempts for `user` from `address`. */
function fail(t: LoginThrottle, user: string, address: string, n: number): void {
  for (let i = 0; i < n; i++) t.begin(user, address).failed();
}

describe('per username', () => {
  test('the 6th attempt within 15 minutes after 5 failures is refused with Retry-After, from any address', () => {
    const clock = new TestClock(START);
    const t = new LoginThrottle({}, clock.now);
    for (let i = 0; i < 5; i++) {
      t.begin('alice', `192.0.2.${i}`).failed();
      clock.tick(60_000); // one failure a minute: failures at 0, 1, 2, 3, 4 minutes
    }
    const err = throttled(() => t.begin('alice', '198.51.100.7'));
    // now = 5 min; the oldest failure (0 min) leaves the window at 15 min: 600 s from now
    expect(err.retryAfterSeconds).toBe(600);
    expect(err.message).toBe('too many failed logins for this username; try again in 600 seconds');
    // Another username from the same addresses is not affected.
    expect(() => t.begin('bob', '192.0.2.0').failed()).not.toThrow();
  });

  test('the window slides: one failure leaving it allows exactly one more attempt', () => {
    const clock = new TestClock(START);
    const t = new LoginThrottle({}, clock.now);
    for (let i = 0; i < 5; i++) {
      t.begin('alice', '192.0.2.1').failed();
      clock.tick(60_000);
    }
    clock.set('2024-05-01T12:14:59.000Z');
    expect(throttled(() => t.begin('alice', '192.0.2.1')).retryAfterSeconds).toBe(1);
    clock.set('2024-05-01T12:15:00.000Z'); // the first failure has left the window
    t.begin('alice', '192.0.2.1').failed();
    expect(throttled(() => t.begin('alice', '192.0.2.1')).retryAfterSeconds).toBe(60);
  });

  test('a success clears the username count', () => {
    const clock = new TestClock(START);
    const t = new LoginThrottle({}, clock.now);
    fail(t, 'alice', '192.0.2.1', 4);
    t.begin('alice', '192.0.2.1').succeeded();
    fail(t, 'alice', '192.0.2.1', 5); // five more failures are allowed after the reset
    throttled(() => t.begin('alice', '192.0.2.1'));
  });

  test('the limit holds even with the right password (a throttled attempt is refused before it is checked)', () => {
    const t = new LoginThrottle({}, new TestClock(START).now);
    fail(t, 'alice', '192.0.2.1', 5);
    throttled(() => t.begin('alice', '192.0.2.1')); // no attempt object: no chance to report success
  });

  test('attempts in flight count: 10 started at once, only 5 proceed', () => {
    const t = new LoginThrottle({}, new TestClock(START).now);
    let started = 0;
    let refused = 0;
    const pending = [];
    for (let i = 0; i < 10; i++) {
      try {
        pending.push(t.begin('alice', `192.0.2.${i}`));
        started++;
      } catch (err) {
        if (!(err instanceof IdentityError && err.code === 'THROTTLED')) throw err;
        refused++;
      }
    }
    expect({ started, refused }).toEqual({ started: 5, refused: 5 });
    for (const a of pending) a.failed();
  });
});

describe('per address', () => {
  test('20 failures from one address refuse a 21st with any username; other addresses go on', () => {
    const clock = new TestClock(START);
    const t = new LoginThrottle({}, clock.now);
    for (let i = 0; i < 20; i++) t.begin(`user${i}`, '203.0.113.9').failed();
    const err = throttled(() => t.begin('someone-new', '203.0.113.9'));
    expect(err.retryAfterSeconds).toBe(900);
    expect(err.message).toBe('too many failed logins for this address; try again in 900 seconds');
    expect(() => t.begin('someone-new', '203.0.113.10').failed()).not.toThrow();
    clock.tick(900_000);
    expect(() => t.begin('someone-new', '203.0.113.9').failed()).not.toThrow();
  });

  test('a success takes back only its own attempt from the address count', () => {
    const t = new LoginThrottle({ maxFailuresPerAddress: 3 }, new TestClock(START).now);
    fail(t, 'a', '203.0.113.9', 2);
    t.begin('b', '203.0.113.9').succeeded(); // 2 failures remain counted
    t.begin('c', '203.0.113.9').failed(); // 3rd
    throttled(() => t.begin('d', '203.0.113.9'));
  });

  test('both limits reached: the message names both and Retry-After is the longer wait', () => {
    const clock = new TestClock(START);
    const t = new LoginThrottle({ maxFailuresPerUsername: 2, maxFailuresPerAddress: 3 }, clock.now);
    t.begin('alice', '203.0.113.9').failed(); // 0 s
    clock.tick(100_000);
    t.begin('alice', '203.0.113.9').failed(); // 100 s: alice at her limit (free at 900 s)
    clock.tick(100_000);
    t.begin('bob', '203.0.113.9').failed(); // 200 s: the address at its limit (free at 900 s)
    clock.tick(100_000);
    const err = throttled(() => t.begin('alice', '203.0.113.9'));
    expect(err.message).toMatch(/for this username and from this address/);
    expect(err.retryAfterSeconds).toBe(600);
  });

  test.each([
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::ffff', '2001:db8:1:2::/64'],
    ['[2001:DB8:1:2::1]', '2001:db8:1:2::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::ffff:192.0.2.5', '192.0.2.5'],
    ['::1', '0:0:0:0::/64'],
    ['192.0.2.5', '192.0.2.5'],
    ['', 'unknown'],
    ['not an address', 'other:not an address'],
  ])('address %j counts as %j', (address, key) => {
    expect(addressKey(address)).toBe(key);
  });

  test('one IPv6 /64 is one client: 20 failures from 20 addresses of it refuse the next', () => {
    const t = new LoginThrottle({}, new TestClock(START).now);
    for (let i = 1; i <= 20; i++) t.begin(`user${i}`, `2001:db8:aa:bb::${i.toString(16)}`).failed();
    throttled(() => t.begin('user99', '2001:db8:aa:bb:ffff:ffff:ffff:ffff'));
    expect(() => t.begin('user99', '2001:db8:aa:bc::1').failed()).not.toThrow();
  });
});

test('memory stays bounded: spraying usernames and addresses keeps at most maxTrackedKeys of each', () => {
  const clock = new TestClock(START);
  const t = new LoginThrottle({ maxTrackedKeys: 100 }, clock.now);
  for (let i = 0; i < 5000; i++) {
    t.begin(`spray${i}`, `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`).failed();
    clock.tick(10);
  }
  expect(t.tracked).toEqual({ usernames: 100, addresses: 100 });
  // The most recent failures are the ones kept.
  fail(t, 'spray4999', '10.0.19.135', 4);
  throttled(() => t.begin('spray4999', '10.0.19.136'));
});

test.each([
  [{ maxFailuresPerUsername: 0 }, /maxFailuresPerUsername must be a positive integer/],
  [{ maxFailuresPerAddress: 1.5 }, /maxFailuresPerAddress must be a positive integer/],
  [{ windowSeconds: -1 }, /windowSeconds must be a positive integer/],
  [{ maxTrackedKeys: 0 }, /maxTrackedKeys must be a positive integer/],
])('options %j are refused', (options, message) => {
  expect(() => new LoginThrottle(options)).toThrow(message);
});
