/**
 * The one contract every ledger of the login throttle passes (memory: throttle.test.ts, Redis: redis-ledger.test.ts):
 * hard limits per (username, address) and per address, a slow-down per username across addresses that never locks a
 * user out, Retry-After, reset on success, sliding window, and logs. The clock is injected: nothing waits on time.
 */
import { IdentityError } from '../../subgraphs/dns-api/identity/errors';
import { TestClock } from '../../subgraphs/dns-api/identity/testing/index';
import type { LedgerFactory, ThrottleOptions } from './ledger';
import { LoginThrottle, type LoginAttempt } from './throttle';

const START = '2024-05-01T12:00:00.000Z';

export interface Harness {
  t: LoginThrottle;
  clock: TestClock;
  /** Every hold the throttle asked for, in ms. */
  holds: number[];
  logs: Array<{ level: 'info' | 'warn'; msg: string; obj: object }>;
}

/** A throttle on `ledger` (default: memory) with a test clock, recorded holds and logs. */
export function throttleHarness(
  options: ThrottleOptions = {},
  ledger?: LedgerFactory,
  clock = new TestClock(START),
): Harness {
  const holds: number[] = [];
  const logs: Harness['logs'] = [];
  const t = new LoginThrottle(options, {
    refuse: ({ message, retryAfterSeconds }) => new IdentityError('THROTTLED', message, { retryAfterSeconds }),
    now: clock.now,
    wait: async (ms) => {
      holds.push(ms);
    },
    log: {
      info: (obj, msg) => logs.push({ level: 'info', msg, obj }),
      warn: (obj, msg) => logs.push({ level: 'warn', msg, obj }),
    },
    what: 'test',
    ...(ledger ? { ledger } : {}),
  });
  return { t, clock, holds, logs };
}

export async function throttled(attempt: Promise<LoginAttempt>): Promise<IdentityError> {
  try {
    await attempt;
  } catch (err) {
    if (err instanceof IdentityError && err.code === 'THROTTLED') return err;
    throw err;
  }
  throw new Error('expected THROTTLED, the attempt was allowed');
}

/** `n` failed attempts for `user` from `address`. */
export async function fail(t: LoginThrottle, user: string, address: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) (await t.begin(user, address)).failed();
}

/** Runs the contract on the ledgers `ledger` makes (a new, empty one each call). */
export function describeThrottleContract(name: string, ledger: () => LedgerFactory): void {
  describe(`login throttle contract: ${name}`, () => {
    const harness = (options: ThrottleOptions = {}): Harness => throttleHarness(options, ledger());

    describe('per username and address', () => {
      test('after 5 failures the 6th from that address is refused with Retry-After; other addresses are not', async () => {
        const { t, clock } = harness();
        for (let i = 0; i < 5; i++) {
          (await t.begin('alice', '192.0.2.1')).failed();
          clock.tick(60_000); // failures at 0, 1, 2, 3, 4 minutes
        }
        const err = await throttled(t.begin('alice', '192.0.2.1'));
        // now = 5 min; the oldest failure (0 min) leaves the window at 15 min: 600 s from now
        expect(err.retryAfterSeconds).toBe(600);
        expect(err.message).toBe(
          'too many failed logins for this username from this address; try again in 600 seconds',
        );
        // The right password from another address is never refused: nobody can lock alice out from afar.
        (await t.begin('alice', '198.51.100.7')).succeeded();
        // Another username from the same address is not affected.
        (await t.begin('bob', '192.0.2.1')).failed();
      });

      test('the window slides: one failure leaving it allows exactly one more attempt', async () => {
        const { t, clock } = harness();
        for (let i = 0; i < 5; i++) {
          (await t.begin('alice', '192.0.2.1')).failed();
          clock.tick(60_000);
        }
        clock.set('2024-05-01T12:14:59.000Z');
        expect((await throttled(t.begin('alice', '192.0.2.1'))).retryAfterSeconds).toBe(1);
        clock.set('2024-05-01T12:15:00.000Z'); // the first failure has left the window
        (await t.begin('alice', '192.0.2.1')).failed();
        expect((await throttled(t.begin('alice', '192.0.2.1'))).retryAfterSeconds).toBe(60);
      });

      test('a success clears the count of its username and address', async () => {
        const { t } = harness();
        await fail(t, 'alice', '192.0.2.1', 4);
        (await t.begin('alice', '192.0.2.1')).succeeded();
        await fail(t, 'alice', '192.0.2.1', 5); // five more failures are allowed after the reset
        await throttled(t.begin('alice', '192.0.2.1'));
      });

      test('the limit holds even with the right password (a throttled attempt is refused before it is checked)', async () => {
        const { t } = harness();
        await fail(t, 'alice', '192.0.2.1', 5);
        await throttled(t.begin('alice', '192.0.2.1')); // no attempt object: no chance to report success
      });

      test('attempts in flight count: 10 started at once from one address, only 5 proceed', async () => {
        const { t } = harness();
        const outcomes = await Promise.allSettled(Array.from({ length: 10 }, () => t.begin('alice', '192.0.2.9')));
        const started = outcomes.filter((o) => o.status === 'fulfilled');
        expect({ started: started.length, refused: outcomes.length - started.length }).toEqual({
          started: 5,
          refused: 5,
        });
        for (const o of started) if (o.status === 'fulfilled') o.value.failed();
      });
    });

    describe('per address', () => {
      test('20 failures from one address refuse a 21st with any username; other addresses go on', async () => {
        const { t, clock } = harness();
        for (let i = 0; i < 20; i++) (await t.begin(`user${i}`, '203.0.113.9')).failed();
        const err = await throttled(t.begin('someone-new', '203.0.113.9'));
        expect(err.retryAfterSeconds).toBe(900);
        expect(err.message).toBe('too many failed logins from this address; try again in 900 seconds');
        (await t.begin('someone-new', '203.0.113.10')).failed();
        clock.tick(900_000);
        (await t.begin('someone-new', '203.0.113.9')).failed();
      });

      test('a success takes back only its own attempt from the address count', async () => {
        const { t } = harness({ maxFailuresPerAddress: 3 });
        await fail(t, 'a', '203.0.113.9', 2);
        (await t.begin('b', '203.0.113.9')).succeeded(); // 2 failures remain counted
        (await t.begin('c', '203.0.113.9')).failed(); // 3rd
        await throttled(t.begin('d', '203.0.113.9'));
      });

      test('both limits reached: the message names both and Retry-After is the longer wait', async () => {
        const { t, clock } = harness({ maxFailuresPerUsername: 2, maxFailuresPerAddress: 3 });
        (await t.begin('alice', '203.0.113.9')).failed(); // 0 s
        clock.tick(100_000);
        (await t.begin('alice', '203.0.113.9')).failed(); // 100 s: alice from here at her limit (free at 900 s)
        clock.tick(100_000);
        (await t.begin('bob', '203.0.113.9')).failed(); // 200 s: the address at its limit (free at 900 s)
        clock.tick(100_000);
        const err = await throttled(t.begin('alice', '203.0.113.9'));
        expect(err.message).toMatch(/for this username and from this address/);
        expect(err.retryAfterSeconds).toBe(600);
      });

      test('one IPv6 /64 is one client: 20 failures from 20 addresses of it refuse the next', async () => {
        const { t } = harness();
        for (let i = 1; i <= 20; i++) (await t.begin(`user${i}`, `2001:db8:aa:bb::${i.toString(16)}`)).failed();
        await throttled(t.begin('user99', '2001:db8:aa:bb:ffff:ffff:ffff:ffff'));
        (await t.begin('user99', '2001:db8:aa:bc::1')).failed();
      });
    });

    describe('per username across addresses: slowed down, never locked', () => {
      /** Failures for `user` from `n` different addresses (one each), each refused one tried again when told. */
      async function spray(h: Harness, user: string, n: number, from = 1): Promise<void> {
        for (let i = from; i < from + n; i++) {
          const address = `10.0.${i >> 8}.${i & 255}`;
          const attempt = await h.t.begin(user, address).catch(async (err: unknown) => {
            if (!(err instanceof IdentityError) || err.retryAfterSeconds === undefined) throw err;
            h.clock.tick(err.retryAfterSeconds * 1000);
            return h.t.begin(user, address);
          });
          attempt.failed();
        }
      }

      test('past 5 failures each attempt waits its turn, the spacing doubling; a turn too far away is refused', async () => {
        const h = harness();
        const { t, holds } = h;
        await spray(h, 'admin', 5);
        expect(holds).toEqual([]);
        await spray(h, 'admin', 5, 100);
        // Turns 250, 500, 1000, 2000 ms apart (the first attempt over the limit goes at once).
        expect(holds).toEqual([250, 750, 1750, 3750]);
        const err = await throttled(t.begin('admin', '10.9.9.9'));
        expect(err.message).toBe(
          'too many failed logins for this username from many addresses: its attempts are slowed down; try again in 8 seconds',
        );
        expect(err.retryAfterSeconds).toBe(8);
      });

      test('the right password from a fresh address after 5 failures elsewhere gets in at once', async () => {
        const h = harness();
        const { t, holds } = h;
        await spray(h, 'admin', 5);
        (await t.begin('admin', '198.51.100.1')).succeeded();
        expect(holds).toEqual([]);
      });

      test('an address that logged in as the user before skips the queue however many failures others make', async () => {
        const h = harness();
        const { t, clock, holds } = h;
        (await t.begin('admin', '198.51.100.1')).succeeded();
        clock.tick(3_600_000);
        await spray(h, 'admin', 40);
        const before = holds.length;
        (await t.begin('admin', '198.51.100.1')).succeeded();
        expect(holds.length).toBe(before); // not held
      });

      test('a fresh address is only ever delayed: once its turn comes, it gets in', async () => {
        const h = harness();
        const { t, clock } = h;
        await spray(h, 'admin', 60);
        const refused = await throttled(t.begin('admin', '198.51.100.2'));
        clock.tick((refused.retryAfterSeconds ?? 0) * 1000);
        (await t.begin('admin', '198.51.100.2')).succeeded();
      });

      test('failures leaving the window end the slow-down', async () => {
        const h = harness();
        const { clock, holds } = h;
        await spray(h, 'admin', 8);
        clock.tick(900_001);
        await spray(h, 'admin', 5, 50);
        expect(holds.filter((h) => h > 0)).toHaveLength(2); // only the 7th and 8th of the first spray waited
      });
    });

    test('failures are logged, and a limit reached is logged once (with username and address, never a password)', async () => {
      const { t, logs } = harness({ maxFailuresPerUsername: 2, maxFailuresPerAddress: 4 });
      await fail(t, 'alice', '192.0.2.1', 2);
      await throttled(t.begin('alice', '192.0.2.1'));
      await throttled(t.begin('alice', '192.0.2.1'));
      await t.settled(); // outcomes are recorded in the background
      expect(logs.filter((l) => l.level === 'info')).toHaveLength(2);
      expect(logs.filter((l) => l.level === 'warn')).toEqual([
        {
          level: 'warn',
          msg: 'test: address refused for this username until failures leave the window',
          obj: { username: 'alice', address: '192.0.2.1', failures: 2 },
        },
        {
          level: 'warn',
          msg: 'test: logins of this username slowed down (failures from many addresses)',
          obj: { username: 'alice', failures: 2 },
        },
      ]);
    });
  });
}
