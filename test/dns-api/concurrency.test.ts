import { openSqliteStore } from '../../dns/store';
import { Identity, openSqliteUserStore } from '../../subgraphs/dns-api/identity';
import { TEST_VAULT } from '../../subgraphs/dns-api/identity/testing/index';
import type { ZoneStore } from '../../dns/store/types';
import { ChangeFeed } from '../../subgraphs/dns-api/service/changes';
import { RecordService } from '../../subgraphs/dns-api/service/records';
import { ZoneService, zoneEtag } from '../../subgraphs/dns-api/service/zones';
import { KeyedQueue } from '../../subgraphs/dns-api/service/serving';

/**
 * If-Match is a promise that nothing changed between the read and the write. Concurrent writers holding the same
 * ETag: exactly one wins, the others get PRECONDITION_FAILED, whatever the interleaving. The store here yields to the
 * event loop on every read, as a database over the network does, so that every interleaving the services allow
 * happens; the services' own checks must hold anyway.
 */
let store: ZoneStore;
let zones: ZoneService;
let records: RecordService;
const serving = { served: async () => undefined };

/** The store, with every read of a zone or record taking turns of the event loop, there and back. */
function yielding(inner: ZoneStore): ZoneStore {
  return new Proxy(inner, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (prop !== 'getZone' && prop !== 'getRecord') return typeof value === 'function' ? value.bind(target) : value;
      const fn = value as (...args: unknown[]) => Promise<unknown>;
      return async (...args: unknown[]) => {
        await new Promise((r) => setImmediate(r));
        const result = await fn.apply(target, args);
        await new Promise((r) => setImmediate(r)); // the answer travels back: others run meanwhile
        return result;
      };
    },
  });
}

beforeEach(async () => {
  store = await openSqliteStore({ file: ':memory:' });
  const slow = yielding(store);
  const feed = new ChangeFeed(slow);
  const writes = new KeyedQueue();
  zones = new ZoneService(slow, serving, feed, undefined, writes);
  records = new RecordService(slow, serving, feed, undefined, writes);
  await zones.create({ name: 'race.test' }, 'tester');
});
afterEach(() => store.close());

const codeOf = (outcome: PromiseSettledResult<unknown>): string =>
  outcome.status === 'fulfilled'
    ? 'ok'
    : String((outcome.reason as { extensions?: { code?: string } }).extensions?.code ?? outcome.reason);

test('zone updates with the same If-Match: one applies, the rest are PRECONDITION_FAILED', async () => {
  const tag = zoneEtag((await store.getZone('race.test'))!);
  const outcomes = await Promise.allSettled(
    [100, 200, 300, 400].map((minimum) => zones.update('race.test', { minimum }, tag, 'tester')),
  );
  expect(outcomes.map(codeOf).sort()).toEqual([
    'PRECONDITION_FAILED',
    'PRECONDITION_FAILED',
    'PRECONDITION_FAILED',
    'ok',
  ]);
});

test('a zone delete with If-Match does not pass over a concurrent update with the same tag', async () => {
  const tag = zoneEtag((await store.getZone('race.test'))!);
  const outcomes = await Promise.allSettled([
    zones.update('race.test', { minimum: 60 }, tag, 'tester'),
    zones.delete('race.test', tag, 'tester'),
  ]);
  expect(outcomes.map(codeOf)).toEqual(['ok', 'PRECONDITION_FAILED']);
  expect(await store.getZone('race.test')).toMatchObject({ minimum: 60 });
});

test('record updates with the same If-Match: one applies, the rest are PRECONDITION_FAILED', async () => {
  const created = await records.create('race.test', { name: 'www', type: 'A', value: '192.0.2.1' }, 'tester');
  const outcomes = await Promise.allSettled(
    ['192.0.2.2', '192.0.2.3', '192.0.2.4'].map((value) =>
      records.update('race.test', created.id, { value }, created.etag, 'tester'),
    ),
  );
  expect(outcomes.map(codeOf).sort()).toEqual(['PRECONDITION_FAILED', 'PRECONDITION_FAILED', 'ok']);
});

test('concurrent creates of one zone: one is made, the others are CONFLICT (never an internal error)', async () => {
  const outcomes = await Promise.allSettled([1, 2, 3].map(() => zones.create({ name: 'twice.test' }, 'tester')));
  expect(outcomes.map(codeOf).sort()).toEqual(['CONFLICT', 'CONFLICT', 'ok']);
});

test('concurrent creates of one user: one is made, the others are CONFLICT', async () => {
  const users = await openSqliteUserStore({ file: ':memory:' });
  try {
    const slowUsers = new Proxy(users, {
      get(target, prop, receiver) {
        const value: unknown = Reflect.get(target, prop, receiver);
        if (typeof value !== 'function') return value;
        const fn = value as (...args: unknown[]) => unknown;
        return async (...args: unknown[]) => {
          await new Promise((r) => setImmediate(r));
          const result = await fn.apply(target, args);
          await new Promise((r) => setImmediate(r));
          return result;
        };
      },
    });
    const identity = new Identity({ vault: TEST_VAULT, store: slowUsers, scrypt: { N: 1024, r: 8, p: 1 } });
    const outcomes = await Promise.allSettled(
      [1, 2, 3].map(() =>
        identity.createUser({
          username: 'same',
          email: 'same@example.test',
          password: 'same-password',
          role: 'viewer',
        }),
      ),
    );
    const codes = outcomes.map((o) => (o.status === 'fulfilled' ? 'ok' : String((o.reason as { code?: string }).code)));
    expect(codes.sort()).toEqual(['CONFLICT', 'CONFLICT', 'ok']);
  } finally {
    await users.close();
  }
});
