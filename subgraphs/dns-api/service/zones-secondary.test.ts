import { GraphQLError } from 'graphql';
import { openSqliteStore } from '../../../dns/store';
import type { ZoneStore } from '../../../dns/store/types';
import { ChangeFeed } from './changes';
import { KeyedQueue } from './serving';
import { ZoneService } from './zones';

/**
 * A zone the DNS server serves as a secondary (DNS_SECONDARY_ZONES) cannot also be created in the store through the
 * API: the server would go on answering from the primary's copy, and the create would wait for a serial it never
 * serves. 409 naming the primary and the setting; nothing is written; other zones are created as before.
 */
let store: ZoneStore;
let zones: ZoneService;

beforeEach(async () => {
  store = await openSqliteStore({ file: ':memory:' });
  const serving = {
    served: async () => undefined,
    secondaryOf: (zone: string) => (zone === 'sec.test' ? '192.0.2.53:53' : null),
  };
  zones = new ZoneService(store, serving, new ChangeFeed(store), undefined, new KeyedQueue());
});
afterEach(() => store.close());

test('creating a zone that is served as a secondary is a 409 naming its primary, and writes nothing', async () => {
  const err = await zones.create({ name: 'sec.test' }, 'admin').catch((e: unknown) => e);
  expect(err).toBeInstanceOf(GraphQLError);
  expect((err as GraphQLError).extensions.code).toBe('CONFLICT');
  expect((err as GraphQLError).message).toBe(
    'zone sec.test is served here as a secondary of 192.0.2.53:53: it cannot also be created here (remove the secondary zone first: DELETE /api/v1/secondary-zones/sec.test, or from DNS_SECONDARY_ZONES)',
  );
  expect(await store.getZone('sec.test')).toBeNull();
  // the same check before a background operation starts
  expect(() => zones.prepareCreate({ name: 'sec.test', zoneFile: '$ORIGIN sec.test.\n' }, 'admin')).toThrow(
    /served here as a secondary/,
  );
  await zones.create({ name: 'primary.test' }, 'admin');
  expect(await store.getZone('primary.test')).not.toBeNull();
});
