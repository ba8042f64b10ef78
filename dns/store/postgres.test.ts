// @needs postgres
/**
 * The zone store contract on PostgreSQL, plus what only PostgreSQL has: events across store instances
 * (LISTEN/NOTIFY), row locking across instances, migrations under concurrent opens, unreachable servers.
 *
 * Needs a running PostgreSQL: TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test. When it is
 * unreachable these tests FAIL (they do not skip) and say so. Each run works in schemas of its own and drops
 * them at the end.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openZoneStore } from './index';
import { NOTIFY_CHANNEL, openPostgresStore, type PostgresStoreOptions } from './postgres';
import { MIGRATIONS } from './migrations';
import { SETTINGS, describeZoneStoreContract, dnssecKey, expectStoreError } from './store.contract';
import type { ZoneChangeEvent, ZoneStore } from './types';
import { dropSchemas } from '../testing/postgres';

const url = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const tag = `${process.pid}_${randomBytes(4).toString('hex')}`;
const contractSchema = `zs_contract_${tag}`;
const ownSchema = `zs_own_${tag}`;
const schemas = [contractSchema, ownSchema, `${ownSchema}_b`, `${ownSchema}_race`, `${ownSchema}_zs`];

/** Opens a store; an unreachable database fails the test with a message that says so. */
async function openOrFail(options: Omit<PostgresStoreOptions, 'url'>): Promise<ZoneStore> {
  try {
    return await openPostgresStore({ url, ...options });
  } catch (err) {
    throw new Error(
      `PostgreSQL test database unreachable at ${url} (start PostgreSQL or set TEST_DATABASE_URL); ` +
        `the PostgreSQL zone store tests cannot run: ${(err as Error).message}`,
      { cause: err },
    );
  }
}

describeZoneStoreContract(
  'postgres',
  (options) =>
    openOrFail({ schema: contractSchema, now: options?.now, maxRecordsPerRrset: options?.maxRecordsPerRrset }),
  () => dropSchemas(url, schemas),
);

/** Resolves with the first event `store` hears for `zone` (rejects after `ms`). */
function nextEvent(store: ZoneStore, zone: string, ms = 5000): Promise<ZoneChangeEvent> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`no event for ${zone} within ${ms} ms`));
    }, ms);
    const off = store.onChange((e) => {
      if (e.zone !== zone) return;
      clearTimeout(timer);
      off();
      resolve(e);
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('PostgreSQL zone store specifics', () => {
  const stores: ZoneStore[] = [];
  const open = async (options: Omit<PostgresStoreOptions, 'url'> = { schema: ownSchema }) => {
    const s = await openOrFail(options);
    stores.push(s);
    return s;
  };
  afterAll(async () => {
    for (const s of stores) await s.close();
    await dropSchemas(url, schemas);
  });

  test('a change committed by another store instance reaches onChange through LISTEN/NOTIFY', async () => {
    const a = await open();
    const b = await open();
    const aHeard: ZoneChangeEvent[] = [];
    a.onChange((e) => e.zone.endsWith('.notify.example') && aHeard.push(e));

    const created = nextEvent(b, 'one.notify.example');
    const zone = await a.createZone('one.notify.example', SETTINGS);
    expect(await created).toEqual({ zone: 'one.notify.example', serial: zone.serial, kind: 'zone-created' });

    const changed = nextEvent(b, 'one.notify.example');
    const out = await a.change('one.notify.example', [
      { op: 'add', record: { name: 'www.one.notify.example', type: 'A', ttl: 60, value: '192.0.2.1' } },
    ]);
    expect(await changed).toEqual({
      zone: 'one.notify.example',
      serial: out.zone.serial,
      previous: zone.serial,
      kind: 'records-changed',
    });

    const keysChanged = nextEvent(b, 'one.notify.example');
    const signed = await a.changeDnssecKeys('one.notify.example', { add: [dnssecKey('one.notify.example')] });
    expect(await keysChanged).toEqual({
      zone: 'one.notify.example',
      serial: signed.serial,
      previous: out.zone.serial,
      kind: 'dnssec-changed',
    });
    expect(await b.listDnssecKeys('one.notify.example')).toEqual(await a.listDnssecKeys('one.notify.example'));

    // And the other way round; B's own change is reported to B once (directly), not a second time via NOTIFY.
    const bHeard: ZoneChangeEvent[] = [];
    b.onChange((e) => e.zone === 'one.notify.example' && bHeard.push(e));
    const seenByA = nextEvent(a, 'one.notify.example');
    const updated = await b.updateZone('one.notify.example', { retry: 900 });
    const updatedEvent = {
      zone: 'one.notify.example',
      serial: updated.serial,
      previous: signed.serial,
      kind: 'zone-updated',
    };
    expect(await seenByA).toEqual(updatedEvent);
    await sleep(300);
    expect(bHeard).toEqual([updatedEvent]);
    // A heard its own three changes once each, plus B's update.
    expect(aHeard.map((e) => e.kind)).toEqual(['zone-created', 'records-changed', 'dnssec-changed', 'zone-updated']);

    // A rolled-back change is not announced.
    const silent: ZoneChangeEvent[] = [];
    b.onChange((e) => e.zone === 'one.notify.example' && silent.push(e));
    await expectStoreError(a.change('one.notify.example', [{ op: 'delete', id: 'no-such-id' }]), 'NOT_FOUND');
    await expectStoreError(a.changeDnssecKeys('one.notify.example', { remove: ['no-such-id'] }), 'NOT_FOUND');
    await sleep(300);
    expect(silent).toEqual([]);
  });

  test('stores on another schema of the same database do not hear these events', async () => {
    const a = await open();
    const other = await open({ schema: `${ownSchema}_b` });
    const heard: ZoneChangeEvent[] = [];
    other.onChange((e) => heard.push(e));
    const sameSchema = await open();
    const control = nextEvent(sameSchema, 'iso.notify.example');
    await a.createZone('iso.notify.example', SETTINGS);
    await control;
    await sleep(200);
    expect(heard).toEqual([]);
    expect(await other.getZone('iso.notify.example')).toBeNull();
  });

  test('parallel changes through two instances serialise on the zone row: all land, serial +10', async () => {
    const a = await open();
    const b = await open();
    const zone = await a.createZone('race.example', SETTINGS);
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 ? a : b).change('race.example', [
          { op: 'add', record: { name: `h${i}.race.example`, type: 'A', ttl: 60, value: `192.0.2.${i}` } },
        ]),
      ),
    );
    const final = await b.getZone('race.example');
    expect(final?.serial).toBe(zone.serial + 10);
    expect(final?.recordsCount).toBe(10);
    // Optimistic locking across instances: of two writers holding the same serial, exactly one wins.
    const results = await Promise.allSettled([
      a.change(
        'race.example',
        [{ op: 'add', record: { name: 'x.race.example', type: 'A', ttl: 60, value: '192.0.2.100' } }],
        { ifSerial: final!.serial },
      ),
      b.change(
        'race.example',
        [{ op: 'add', record: { name: 'y.race.example', type: 'A', ttl: 60, value: '192.0.2.101' } }],
        { ifSerial: final!.serial },
      ),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(rejected.reason).toMatchObject({ code: 'SERIAL_MISMATCH' });
  });

  test('stores opening a new schema at the same time migrate it once', async () => {
    const schema = `${ownSchema}_race`;
    const [first, , third] = await Promise.all([open({ schema }), open({ schema }), open({ schema })]);
    await first.createZone('m.example', SETTINGS);
    expect((await third.getZone('m.example'))?.name).toBe('m.example');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const rows = (await client.query(`SELECT version, name FROM "${schema}".schema_migrations ORDER BY version`))
        .rows;
      expect(rows).toEqual(MIGRATIONS.map(({ version, name }) => ({ version, name })));
      const index = (
        await client.query(
          `SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = 'records_zone_name_type'`,
          [schema],
        )
      ).rows;
      expect(index[0]?.indexdef).toMatch(/\(zone, name, type\)/);
      // Byte-order sorting whatever the database's locale (this test database may well be C already).
      const collations = (
        await client.query(
          `SELECT column_name, collation_name FROM information_schema.columns
           WHERE table_schema = $1 AND table_name = 'records' AND column_name IN ('zone', 'name', 'type', 'value') ORDER BY column_name`,
          [schema],
        )
      ).rows;
      expect(collations).toEqual(
        ['name', 'type', 'value', 'zone'].map((c) => ({ column_name: c, collation_name: 'C' })),
      );
    } finally {
      await client.end();
    }
  });

  test('openZoneStore with a database URL uses PostgreSQL (and the schema asked for)', async () => {
    const s = await openZoneStore({
      dataDir: '/nonexistent/never-created',
      databaseUrl: url,
      schema: `${ownSchema}_zs`,
    });
    stores.push(s);
    expect(s.kind).toBe('postgres');
    await s.createZone('zs.example', SETTINGS);
    expect((await s.listZones()).map((z) => z.name)).toEqual(['zs.example']);
  });

  test('an unreachable server is UNAVAILABLE, says so, and does not leak the password', async () => {
    const err = await expectStoreError(
      openPostgresStore({ url: 'postgres://someone:s3cret@127.0.0.1:1/nothing' }),
      'UNAVAILABLE',
      {
        message: /unreachable/,
      },
    );
    expect(err.message).toContain('127.0.0.1:1');
    expect(err.message).not.toContain('s3cret');
  });

  test('a bad schema name is refused before connecting', async () => {
    await expectStoreError(openPostgresStore({ url, schema: 'x"; DROP TABLE y; --' }), 'INVALID', {
      message: /schema/,
    });
  });

  test(`the NOTIFY channel is ${NOTIFY_CHANNEL}`, async () => {
    // Another program may listen too: the payload is JSON with schema, zone, serial and kind.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(`LISTEN ${NOTIFY_CHANNEL}`);
      // Other test files run against the same database at the same time: keep only this store's notifications.
      const got = new Promise<string>((resolve) =>
        client.on('notification', (m) => {
          if ((JSON.parse(m.payload ?? '{}') as { schema?: string }).schema === ownSchema) resolve(m.payload ?? '');
        }),
      );
      const s = await open();
      const z = await s.createZone('chan.example', SETTINGS);
      expect(JSON.parse(await got)).toMatchObject({
        schema: ownSchema,
        zone: 'chan.example',
        serial: z.serial,
        kind: 'zone-created',
      });
    } finally {
      await client.end();
    }
  });
});
