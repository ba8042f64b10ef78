// @needs postgres
/**
 * What the DNS engine needs to follow changes cheaply, on both stores: the names a change touched (beside its
 * event), records read by many names at once, a whole zone read record by record, and record counts that stay
 * right when they are carried over from change to change, also when another store instance (another process)
 * writes in between. Needs PostgreSQL like postgres.test.ts; works in a schema of its own, dropped at the end.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RecordData } from '../model/model';
import type { Clock } from './clock';
import { openPostgresStore } from './postgres';
import { openSqliteStore } from './sqlite';
import { SETTINGS, expectStoreError } from './store.contract';
import type { RecordChange, ZoneChangeDetail, ZoneChangeEvent, ZoneStore } from './types';
import { dropSchemas } from '../testing/postgres';

const url = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `ir_${process.pid}_${randomBytes(4).toString('hex')}`;
const dir = mkdtempSync(join(tmpdir(), 'zone-store-incremental-'));

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await dropSchemas(url, [schema]);
});

const add = (name: string, type: RecordData['type'], value: string): RecordChange => ({
  op: 'add',
  record: { name, type, ttl: 300, value },
});

describe.each([
  { kind: 'sqlite', open: (now?: Clock) => openSqliteStore({ file: join(dir, 'zones.sqlite'), now }) },
  { kind: 'postgres', open: (now?: Clock) => openPostgresStore({ url, schema, now }) },
])('$kind', ({ open }) => {
  let store: ZoneStore;
  let other: ZoneStore;
  const Z = 'reads.example';

  beforeAll(async () => {
    store = await open();
    other = await open();
    await store.createZone(Z, SETTINGS, [
      { name: `a.${Z}`, type: 'A', ttl: 300, value: '192.0.2.1' },
      { name: `a.${Z}`, type: 'TXT', ttl: 300, value: '"a"' },
      { name: `b.${Z}`, type: 'A', ttl: 300, value: '192.0.2.2' },
      { name: `c.${Z}`, type: 'A', ttl: 300, value: '192.0.2.3' },
    ]);
  });
  afterAll(async () => {
    await Promise.all([store.close(), other.close()]);
  });

  test('a change tells its listeners the owner names it touched; events stay as they were', async () => {
    const heard: Array<[ZoneChangeEvent, ZoneChangeDetail | undefined]> = [];
    const off = store.onChange((event, detail) => event.zone === Z && heard.push([event, detail]));
    const [b] = await store.listRecords(Z, { name: `b.${Z}` });
    if (b === undefined) throw new Error(`no record at b.${Z}`);
    const out = await store.change(Z, [
      add(`new.${Z}`, 'A', '192.0.2.9'),
      { op: 'update', id: b.id, ttl: 60 },
      { op: 'deleteMatching', name: `c.${Z}` },
      { op: 'deleteMatching', name: `nothing.${Z}` },
    ]);
    const zone = await store.updateZone(Z, { retry: 700 });
    off();
    expect(heard.map(([e]) => e)).toEqual([
      { zone: Z, serial: out.zone.serial, previous: out.zone.serial - 1, kind: 'records-changed' },
      { zone: Z, serial: zone.serial, previous: out.zone.serial, kind: 'zone-updated' },
    ]);
    expect([...(heard[0]?.[1]?.names ?? [])].sort()).toEqual([`b.${Z}`, `c.${Z}`, `new.${Z}`]);
    expect(heard[1]?.[1]).toBeUndefined();
  });

  test('listRecords by many names: one list in the usual order; unknown and odd names match nothing', async () => {
    const all = await store.listRecords(Z);
    const wanted = [`new.${Z}`, `a.${Z}`, `none.${Z}`, 'x\u0000y'];
    expect(await store.listRecords(Z, { names: wanted })).toEqual(
      all.filter((r) => r.name === `a.${Z}` || r.name === `new.${Z}`),
    );
    expect(await store.listRecords(Z, { names: [`a.${Z}`], type: 'TXT' })).toEqual(
      all.filter((r) => r.name === `a.${Z}` && r.type === 'TXT'),
    );
    expect(await store.listRecords(Z, { names: [] })).toEqual([]);
    await expectStoreError(store.listRecords(Z, { names: 'a' as unknown as string[] }), 'INVALID');
    await expectStoreError(store.listRecords(Z, { names: [1] as unknown as string[] }), 'INVALID');
    await expectStoreError(store.listRecords('none.example', { names: [`a.${Z}`] }), 'NOT_FOUND');
  });

  test('eachRecord hands over every record in listRecords order, without ids; an unknown zone is NOT_FOUND', async () => {
    const seen: RecordData[] = [];
    await store.eachRecord(Z, (r) => seen.push(r));
    expect(seen).toEqual(
      (await store.listRecords(Z)).map(({ name, type, ttl, value }) => ({ name, type, ttl, value })),
    );
    await store.createZone(`empty.${Z}`, SETTINGS);
    const none: RecordData[] = [];
    await store.eachRecord(`empty.${Z}`, (r) => none.push(r));
    expect(none).toEqual([]);
    await expectStoreError(
      store.eachRecord('none.example', () => undefined),
      'NOT_FOUND',
    );
  });

  test('record counts carried over from change to change stay right, also with another instance writing between', async () => {
    const count = async (s: ZoneStore) => (await s.listRecords(Z)).length;
    for (let i = 0; i < 6; i++) {
      const writer = i % 3 === 2 ? other : store;
      const out = await writer.change(Z, [
        add(`n${i}.${Z}`, 'A', `192.0.2.${20 + i}`),
        { op: 'deleteMatching', name: `n${i - 2}.${Z}` },
      ]);
      expect(out.zone.recordsCount).toBe(await count(store));
      expect((await store.getZone(Z))?.recordsCount).toBe(await count(store));
      expect((await other.getZone(Z))?.recordsCount).toBe(await count(store));
    }
    await other.updateZone(Z, { refresh: 1200 });
    const [first] = await store.listRecords(Z);
    if (first === undefined) throw new Error(`no record in ${Z}`);
    const out = await store.change(Z, [{ op: 'delete', id: first.id }]);
    expect(out.zone.recordsCount).toBe(await count(store));
    expect((await store.listZones()).find((z) => z.name === Z)?.recordsCount).toBe(await count(store));
    // a failed change leaves the count alone
    await expectStoreError(
      store.change(Z, [add(`d.${Z}`, 'A', '192.0.2.99'), add(`d.${Z}`, 'A', '192.0.2.99')]),
      'CONFLICT',
    );
    expect((await store.getZone(Z))?.recordsCount).toBe(await count(store));
  });

  test('a zone deleted and created again by another instance in the same millisecond is counted anew', async () => {
    // a stopped clock: the new zone has the old one's serial and creation time
    const clock: Clock = () => new Date('2026-01-02T03:04:05.678Z');
    const [mine, theirs] = [await open(clock), await open(clock)];
    try {
      const name = `again.${Z}`;
      await mine.createZone(name, SETTINGS, [{ name: `x.${name}`, type: 'A', ttl: 300, value: '192.0.2.1' }]);
      expect((await mine.getZone(name))?.recordsCount).toBe(1);
      await theirs.deleteZone(name);
      const again = await theirs.createZone(name, SETTINGS, [
        { name: `x.${name}`, type: 'A', ttl: 300, value: '192.0.2.1' },
        { name: `y.${name}`, type: 'A', ttl: 300, value: '192.0.2.2' },
      ]);
      expect(again.createdAt).toBe('2026-01-02T03:04:05.678Z');
      expect((await mine.getZone(name))?.recordsCount).toBe(2);
      const out = await mine.change(name, [add(`z.${name}`, 'A', '192.0.2.3')]);
      expect(out.zone.recordsCount).toBe(3);
      await theirs.deleteZone(name);
      await theirs.createZone(name, SETTINGS);
      expect((await mine.change(name, [add(`z.${name}`, 'A', '192.0.2.3')])).zone.recordsCount).toBe(1);
    } finally {
      await Promise.all([mine.close(), theirs.close()]);
    }
  });
});
