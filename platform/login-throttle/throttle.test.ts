/**
 * The login throttle on its memory ledger (the contract every ledger passes: throttle.contract.ts), and what only
 * memory or the throttle itself has: address keys, bounded maps, options, outcomes recorded in the background.
 */
import { addressKey } from './throttle';
import type { LedgerFactory } from './ledger';
import { memoryLedger } from './memory-ledger';
import { describeThrottleContract, fail, throttleHarness, throttled } from './throttle.contract';

describeThrottleContract('memory', () => memoryLedger);

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

test('memory stays bounded: spraying usernames and addresses keeps at most maxTrackedKeys of each', async () => {
  const { t, clock } = throttleHarness({ maxTrackedKeys: 100 });
  for (let i = 0; i < 5000; i++) {
    (await t.begin(`spray${i}`, `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`)).failed();
    clock.tick(10);
  }
  expect(t.tracked).toEqual({ usernames: 100, addresses: 100, pairs: 100 });
  // The most recent failures are the ones kept.
  await fail(t, 'spray4999', '10.0.19.135', 4);
  await throttled(t.begin('spray4999', '10.0.19.135'));
});

test('an outcome the ledger cannot record is logged, never thrown to the caller', async () => {
  const broken: LedgerFactory = (limits, context) => {
    const ledger = memoryLedger(limits, context);
    return {
      begin: (keys, t) => ledger.begin(keys, t),
      succeeded: () => Promise.reject(new Error('ledger away')),
      failed: () => Promise.reject(new Error('ledger away')),
      get tracked() {
        return ledger.tracked;
      },
    };
  };
  const { t, logs } = throttleHarness({}, broken);
  (await t.begin('alice', '192.0.2.1')).succeeded();
  (await t.begin('bob', '192.0.2.1')).failed();
  await t.settled();
  expect(logs).toEqual([
    {
      level: 'warn',
      msg: 'test: the login throttle could not record how an attempt ended',
      obj: { username: 'alice', address: '192.0.2.1', err: 'ledger away' },
    },
    {
      level: 'warn',
      msg: 'test: the login throttle could not record how an attempt ended',
      obj: { username: 'bob', address: '192.0.2.1', err: 'ledger away' },
    },
  ]);
});

test.each([
  [{ maxFailuresPerUsername: 0 }, /maxFailuresPerUsername must be a positive integer/],
  [{ maxFailuresPerAddress: 1.5 }, /maxFailuresPerAddress must be a positive integer/],
  [{ windowSeconds: -1 }, /windowSeconds must be a positive integer/],
  [{ maxTrackedKeys: 0 }, /maxTrackedKeys must be a positive integer/],
  [{ maxHoldMs: 0 }, /maxHoldMs must be a positive integer/],
])('options %j are refused', (options, message) => {
  expect(() => throttleHarness(options)).toThrow(message);
});
