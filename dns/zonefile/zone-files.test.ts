import { emailToRname } from '../records';
import { openSqliteStore } from '../store';
import type { RecordFilter, ZoneStore } from '../store/types';
import { exportZoneFile } from './zone-files';
import { formatZoneFile } from '.';

/** Exports read a zone in pages and write it in steps: the same file as at once, stopping when asked to. */
const ZONE = 'paged.test';
const RECORDS = 12_345; // three pages of the export's reading

let store: ZoneStore;
let pages: RecordFilter[];
let onPage: (n: number) => Promise<void>;

beforeEach(async () => {
  store = await openSqliteStore({ file: ':memory:' });
  const records = Array.from({ length: RECORDS }, (_, i) => ({
    name: `h${i}.${ZONE}`,
    type: 'A' as const,
    ttl: i % 7 === 0 ? 60 : 300,
    value: `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`,
  }));
  const settings = { adminEmail: `hostmaster@${ZONE}`, primaryNs: `ns1.${ZONE}`, refresh: 3600, retry: 600 };
  await store.createZone(ZONE, { ...settings, expire: 86400, minimum: 300, defaultTtl: 300 }, records);
  pages = [];
  onPage = async () => {};
  const listRecords = store.listRecords.bind(store);
  store.listRecords = async (zone, filter) => {
    if (filter?.limit !== undefined) {
      pages.push(filter);
      await onPage(pages.length);
    }
    return listRecords(zone, filter);
  };
});
afterEach(async () => store.close());

/** The zone formatted at once, from one read, as exports were made before they were made in steps. */
async function atOnce(): Promise<string> {
  const zone = await store.getZone(ZONE);
  if (!zone) throw new Error('no zone');
  return formatZoneFile({
    origin: zone.name,
    ttl: zone.defaultTtl,
    soa: {
      mname: zone.primaryNs,
      rname: emailToRname(zone.adminEmail).replace(/\.$/, ''),
      serial: zone.serial,
      refresh: zone.refresh,
      retry: zone.retry,
      expire: zone.expire,
      minimum: zone.minimum,
      ttl: zone.defaultTtl,
    },
    records: await store.listRecords(ZONE),
  });
}

test('read in pages, written in steps: the same file as at once', async () => {
  const exported = await exportZoneFile(store, ZONE);
  expect(pages).toHaveLength(3);
  expect(exported === (await atOnce())).toBe(true);
});

test('a zone changed while its pages were read is read again as it is now: its serial matches its records', async () => {
  onPage = async (n) => {
    if (n === 2)
      await store.change(ZONE, [
        { op: 'add', record: { name: `new.${ZONE}`, type: 'A', ttl: 300, value: '192.0.2.1' } },
      ]);
  };
  const exported = await exportZoneFile(store, ZONE);
  expect(exported).toContain('new\t\tIN\tA\t192.0.2.1');
  expect(exported === (await atOnce())).toBe(true);
});

test('once its signal fires, no page is read after it and the export fails with its reason', async () => {
  const caller = new AbortController();
  onPage = async (n) => {
    if (n === 2) caller.abort(new Error('nobody waits'));
  };
  await expect(exportZoneFile(store, ZONE, caller.signal)).rejects.toThrow('nobody waits');
  expect(pages).toHaveLength(2);
});

test('a signal firing while the file is written stops the writing', async () => {
  const caller = new AbortController();
  const exporting = exportZoneFile(store, ZONE, caller.signal);
  onPage = async (n) => {
    // after the last page: the records are all read, the writing is next
    if (n === 3) setImmediate(() => caller.abort(new Error('nobody waits')));
  };
  await expect(exporting).rejects.toThrow('nobody waits');
  expect(pages).toHaveLength(3);
});
