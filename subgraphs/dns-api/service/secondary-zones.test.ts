import { GraphQLError } from 'graphql';
import { openSqliteStore, type ZoneStore } from '../../../dns/store';
import { SecondaryZoneService, type SecondaryEngine } from './secondary-zones';

/**
 * What the API refuses before anything is written, from what this server's DNS engine says: answer workers on
 * (they answer from the store, which holds no secondary zone's records), a TSIG key not configured here, a zone of
 * the configuration (changed only there).
 */
let store: ZoneStore;
let synced: number;
let problem: string | null;

function engine(): SecondaryEngine {
  return {
    secondaryStatus: () => [
      { zone: 'conf.test', primary: '192.0.2.9:53', key: 'xfr', serial: 7, refreshedAt: null, expired: false },
    ],
    secondaryOrigin: (zone) => (zone === 'conf.test' ? 'configuration' : null),
    secondaryProblem: () => problem,
    syncSecondaryZones: async () => {
      synced++;
    },
  };
}

beforeEach(async () => {
  store = await openSqliteStore({ file: ':memory:' });
  synced = 0;
  problem = null;
});
afterEach(() => store.close());

async function refusal(work: Promise<unknown>): Promise<GraphQLError> {
  const err = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(GraphQLError);
  return err as GraphQLError;
}

test('answer workers on: 409 naming DNS_WORKERS, nothing written, the engine not asked', async () => {
  problem = 'answer workers are on here (DNS_WORKERS 2): set DNS_WORKERS=0 to serve secondary zones';
  const service = new SecondaryZoneService(store, engine());
  const err = await refusal(service.create({ name: 'a.test', primary: '192.0.2.1:53' }));
  expect(err.extensions.code).toBe('CONFLICT');
  expect(err.message).toMatch(/DNS_WORKERS/);
  expect(await store.listSecondaryZones()).toEqual([]);
  expect(synced).toBe(0);
});

test('a TSIG key not configured here: 422 on tsig_key', async () => {
  problem = 'TSIG key "k" is not configured here (TSIG_KEYFILE)';
  const err = await refusal(
    new SecondaryZoneService(store, engine()).create({ name: 'a.test', primary: '192.0.2.1:53', tsigKey: 'k' }),
  );
  expect(err.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'tsig_key' });
  expect(await store.listSecondaryZones()).toEqual([]);
});

test('several bad fields at once: every one named', async () => {
  const err = await refusal(new SecondaryZoneService(store, engine()).create({ name: 'A..B', primary: 'x' }));
  expect((err.extensions.errors as { field: string }[]).map((e) => e.field)).toEqual(['name', 'primary']);
});

test("the configuration's zones are listed (origin configuration), and cannot be added or deleted here", async () => {
  const service = new SecondaryZoneService(store, engine());
  expect(await service.list()).toEqual([
    expect.objectContaining({ name: 'conf.test', origin: 'configuration', tsigKey: 'xfr', serial: 7, createdAt: null }),
  ]);
  expect((await refusal(service.create({ name: 'conf.test', primary: '192.0.2.1:53' }))).extensions.code).toBe(
    'CONFLICT',
  );
  const deletion = await refusal(service.delete('conf.test'));
  expect(deletion.extensions.code).toBe('CONFLICT');
  expect(deletion.message).toMatch(/DNS_SECONDARY_ZONES/);
});

test('added: in the store, the engine synced, shown not served yet until the engine reports it', async () => {
  const service = new SecondaryZoneService(store, engine());
  const added = await service.create({ name: 'b.test', primary: '[2001:db8::1]:5300', tsigKey: 'xfr' });
  expect(added).toMatchObject({ name: 'b.test', primary: '[2001:db8::1]:5300', tsigKey: 'xfr', origin: 'api' });
  expect(added.expired).toBe(true);
  expect(synced).toBe(1);
  expect(await store.listSecondaryZones()).toEqual([
    expect.objectContaining({ name: 'b.test', primaryHost: '2001:db8::1', primaryPort: 5300, tsigKey: 'xfr' }),
  ]);
  await service.delete('B.TEST.');
  expect(await store.listSecondaryZones()).toEqual([]);
  expect(synced).toBe(2);
  expect((await refusal(service.delete('b.test'))).extensions.code).toBe('NOT_FOUND');
});
