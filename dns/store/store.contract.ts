/**
 * The one contract every ZoneStore implementation passes (SQLite: sqlite.test.ts, PostgreSQL: postgres.test.ts).
 *
 * `open` opens a store on the test file's database (the same database every time it is called: a temp SQLite
 * file, or a PostgreSQL schema made for the run), optionally with an injected clock. Tests use zone names of
 * their own, so they do not see each other. Every store `open` returned is closed before `cleanup` runs.
 */
import { randomUUID } from 'node:crypto';
import type { RecordData, RecordType, StoredRecord, Zone, ZoneSettings } from '../model/model';
import {
  StoreError,
  type DnssecKey,
  type ChangeOptions,
  type DnssecKeyChange,
  type DnssecKeyChangeOptions,
  type RecordChange,
  type RecordFilter,
  type StoreErrorCode,
  type ZoneChangeEvent,
  type ZoneStore,
  type ZoneWriteOptions,
} from './types';

export interface ContractOpenOptions {
  now?: () => Date;
  maxRecordsPerRrset?: number;
}

/** A clock the test moves by hand. */
export class TestClock {
  private t: number;
  constructor(iso: string) {
    this.t = Date.parse(iso);
  }
  readonly now = (): Date => new Date(this.t);
  set(iso: string): void {
    this.t = Date.parse(iso);
  }
  tick(ms = 1000): void {
    this.t += ms;
  }
  iso(): string {
    return new Date(this.t).toISOString();
  }
}

export const SETTINGS: ZoneSettings = {
  adminEmail: 'hostmaster@example.com',
  primaryNs: 'ns1.example.com',
  refresh: 10800,
  retry: 3600,
  expire: 604800,
  minimum: 3600,
  defaultTtl: 3600,
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The item at `index` (default the first), failing the test when the list is shorter. */
function nth<T>(items: readonly T[], index = 0): T {
  const item = items[index];
  if (item === undefined) throw new Error(`expected an item at index ${index}; the list has ${items.length}`);
  return item;
}
const ISO_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;

/** Awaits a promise that must reject with a StoreError of `code` (and `index` / `message` when given). */
export async function expectStoreError(
  promise: Promise<unknown>,
  code: StoreErrorCode,
  expected: { index?: number | undefined; message?: string | RegExp } = {},
): Promise<StoreError> {
  let caught: unknown = undefined;
  let resolved = false;
  try {
    await promise;
    resolved = true;
  } catch (err) {
    caught = err;
  }
  if (resolved) throw new Error(`expected a StoreError ${code}, but the call succeeded`);
  if (!(caught instanceof StoreError)) throw new Error(`expected a StoreError ${code}, got ${String(caught)}`);
  // The message rides along so that a wrong code shows what the store said.
  expect({ code: caught.code, message: caught.message }).toMatchObject({ code });
  if ('index' in expected) expect(caught.index).toBe(expected.index);
  if (expected.message !== undefined) {
    if (typeof expected.message === 'string') expect(caught.message).toBe(expected.message);
    else expect(caught.message).toMatch(expected.message);
  }
  return caught;
}

const rec = (name: string, type: RecordType, value: string, ttl = 300): RecordData => ({ name, type, ttl, value });
const add = (name: string, type: RecordType, value: string, ttl = 300): RecordChange => ({
  op: 'add',
  record: rec(name, type, value, ttl),
});
/** A DNSSEC key of `zone` (a ZSK of algorithm 13 unless `fields` say otherwise), with an id of its own. */
export function dnssecKey(zone: string, fields: Partial<DnssecKey> = {}): DnssecKey {
  return {
    id: randomUUID(),
    zone,
    algorithm: 13,
    flags: 256,
    bits: 256,
    publicKey: 'mdsswUyr3DPW132mOi8V9xESWE8jTo0dxCjjnopKl+GqJxpVXckHAeF+KkxLbxILfDLUT0rAK9iUzy1L53eKGQ==',
    privateKey: 'v1:aes-256-gcm:bm9ub25jZQ==:Y2lwaGVydGV4dA==',
    createdAt: '2024-03-05T10:00:00.123Z',
    publishAt: '2024-03-05T10:00:00.123Z',
    activateAt: '2024-03-05T11:00:00.123Z',
    inactiveAt: null,
    deleteAt: null,
    expiresAt: '2025-03-05T10:00:00.123Z',
    cdsAt: null,
    cdsUntil: null,
    dsSeenAt: null,
    ...fields,
  };
}

const strip = (r: StoredRecord) => ({ name: r.name, type: r.type, ttl: r.ttl, value: r.value });

export function describeZoneStoreContract(
  name: string,
  open: (options?: ContractOpenOptions) => Promise<ZoneStore>,
  cleanup: () => Promise<void>,
): void {
  describe(`ZoneStore contract: ${name}`, () => {
    const opened: ZoneStore[] = [];
    const clock = new TestClock('2024-03-05T10:00:00.123Z');
    let store: ZoneStore;
    let seq = 0;
    /** A zone name of the test's own. */
    const zoneName = (label: string) => `${label}-${++seq}.example`;
    const openTracked = async (options?: ContractOpenOptions) => {
      const s = await open(options);
      opened.push(s);
      return s;
    };
    const snapshot = async (s: ZoneStore, zone: string) => ({
      zone: await s.getZone(zone),
      records: await s.listRecords(zone),
    });

    beforeAll(async () => {
      store = await openTracked({ now: clock.now });
    });
    afterAll(async () => {
      for (const s of opened) await s.close();
      await cleanup();
    });
    beforeEach(() => clock.set('2024-03-05T10:00:00.123Z'));

    // ----------------------------------------------------------------------------------------------------------
    describe('zones', () => {
      test('createZone stores the settings, starts the serial at today·100 and stamps ISO UTC times', async () => {
        const zn = zoneName('create');
        const zone = await store.createZone(zn, SETTINGS);
        const expected: Zone = {
          name: zn,
          ...SETTINGS,
          serial: 2024030500,
          recordsCount: 0,
          createdAt: '2024-03-05T10:00:00.123Z',
          updatedAt: '2024-03-05T10:00:00.123Z',
        };
        expect(zone).toEqual(expected);
        expect(await store.getZone(zn)).toEqual(expected);
        expect(store.kind).toMatch(/^(sqlite|postgres)$/);
      });

      test('the serial of a new zone follows the real UTC date when no clock is injected', async () => {
        const real = await openTracked();
        const zn = zoneName('realclock');
        const before = new Date();
        const zone = await real.createZone(zn, SETTINGS);
        const after = new Date();
        const ymd = (d: Date) => Number(d.toISOString().slice(0, 10).replace(/-/g, '')) * 100;
        expect([ymd(before), ymd(after)]).toContain(zone.serial);
        expect(zone.createdAt).toMatch(ISO_Z);
        expect(Date.parse(zone.createdAt)).toBeGreaterThanOrEqual(before.getTime() - 1);
        expect(Date.parse(zone.createdAt)).toBeLessThanOrEqual(after.getTime() + 1);
      });

      test('getZone of a missing zone is null; listZones is ordered by name and counts records', async () => {
        expect(await store.getZone('missing.example')).toBeNull();
        const b = `b-${++seq}.list.example`;
        const a = `a-${++seq}.list.example`;
        await store.createZone(b, SETTINGS, [rec(`www.${b}`, 'A', '192.0.2.1'), rec(`www.${b}`, 'A', '192.0.2.2')]);
        await store.createZone(a, SETTINGS);
        const mine = (await store.listZones()).filter((z) => z.name.endsWith('.list.example'));
        expect(mine.map((z) => [z.name, z.recordsCount])).toEqual([
          [a, 0],
          [b, 2],
        ]);
      });

      test('createZone of an existing zone is CONFLICT and keeps the first', async () => {
        const zn = zoneName('dup');
        await store.createZone(zn, SETTINGS, [rec(zn, 'TXT', '"first"')]);
        await expectStoreError(
          store.createZone(zn, { ...SETTINGS, refresh: 1 }, [rec(zn, 'TXT', '"second"')]),
          'CONFLICT',
          {
            message: new RegExp(zn),
          },
        );
        const zone = await store.getZone(zn);
        expect(zone?.refresh).toBe(SETTINGS.refresh);
        expect((await store.listRecords(zn)).map((r) => r.value)).toEqual(['"first"']);
      });

      test('createZone stores its initial records in one go', async () => {
        const zn = zoneName('initial');
        const zone = await store.createZone(zn, SETTINGS, [
          rec(`www.${zn}`, 'A', '192.0.2.1'),
          rec(zn, 'NS', 'ns1.example.com.', 86400),
          rec(`mail.${zn}`, 'MX', `10 mx.${zn}.`),
        ]);
        expect(zone.recordsCount).toBe(3);
        expect(zone.serial).toBe(2024030500);
        const records = await store.listRecords(zn);
        expect(records.map(strip)).toEqual([
          rec(zn, 'NS', 'ns1.example.com.', 86400),
          rec(`mail.${zn}`, 'MX', `10 mx.${zn}.`),
          rec(`www.${zn}`, 'A', '192.0.2.1'),
        ]);
        for (const r of records) {
          expect(r.id).toMatch(UUID);
          expect(r.zone).toBe(zn);
          expect(r.createdAt).toBe('2024-03-05T10:00:00.123Z');
          expect(r.updatedAt).toBe('2024-03-05T10:00:00.123Z');
          expect(await store.getRecord(zn, r.id)).toEqual(r);
        }
        expect(new Set(records.map((r) => r.id)).size).toBe(3);
      });

      test('createZone refuses a bad initial record with its index and creates nothing', async () => {
        const zn = zoneName('badinit');
        await expectStoreError(
          store.createZone(zn, SETTINGS, [
            rec(`a.${zn}`, 'A', '192.0.2.1'),
            rec(`b.${zn}`, 'A', '192.0.2.2'),
            rec('www.other.org', 'A', '192.0.2.3'),
          ]),
          'INVALID',
          { index: 2, message: `record name www.other.org is not in zone ${zn}` },
        );
        expect(await store.getZone(zn)).toBeNull();
        await expectStoreError(
          store.createZone(zn, SETTINGS, [rec(`a.${zn}`, 'A', '192.0.2.1'), rec(`a.${zn}`, 'A', '192.0.2.1')]),
          'CONFLICT',
          {
            index: 1,
          },
        );
        await expectStoreError(
          store.createZone(zn, SETTINGS, [rec(`w.${zn}`, 'A', '192.0.2.1'), rec(`w.${zn}`, 'CNAME', 'x.example.')]),
          'INVALID',
          {
            index: 1,
            message: `CNAME may not share its name with any other record (w.${zn} has A)`,
          },
        );
        await expectStoreError(store.createZone(zn, SETTINGS, [rec(`a.${zn}`, 'SOA', 'x')]), 'INVALID', { index: 0 });
        expect(await store.getZone(zn)).toBeNull();
      });

      test.each([
        ['upper case', 'Example.com'],
        ['trailing dot', 'example.com.'],
        ['empty label', 'a..example'],
        ['not a string', 42],
      ])('createZone refuses a zone name with %s', async (_label, bad) => {
        await expectStoreError(store.createZone(bad as string, SETTINGS), 'INVALID', { message: /zone name/ });
      });

      test.each([
        ['refresh', -1],
        ['retry', 1.5],
        ['expire', 2147483648],
        ['defaultTtl', '3600'],
        ['adminEmail', ''],
        ['primaryNs', undefined],
      ])('createZone refuses the setting %s = %p', async (key, bad) => {
        const zn = zoneName('badsettings');
        await expectStoreError(store.createZone(zn, { ...SETTINGS, [key]: bad }), 'INVALID', {
          message: new RegExp(key),
        });
        expect(await store.getZone(zn)).toBeNull();
      });

      test('updateZone changes settings, raises the serial, moves updatedAt and keeps createdAt', async () => {
        const zn = zoneName('update');
        const created = await store.createZone(zn, SETTINGS);
        clock.tick(5000);
        const updated = await store.updateZone(zn, { refresh: 7200, adminEmail: 'dns@example.com' });
        expect(updated).toEqual({
          ...created,
          refresh: 7200,
          adminEmail: 'dns@example.com',
          serial: created.serial + 1,
          updatedAt: '2024-03-05T10:00:05.123Z',
        });
        expect(await store.getZone(zn)).toEqual(updated);
      });

      test('updateZone of a missing zone is NOT_FOUND; bad or unknown settings are INVALID and change nothing', async () => {
        await expectStoreError(store.updateZone('nope.example', { refresh: 1 }), 'NOT_FOUND', {
          message: /nope\.example/,
        });
        const zn = zoneName('updatebad');
        const created = await store.createZone(zn, SETTINGS);
        await expectStoreError(store.updateZone(zn, { refresh: 1.5 }), 'INVALID', { message: /refresh/ });
        await expectStoreError(store.updateZone(zn, { serial: 1 } as unknown as Partial<ZoneSettings>), 'INVALID', {
          message: /serial/,
        });
        await expectStoreError(store.updateZone(zn, { minimum: -5 }), 'INVALID', { message: /minimum/ });
        expect(await store.getZone(zn)).toEqual(created);
      });

      test('ifVersion: updateZone and deleteZone of a zone changed or gone since it was read are PRECONDITION_FAILED', async () => {
        const zn = zoneName('ifversion');
        const read = await store.createZone(zn, SETTINGS);
        const seen = { serial: read.serial, updatedAt: read.updatedAt };
        clock.tick(1000);
        const updated = await store.updateZone(zn, { refresh: 7200 }, { ifVersion: seen }); // the version read: passes
        expect(updated.refresh).toBe(7200);
        // the same version again is stale now: nothing written, by either call
        await expectStoreError(store.updateZone(zn, { refresh: 60 }, { ifVersion: seen }), 'PRECONDITION_FAILED', {
          message: new RegExp(`zone ${zn} changed since it was read`),
        });
        await expectStoreError(store.deleteZone(zn, { ifVersion: seen }), 'PRECONDITION_FAILED');
        // the same serial with another update time (a zone deleted and created again) is another version
        await expectStoreError(
          store.updateZone(zn, { refresh: 60 }, { ifVersion: { serial: updated.serial, updatedAt: read.updatedAt } }),
          'PRECONDITION_FAILED',
        );
        expect(await store.getZone(zn)).toEqual(updated);
        expect(
          await store.deleteZone(zn, { ifVersion: { serial: updated.serial, updatedAt: updated.updatedAt } }),
        ).toBe(true);
        // gone: a conditional write is PRECONDITION_FAILED, not "false" or NOT_FOUND
        const last = { serial: updated.serial, updatedAt: updated.updatedAt };
        await expectStoreError(store.deleteZone(zn, { ifVersion: last }), 'PRECONDITION_FAILED', {
          message: /deleted/,
        });
        await expectStoreError(store.updateZone(zn, { refresh: 60 }, { ifVersion: last }), 'NOT_FOUND');
      });

      test.each([
        ['a string', 'v1'],
        ['a serial that is no integer', { serial: '1', updatedAt: '2024-03-05T10:00:00.123Z' }],
        ['no updatedAt', { serial: 1 }],
      ])('ifVersion %s is INVALID and changes nothing', async (_what, bad) => {
        const zn = zoneName('ifversionbad');
        const zone = await store.createZone(zn, SETTINGS);
        const options = { ifVersion: bad } as unknown as ZoneWriteOptions;
        await expectStoreError(store.updateZone(zn, { refresh: 60 }, options), 'INVALID', { message: /ifVersion/ });
        await expectStoreError(store.deleteZone(zn, options), 'INVALID', { message: /ifVersion/ });
        expect(await store.getZone(zn)).toEqual(zone);
      });

      test('deleteZone removes the zone and its records; a second delete is false', async () => {
        const zn = zoneName('delete');
        await store.createZone(zn, SETTINGS, [rec(`www.${zn}`, 'A', '192.0.2.1')]);
        const r = nth(await store.listRecords(zn));
        expect(await store.deleteZone(zn)).toBe(true);
        expect(await store.getZone(zn)).toBeNull();
        expect(await store.getRecord(zn, r.id)).toBeNull();
        await expectStoreError(store.listRecords(zn), 'NOT_FOUND');
        await expectStoreError(store.change(zn, [add(`x.${zn}`, 'A', '192.0.2.9')]), 'NOT_FOUND');
        expect(await store.deleteZone(zn)).toBe(false);
        // The records went with the zone (a new zone of the same name starts empty).
        const again = await store.createZone(zn, SETTINGS);
        expect(again.recordsCount).toBe(0);
        expect(await store.listRecords(zn)).toEqual([]);
        expect(await store.getRecord(zn, r.id)).toBeNull();
      });

      test('nested zones are separate: each record belongs to the zone it was added to', async () => {
        const parent = zoneName('parent');
        const child = `sub.${parent}`;
        await store.createZone(parent, SETTINGS, [rec(`www.${parent}`, 'A', '192.0.2.1')]);
        await store.createZone(child, SETTINGS, [rec(`www.${child}`, 'A', '192.0.2.2')]);
        // A name below the child may still be added to the parent: it belongs to the parent.
        await store.change(parent, [add(`other.${child}`, 'TXT', '"in parent"')]);
        expect((await store.listRecords(parent)).map((r) => r.name)).toEqual([`other.${child}`, `www.${parent}`]);
        expect((await store.listRecords(child)).map((r) => r.name)).toEqual([`www.${child}`]);
        expect((await store.getZone(parent))?.recordsCount).toBe(2);
        expect((await store.getZone(child))?.recordsCount).toBe(1);
        const childRecord = nth(await store.listRecords(child));
        expect(await store.getRecord(parent, childRecord.id)).toBeNull();
        await expectStoreError(store.change(parent, [{ op: 'delete', id: childRecord.id }]), 'NOT_FOUND', {
          index: 0,
        });
        await expectStoreError(store.change(child, [add(`www.${parent}`, 'A', '192.0.2.3')]), 'INVALID', {
          index: 0,
          message: `record name www.${parent} is not in zone ${child}`,
        });
      });
    });

    // ----------------------------------------------------------------------------------------------------------
    describe('records', () => {
      test('add, update and delete: results, stable ids, timestamps and recordsCount', async () => {
        const zn = zoneName('crud');
        await store.createZone(zn, SETTINGS);
        clock.tick(1000);
        const added = await store.change(zn, [add(`www.${zn}`, 'A', '192.0.2.1'), add(`www.${zn}`, 'A', '192.0.2.2')]);
        expect(added.zone.recordsCount).toBe(2);
        expect(added.zone.serial).toBe(2024030501);
        expect(added.zone.updatedAt).toBe('2024-03-05T10:00:01.123Z');
        expect(added.results).toHaveLength(2);
        const records = added.results.map((r) => r.record!);
        const r1 = nth(records, 0);
        const r2 = nth(records, 1);
        expect(added.results.map((r) => [r.op, r.ids])).toEqual([
          ['add', [r1.id]],
          ['add', [r2.id]],
        ]);
        expect(r1.id).toMatch(UUID);
        expect(r1).toEqual({
          id: r1.id,
          zone: zn,
          ...rec(`www.${zn}`, 'A', '192.0.2.1'),
          createdAt: '2024-03-05T10:00:01.123Z',
          updatedAt: '2024-03-05T10:00:01.123Z',
        });
        expect(await store.getRecord(zn, r1.id)).toEqual(r1);

        clock.tick(1000);
        const updated = await store.change(zn, [{ op: 'update', id: r1.id, ttl: 60 }]);
        expect(updated.results).toEqual([
          { op: 'update', ids: [r1.id], record: { ...r1, ttl: 60, updatedAt: '2024-03-05T10:00:02.123Z' } },
        ]);
        clock.tick(1000);
        const revalued = await store.change(zn, [{ op: 'update', id: r1.id, value: '192.0.2.10' }]);
        expect(nth(revalued.results).record).toEqual({
          ...r1,
          ttl: 60,
          value: '192.0.2.10',
          updatedAt: '2024-03-05T10:00:03.123Z',
        });
        expect(await store.getRecord(zn, r1.id)).toEqual(nth(revalued.results).record);
        expect(revalued.zone.serial).toBe(2024030503);

        const deleted = await store.change(zn, [{ op: 'delete', id: r2.id }]);
        expect(deleted.results).toEqual([{ op: 'delete', ids: [r2.id] }]);
        expect(deleted.zone.recordsCount).toBe(1);
        expect(await store.getRecord(zn, r2.id)).toBeNull();
        expect((await store.listRecords(zn)).map((r) => r.id)).toEqual([r1.id]);
        expect((await store.getZone(zn))?.createdAt).toBe('2024-03-05T10:00:00.123Z');
      });

      test('an add may carry its id; a taken id is CONFLICT (in this zone or another)', async () => {
        const zn = zoneName('ids');
        const other = zoneName('ids-other');
        await store.createZone(zn, SETTINGS);
        await store.createZone(other, SETTINGS);
        const id = randomUUID();
        const out = await store.change(zn, [{ op: 'add', id, record: rec(`a.${zn}`, 'A', '192.0.2.1') }]);
        expect(out.results[0]?.ids).toEqual([id]);
        expect((await store.getRecord(zn, id))?.value).toBe('192.0.2.1');
        await expectStoreError(
          store.change(zn, [
            add(`b.${zn}`, 'A', '192.0.2.2'),
            { op: 'add', id, record: rec(`c.${zn}`, 'A', '192.0.2.3') },
          ]),
          'CONFLICT',
          {
            index: 1,
            message: new RegExp(id),
          },
        );
        await expectStoreError(
          store.change(other, [{ op: 'add', id, record: rec(`c.${other}`, 'A', '192.0.2.3') }]),
          'CONFLICT',
          { index: 0 },
        );
        // Deleting and adding the same id again in one batch replaces the record.
        const replaced = await store.change(zn, [
          { op: 'delete', id },
          { op: 'add', id, record: rec(`d.${zn}`, 'TXT', '"again"') },
        ]);
        expect(replaced.zone.recordsCount).toBe(1);
        expect(await store.getRecord(zn, id)).toMatchObject({ id, name: `d.${zn}`, type: 'TXT', value: '"again"' });
        expect(await store.listRecords(other)).toEqual([]);
      });

      test('listRecords orders by name, type, value (byte order) and filters by name and/or type', async () => {
        const zn = zoneName('order');
        const input = [
          rec(`b.${zn}`, 'TXT', '"b"'),
          rec(`b.${zn}`, 'TXT', '"B"'),
          rec(`b.${zn}`, 'A', '192.0.2.2'),
          rec(`a.${zn}`, 'TXT', '"z"'),
          rec(`b.${zn}`, 'TXT', '"a"'),
          rec(`b.${zn}`, 'AAAA', '2001:db8::1'),
          rec(`b.${zn}`, 'A', '192.0.2.10'),
          rec(zn, 'NS', 'ns1.example.com.'),
          rec(`_dmarc.${zn}`, 'TXT', '"v=DMARC1"'),
          rec(`b.${zn}`, 'TXT', '"é"'),
          rec(`b.${zn}`, 'TXT', '"~"'),
        ];
        await store.createZone(zn, SETTINGS, input);
        const expected = [
          rec(`_dmarc.${zn}`, 'TXT', '"v=DMARC1"'),
          rec(`a.${zn}`, 'TXT', '"z"'),
          rec(`b.${zn}`, 'A', '192.0.2.10'),
          rec(`b.${zn}`, 'A', '192.0.2.2'),
          rec(`b.${zn}`, 'AAAA', '2001:db8::1'),
          rec(`b.${zn}`, 'TXT', '"B"'),
          rec(`b.${zn}`, 'TXT', '"a"'),
          rec(`b.${zn}`, 'TXT', '"b"'),
          rec(`b.${zn}`, 'TXT', '"~"'),
          rec(`b.${zn}`, 'TXT', '"é"'),
          rec(zn, 'NS', 'ns1.example.com.'),
        ];
        expect((await store.listRecords(zn)).map(strip)).toEqual(expected);
        expect((await store.listRecords(zn, { name: `b.${zn}` })).map(strip)).toEqual(
          expected.filter((r) => r.name === `b.${zn}`),
        );
        expect((await store.listRecords(zn, { type: 'TXT' })).map(strip)).toEqual(
          expected.filter((r) => r.type === 'TXT'),
        );
        expect((await store.listRecords(zn, { name: `b.${zn}`, type: 'A' })).map(strip)).toEqual([
          rec(`b.${zn}`, 'A', '192.0.2.10'),
          rec(`b.${zn}`, 'A', '192.0.2.2'),
        ]);
        expect(await store.listRecords(zn, { name: `none.${zn}` })).toEqual([]);
        expect(await store.listRecords(zn, { type: 'SOA' })).toEqual([]);
        await expectStoreError(store.listRecords(zn, { type: 'BOGUS' as RecordType }), 'INVALID', { message: /BOGUS/ });
        await expectStoreError(store.listRecords('absent.example'), 'NOT_FOUND', { message: /absent\.example/ });
      });

      const MAX = 2147483647;
      test.each<[string, (zn: string) => RecordChange, RegExp | string]>([
        [
          'a name outside the zone',
          () => add('www.other.org', 'A', '192.0.2.1'),
          /record name www\.other\.org is not in zone /,
        ],
        ['a name that only ends like the zone', (zn) => add(`evil${zn}`, 'A', '192.0.2.1'), /is not in zone/],
        ['a name with a trailing dot', (zn) => add(`www.${zn}.`, 'A', '192.0.2.1'), /trailing dot/],
        ['an upper-case name', (zn) => add(`WWW.${zn}`, 'A', '192.0.2.1'), /lower-case/],
        [
          'TTL -1',
          (zn) => add(`www.${zn}`, 'A', '192.0.2.1', -1),
          /TTL must be an integer from 0 to 2147483647 \(got -1\)/,
        ],
        ['TTL 1.5', (zn) => add(`www.${zn}`, 'A', '192.0.2.1', 1.5), /\(got 1\.5\)/],
        ['TTL 2^31', (zn) => add(`www.${zn}`, 'A', '192.0.2.1', MAX + 1), /\(got 2147483648\)/],
        [
          'TTL as a string',
          (zn) => ({ op: 'add', record: { ...rec(`www.${zn}`, 'A', '1.2.3.4'), ttl: '300' as unknown as number } }),
          /TTL/,
        ],
        ['an unknown type', (zn) => add(`www.${zn}`, 'FOO' as RecordType, 'x'), /record type "FOO" is not one of/],
        ['a lower-case type', (zn) => add(`www.${zn}`, 'a' as RecordType, '192.0.2.1'), /record type "a"/],
        [
          'an SOA row',
          (zn) => add(zn, 'SOA', `ns1.example.com. hostmaster.example.com. 1 2 3 4 5`),
          /SOA is not stored as a record/,
        ],
        [
          'a value of 65 536 characters',
          (zn) => add(`www.${zn}`, 'TXT', 'x'.repeat(65536)),
          /65536 characters long; the limit is 65535/,
        ],
        ['an empty value', (zn) => add(`www.${zn}`, 'TXT', ''), /must not be empty/],
        ['a value with NUL', (zn) => add(`www.${zn}`, 'TXT', '"a\u0000b"'), /NUL/],
        ['an unknown op', () => ({ op: 'upsert' }) as unknown as RecordChange, /unknown op "upsert"/],
        ['an update with TTL -5', () => ({ op: 'update', id: 'ID', ttl: -5 }), /\(got -5\)/],
        [
          'an update with a too long value',
          () => ({ op: 'update', id: 'ID', value: 'y'.repeat(65536) }),
          /limit is 65535/,
        ],
        ['an update with neither ttl nor value', () => ({ op: 'update', id: 'ID' }), /neither ttl nor value/],
        ['deleteMatching outside the zone', () => ({ op: 'deleteMatching', name: 'other.org' }), /not in zone/],
        [
          'deleteMatching of an unknown type',
          (zn) => ({ op: 'deleteMatching', name: zn, type: 'XYZ' as RecordType }),
          /"XYZ"/,
        ],
      ])('change refuses %s with INVALID at its index and writes nothing', async (_label, make, message) => {
        const zn = zoneName('invalid');
        await store.createZone(zn, SETTINGS, [rec(`keep.${zn}`, 'A', '192.0.2.1')]);
        const keep = nth(await store.listRecords(zn));
        let bad = make(zn);
        if ('id' in bad && bad.id === 'ID') bad = { ...bad, id: keep.id }; // an existing record
        const before = await snapshot(store, zn);
        await expectStoreError(store.change(zn, [add(`ok.${zn}`, 'A', '192.0.2.2'), bad]), 'INVALID', {
          index: 1,
          message,
        });
        expect(await snapshot(store, zn)).toEqual(before);
      });

      test('the bounds themselves are accepted: TTL 0 and 2147483647, a value of 65 535 characters', async () => {
        const zn = zoneName('bounds');
        await store.createZone(zn, SETTINGS);
        const long = `"${'x'.repeat(65533)}"`;
        expect(long).toHaveLength(65535);
        const out = await store.change(zn, [
          add(`a.${zn}`, 'A', '192.0.2.1', 0),
          add(`b.${zn}`, 'A', '192.0.2.1', 2147483647),
          add(`c.${zn}`, 'TXT', long),
        ]);
        expect(out.zone.recordsCount).toBe(3);
        expect((await store.listRecords(zn)).map((r) => [r.ttl, r.value.length])).toEqual([
          [0, 9],
          [2147483647, 9],
          [300, 65535],
        ]);
      });

      test('a change of more than 10 000 changes is INVALID and says the limit; 10 000 pass', async () => {
        const zn = zoneName('limit');
        await store.createZone(zn, SETTINGS);
        const many = Array.from({ length: 10001 }, (_, i) => add(`h${i}.${zn}`, 'A', '192.0.2.1'));
        await expectStoreError(store.change(zn, many), 'INVALID', { message: /at most 10000 changes \(got 10001\)/ });
        expect((await store.getZone(zn))?.recordsCount).toBe(0);
        const out = await store.change(zn, many.slice(0, 10000));
        expect(out.zone.recordsCount).toBe(10000);
        expect(out.zone.serial).toBe(2024030501);
      });

      test('the same (name, type, value) twice is CONFLICT: against the zone, inside a batch, and by update', async () => {
        const zn = zoneName('dupes');
        await store.createZone(zn, SETTINGS, [rec(`www.${zn}`, 'A', '192.0.2.1')]);
        const before = await snapshot(store, zn);
        await expectStoreError(store.change(zn, [add(`www.${zn}`, 'A', '192.0.2.1', 60)]), 'CONFLICT', {
          index: 0,
          message: `www.${zn} A 192.0.2.1 already exists in zone ${zn}`,
        });
        await expectStoreError(
          store.change(zn, [
            add(`x.${zn}`, 'A', '192.0.2.7'),
            add(`y.${zn}`, 'A', '192.0.2.7'),
            add(`x.${zn}`, 'A', '192.0.2.7'),
          ]),
          'CONFLICT',
          {
            index: 2,
          },
        );
        const existing = nth(before.records);
        const other = await store.change(zn, [add(`www.${zn}`, 'A', '192.0.2.2')]);
        await expectStoreError(
          store.change(zn, [{ op: 'update', id: nth(nth(other.results).ids), value: '192.0.2.1' }]),
          'CONFLICT',
          { index: 0 },
        );
        // Not duplicates: same value with another type or name; and a batch that removes one first.
        await store.change(zn, [add(`www.${zn}`, 'TXT', '192.0.2.1'), add(`web.${zn}`, 'A', '192.0.2.1')]);
        await store.change(zn, [{ op: 'delete', id: existing.id }, add(`www.${zn}`, 'A', '192.0.2.1', 120)]);
        // Judged on the state after the batch: adding a twin and deleting the original later is fine.
        const current = nth(await store.listRecords(zn, { name: `www.${zn}`, type: 'A' }));
        await store.change(zn, [add(`www.${zn}`, 'A', current.value, 30), { op: 'delete', id: current.id }]);
        expect((await store.listRecords(zn, { name: `www.${zn}`, type: 'A' })).map((r) => [r.value, r.ttl])).toEqual([
          ['192.0.2.1', 30],
          ['192.0.2.2', 300],
        ]);
      });

      test('CNAME may not share its name with other data, nor with another CNAME (INVALID, with the message)', async () => {
        const zn = zoneName('cname');
        await store.createZone(zn, SETTINGS, [
          rec(`www.${zn}`, 'A', '192.0.2.1'),
          rec(`alias.${zn}`, 'CNAME', 'target.example.'),
        ]);
        const before = await snapshot(store, zn);
        await expectStoreError(store.change(zn, [add(`www.${zn}`, 'CNAME', 'target.example.')]), 'INVALID', {
          index: 0,
          message: `CNAME may not share its name with any other record (www.${zn} has A)`,
        });
        await expectStoreError(
          store.change(zn, [
            add(`ok.${zn}`, 'A', '192.0.2.5'),
            add(`alias.${zn}`, 'MX', '10 mx.example.'),
            add(`alias.${zn}`, 'TXT', '"t"'),
          ]),
          'INVALID',
          {
            index: 2,
            message: `CNAME may not share its name with any other record (alias.${zn} has MX, TXT)`,
          },
        );
        await expectStoreError(store.change(zn, [add(`alias.${zn}`, 'CNAME', 'other.example.')]), 'INVALID', {
          index: 0,
          message: new RegExp(`only one CNAME.*alias\\.${zn.replace(/[.-]/g, '\\$&')} has 2`),
        });
        expect(await snapshot(store, zn)).toEqual(before);

        // Judged after all changes of the call: delete the A and add the CNAME, in either order.
        const a = nth(before.records.filter((r) => r.type === 'A'));
        await store.change(zn, [add(`www.${zn}`, 'CNAME', 'target.example.'), { op: 'delete', id: a.id }]);
        await store.change(zn, [
          { op: 'deleteMatching', name: `alias.${zn}`, type: 'CNAME' },
          add(`alias.${zn}`, 'A', '192.0.2.9'),
        ]);
        await store.change(zn, [
          add(`alias2.${zn}`, 'TXT', '"x"'),
          add(`alias2.${zn}`, 'CNAME', 'y.example.'),
          { op: 'deleteMatching', name: `alias2.${zn}`, type: 'TXT' },
        ]);
        expect((await store.listRecords(zn)).map((r) => `${r.name} ${r.type}`)).toEqual([
          `alias.${zn} A`,
          `alias2.${zn} CNAME`,
          `www.${zn} CNAME`,
        ]);
      });

      test('unknown zone and unknown record ids are NOT_FOUND, with the index of the change', async () => {
        const zn = zoneName('notfound');
        await store.createZone(zn, SETTINGS, [rec(`www.${zn}`, 'A', '192.0.2.1')]);
        const r = nth(await store.listRecords(zn));
        const before = await snapshot(store, zn);
        await expectStoreError(
          store.change('missing.example', [add('www.missing.example', 'A', '192.0.2.1')]),
          'NOT_FOUND',
          {
            message: /missing\.example/,
          },
        );
        const ghost = randomUUID();
        await expectStoreError(
          store.change(zn, [
            { op: 'update', id: r.id, ttl: 5 },
            { op: 'update', id: ghost, ttl: 5 },
          ]),
          'NOT_FOUND',
          {
            index: 1,
            message: new RegExp(ghost),
          },
        );
        await expectStoreError(
          store.change(zn, [
            add(`a.${zn}`, 'A', '192.0.2.2'),
            add(`b.${zn}`, 'A', '192.0.2.2'),
            { op: 'delete', id: ghost },
          ]),
          'NOT_FOUND',
          {
            index: 2,
          },
        );
        // A record deleted earlier in the batch is gone for the later changes.
        await expectStoreError(
          store.change(zn, [
            { op: 'delete', id: r.id },
            { op: 'update', id: r.id, ttl: 1 },
          ]),
          'NOT_FOUND',
          { index: 1 },
        );
        expect(await snapshot(store, zn)).toEqual(before);
      });

      test('ifSerial: a stale serial is SERIAL_MISMATCH and writes nothing; the current one passes', async () => {
        const zn = zoneName('ifserial');
        const zone = await store.createZone(zn, SETTINGS);
        await expectStoreError(
          store.change(zn, [add(`a.${zn}`, 'A', '192.0.2.1')], { ifSerial: zone.serial - 1 }),
          'SERIAL_MISMATCH',
          {
            message: new RegExp(String(zone.serial)),
          },
        );
        expect(await store.getZone(zn)).toEqual(zone);
        const out = await store.change(zn, [add(`a.${zn}`, 'A', '192.0.2.1')], { ifSerial: zone.serial });
        expect(out.zone.serial).toBe(zone.serial + 1);
        await expectStoreError(
          store.change(zn, [add(`b.${zn}`, 'A', '192.0.2.1')], { ifSerial: zone.serial }),
          'SERIAL_MISMATCH',
        );
        expect((await store.getZone(zn))?.recordsCount).toBe(1);
      });

      test('ifRecord: a record changed or gone since it was read is PRECONDITION_FAILED and writes nothing', async () => {
        const zn = zoneName('ifrecord');
        await store.createZone(zn, SETTINGS, [rec(`a.${zn}`, 'A', '192.0.2.1'), rec(`b.${zn}`, 'A', '192.0.2.2')]);
        const [a, b] = await store.listRecords(zn);
        if (!a || !b) throw new Error('two records expected');
        const version = (r: StoredRecord) => ({ id: r.id, ttl: r.ttl, value: r.value, updatedAt: r.updatedAt });
        clock.tick(1000);
        const out = await store.change(zn, [{ op: 'update', id: a.id, ttl: 60 }], { ifRecord: version(a) });
        const changed = nth(out.results).record!;
        const before = await snapshot(store, zn);
        // the version read before that update is stale now, for an update and for a delete
        for (const change of [
          { op: 'update', id: a.id, ttl: 120 },
          { op: 'delete', id: a.id },
        ] as RecordChange[])
          await expectStoreError(store.change(zn, [change], { ifRecord: version(a) }), 'PRECONDITION_FAILED', {
            message: new RegExp(`record ${a.id} of zone ${zn} changed since it was read`),
          });
        // each part of the version counts (what the API's ETag is made of)
        for (const stale of [{ ttl: 61 }, { value: '192.0.2.9' }, { updatedAt: a.updatedAt }])
          await expectStoreError(
            store.change(zn, [{ op: 'delete', id: a.id }], { ifRecord: { ...version(changed), ...stale } }),
            'PRECONDITION_FAILED',
          );
        // the condition may name another record than the one changed; it holds for b, unchanged
        expect(await snapshot(store, zn)).toEqual(before);
        await store.change(zn, [{ op: 'delete', id: b.id }], { ifRecord: version(b) });
        // gone: PRECONDITION_FAILED, not NOT_FOUND; an unknown zone is still NOT_FOUND first
        await expectStoreError(
          store.change(zn, [add(`c.${zn}`, 'A', '192.0.2.3')], { ifRecord: version(b) }),
          'PRECONDITION_FAILED',
          {
            message: /deleted/,
          },
        );
        await expectStoreError(store.change('nope.example', [], { ifRecord: version(b) }), 'NOT_FOUND');
        expect((await store.getZone(zn))?.recordsCount).toBe(1);
      });

      test.each([
        ['a string', 'v1'],
        ['no id', { ttl: 300, value: '192.0.2.1', updatedAt: '2024-03-05T10:00:00.123Z' }],
        [
          'a ttl that is no integer',
          { id: 'x', ttl: '300', value: '192.0.2.1', updatedAt: '2024-03-05T10:00:00.123Z' },
        ],
      ])('ifRecord %s is INVALID and writes nothing', async (_what, bad) => {
        const zn = zoneName('ifrecordbad');
        await store.createZone(zn, SETTINGS, [rec(`a.${zn}`, 'A', '192.0.2.1')]);
        const before = await snapshot(store, zn);
        await expectStoreError(
          store.change(zn, [add(`b.${zn}`, 'A', '192.0.2.2')], { ifRecord: bad } as unknown as ChangeOptions),
          'INVALID',
          { message: /ifRecord/ },
        );
        expect(await snapshot(store, zn)).toEqual(before);
      });

      test('atomicity: a batch whose 3rd change fails leaves the zone exactly as before', async () => {
        const zn = zoneName('atomic');
        await store.createZone(zn, SETTINGS, [
          rec(`a.${zn}`, 'A', '192.0.2.1'),
          rec(`b.${zn}`, 'A', '192.0.2.2'),
          rec(`c.${zn}`, 'TXT', '"c"'),
        ]);
        clock.tick(60_000);
        const before = await snapshot(store, zn);
        const a = nth(before.records, 0);
        const b = nth(before.records, 1);
        // A per-change failure (unknown id) ...
        await expectStoreError(
          store.change(zn, [
            { op: 'update', id: a.id, value: '192.0.2.100' },
            { op: 'delete', id: b.id },
            { op: 'delete', id: randomUUID() },
            add(`d.${zn}`, 'A', '192.0.2.4'),
          ]),
          'NOT_FOUND',
          { index: 2 },
        );
        expect(await snapshot(store, zn)).toEqual(before);
        // ... and a failure on the state after the batch (a duplicate made by the 3rd change).
        await expectStoreError(
          store.change(zn, [
            { op: 'deleteMatching', name: `c.${zn}` },
            add(`e.${zn}`, 'A', '192.0.2.5'),
            add(`b.${zn}`, 'A', '192.0.2.2'),
            { op: 'update', id: a.id, ttl: 1 },
          ]),
          'CONFLICT',
          { index: 2 },
        );
        expect(await snapshot(store, zn)).toEqual(before);
      });

      test('deleteMatching by name, by name and type, by name, type and value; no match is not an error', async () => {
        const zn = zoneName('match');
        await store.createZone(zn, SETTINGS, [
          rec(`m.${zn}`, 'A', '192.0.2.1'),
          rec(`m.${zn}`, 'A', '192.0.2.2'),
          rec(`m.${zn}`, 'TXT', '"t"'),
          rec(`n.${zn}`, 'A', '192.0.2.1'),
          rec(`o.${zn}`, 'A', '192.0.2.1'),
          rec(`o.${zn}`, 'MX', '10 mx.example.'),
        ]);
        const all = await store.listRecords(zn);
        const idOf = (name: string, type: string, value: string) =>
          all.find((r) => r.name === name && r.type === type && r.value === value)!.id;
        const out = await store.change(zn, [
          { op: 'deleteMatching', name: `m.${zn}`, type: 'A', value: '192.0.2.2' },
          { op: 'deleteMatching', name: `m.${zn}`, type: 'A' },
          { op: 'deleteMatching', name: `o.${zn}` },
          { op: 'deleteMatching', name: `nothing.${zn}` },
          { op: 'deleteMatching', name: `n.${zn}`, type: 'A', value: '192.0.2.99' },
        ]);
        expect(out.results).toEqual([
          { op: 'deleteMatching', ids: [idOf(`m.${zn}`, 'A', '192.0.2.2')] },
          { op: 'deleteMatching', ids: [idOf(`m.${zn}`, 'A', '192.0.2.1')] },
          { op: 'deleteMatching', ids: [idOf(`o.${zn}`, 'A', '192.0.2.1'), idOf(`o.${zn}`, 'MX', '10 mx.example.')] },
          { op: 'deleteMatching', ids: [] },
          { op: 'deleteMatching', ids: [] },
        ]);
        expect(out.zone.serial).toBe(2024030501);
        expect((await store.listRecords(zn)).map((r) => `${r.name} ${r.type}`)).toEqual([`m.${zn} TXT`, `n.${zn} A`]);
      });

      test('a call that changes nothing (only unmatched deleteMatching, or no changes) keeps the serial and emits nothing', async () => {
        const zn = zoneName('noop');
        const zone = await store.createZone(zn, SETTINGS, [rec(`a.${zn}`, 'A', '192.0.2.1')]);
        const events: ZoneChangeEvent[] = [];
        const off = store.onChange((e) => e.zone === zn && events.push(e));
        clock.tick(1000);
        const out = await store.change(zn, [
          { op: 'deleteMatching', name: `b.${zn}` },
          { op: 'deleteMatching', name: `a.${zn}`, type: 'AAAA' },
        ]);
        expect(out.results).toEqual([
          { op: 'deleteMatching', ids: [] },
          { op: 'deleteMatching', ids: [] },
        ]);
        expect(out.zone).toEqual(zone);
        expect((await store.change(zn, [])).zone).toEqual(zone);
        expect(await store.getZone(zn)).toEqual(zone);
        // One effective change among them raises it once.
        const mixed = await store.change(zn, [
          { op: 'deleteMatching', name: `b.${zn}` },
          { op: 'deleteMatching', name: `a.${zn}` },
        ]);
        expect(mixed.zone.serial).toBe(zone.serial + 1);
        off();
        expect(events.map((e) => e.serial)).toEqual([zone.serial + 1]);
      });
    });

    // ----------------------------------------------------------------------------------------------------------
    describe('names as given (letter case)', () => {
      test('kept beside the model form; matching, duplicates and listing go by the model form alone', async () => {
        const zn = zoneName('case');
        await store.createZone(zn, SETTINGS, [
          {
            ...rec(`www.${zn}`, 'CNAME', `host.${zn}.`),
            givenName: `WwW.${zn}`,
            givenValue: `Host.${zn.toUpperCase()}.`,
          },
          { ...rec(`mail.${zn}`, 'A', '192.0.2.1'), givenName: `Mail.${zn}` },
          // another case in the same RRset: the first record's case is the RRset's (as BIND loads a master file)
          { ...rec(`mail.${zn}`, 'A', '192.0.2.2'), givenName: `MAIL.${zn}` },
          // another RRset at the name keeps its own
          { ...rec(`mail.${zn}`, 'TXT', '"t"'), givenName: `MAIL.${zn}` },
        ]);
        const listed = await store.listRecords(zn);
        expect(
          listed.map(({ name, value, givenName, givenValue }) => ({ name, value, givenName, givenValue })),
        ).toEqual([
          { name: `mail.${zn}`, value: '192.0.2.1', givenName: `Mail.${zn}`, givenValue: undefined },
          { name: `mail.${zn}`, value: '192.0.2.2', givenName: `Mail.${zn}`, givenValue: undefined },
          { name: `mail.${zn}`, value: '"t"', givenName: `MAIL.${zn}`, givenValue: undefined },
          { name: `www.${zn}`, value: `host.${zn}.`, givenName: `WwW.${zn}`, givenValue: `Host.${zn.toUpperCase()}.` },
        ]);
        const seen: RecordData[] = [];
        await store.eachRecord(zn, (r) => seen.push(r));
        expect(seen[3]).toEqual({
          ...rec(`www.${zn}`, 'CNAME', `host.${zn}.`),
          givenName: `WwW.${zn}`,
          givenValue: `Host.${zn.toUpperCase()}.`,
        });
        expect(await store.listRecords(zn, { name: `www.${zn}` })).toHaveLength(1);

        // a record that differs only in case is the same record (RFC 2181 §5)
        await expectStoreError(
          store.change(zn, [
            { op: 'add', record: { ...rec(`www.${zn}`, 'CNAME', `host.${zn}.`), givenName: `WWW.${zn}` } },
          ]),
          'CONFLICT',
        );
        // a record added in model form (the API) to an RRset takes the RRset's case
        const added = await store.change(zn, [{ op: 'add', record: rec(`mail.${zn}`, 'A', '192.0.2.3') }]);
        expect(nth(added.results).record?.givenName).toBe(`Mail.${zn}`);
        // one that brings its own case gives it to the whole RRset (as an UPDATE does in BIND); other RRsets keep theirs
        await store.change(zn, [
          { op: 'add', record: { ...rec(`mail.${zn}`, 'A', '192.0.2.4'), givenName: `mAIL.${zn}` } },
        ]);
        const mail = await store.listRecords(zn, { name: `mail.${zn}` });
        expect(mail.map((r) => `${r.type} ${r.givenName}`)).toEqual([
          ...Array<string>(4).fill(`A mAIL.${zn}`),
          `TXT MAIL.${zn}`,
        ]);
        // and the lower case given so takes the RRset back to the model form
        await store.change(zn, [
          { op: 'add', record: { ...rec(`mail.${zn}`, 'A', '192.0.2.5'), givenName: `mail.${zn}` } },
        ]);
        const lower = await store.listRecords(zn, { name: `mail.${zn}`, type: 'A' });
        expect(lower.filter((r) => 'givenName' in r)).toEqual([]);
        expect(lower).toHaveLength(5);
        // a new value comes in model form: the value as given goes, the name as given stays
        const www = nth(listed, 3);
        const updated = await store.change(zn, [{ op: 'update', id: www.id, value: `other.${zn}.` }]);
        expect(nth(updated.results).record).toMatchObject({ givenName: `WwW.${zn}`, value: `other.${zn}.` });
        expect(await store.getRecord(zn, www.id)).not.toHaveProperty('givenValue');
        expect(await store.getRecord(zn, www.id)).toHaveProperty('givenName', `WwW.${zn}`);
      });

      test('a name or value as given that is not the model form in other case is refused', async () => {
        const zn = zoneName('case-bad');
        await store.createZone(zn, SETTINGS);
        await expectStoreError(
          store.change(zn, [{ op: 'add', record: { ...rec(`www.${zn}`, 'A', '192.0.2.1'), givenName: `web.${zn}` } }]),
          'INVALID',
          { message: /givenName must be/ },
        );
        await expectStoreError(
          store.change(zn, [{ op: 'add', record: { ...rec(`www.${zn}`, 'A', '192.0.2.1'), givenValue: '192.0.2.9' } }]),
          'INVALID',
          { message: /givenValue must be/ },
        );
      });
    });

    // ----------------------------------------------------------------------------------------------------------
    describe('record pages', () => {
      test('limit and after walk the listing order (name, type, value, id) page by page, with a filter', async () => {
        const zn = zoneName('pages');
        await store.createZone(zn, SETTINGS);
        const changes = [5, 3, 1, 4, 2].flatMap((i) => [
          add(`h${i}.${zn}`, 'TXT', `"t${i}"`),
          add(`h${i}.${zn}`, 'A', `192.0.2.${i}`),
        ]);
        await store.change(zn, [...changes, add(`h3.${zn}`, 'A', '192.0.2.30')]);
        const all = await store.listRecords(zn);
        expect(all).toHaveLength(11);
        const walk = async (filter: { type?: RecordType }, limit: number) => {
          const seen: StoredRecord[] = [];
          let after: StoredRecord | undefined;
          for (let pages = 0; pages < 20; pages++) {
            const page = await store.listRecords(zn, { ...filter, limit, ...(after ? { after } : {}) });
            expect(page.length).toBeLessThanOrEqual(limit);
            seen.push(...page);
            if (page.length < limit) return seen;
            after = page[page.length - 1];
          }
          throw new Error('paging did not end');
        };
        expect(await walk({}, 4)).toEqual(all);
        expect(await walk({}, 1)).toEqual(all);
        expect(await walk({ type: 'A' }, 2)).toEqual(await store.listRecords(zn, { type: 'A' }));
        expect((await walk({ type: 'A' }, 2)).map((r) => r.value)).toEqual([
          '192.0.2.1',
          '192.0.2.2',
          '192.0.2.3',
          '192.0.2.30',
          '192.0.2.4',
          '192.0.2.5',
        ]);
        const last = nth(all, all.length - 1);
        expect(await store.listRecords(zn, { after: last })).toEqual([]);
      });

      test.each([
        [{ limit: 0 }, /limit must be an integer from 1 to 100000/],
        [{ limit: 100001 }, /limit must be an integer from 1 to 100000/],
        [{ limit: 2.5 }, /limit must be an integer from 1 to 100000/],
        [{ after: { name: 'a' } }, /after must be a record position/],
        [{ after: 'cursor' }, /after must be a record position/],
      ])('a page filter %p is refused', async (filter, message) => {
        const zn = zoneName('bad-page');
        await store.createZone(zn, SETTINGS);
        await expectStoreError(store.listRecords(zn, filter as RecordFilter), 'INVALID', { message });
      });
    });

    // ----------------------------------------------------------------------------------------------------------
    describe('records per RRset', () => {
      const many = (name: string, count: number, type: RecordType = 'A'): RecordData[] =>
        Array.from({ length: count }, (_, i) =>
          rec(name, type, type === 'A' ? `10.0.${i >> 8}.${i & 255}` : `2001:db8::${(i + 1).toString(16)}`),
        );

      test("by default at most 100 records per name and type (BIND 9's max-records-per-type): createZone and change alike, nothing written over it", async () => {
        const zn = zoneName('rrset');
        await expectStoreError(store.createZone(zn, SETTINGS, many(`m.${zn}`, 101)), 'INVALID', {
          index: 100,
          message: `too many records: m.${zn} A would hold 101; the limit is 100 records per name and type (RRset)`,
        });
        expect(await store.getZone(zn)).toBeNull();
        await store.createZone(zn, SETTINGS, [...many(`m.${zn}`, 100), ...many(`m.${zn}`, 100, 'AAAA')]);
        const before = await snapshot(store, zn);
        await expectStoreError(
          store.change(zn, [add(`n.${zn}`, 'A', '192.0.2.1'), add(`m.${zn}`, 'A', '192.0.2.1')]),
          'INVALID',
          {
            index: 1,
            message: `too many records: m.${zn} A would hold 101; the limit is 100 records per name and type (RRset)`,
          },
        );
        expect(await snapshot(store, zn)).toEqual(before);
        // the state after the whole batch counts: one out, one in
        const swapped = await store.change(zn, [
          { op: 'deleteMatching', name: `m.${zn}`, type: 'A', value: '10.0.0.0' },
          add(`m.${zn}`, 'A', '192.0.2.1'),
        ]);
        expect(swapped.zone.recordsCount).toBe(200);
      });

      test("the limit is the store's option: 0 is none; an RRset stored over a lower limit may shrink and change but not grow", async () => {
        const zn = zoneName('rrset-opt');
        const unlimited = await openTracked({ now: clock.now, maxRecordsPerRrset: 0 });
        await unlimited.createZone(zn, SETTINGS, many(`m.${zn}`, 150));
        expect((await unlimited.change(zn, [add(`m.${zn}`, 'A', '192.0.2.1')])).zone.recordsCount).toBe(151);
        const three = await openTracked({ now: clock.now, maxRecordsPerRrset: 3 });
        await expectStoreError(three.change(zn, [add(`m.${zn}`, 'A', '192.0.2.2')]), 'INVALID', {
          index: 0,
          message: /would hold 152; the limit is 3 records/,
        });
        const first = nth(await three.listRecords(zn, { name: `m.${zn}` }));
        await three.change(zn, [
          { op: 'update', id: first.id, ttl: 60 },
          { op: 'deleteMatching', name: `m.${zn}`, type: 'A', value: '10.0.0.1' },
        ]);
        expect((await three.getZone(zn))?.recordsCount).toBe(150);
        await three.change(zn, [
          add(`x.${zn}`, 'A', '192.0.2.1'),
          add(`x.${zn}`, 'A', '192.0.2.2'),
          add(`x.${zn}`, 'A', '192.0.2.3'),
        ]);
        await expectStoreError(three.change(zn, [add(`x.${zn}`, 'A', '192.0.2.4')]), 'INVALID', {
          index: 0,
          message: /x\.\S+ A would hold 4/,
        });
      });

      test('a bad limit is refused when the store opens, naming the option', async () => {
        // (the PostgreSQL test's `open` wraps errors in one that says the database is unreachable: match the text)
        await expect(open({ maxRecordsPerRrset: -1 })).rejects.toThrow(
          /maxRecordsPerRrset must be an integer of 0 \(no limit\) or more \(got -1\)/,
        );
        await expect(open({ maxRecordsPerRrset: 1.5 })).rejects.toThrow(
          /maxRecordsPerRrset must be an integer .*\(got 1\.5\)/,
        );
      });
    });

    // ----------------------------------------------------------------------------------------------------------
    describe('serial', () => {
      test('same day increments, a new day resets to date·100, more than 99 a day keep counting, never backwards', async () => {
        const zn = zoneName('serial');
        const bump = async (i: number) => (await store.change(zn, [add(`h${i}.${zn}`, 'TXT', `"${i}"`)])).zone.serial;
        clock.set('2024-03-05T23:59:59.000Z');
        expect((await store.createZone(zn, SETTINGS)).serial).toBe(2024030500);
        expect(await bump(1)).toBe(2024030501);
        expect((await store.updateZone(zn, { retry: 600 })).serial).toBe(2024030502);
        clock.set('2024-03-06T00:00:00.000Z');
        expect(await bump(2)).toBe(2024030600);
        expect(await bump(3)).toBe(2024030601);
        // 99 changes in a day roll past nn = 99 by just incrementing (into "tomorrow's" numbers).
        let serial = 0;
        for (let i = 4; i < 4 + 99; i++) serial = await bump(i);
        expect(serial).toBe(2024030700);
        expect(await bump(200)).toBe(2024030701);
        // The real next day: current + 1 while the counter is ahead of date·100 (RFC 1982 order).
        clock.set('2024-03-07T12:00:00.000Z');
        expect(await bump(201)).toBe(2024030702);
        // A clock that goes backwards never lowers the serial.
        clock.set('2024-01-01T00:00:00.000Z');
        expect(await bump(202)).toBe(2024030703);
        // Days later: back to date·100.
        clock.set('2024-12-31T08:00:00.000Z');
        expect(await bump(203)).toBe(2024123100);
        expect((await store.getZone(zn))?.serial).toBe(2024123100);
      });

      test('a zone created with a serial (an imported master file) keeps it, and changes count on from it', async () => {
        const zn = zoneName('kept');
        expect((await store.createZone(zn, SETTINGS, [], { serial: 2025010107 })).serial).toBe(2025010107);
        expect((await store.getZone(zn))?.serial).toBe(2025010107);
        expect((await store.change(zn, [add(`a.${zn}`, 'TXT', '"x"')])).zone.serial).toBe(2025010108);
        const low = zoneName('kept-low');
        expect((await store.createZone(low, SETTINGS, [], { serial: 7 })).serial).toBe(7);
        expect((await store.change(low, [add(`a.${low}`, 'TXT', '"x"')])).zone.serial).toBe(2024030500);
      });

      test.each([[-1], [4294967296], [1.5], ['7']])(
        'a creation serial of %p is refused, nothing written',
        async (bad) => {
          const zn = zoneName('bad-serial');
          await expectStoreError(store.createZone(zn, SETTINGS, [], { serial: bad as number }), 'INVALID', {
            message: /serial must be an integer from 0 to 4294967295/,
          });
          expect(await store.getZone(zn)).toBeNull();
        },
      );
    });

    // ----------------------------------------------------------------------------------------------------------
    describe('DNSSEC keys', () => {
      /** The zone's state a refused call must leave as it was: the zone row (serial, updatedAt) and its keys. */
      const keyState = async (zn: string) => ({
        zone: await store.getZone(zn),
        keys: await store.listDnssecKeys(zn),
      });
      /** Events of `zn` heard until `off()`. */
      const listen = (zn: string) => {
        const events: ZoneChangeEvent[] = [];
        const off = store.onChange((e) => {
          if (e.zone === zn) events.push(e);
        });
        return { events, off };
      };
      /** A zone with one record and one key (a KSK), for the tests that change keys. */
      const signedZone = async (label: string) => {
        const zn = zoneName(label);
        await store.createZone(zn, SETTINGS, [rec(`www.${zn}`, 'A', '192.0.2.1')]);
        const ksk = dnssecKey(zn, { flags: 257, createdAt: '2024-01-01T00:00:00.000Z' }); // the oldest
        const zone = await store.changeDnssecKeys(zn, { add: [ksk] });
        return { zn, ksk, zone };
      };

      test('a new zone has no keys; the keys of an unknown zone are NOT_FOUND', async () => {
        const zn = zoneName('nokeys');
        await store.createZone(zn, SETTINGS);
        expect(await store.listDnssecKeys(zn)).toEqual([]);
        await expectStoreError(store.listDnssecKeys('missing.example'), 'NOT_FOUND', { message: /missing\.example/ });
      });

      test('added keys list oldest first (then by id), every field as given; the serial rises and dnssec-changed is emitted', async () => {
        const zn = zoneName('addkeys');
        const other = zoneName('addkeys-other');
        const created = await store.createZone(zn, SETTINGS, [rec(`www.${zn}`, 'A', '192.0.2.1')]);
        await store.createZone(other, SETTINGS);
        await store.changeDnssecKeys(other, { add: [dnssecKey(other)] });
        const { events, off } = listen(zn);
        const ksk: DnssecKey = {
          id: 'b-ksk',
          zone: zn,
          algorithm: 8,
          flags: 257,
          bits: 2048,
          publicKey: 'AwEAAbase64+/=',
          privateKey: 'v1:encrypted:private',
          createdAt: '2024-03-05T09:00:00.000Z',
          publishAt: '2024-03-05T09:00:00.001Z',
          activateAt: '2024-03-06T09:00:00.999Z',
          inactiveAt: '2025-03-06T09:00:00.000Z',
          deleteAt: '2025-04-06T09:00:00.000Z',
          expiresAt: '2025-03-05T09:00:00.000Z',
          cdsAt: '2024-03-06T10:00:00.500Z',
          cdsUntil: '2025-04-06T09:00:00.000Z',
          dsSeenAt: '2024-03-07T10:00:00.000Z',
        };
        const zsk = dnssecKey(zn, { id: 'c-zsk', createdAt: '2024-03-04T00:00:00.000Z' });
        const sameTime = dnssecKey(zn, { id: 'a-zsk', algorithm: 15, createdAt: ksk.createdAt });
        clock.tick(5000);
        const zone = await store.changeDnssecKeys(zn, { add: [ksk, zsk, sameTime] });
        off();
        expect(zone).toEqual({
          ...created,
          serial: created.serial + 1,
          updatedAt: '2024-03-05T10:00:05.123Z',
        });
        expect(await store.getZone(zn)).toEqual(zone);
        expect(events).toEqual([{ zone: zn, serial: zone.serial, previous: created.serial, kind: 'dnssec-changed' }]);
        expect(await store.listDnssecKeys(zn)).toEqual([zsk, sameTime, ksk]);
        expect((await store.listDnssecKeys(other)).map((k) => k.zone)).toEqual([other]);
      });

      test("timestamps are kept in the store's form: ISO 8601 UTC with milliseconds", async () => {
        const zn = zoneName('keytimes');
        await store.createZone(zn, SETTINGS);
        const key = dnssecKey(zn, {
          createdAt: '2024-03-05T10:00:00Z',
          publishAt: '2024-03-05T10:00:00.5Z',
          activateAt: '2024-03-05T10:00:00.123456Z',
          inactiveAt: '2000-02-29T23:59:59Z',
        });
        await store.changeDnssecKeys(zn, { add: [key] });
        expect(await store.listDnssecKeys(zn)).toEqual([
          {
            ...key,
            createdAt: '2024-03-05T10:00:00.000Z',
            publishAt: '2024-03-05T10:00:00.500Z',
            activateAt: '2024-03-05T10:00:00.123Z',
            inactiveAt: '2000-02-29T23:59:59.000Z',
          },
        ]);
      });

      test('update sets and clears timings (null clears, absent leaves as is), one serial per call', async () => {
        const { zn, ksk, zone } = await signedZone('timings');
        const zsk = dnssecKey(zn, { inactiveAt: '2024-06-01T00:00:00.000Z' });
        const { events, off } = listen(zn);
        const z1 = await store.changeDnssecKeys(zn, { add: [zsk] });
        const z2 = await store.changeDnssecKeys(zn, {
          update: [
            { id: ksk.id, inactiveAt: '2024-09-01T00:00:00.000Z', deleteAt: '2024-10-01T00:00:00.000Z' },
            { id: zsk.id, deleteAt: '2024-07-01T00:00:00.000Z' },
          ],
        });
        expect(await store.listDnssecKeys(zn)).toEqual([
          { ...ksk, inactiveAt: '2024-09-01T00:00:00.000Z', deleteAt: '2024-10-01T00:00:00.000Z' },
          { ...zsk, deleteAt: '2024-07-01T00:00:00.000Z' },
        ]);
        const z3 = await store.changeDnssecKeys(zn, {
          update: [
            { id: ksk.id, inactiveAt: null },
            { id: zsk.id, inactiveAt: null, deleteAt: null },
          ],
        });
        off();
        expect(await store.listDnssecKeys(zn)).toEqual([
          { ...ksk, inactiveAt: null, deleteAt: '2024-10-01T00:00:00.000Z' },
          { ...zsk, inactiveAt: null, deleteAt: null },
        ]);
        expect([z1.serial, z2.serial, z3.serial]).toEqual([zone.serial + 1, zone.serial + 2, zone.serial + 3]);
        expect(events).toEqual(
          [z1, z2, z3].map((z) => ({ zone: zn, serial: z.serial, previous: z.serial - 1, kind: 'dnssec-changed' })),
        );
        expect(z3.recordsCount).toBe(1);
      });

      test("a KSK rollover's timings (CDS window, DS seen) are set, kept and cleared like the others", async () => {
        const { zn, ksk } = await signedZone('ksktimings');
        await store.changeDnssecKeys(zn, {
          update: [{ id: ksk.id, cdsAt: '2024-09-01T00:00:00Z', dsSeenAt: '2024-09-02T00:00:00.250Z' }],
        });
        expect(await store.listDnssecKeys(zn)).toEqual([
          { ...ksk, cdsAt: '2024-09-01T00:00:00.000Z', cdsUntil: null, dsSeenAt: '2024-09-02T00:00:00.250Z' },
        ]);
        await store.changeDnssecKeys(zn, {
          update: [{ id: ksk.id, cdsUntil: '2024-10-01T00:00:00.000Z', cdsAt: null }],
        });
        expect(await store.listDnssecKeys(zn)).toEqual([
          { ...ksk, cdsAt: null, cdsUntil: '2024-10-01T00:00:00.000Z', dsSeenAt: '2024-09-02T00:00:00.250Z' },
        ]);
        await expectStoreError(
          store.changeDnssecKeys(zn, { update: [{ id: ksk.id, dsSeenAt: 'yesterday' }] }),
          'INVALID',
          { message: /dsSeenAt/ },
        );
        // ifTimings: only while the key still has those timings (null: unset); nothing written otherwise
        const seen = { update: [{ id: ksk.id, dsSeenAt: '2024-12-01T00:00:00.000Z' }] };
        await expectStoreError(
          store.changeDnssecKeys(zn, seen, { ifTimings: [{ id: ksk.id, dsSeenAt: null }] }),
          'PRECONDITION_FAILED',
          { message: new RegExp(ksk.id) },
        );
        const ifSeen = [{ id: ksk.id, dsSeenAt: '2024-09-02T00:00:00.25Z', cdsAt: null }];
        await store.changeDnssecKeys(zn, seen, { ifTimings: ifSeen });
        expect((await store.listDnssecKeys(zn))[0]?.dsSeenAt).toBe('2024-12-01T00:00:00.000Z');
        const bad = [{ id: ksk.id, flags: 256 }] as unknown as DnssecKeyChange['update'];
        await expectStoreError(store.changeDnssecKeys(zn, { update: bad }), 'INVALID', {
          message: /"flags" cannot be changed \(only inactiveAt, deleteAt, cdsAt, cdsUntil, dsSeenAt\)/,
        });
      });

      test('a rollover in one call: a key added, the old one retired and another removed; later parts may name added keys', async () => {
        const { zn, ksk } = await signedZone('rollover');
        const oldZsk = dnssecKey(zn, { createdAt: '2024-02-01T00:00:00.000Z' });
        const gone = dnssecKey(zn);
        await store.changeDnssecKeys(zn, { add: [oldZsk, gone] });
        const newZsk = dnssecKey(zn, { createdAt: '2024-03-01T00:00:00.000Z' });
        const brief = dnssecKey(zn);
        await store.changeDnssecKeys(zn, {
          add: [newZsk, brief],
          update: [
            { id: oldZsk.id, inactiveAt: '2024-04-01T00:00:00.000Z' },
            { id: newZsk.id, deleteAt: '2026-01-01T00:00:00.000Z' },
          ],
          remove: [gone.id, brief.id],
        });
        expect(await store.listDnssecKeys(zn)).toEqual([
          ksk,
          { ...oldZsk, inactiveAt: '2024-04-01T00:00:00.000Z' },
          { ...newZsk, deleteAt: '2026-01-01T00:00:00.000Z' },
        ]);
      });

      test("remove by id removes that key only; remove 'all' every key of the zone (of no other)", async () => {
        const { zn, ksk, zone } = await signedZone('remove');
        const zsk = dnssecKey(zn);
        const other = await signedZone('remove-other');
        await store.changeDnssecKeys(zn, { add: [zsk] });
        const { events, off } = listen(zn);
        const z1 = await store.changeDnssecKeys(zn, { remove: [ksk.id] });
        expect(await store.listDnssecKeys(zn)).toEqual([zsk]);
        await store.changeDnssecKeys(zn, { add: [dnssecKey(zn)] });
        const z3 = await store.changeDnssecKeys(zn, { remove: 'all' });
        off();
        expect(await store.listDnssecKeys(zn)).toEqual([]);
        expect(await store.listDnssecKeys(other.zn)).toEqual([other.ksk]);
        expect(z1.serial).toBe(zone.serial + 2);
        expect(z3.serial).toBe(zone.serial + 4);
        expect(events.map((e) => [e.kind, e.serial])).toEqual([
          ['dnssec-changed', zone.serial + 2],
          ['dnssec-changed', zone.serial + 3],
          ['dnssec-changed', zone.serial + 4],
        ]);
        // 'all' of a zone without keys removes nothing, and is no error
        expect((await store.changeDnssecKeys(zn, { remove: 'all' })).serial).toBe(zone.serial + 5);
      });

      test('the denial (NSEC3, Opt-Out) is kept per zone with the keys, changed alone, and gone with the keys', async () => {
        const { zn, ksk, zone } = await signedZone('denial');
        const other = await signedZone('denial-other');
        expect(await store.getDnssecDenial(zn)).toEqual({ denial: 'NSEC', optOut: false });
        const { events, off } = listen(zn);
        const z1 = await store.changeDnssecKeys(zn, { denial: { denial: 'NSEC3', optOut: true } });
        expect(await store.getDnssecDenial(zn)).toEqual({ denial: 'NSEC3', optOut: true });
        expect(await store.getDnssecDenial(other.zn)).toEqual({ denial: 'NSEC', optOut: false });
        expect(await store.listDnssecKeys(zn)).toEqual([ksk]);
        await store.changeDnssecKeys(zn, { denial: { denial: 'NSEC3', optOut: false } });
        expect(await store.getDnssecDenial(zn)).toEqual({ denial: 'NSEC3', optOut: false });
        await store.changeDnssecKeys(zn, {}); // a change without denial leaves it
        expect(await store.getDnssecDenial(zn)).toEqual({ denial: 'NSEC3', optOut: false });
        await store.changeDnssecKeys(zn, { denial: { denial: 'NSEC', optOut: false } });
        expect(await store.getDnssecDenial(zn)).toEqual({ denial: 'NSEC', optOut: false });
        await store.changeDnssecKeys(zn, { denial: { denial: 'NSEC3', optOut: false } });
        await store.changeDnssecKeys(zn, { remove: 'all' }); // DNSSEC off: the choice goes too
        off();
        expect(await store.getDnssecDenial(zn)).toEqual({ denial: 'NSEC', optOut: false });
        expect(z1.serial).toBe(zone.serial + 1);
        expect(events.map((e) => e.kind)).toEqual(Array(6).fill('dnssec-changed'));
        // keys and denial in one change (enabling with NSEC3); a zone deleted takes its choice along
        const fresh = dnssecKey(zn);
        await store.changeDnssecKeys(zn, { add: [fresh], denial: { denial: 'NSEC3', optOut: false } });
        expect(await store.getDnssecDenial(zn)).toEqual({ denial: 'NSEC3', optOut: false });
        await store.deleteZone(zn);
        await expectStoreError(store.getDnssecDenial(zn), 'NOT_FOUND');
        await store.createZone(zn, SETTINGS);
        expect(await store.getDnssecDenial(zn)).toEqual({ denial: 'NSEC', optOut: false });
      });

      test('a bad denial is INVALID and writes nothing', async () => {
        const { zn } = await signedZone('denial-bad');
        for (const denial of [
          { denial: 'NSEC5', optOut: false },
          { denial: 'NSEC', optOut: true },
          { denial: 'NSEC3' },
        ])
          await refused(zn, () => store.changeDnssecKeys(zn, { denial } as unknown as DnssecKeyChange), 'INVALID');
        expect(await store.getDnssecDenial(zn)).toEqual({ denial: 'NSEC', optOut: false });
      });

      test('an empty change raises the serial and emits (sign afresh), keys unchanged', async () => {
        const { zn, ksk, zone } = await signedZone('resign');
        const { events, off } = listen(zn);
        clock.tick(1000);
        const z1 = await store.changeDnssecKeys(zn, {});
        const z2 = await store.changeDnssecKeys(zn, { add: [], update: [], remove: [] });
        off();
        expect(z1).toEqual({ ...zone, serial: zone.serial + 1, updatedAt: '2024-03-05T10:00:01.123Z' });
        expect(z2.serial).toBe(zone.serial + 2);
        expect(events).toEqual([
          { zone: zn, serial: zone.serial + 1, previous: zone.serial, kind: 'dnssec-changed' },
          { zone: zn, serial: zone.serial + 2, previous: zone.serial + 1, kind: 'dnssec-changed' },
        ]);
        expect(await store.listDnssecKeys(zn)).toEqual([ksk]);
      });

      test('the serial follows the same policy as records changes (a new day: date·100)', async () => {
        const { zn, zone } = await signedZone('keyserial');
        expect(zone.serial).toBe(2024030501);
        expect((await store.change(zn, [add(`a.${zn}`, 'A', '192.0.2.9')])).zone.serial).toBe(2024030502);
        clock.set('2024-03-06T00:00:00.000Z');
        expect((await store.changeDnssecKeys(zn, {})).serial).toBe(2024030600);
        expect((await store.changeDnssecKeys(zn, {})).serial).toBe(2024030601);
      });

      test('at most 16 keys added at once, keys of 8192 characters: the bounds themselves are accepted', async () => {
        const zn = zoneName('keybounds');
        await store.createZone(zn, SETTINGS);
        const keys = Array.from({ length: 16 }, (_, i) =>
          dnssecKey(zn, {
            id: `k${String(i).padStart(2, '0')}`,
            publicKey: 'A'.repeat(8192),
            privateKey: 'p'.repeat(8192),
          }),
        );
        await store.changeDnssecKeys(zn, { add: keys });
        expect(await store.listDnssecKeys(zn)).toEqual(keys);
      });

      /** Awaits a refused call and checks that it wrote nothing and emitted nothing. */
      async function refused(
        zn: string,
        call: () => Promise<unknown>,
        code: StoreErrorCode,
        message?: RegExp,
      ): Promise<void> {
        const before = await keyState(zn);
        const { events, off } = listen(zn);
        clock.tick(1000);
        await expectStoreError(call(), code, message ? { message } : {});
        off();
        expect(events).toEqual([]);
        expect(await keyState(zn)).toEqual(before);
      }

      test('an unknown zone is NOT_FOUND', async () => {
        const { zn } = await signedZone('keys-nozone');
        await expectStoreError(
          store.changeDnssecKeys('missing.example', { add: [dnssecKey('missing.example')] }),
          'NOT_FOUND',
          { message: /missing\.example/ },
        );
        await refused(zn, () => store.changeDnssecKeys('missing.example', {}), 'NOT_FOUND');
      });

      test('an update of an unknown key id is NOT_FOUND, nothing written', async () => {
        const { zn, ksk } = await signedZone('keys-update-ghost');
        const ghost = randomUUID();
        await refused(
          zn,
          () =>
            store.changeDnssecKeys(zn, {
              add: [dnssecKey(zn)],
              update: [
                { id: ksk.id, inactiveAt: '2030-01-01T00:00:00.000Z' },
                { id: ghost, deleteAt: null },
              ],
            }),
          'NOT_FOUND',
          new RegExp(ghost),
        );
      });

      test("a removal of an unknown key id (or another zone's key, or one removed before) is NOT_FOUND, nothing written", async () => {
        const { zn, ksk } = await signedZone('keys-remove-ghost');
        const other = await signedZone('keys-remove-ghost-other');
        const ghost = randomUUID();
        await refused(
          zn,
          () => store.changeDnssecKeys(zn, { remove: [ksk.id, ghost] }),
          'NOT_FOUND',
          new RegExp(ghost),
        );
        await refused(zn, () => store.changeDnssecKeys(zn, { remove: [other.ksk.id] }), 'NOT_FOUND');
        await refused(zn, () => store.changeDnssecKeys(zn, { remove: [ksk.id, ksk.id] }), 'NOT_FOUND');
        expect(await store.listDnssecKeys(other.zn)).toEqual([other.ksk]);
      });

      test('an added id that exists (in this zone, in another, or twice in the call) is CONFLICT, nothing written', async () => {
        const { zn, ksk } = await signedZone('keys-conflict');
        const other = await signedZone('keys-conflict-other');
        const fresh = dnssecKey(zn);
        await refused(
          zn,
          () => store.changeDnssecKeys(zn, { add: [fresh, dnssecKey(zn, { id: ksk.id })] }),
          'CONFLICT',
          new RegExp(ksk.id),
        );
        await refused(zn, () => store.changeDnssecKeys(zn, { add: [dnssecKey(zn, { id: other.ksk.id })] }), 'CONFLICT');
        await refused(zn, () => store.changeDnssecKeys(zn, { add: [fresh, { ...fresh }] }), 'CONFLICT');
        expect(await store.listDnssecKeys(other.zn)).toEqual([other.ksk]);
      });

      test('ifSerial: a stale serial is SERIAL_MISMATCH and writes nothing; the current one passes', async () => {
        const { zn, zone } = await signedZone('keys-ifserial');
        await refused(
          zn,
          () => store.changeDnssecKeys(zn, { add: [dnssecKey(zn)] }, { ifSerial: zone.serial - 1 }),
          'SERIAL_MISMATCH',
          new RegExp(String(zone.serial)),
        );
        const out = await store.changeDnssecKeys(zn, { add: [dnssecKey(zn)] }, { ifSerial: zone.serial });
        expect(out.serial).toBe(zone.serial + 1);
        await refused(zn, () => store.changeDnssecKeys(zn, {}, { ifSerial: zone.serial }), 'SERIAL_MISMATCH');
        expect(await store.listDnssecKeys(zn)).toHaveLength(2);
      });

      test('ifKeys: a key set other than the one read is PRECONDITION_FAILED and writes nothing', async () => {
        const { zn, ksk } = await signedZone('keys-ifkeys');
        // "enable" (keys only onto none) of a zone that has keys
        await refused(
          zn,
          () => store.changeDnssecKeys(zn, { add: [dnssecKey(zn)] }, { ifKeys: [] }),
          'PRECONDITION_FAILED',
          /changed since they were read/,
        );
        // a key set with one key more or less, or another key
        await refused(
          zn,
          () => store.changeDnssecKeys(zn, {}, { ifKeys: [ksk.id, randomUUID()] }),
          'PRECONDITION_FAILED',
        );
        await refused(zn, () => store.changeDnssecKeys(zn, {}, { ifKeys: [randomUUID()] }), 'PRECONDITION_FAILED');
        const zsk = dnssecKey(zn);
        await store.changeDnssecKeys(zn, { add: [zsk] }, { ifKeys: [ksk.id] }); // the set read: passes
        await refused(
          zn,
          () => store.changeDnssecKeys(zn, { remove: 'all' }, { ifKeys: [ksk.id] }),
          'PRECONDITION_FAILED',
        );
        await store.changeDnssecKeys(zn, { remove: 'all' }, { ifKeys: [zsk.id, ksk.id] }); // any order
        await store.changeDnssecKeys(zn, { add: [dnssecKey(zn)] }, { ifKeys: [] }); // none now: passes
        expect(await store.listDnssecKeys(zn)).toHaveLength(1);
      });

      test.each([
        ['a string', 'k1'],
        ['a list with a number', ['k1', 2]],
      ])('ifKeys %s is INVALID and writes nothing', async (_what, bad) => {
        const { zn } = await signedZone('keys-ifkeysbad');
        await refused(
          zn,
          () => store.changeDnssecKeys(zn, {}, { ifKeys: bad } as unknown as DnssecKeyChangeOptions),
          'INVALID',
          /ifKeys/,
        );
      });

      /** Refused changes: each is INVALID and writes nothing (a good key added before it included). */
      const invalidChanges: [string, RegExp, (zn: string, existing: DnssecKey) => unknown][] = [
        ['flags 255', /add\[1\] flags must be 256 \(ZSK\) or 257 \(KSK\)/, (zn) => badKey(zn, { flags: 255 })],
        ['flags 385 (revoked KSK)', /flags/, (zn) => badKey(zn, { flags: 385 })],
        ['flags as a string', /flags/, (zn) => badKey(zn, { flags: '257' })],
        [
          'algorithm 5 (RSA/SHA-1)',
          /add\[1\] algorithm must be one of 8, 13, 14, 15/,
          (zn) => badKey(zn, { algorithm: 5 }),
        ],
        ['algorithm 16', /algorithm/, (zn) => badKey(zn, { algorithm: 16 })],
        ['algorithm as a string', /algorithm/, (zn) => badKey(zn, { algorithm: '13' })],
        ['bits 0', /add\[1\] bits must be an integer from 1/, (zn) => badKey(zn, { bits: 0 })],
        ['bits -256', /bits/, (zn) => badKey(zn, { bits: -256 })],
        ['bits 2048.5', /bits/, (zn) => badKey(zn, { bits: 2048.5 })],
        ['bits as a string', /bits/, (zn) => badKey(zn, { bits: '2048' })],
        ['bits beyond an integer column', /bits/, (zn) => badKey(zn, { bits: 2 ** 31 })],
        ['an empty publicKey', /add\[1\] publicKey must be a non-empty string/, (zn) => badKey(zn, { publicKey: '' })],
        [
          'an empty privateKey',
          /add\[1\] privateKey must be a non-empty string/,
          (zn) => badKey(zn, { privateKey: '' }),
        ],
        ['a missing privateKey', /privateKey/, (zn) => badKey(zn, { privateKey: undefined })],
        ['a publicKey of 8193 characters', /publicKey .*8192/, (zn) => badKey(zn, { publicKey: 'A'.repeat(8193) })],
        ['a privateKey of 8193 characters', /privateKey .*8192/, (zn) => badKey(zn, { privateKey: 'p'.repeat(8193) })],
        ['a privateKey with NUL', /privateKey/, (zn) => badKey(zn, { privateKey: 'a\u0000b' })],
        [
          'createdAt with a space',
          /add\[1\] createdAt must be an ISO 8601 UTC timestamp/,
          (zn) => badKey(zn, { createdAt: '2024-03-05 10:00:00Z' }),
        ],
        ['publishAt with an offset', /publishAt/, (zn) => badKey(zn, { publishAt: '2024-03-05T10:00:00+01:00' })],
        ['activateAt on February 30', /activateAt/, (zn) => badKey(zn, { activateAt: '2024-02-30T00:00:00.000Z' })],
        ['publishAt at 24:00', /publishAt/, (zn) => badKey(zn, { publishAt: '2024-03-05T24:00:00.000Z' })],
        ['createdAt in year 0', /createdAt/, (zn) => badKey(zn, { createdAt: '0000-01-01T00:00:00.000Z' })],
        ['expiresAt without Z', /expiresAt/, (zn) => badKey(zn, { expiresAt: '2025-03-05T10:00:00.000' })],
        ['inactiveAt as a number', /inactiveAt/, (zn) => badKey(zn, { inactiveAt: Date.UTC(2025, 0, 1) })],
        ['deleteAt as a date only', /deleteAt/, (zn) => badKey(zn, { deleteAt: '2025-01-01' })],
        ['createdAt missing', /createdAt/, (zn) => badKey(zn, { createdAt: undefined })],
        [
          'the zone of another zone',
          /add\[1\] zone .* is not the zone changed/,
          (zn) => badKey(zn, { zone: `other.${zn}` }),
        ],
        ['the zone missing', /zone/, (zn) => badKey(zn, { zone: undefined })],
        ['an empty id', /add\[1\] id must be a non-empty string/, (zn) => badKey(zn, { id: '' })],
        ['a key that is not an object', /add\[1\]/, (zn) => ({ add: [dnssecKey(zn), 'key'] })],
        ['17 keys added at once', /at most 16/, (zn) => ({ add: Array.from({ length: 17 }, () => dnssecKey(zn)) })],
        ['add not an array', /add must be an array/, (zn) => ({ add: dnssecKey(zn) })],
        [
          'an update timing not ISO',
          /update\[0\] deleteAt/,
          (zn, k) => ({
            add: [dnssecKey(zn)],
            update: [{ id: k.id, deleteAt: 'soon' }],
          }),
        ],
        [
          'an update of another timing',
          /update\[0\].*publishAt/,
          (zn, k) => ({
            add: [dnssecKey(zn)],
            update: [{ id: k.id, publishAt: '2030-01-01T00:00:00.000Z' }],
          }),
        ],
        ['an update without id', /update\[0\] id/, (zn) => ({ add: [dnssecKey(zn)], update: [{ inactiveAt: null }] })],
        ['remove neither a list nor all', /remove/, (zn) => ({ add: [dnssecKey(zn)], remove: 'some' })],
        ['a removed id not a string', /remove\[0\]/, (zn) => ({ add: [dnssecKey(zn)], remove: [7] })],
        [
          'an unknown part of the change',
          /"replace" is not part of a DNSSEC key change/,
          (zn) => ({
            add: [dnssecKey(zn)],
            replace: true,
          }),
        ],
        ['a change that is not an object', /must be an object/, () => null],
      ];

      /** A change adding a good key, then `fields` over another one. */
      function badKey(zn: string, fields: Record<string, unknown>): unknown {
        return { add: [dnssecKey(zn), { ...dnssecKey(zn), ...fields }] };
      }

      test.each(invalidChanges)('INVALID, nothing written: %s', async (_, message, build) => {
        const { zn, ksk } = await signedZone('keys-invalid');
        await refused(zn, () => store.changeDnssecKeys(zn, build(zn, ksk) as DnssecKeyChange), 'INVALID', message);
      });

      test('keys go with their zone: a zone created again with the same name has none, and their ids are free', async () => {
        const { zn, ksk } = await signedZone('keys-cascade');
        const zsk = dnssecKey(zn);
        await store.changeDnssecKeys(zn, { add: [zsk] });
        expect(await store.deleteZone(zn)).toBe(true);
        await expectStoreError(store.listDnssecKeys(zn), 'NOT_FOUND');
        await store.createZone(zn, SETTINGS);
        expect(await store.listDnssecKeys(zn)).toEqual([]);
        await store.changeDnssecKeys(zn, { add: [ksk] });
        expect(await store.listDnssecKeys(zn)).toEqual([ksk]);
      });
    });

    // ----------------------------------------------------------------------------------------------------------
    describe('sealed secrets', () => {
      const secretName = (label: string) => `${label}-${++seq}`;

      test('absent: null; put if absent keeps the first and returns it; a second put returns the first', async () => {
        const name = secretName('token');
        expect(await store.getSealedSecret(name)).toBeNull();
        expect(await store.putSealedSecretIfAbsent(name, 'v1:aaa:bbb:ccc')).toBe('v1:aaa:bbb:ccc');
        expect(await store.putSealedSecretIfAbsent(name, 'v1:xxx:yyy:zzz')).toBe('v1:aaa:bbb:ccc');
        expect(await store.getSealedSecret(name)).toBe('v1:aaa:bbb:ccc');
      });

      test('another store on the same database sees it; of puts at once from several stores, one wins for all', async () => {
        const name = secretName('race');
        const others = [store, await openTracked(), await openTracked()];
        const held = await Promise.all(
          others.flatMap((s, i) => [0, 1].map((j) => s.putSealedSecretIfAbsent(name, `v1:s${i}:p${j}:x`))),
        );
        expect(new Set(held).size).toBe(1);
        for (const s of others) expect(await s.getSealedSecret(name)).toBe(held[0]);
      });

      test('bad names and texts are INVALID, and the message never shows the sealed text', async () => {
        for (const bad of ['', 'Upper', '-lead', 'a b', 'x'.repeat(101), 'nul\u0000'])
          await expectStoreError(store.putSealedSecretIfAbsent(bad, 'v1:a:b:c'), 'INVALID', { message: /secret name/ });
        const err = await expectStoreError(
          store.putSealedSecretIfAbsent(secretName('t'), 'has space-SECRET'),
          'INVALID',
        );
        expect(err.message).not.toContain('SECRET');
        await expectStoreError(store.putSealedSecretIfAbsent(secretName('t'), ''), 'INVALID');
        await expectStoreError(store.putSealedSecretIfAbsent(secretName('t'), 'x'.repeat(16_385)), 'INVALID');
        expect(await store.getSealedSecret('Not a name')).toBeNull();
      });

      test('resealAll rewrites every sealed secret and DNSSEC private key at once, or none when reseal throws', async () => {
        const zn = zoneName('reseal');
        await store.createZone(zn, SETTINGS);
        const key = dnssecKey(zn, { privateKey: 'v1:old:key:x' });
        await store.changeDnssecKeys(zn, { add: [key] });
        const name = secretName('reseal');
        await store.putSealedSecretIfAbsent(name, 'v1:old:secret:x');
        const kinds = new Set<string>();
        const count = await store.resealAll((sealed, kind) => {
          kinds.add(kind);
          return sealed.replace(':old:', ':new:');
        });
        expect(count).toBeGreaterThanOrEqual(2);
        expect([...kinds]).toEqual(expect.arrayContaining([`secret:${name}`, 'dnssec-key']));
        expect(await store.getSealedSecret(name)).toBe('v1:new:secret:x');
        expect((await store.listDnssecKeys(zn))[0]?.privateKey).toBe('v1:new:key:x');
        // a failure part-way leaves everything as it was
        await expect(
          store.resealAll((sealed, kind) => {
            if (kind === 'dnssec-key') throw new Error('cannot open');
            return sealed.replace(':new:', ':newer:');
          }),
        ).rejects.toThrow('cannot open');
        expect(await store.getSealedSecret(name)).toBe('v1:new:secret:x');
        await expectStoreError(
          store.resealAll(() => 'not sealed text'),
          'INVALID',
        );
        expect(await store.getSealedSecret(name)).toBe('v1:new:secret:x');
      });

      test('a closed store refuses with UNAVAILABLE', async () => {
        const extra = await open();
        await extra.close();
        await expectStoreError(
          extra.resealAll((s) => s),
          'UNAVAILABLE',
        );
        await expectStoreError(extra.getSealedSecret('x'), 'UNAVAILABLE');
        await expectStoreError(extra.putSealedSecretIfAbsent('x', 'v1:a:b:c'), 'UNAVAILABLE');
      });
    });

    // ----------------------------------------------------------------------------------------------------------
    describe('secondary zones', () => {
      const secondary = (name: string, over: Record<string, unknown> = {}) => ({
        name,
        primaryHost: '192.0.2.1',
        primaryPort: 53,
        tsigKey: null,
        ...over,
      });

      test('added, listed by name with its creation time, removed; removing again is false', async () => {
        const b = zoneName('sec-b');
        const a = zoneName('sec-a');
        await store.addSecondaryZone(secondary(b, { primaryHost: '2001:db8::1', primaryPort: 5300, tsigKey: 'xfr' }));
        const added = await store.addSecondaryZone(secondary(a));
        expect(added.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        const listed = (await store.listSecondaryZones()).filter((z) => z.name === a || z.name === b);
        expect(listed.map(({ createdAt: _, ...rest }) => rest)).toEqual([
          { name: a, primaryHost: '192.0.2.1', primaryPort: 53, tsigKey: null },
          { name: b, primaryHost: '2001:db8::1', primaryPort: 5300, tsigKey: 'xfr' },
        ]);
        expect(listed[0]?.createdAt).toBe(added.createdAt);
        expect(await store.removeSecondaryZone(a)).toBe(true);
        expect(await store.removeSecondaryZone(a)).toBe(false);
        expect((await store.listSecondaryZones()).map((z) => z.name)).not.toContain(a);
        expect(await store.removeSecondaryZone('Not A Name')).toBe(false);
      });

      test('a name is a zone of the store or a secondary zone, never both: CONFLICT either way, nothing written', async () => {
        const primary = zoneName('sec-primary');
        await store.createZone(primary, SETTINGS);
        await expectStoreError(store.addSecondaryZone(secondary(primary)), 'CONFLICT', {
          message: /zone of the store/,
        });
        expect((await store.listSecondaryZones()).map((z) => z.name)).not.toContain(primary);
        const sec = zoneName('sec-only');
        await store.addSecondaryZone(secondary(sec));
        await expectStoreError(store.createZone(sec, SETTINGS), 'CONFLICT', { message: /secondary zone/ });
        expect(await store.getZone(sec)).toBeNull();
        await expectStoreError(store.addSecondaryZone(secondary(sec)), 'CONFLICT', {
          message: /secondary zone already/,
        });
        // once removed, the name is free for a zone of the store
        await store.removeSecondaryZone(sec);
        await store.createZone(sec, SETTINGS);
      });

      test('a zone and a secondary zone of one name made at once through several stores: exactly one of them', async () => {
        const stores = [store, await openTracked(), await openTracked()];
        for (let round = 0; round < 5; round++) {
          const name = zoneName(`sec-race-${round}`);
          const outcomes = await Promise.allSettled(
            stores.flatMap((s) => [s.createZone(name, SETTINGS), s.addSecondaryZone(secondary(name))]),
          );
          expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
          for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toMatchObject({ code: 'CONFLICT' });
          const asZone = (await store.getZone(name)) !== null;
          const asSecondary = (await store.listSecondaryZones()).some((z) => z.name === name);
          expect(asZone !== asSecondary).toBe(true);
        }
      });

      test.each([
        ['a name in the wrong form', { name: 'Upper.Example' }, /secondary zone name/],
        ['a host that is no IP address', { primaryHost: 'ns1.example' }, /primaryHost must be an IP address/],
        ['port 0', { primaryPort: 0 }, /primaryPort must be an integer from 1 to 65535/],
        ['port 65536', { primaryPort: 65536 }, /primaryPort/],
        ['a fractional port', { primaryPort: 53.5 }, /primaryPort/],
        ['a key name in the wrong form', { tsigKey: 'Key Name' }, /tsigKey/],
      ])('INVALID, nothing written: %s', async (_, over, message) => {
        const name = zoneName('sec-bad');
        await expectStoreError(store.addSecondaryZone(secondary(name, over)), 'INVALID', { message });
        expect((await store.listSecondaryZones()).map((z) => z.name)).not.toContain(name);
      });
    });

    // ----------------------------------------------------------------------------------------------------------
    describe('events', () => {
      test('onChange reports every committed change with its kind and serial, and nothing for failures', async () => {
        const zn = zoneName('events');
        const events: ZoneChangeEvent[] = [];
        const off = store.onChange((e) => {
          if (e.zone === zn) events.push(e);
        });
        const created = await store.createZone(zn, SETTINGS);
        expect(events).toEqual([{ zone: zn, serial: created.serial, kind: 'zone-created' }]);
        const changed = await store.change(zn, [add(`a.${zn}`, 'A', '192.0.2.1')]);
        await expectStoreError(store.change(zn, [add(`a.${zn}`, 'A', '192.0.2.1')]), 'CONFLICT');
        await expectStoreError(store.updateZone(zn, { refresh: -1 }), 'INVALID');
        const updated = await store.updateZone(zn, { refresh: 60 });
        await store.deleteZone(zn);
        await store.deleteZone(zn);
        expect(events).toEqual([
          { zone: zn, serial: created.serial, kind: 'zone-created' },
          { zone: zn, serial: changed.zone.serial, previous: created.serial, kind: 'records-changed' },
          { zone: zn, serial: updated.serial, previous: changed.zone.serial, kind: 'zone-updated' },
          { zone: zn, serial: updated.serial, kind: 'zone-deleted' },
        ]);
        off();
        await store.createZone(zn, SETTINGS);
        expect(events).toHaveLength(4);
      });

      test('a listener that throws does not fail the change nor silence other listeners', async () => {
        const zn = zoneName('throwing');
        await store.createZone(zn, SETTINGS);
        const heard: number[] = [];
        const off1 = store.onChange(() => {
          throw new Error('listener bug');
        });
        const off2 = store.onChange((e) => e.zone === zn && heard.push(e.serial));
        const out = await store.change(zn, [add(`a.${zn}`, 'A', '192.0.2.1')]);
        off1();
        off2();
        expect(heard).toEqual([out.zone.serial]);
        expect((await store.getZone(zn))?.recordsCount).toBe(1);
      });
    });

    // ----------------------------------------------------------------------------------------------------------
    describe('change log', () => {
      test('changesSince gives the chain of changes from a serial to the current one, with the names each touched', async () => {
        const zn = zoneName('log');
        const created = await store.createZone(zn, SETTINGS);
        clock.tick();
        const a = await store.change(zn, [add(`a.${zn}`, 'A', '192.0.2.1'), add(`b.${zn}`, 'A', '192.0.2.2')]);
        clock.tick();
        const settings = await store.updateZone(zn, { refresh: 120 });
        clock.tick();
        const keys = await store.changeDnssecKeys(zn, {});
        clock.tick();
        const c = await store.change(zn, [{ op: 'deleteMatching', name: `a.${zn}` }]);

        expect(await store.changesSince(zn, c.zone.serial)).toEqual([]);
        const chain = await store.changesSince(zn, created.serial);
        expect(chain?.map((e) => [e.previous, e.serial, e.kind, e.names])).toEqual([
          [created.serial, a.zone.serial, 'records-changed', [`a.${zn}`, `b.${zn}`]],
          [a.zone.serial, settings.serial, 'zone-updated', null],
          [settings.serial, keys.serial, 'dnssec-changed', null],
          [keys.serial, c.zone.serial, 'records-changed', [`a.${zn}`]],
        ]);
        const positions = chain!.map((e) => e.position);
        expect([...positions].sort((x, y) => x - y)).toEqual(positions);
        expect(new Set(positions).size).toBe(4);
        expect(chain!.every((e) => e.zone === zn && /^\d{4}-\d\d-\d\dT.*Z$/.test(e.committedAt))).toBe(true);
        expect((await store.changesSince(zn, settings.serial))?.map((e) => e.serial)).toEqual([
          keys.serial,
          c.zone.serial,
        ]);
      });

      test('changesSince is null when the log cannot bring a zone from that serial: unknown serial or zone, a zone deleted', async () => {
        const zn = zoneName('nolog');
        const first = await store.createZone(zn, SETTINGS);
        await store.change(zn, [add(`a.${zn}`, 'A', '192.0.2.1')]);
        expect(await store.changesSince(zn, first.serial + 12345)).toBeNull();
        expect(await store.changesSince(zoneName('missing'), first.serial)).toBeNull();
        await store.deleteZone(zn);
        expect(await store.changesSince(zn, first.serial)).toBeNull();
        const again = await store.createZone(zn, SETTINGS);
        await store.change(zn, [add(`b.${zn}`, 'A', '192.0.2.2')]);
        expect((await store.changesSince(zn, again.serial))?.map((e) => e.names)).toEqual([[`b.${zn}`]]);
      });

      test('zoneSerials gives every zone its serial and creation time; failed writes leave no log row', async () => {
        const zn = zoneName('marks');
        const created = await store.createZone(zn, SETTINGS);
        await expectStoreError(store.change(zn, [{ op: 'delete', id: 'no-such-id' }]), 'NOT_FOUND');
        await expectStoreError(store.updateZone(zn, { refresh: -1 }), 'INVALID');
        expect(await store.changesSince(zn, created.serial)).toEqual([]);
        const changed = await store.change(zn, [add(`a.${zn}`, 'A', '192.0.2.1')]);
        const marks = await store.zoneSerials();
        expect(marks.get(zn)).toEqual({ serial: changed.zone.serial, createdAt: created.createdAt });
        await store.deleteZone(zn);
        expect((await store.zoneSerials()).has(zn)).toBe(false);
      });
    });

    // ----------------------------------------------------------------------------------------------------------
    describe('concurrency and lifecycle', () => {
      test('conditions hold across store instances: of writes with the same condition at once, exactly one lands', async () => {
        const other = await openTracked({ now: clock.now });
        const zn = zoneName('condrace');
        const zone = await store.createZone(zn, SETTINGS, [rec(`a.${zn}`, 'A', '192.0.2.1')]);
        const r = nth(await store.listRecords(zn));
        const ifRecord = { id: r.id, ttl: r.ttl, value: r.value, updatedAt: r.updatedAt };
        const ifVersion = { serial: zone.serial, updatedAt: zone.updatedAt };
        const codes = async (calls: Promise<unknown>[]) =>
          (await Promise.allSettled(calls)).map((o) =>
            o.status === 'fulfilled' ? 'ok' : o.reason instanceof StoreError ? o.reason.code : String(o.reason),
          );
        clock.tick(1000);
        const records = await codes(
          Array.from({ length: 6 }, (_, i) =>
            (i % 2 ? other : store).change(zn, [{ op: 'update', id: r.id, ttl: 100 + i }], { ifRecord }),
          ),
        );
        expect(records.filter((c) => c === 'ok')).toHaveLength(1);
        expect(records.filter((c) => c === 'PRECONDITION_FAILED')).toHaveLength(5);
        const zoneNow = (await store.getZone(zn))!;
        expect(zoneNow.serial).toBe(zone.serial + 1);
        const zones = await codes(
          Array.from({ length: 4 }, (_, i) =>
            (i % 2 ? other : store).updateZone(zn, { retry: 600 + i }, { ifVersion }),
          ),
        );
        // the version read was before the record update: all stale
        expect(zones).toEqual(Array(4).fill('PRECONDITION_FAILED'));
        const current = { serial: zoneNow.serial, updatedAt: zoneNow.updatedAt };
        const again = await codes(
          Array.from({ length: 4 }, (_, i) =>
            (i % 2 ? other : store).updateZone(zn, { retry: 600 + i }, { ifVersion: current }),
          ),
        );
        expect(again.sort()).toEqual(['PRECONDITION_FAILED', 'PRECONDITION_FAILED', 'PRECONDITION_FAILED', 'ok']);
        const enables = await codes(
          Array.from({ length: 4 }, (_, i) =>
            (i % 2 ? other : store).changeDnssecKeys(
              zn,
              { add: [dnssecKey(zn, { flags: 257 }), dnssecKey(zn)] },
              { ifKeys: [] },
            ),
          ),
        );
        expect(enables.sort()).toEqual(['PRECONDITION_FAILED', 'PRECONDITION_FAILED', 'PRECONDITION_FAILED', 'ok']);
        expect(await store.listDnssecKeys(zn)).toHaveLength(2);
        const serial = (await store.getZone(zn))!.serial;
        const bumps = await codes(
          Array.from({ length: 4 }, (_, i) => (i % 2 ? other : store).changeDnssecKeys(zn, {}, { ifSerial: serial })),
        );
        expect(bumps.sort()).toEqual(['SERIAL_MISMATCH', 'SERIAL_MISMATCH', 'SERIAL_MISMATCH', 'ok']);
        expect((await store.getZone(zn))!.serial).toBe(serial + 1);
      });

      test('10 parallel change() calls all land and the serial rises by exactly 10', async () => {
        const zn = zoneName('parallel');
        const zone = await store.createZone(zn, SETTINGS);
        const serials: number[] = [];
        const off = store.onChange((e) => e.zone === zn && e.kind === 'records-changed' && serials.push(e.serial));
        const outs = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            store.change(zn, [add(`p${i}.${zn}`, 'A', `192.0.2.${i + 1}`), add(`q.${zn}`, 'TXT', `"${i}"`)]),
          ),
        );
        off();
        const final = await store.getZone(zn);
        expect(final?.serial).toBe(zone.serial + 10);
        expect(final?.recordsCount).toBe(20);
        expect(outs.map((o) => o.zone.serial).sort()).toEqual(
          Array.from({ length: 10 }, (_, i) => zone.serial + 1 + i),
        );
        expect([...serials].sort()).toEqual(Array.from({ length: 10 }, (_, i) => zone.serial + 1 + i));
      });

      test('opening the same database again re-runs no migration and sees the same data', async () => {
        const zn = zoneName('reopen');
        await store.createZone(zn, SETTINGS, [rec(`a.${zn}`, 'A', '192.0.2.1')]);
        const second = await openTracked({ now: clock.now });
        const third = await openTracked();
        expect(await second.getZone(zn)).toEqual(await store.getZone(zn));
        expect(await third.listRecords(zn)).toEqual(await store.listRecords(zn));
        // A write through one instance is seen by the others, and the serial rule holds across them.
        const out = await second.change(zn, [add(`b.${zn}`, 'A', '192.0.2.2')]);
        expect((await store.getZone(zn))?.serial).toBe(out.zone.serial);
        await expectStoreError(third.createZone(zn, SETTINGS), 'CONFLICT');
      });

      test('a closed store refuses calls with UNAVAILABLE', async () => {
        const extra = await open();
        await extra.close();
        await expectStoreError(extra.listZones(), 'UNAVAILABLE');
        await expectStoreError(extra.change('x.example', []), 'UNAVAILABLE');
        await expectStoreError(extra.listDnssecKeys('x.example'), 'UNAVAILABLE');
        await expectStoreError(extra.changeDnssecKeys('x.example', {}), 'UNAVAILABLE');
        await extra.close(); // twice is fine
      });

      test('a zone of 100 000 records: create and list (times printed)', async () => {
        const zn = zoneName('big');
        const records = Array.from({ length: 100_000 }, (_, i) =>
          rec(`host${i}.${zn}`, 'A', `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`),
        );
        const t0 = performance.now();
        const zone = await store.createZone(zn, SETTINGS, records);
        const t1 = performance.now();
        const listed = await store.listRecords(zn);
        const t2 = performance.now();
        const filtered = await store.listRecords(zn, { name: `host99999.${zn}` });
        const t3 = performance.now();
        const changed = await store.change(zn, [
          add(`host5.${zn}`, 'TXT', '"x"'),
          { op: 'deleteMatching', name: `host6.${zn}` },
        ]);
        const t4 = performance.now();
        console.log(
          `[${name}] 100 000-record zone: createZone ${(t1 - t0).toFixed(0)} ms, listRecords ${(t2 - t1).toFixed(0)} ms, ` +
            `listRecords by name ${(t3 - t2).toFixed(1)} ms, change ${(t4 - t3).toFixed(1)} ms`,
        );
        expect(zone.recordsCount).toBe(100_000);
        expect(listed).toHaveLength(100_000);
        expect(listed[0]?.name).toBe(`host0.${zn}`);
        expect(listed[1]?.name).toBe(`host1.${zn}`);
        expect(listed[2]?.name).toBe(`host10.${zn}`);
        expect(listed[99_999]?.name).toBe(`host99999.${zn}`);
        expect(filtered.map(strip)).toEqual([rec(`host99999.${zn}`, 'A', '10.1.134.159')]);
        expect(changed.zone.recordsCount).toBe(100_000);
        expect(await store.deleteZone(zn)).toBe(true);
      }, 60_000);
    });
  });
}
