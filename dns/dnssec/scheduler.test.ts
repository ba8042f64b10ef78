/**
 * The signing scheduler asks for a zone to be signed afresh when a key event comes (published, signing, retired,
 * removed) or its earliest signature nears expiry (signatureRefresh before it) — by the engine's clock, which a test moves.
 */
import type { ZoneData } from '../zone/zone-index';
import { SigningScheduler } from './scheduler';
import type { SignedState, SigningPolicy, ZoneKey } from '../zone';
import { DEFAULT_SIGNING_POLICY } from './zone-signer';

const T0 = 1_800_000_000;

function zone(
  signedAt: number,
  keys: Array<Partial<ZoneKey>>,
  serial = 7,
  expiresAt = signedAt + DEFAULT_SIGNING_POLICY.signatureValidity,
  policy: SigningPolicy = DEFAULT_SIGNING_POLICY,
): ZoneData {
  const signing: SignedState = {
    keys: keys.map((k) => ({ publishAt: T0, activateAt: T0, inactiveAt: null, deleteAt: null, ...k }) as ZoneKey),
    policy,
    chain: [],
    chainKeys: [],
    expiresAt,
    signedAt,
  };
  return { signing, soa: { data: { serial } } } as unknown as ZoneData;
}

describe('SigningScheduler', () => {
  let now = T0;
  const asked: string[] = [];
  const serials: Array<number | undefined> = [];
  /** The serial the store has: a bump asked for another is refused, as the store's ifSerial does. */
  let stored = 7;
  const scheduler = new SigningScheduler(
    async (name, serial) => {
      serials.push(serial);
      if (serial !== stored) return false;
      asked.push(name);
      stored++;
      return true;
    },
    () => now,
  );
  afterAll(() => scheduler.close());
  beforeEach(() => {
    asked.length = 0;
    serials.length = 0;
    stored = 7;
    now = T0;
  });

  test("due at the next key event, or at the earliest signature's refresh when that comes first", () => {
    // signed at T0: the earliest signature expires at T0 + 14 d, refreshed 3.5 d before (a quarter of the validity)
    expect(SigningScheduler.dueAt(zone(T0, [{ activateAt: T0 + 100 }]))).toBe(T0 + 100);
    expect(SigningScheduler.dueAt(zone(T0, [{ deleteAt: T0 + 30 * 86_400 }]))).toBe(T0 + 10.5 * 86_400);
    expect(SigningScheduler.dueAt(zone(T0, [{}]))).toBe(T0 + 10.5 * 86_400);
    expect(SigningScheduler.dueAt(zone(T0, [{}], 7, T0 + 11 * 86_400))).toBe(T0 + 7.5 * 86_400);
    const policy = { ...DEFAULT_SIGNING_POLICY, signatureRefresh: 86_400 };
    expect(SigningScheduler.dueAt(zone(T0, [{}], 7, T0 + 11 * 86_400, policy))).toBe(T0 + 10 * 86_400);
    expect(SigningScheduler.dueAt({} as ZoneData)).toBeNull(); // not signed
  });

  test('asks for nothing before it is due, and once the clock passes it', async () => {
    const z = zone(T0, [{ activateAt: T0 + 100, inactiveAt: T0 + 500 }]);
    scheduler.check('a.test', z);
    await Promise.resolve();
    expect(asked).toEqual([]);
    now = T0 + 100; // the new key's time to sign
    scheduler.check('a.test', z);
    await Promise.resolve();
    expect(asked).toEqual(['a.test']);
  });

  test('the bump names the serial of the copy that was due; a copy another server bumped already asks nothing', async () => {
    now = T0 + 100;
    const due = zone(T0, [{ activateAt: T0 + 100 }]);
    scheduler.check('a.test', due); // this server bumps 7 → 8
    scheduler.check('a.test', due); // a second server with the same copy, as replicas are: refused (8 now)
    await new Promise((resolve) => setImmediate(resolve));
    expect(serials).toEqual([7, 7]);
    expect(asked).toEqual(['a.test']);
    expect(stored).toBe(8);
  });

  test('a zone signed again after the event waits for the next one', async () => {
    now = T0 + 100;
    scheduler.check('a.test', zone(T0 + 100, [{ activateAt: T0 + 100, inactiveAt: T0 + 500 }]));
    await Promise.resolve();
    expect(asked).toEqual([]);
  });

  test('a zone gone or unsigned: nothing more', async () => {
    now = T0 + 10_000_000;
    scheduler.check('gone.test', undefined);
    scheduler.check('plain.test', {} as ZoneData);
    await Promise.resolve();
    expect(asked).toEqual([]);
  });
});
