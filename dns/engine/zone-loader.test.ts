// @needs postgres
/**
 * The index follows changes by patching a copy of the zone with the names a change touched. After every change,
 * on SQLite and on PostgreSQL, the patched copy must hold and answer exactly what a copy built afresh from the
 * store holds and answers (names, empty non-terminals, cuts, record order, TTLs, SOA, transfer order), and the
 * whole zone must not have been read again. PostgreSQL also relays other instances' changes (LISTEN/NOTIFY).
 *
 * Needs PostgreSQL (TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test); works in a schema of its
 * own, dropped at the end.
 */
import { randomBytes } from 'node:crypto';
import type { RecordData, RecordType, ZoneSettings } from '../model/model';
import { ZoneIndex, type ZoneData } from '../zone/zone-index';
import { openPostgresStore, openSqliteStore, type RecordChange, type RecordFilter, type ZoneStore } from '../store';
import { answersOf, questionsFor, transferOf, zoneView } from '../testing/zone-compare';
import { buildZone, refreshFor, ZoneLoader } from './zone-loader';
import { dropSchemas } from '../testing/postgres';

const url = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `zl_${process.pid}_${randomBytes(4).toString('hex')}`;
const ZONE = 'inc.test';
const SETTINGS: ZoneSettings = {
  adminEmail: 'hostmaster@inc.test',
  primaryNs: 'ns1.inc.test',
  refresh: 3600,
  retry: 600,
  expire: 86400,
  minimum: 300,
  defaultTtl: 3600,
};

const rec = (name: string, type: RecordType, value: string, ttl = 300): RecordData => ({
  name: name ? `${name}.${ZONE}` : ZONE,
  type,
  ttl,
  value,
});
const add = (name: string, type: RecordType, value: string, ttl = 300): RecordChange => ({
  op: 'add',
  record: rec(name, type, value, ttl),
});
const drop = (name: string, type?: RecordType, value?: string): RecordChange => ({
  op: 'deleteMatching',
  name: name ? `${name}.${ZONE}` : ZONE,
  type,
  value,
});

const BASE: RecordData[] = [
  rec('', 'NS', 'ns1.inc.test.'),
  rec('', 'MX', '10 mail.inc.test.'),
  rec('ns1', 'A', '192.0.2.53'),
  rec('mail', 'A', '192.0.2.25'),
  rec('www', 'A', '192.0.2.1'),
  rec('www', 'A', '192.0.2.2'),
  rec('www', 'AAAA', '2001:db8::1'),
  rec('alias', 'CNAME', 'www.inc.test.'),
  rec('a.deep', 'TXT', '"deep"'),
  rec('sub', 'NS', 'ns.sub.inc.test.'),
  rec('ns.sub', 'A', '192.0.2.99'),
  rec('*.wild', 'A', '192.0.2.77'),
  rec('dn', 'DNAME', 'target.example.'),
];
/** Names asked about besides the zone's own (gone ones, below wildcards and DNAMEs, outside). */
const EXTRA = [
  'new.inc.test',
  'x.y.z.inc.test',
  'y.z.inc.test',
  'z.inc.test',
  'w.z.inc.test',
  'del.inc.test',
  'host.del.inc.test',
  'foo.cards.inc.test',
  'a.b.cards.inc.test',
  'foo.wild.inc.test',
  'q.dn.inc.test',
  'r.dn2.inc.test',
  'elsewhere.example',
];

/** Counts the store reads the loader makes: whole-zone reads against reads by name. */
function counting(store: ZoneStore): { store: ZoneStore; reads: { whole: number; byName: number } } {
  const reads = { whole: 0, byName: 0 };
  const proxy = new Proxy(store, {
    get(target, prop) {
      if (prop === 'listRecords') {
        return (zone: string, filter?: RecordFilter) => {
          if (filter?.names) reads.byName++;
          else if (!filter) reads.whole++;
          return target.listRecords(zone, filter);
        };
      }
      if (prop === 'eachRecord') {
        return (zone: string, visit: (record: RecordData) => void) => {
          reads.whole++;
          return target.eachRecord(zone, visit);
        };
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { store: proxy, reads };
}

interface Backend {
  kind: 'sqlite' | 'postgres';
  open(): Promise<ZoneStore>;
}

const BACKENDS: Backend[] = [
  { kind: 'sqlite', open: () => openSqliteStore({ file: ':memory:' }) },
  { kind: 'postgres', open: () => openPostgresStore({ url, schema }) },
];

afterAll(async () => {
  await dropSchemas(url, [schema]);
});

describe.each(BACKENDS)('incremental index on $kind', (backend) => {
  let store: ZoneStore;
  let reads: { whole: number; byName: number };
  let index: ZoneIndex;
  let loader: ZoneLoader;
  let off: () => void;
  /** Every copy the index held, with its view when it was current: copies never change afterwards. */
  const history: Array<{ zone: ZoneData; view: object }> = [];

  beforeAll(async () => {
    store = await backend.open();
    await store.deleteZone(ZONE);
    await store.createZone(ZONE, SETTINGS, BASE);
    const counted = counting(store);
    reads = counted.reads;
    index = new ZoneIndex();
    loader = new ZoneLoader(counted.store, index);
    await loader.reload(ZONE);
    off = store.onChange((event, detail) => void loader.reload(event.zone, refreshFor(event, detail)));
  });
  afterAll(async () => {
    off();
    await loader.idle();
    await store.close();
  });

  /** The index's copy equals one built afresh from the store, in content and in every answer. */
  async function expectFresh(): Promise<void> {
    await loader.idle();
    const current = index.get(ZONE) as ZoneData;
    const fresh = (await buildZone(store, ZONE)) as ZoneData;
    const view = zoneView(current);
    expect(view).toEqual(zoneView(fresh));
    const questions = questionsFor([current, fresh], EXTRA);
    expect(answersOf(current, questions)).toEqual(answersOf(fresh, questions));
    expect(transferOf(current)).toEqual(transferOf(fresh));
    history.push({ zone: current, view });
  }

  /** Applies one change (or several at once), then compares; the zone must not have been read whole. */
  async function step(...batches: RecordChange[][]): Promise<void> {
    const whole = reads.whole;
    await Promise.all(batches.map((changes) => store.change(ZONE, changes)));
    await expectFresh();
    expect(reads.whole).toBe(whole);
  }

  test('the first load is a full read; a fresh copy equals it', async () => {
    expect(reads.whole).toBe(1);
    await expectFresh();
  });

  test('names added, records added at an existing name, then a name removed', async () => {
    const byName = reads.byName;
    await step([add('new', 'A', '192.0.2.10'), add('new', 'TXT', '"hello"')]);
    expect(reads.byName).toBe(byName + 1);
    await step([add('www', 'TXT', '"more"')]);
    await step([drop('new')]);
    expect(index.get(ZONE)?.names.has(`new.${ZONE}`)).toBe(false);
  });

  test('empty non-terminals appear and disappear', async () => {
    await step([add('x.y.z', 'A', '192.0.2.11')]);
    expect(index.get(ZONE)?.names.get(`z.${ZONE}`)).toBe(1);
    await step([add('w.z', 'A', '192.0.2.12')]);
    expect(index.get(ZONE)?.names.get(`z.${ZONE}`)).toBe(2);
    await step([drop('x.y.z')]);
    expect(index.get(ZONE)?.names.has(`y.z.${ZONE}`)).toBe(false);
    expect(index.get(ZONE)?.names.has(`z.${ZONE}`)).toBe(true);
    await step([drop('w.z')]);
    expect(index.get(ZONE)?.names.has(`z.${ZONE}`)).toBe(false);
  });

  test('a delegation below the apex added, answered with a referral, then removed', async () => {
    await step([add('host.del', 'A', '192.0.2.13')]);
    await step([add('del', 'NS', 'ns.del.inc.test.'), add('ns.del', 'A', '192.0.2.14')]);
    expect(index.get(ZONE)?.cutsAndDnames.has(`del.${ZONE}`)).toBe(true);
    await step([drop('del', 'NS')]);
    expect(index.get(ZONE)?.cutsAndDnames.has(`del.${ZONE}`)).toBe(false);
    await step([drop('host.del'), drop('ns.del')]);
  });

  test('a wildcard added and removed', async () => {
    await step([add('*.cards', 'TXT', '"any card"'), add('*.cards', 'A', '192.0.2.15')]);
    await step([drop('*.cards', 'A')]);
    await step([drop('*.cards')]);
  });

  test('a CNAME replaced, and other data replaced by a CNAME', async () => {
    await step([drop('alias', 'CNAME'), add('alias', 'CNAME', 'mail.inc.test.')]);
    await step([drop('www', 'AAAA'), add('www6', 'AAAA', '2001:db8::6')]);
    await step([drop('www6'), add('www6', 'CNAME', 'www.inc.test.')]);
  });

  test('concurrent changes to different names, and a burst that shares reloads', async () => {
    await step([add('c1', 'A', '192.0.2.21')], [add('c2', 'A', '192.0.2.22')]);
    const byName = reads.byName;
    await step(...Array.from({ length: 20 }, (_, i) => [add(`burst${i}`, 'TXT', `"b${i}"`), drop(`c${(i % 2) + 1}`)]));
    expect(reads.byName - byName).toBeLessThan(20);
  });

  test('RRsets answer with their lowest TTL; the apex keeps its SOA first', async () => {
    const [one] = await store.listRecords(ZONE, { name: `www.${ZONE}`, type: 'A' });
    await step([{ op: 'update', id: one!.id, ttl: 30 }]);
    expect(
      index
        .get(ZONE)
        ?.nodes.get(`www.${ZONE}`)
        ?.get('A')
        ?.map((r) => r.ttl),
    ).toEqual([30, 30]);
    await step([{ op: 'update', id: one!.id, value: '192.0.2.3', ttl: 300 }]);
    await step([
      add('', 'TXT', '"v=apex"'),
      drop('', 'MX'),
      add('', 'NS', 'ns2.inc.test.'),
      add('ns2', 'A', '192.0.2.54'),
    ]);
    expect([...(index.get(ZONE)?.nodes.get(ZONE)?.keys() ?? [])][0]).toBe('SOA');
  });

  test('a DNAME added and removed', async () => {
    await step([add('dn2', 'DNAME', 'other.example.')]);
    await step([drop('dn'), drop('dn2')]);
  });

  test('zone settings change the SOA and negative answers without reading the records', async () => {
    const whole = reads.whole;
    const byName = reads.byName;
    await store.updateZone(ZONE, { minimum: 60, defaultTtl: 120, primaryNs: 'ns2.inc.test' });
    await expectFresh();
    expect([reads.whole, reads.byName]).toEqual([whole, byName]);
    expect(index.get(ZONE)?.negativeTtl).toBe(60);
  });

  test('random changes over a small set of names, compared after each', async () => {
    let seed = 12345;
    const rnd = (n: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % n;
    };
    const labels = ['r1', 'r2', 'a.r1', 'b.a.r1', 'r3', '*.r3', 'c.r3', 'd'];
    for (let i = 0; i < 60; i++) {
      const name = labels[rnd(labels.length)] as string;
      const choice = rnd(6);
      const existing = await store.listRecords(ZONE, { name: `${name}.${ZONE}` });
      const hasCname = existing.some((r) => r.type === 'CNAME');
      let changes: RecordChange[];
      if (choice === 0 || existing.length === 0) {
        changes = hasCname
          ? [drop(name), add(name, 'A', `192.0.2.${100 + i}`)]
          : [add(name, 'A', `192.0.2.${100 + i}`, 60 + rnd(3) * 60)];
      } else if (choice === 1) changes = [drop(name)];
      else if (choice === 2) changes = [drop(name), add(name, 'CNAME', 'www.inc.test.')];
      else if (choice === 3) changes = hasCname ? [drop(name)] : [add(name, 'NS', `ns${i}.example.`)];
      else if (choice === 4)
        changes = [{ op: 'update', id: existing[rnd(existing.length)]!.id, ttl: 30 + rnd(5) * 30 }];
      else changes = [drop(name, existing[0]!.type)];
      await step(changes);
    }
  });

  test('copies the index held before stayed as they were (copy-on-write), and only the current one is live', () => {
    expect(history.length).toBeGreaterThan(50);
    for (const { zone, view } of history) expect(zoneView(zone)).toEqual(view);
    const current = index.get(ZONE);
    expect(history.filter((h) => !h.zone.retired).map((h) => h.zone)).toEqual(
      history.filter((h) => h.zone === current).map((h) => h.zone),
    );
  });

  test('a zone deleted and created again is read whole', async () => {
    const whole = reads.whole;
    await store.deleteZone(ZONE);
    await loader.idle();
    expect(index.get(ZONE)).toBeUndefined();
    await store.createZone(ZONE, SETTINGS, BASE.slice(0, 5));
    await expectFresh();
    expect(reads.whole).toBe(whole + 1);
    await step([add('after', 'A', '192.0.2.31')]);
  });
});

describe('PostgreSQL: changes of other store instances (LISTEN/NOTIFY)', () => {
  const RELAYED = 'relay.test';
  let mine: ZoneStore;
  let theirs: ZoneStore;
  let reads: { whole: number; byName: number };
  let index: ZoneIndex;
  let loader: ZoneLoader;

  beforeAll(async () => {
    mine = await openPostgresStore({ url, schema });
    theirs = await openPostgresStore({ url, schema });
    const counted = counting(mine);
    reads = counted.reads;
    index = new ZoneIndex();
    loader = new ZoneLoader(counted.store, index);
    mine.onChange((event, detail) => {
      if (deaf)
        dropped += 1; // a notification lost on the way
      else void loader.reload(event.zone, refreshFor(event, detail));
    });
    // listened to first: the zone's creation comes through the relay too, before any test counts reads (arriving
    // late, on a busy machine, it made a whole read inside the first test)
    await theirs.createZone(RELAYED, { ...SETTINGS, primaryNs: `ns1.${RELAYED}` }, [
      { name: `www.${RELAYED}`, type: 'A', ttl: 300, value: '192.0.2.1' },
    ]);
    for (let i = 0; i < 1000 && !index.get(RELAYED); i++) await new Promise((r) => setTimeout(r, 10));
    await loader.idle();
    if (!index.get(RELAYED)) throw new Error(`the creation of ${RELAYED} was not relayed within 10 s`);
  });
  let deaf = false;
  let dropped = 0;
  /** Runs `fn` with the relayed notifications lost, until `count` of them were. */
  async function missing(count: number, fn: () => Promise<unknown>): Promise<void> {
    const before = dropped;
    deaf = true;
    try {
      await fn();
      for (let i = 0; i < 500 && dropped < before + count; i++) await new Promise((r) => setTimeout(r, 10));
      expect(dropped).toBe(before + count);
    } finally {
      deaf = false;
    }
  }
  afterAll(async () => {
    await loader.idle();
    await Promise.all([mine.close(), theirs.close()]);
  });

  /** Waits until the index shows the serial another instance committed. */
  async function caughtUp(serial: number): Promise<void> {
    for (let i = 0; i < 500 && (index.get(RELAYED)?.soa.data.serial ?? 0) < serial; i++)
      await new Promise((r) => setTimeout(r, 10));
    await loader.idle();
  }

  async function expectFresh(): Promise<void> {
    const current = index.get(RELAYED) as ZoneData;
    const fresh = (await buildZone(mine, RELAYED)) as ZoneData;
    expect(zoneView(current)).toEqual(zoneView(fresh));
    const questions = questionsFor([current, fresh]);
    expect(answersOf(current, questions)).toEqual(answersOf(fresh, questions));
  }

  test('a relayed change carries its names: only they are read', async () => {
    const whole = reads.whole;
    const byName = reads.byName;
    const out = await theirs.change(RELAYED, [
      { op: 'add', record: { name: `new.${RELAYED}`, type: 'A', ttl: 300, value: '192.0.2.2' } },
      { op: 'deleteMatching', name: `www.${RELAYED}` },
    ]);
    await caughtUp(out.zone.serial);
    await expectFresh();
    expect(reads.whole).toBe(whole);
    expect(reads.byName).toBe(byName + 1);
  });

  test('a relayed change with too many names for a NOTIFY payload is read by name from the change log', async () => {
    const whole = reads.whole;
    const fromLog = loader.caughtUpFromLog;
    const long = (i: number) => `${'l'.repeat(60)}.${'m'.repeat(60)}.${'n'.repeat(60)}.n${i}.${RELAYED}`;
    const out = await theirs.change(
      RELAYED,
      Array.from({ length: 50 }, (_, i): RecordChange => ({
        op: 'add',
        record: { name: long(i), type: 'TXT', ttl: 300, value: `"${i}"` },
      })),
    );
    await caughtUp(out.zone.serial);
    await expectFresh();
    expect(reads.whole).toBe(whole);
    expect(loader.caughtUpFromLog).toBe(fromLog + 1);
  });

  test('a change whose notification was lost is caught up through the log at the next one, not patched over', async () => {
    const whole = reads.whole;
    const fromLog = loader.caughtUpFromLog;
    const served = index.get(RELAYED)!.soa.data.serial;
    await missing(2, async () => {
      await theirs.change(RELAYED, [
        { op: 'add', record: { name: `lost.${RELAYED}`, type: 'A', ttl: 300, value: '192.0.2.7' } },
      ]);
      await theirs.updateZone(RELAYED, { refresh: 7200 });
    });
    expect(index.get(RELAYED)!.soa.data.serial).toBe(served);
    const out = await theirs.change(RELAYED, [
      { op: 'add', record: { name: `heard.${RELAYED}`, type: 'A', ttl: 300, value: '192.0.2.8' } },
    ]);
    await caughtUp(out.zone.serial);
    await expectFresh();
    expect(index.get(RELAYED)!.soa.data.refresh).toBe(7200);
    expect(reads.whole).toBe(whole);
    expect(loader.caughtUpFromLog).toBe(fromLog + 1);
  });

  test('check() compares with the store: a zone behind is caught up by log, a new or deleted one read whole', async () => {
    const behind = await theirs.getZone(RELAYED);
    const fresh = 'fresh.relay.test';
    await missing(2, async () => {
      await theirs.change(RELAYED, [{ op: 'deleteMatching', name: `lost.${RELAYED}` }]);
      await theirs.createZone(fresh, SETTINGS, [{ name: `www.${fresh}`, type: 'A', ttl: 60, value: '192.0.2.9' }]);
    });
    const drift = loader.check(await mine.zoneSerials());
    expect(drift).toEqual(
      expect.arrayContaining([
        { zone: RELAYED, served: behind!.serial, store: behind!.serial + 1, action: 'catch-up', started: true },
        { zone: fresh, served: null, store: expect.any(Number), action: 'whole', started: true },
      ]),
    );
    await loader.idle();
    await expectFresh();
    expect(index.get(fresh)?.soa.data.serial).toBe((await theirs.getZone(fresh))!.serial);
    expect(loader.check(await mine.zoneSerials())).toEqual([]);

    await missing(1, () => theirs.deleteZone(fresh));
    expect(loader.check(await mine.zoneSerials())).toEqual([
      { zone: fresh, served: expect.any(Number), store: null, action: 'whole', started: true },
    ]);
    await loader.idle();
    expect(index.get(fresh)).toBeUndefined();
  });

  test('settings changed by another instance reach the SOA', async () => {
    const updated = await theirs.updateZone(RELAYED, { retry: 900, minimum: 30 });
    await caughtUp(updated.serial);
    await expectFresh();
    expect(index.get(RELAYED)?.soa.data.retry).toBe(900);
  });
});
