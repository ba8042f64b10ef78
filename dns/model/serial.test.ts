/**
 * SOA serials: `YYYYMMDDnn` while there is room, then +1 (RFC 1982) until the date overtakes the counter, never
 * backwards, wrapping at 2^32 without 0; and the in-memory index follows a serial across the wrap.
 */
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serialAtLeast, serialGreater, serialMax } from './serial';
import { ZoneIndex } from '../zone/zone-index';
import { openSqliteStore } from '../store';
import { dateSerial, nextSerial } from '../store/serial-policy';
import { ZoneLoader, refreshFor } from '../engine/zone-loader';

const day = (iso: string): Date => new Date(`${iso}T12:00:00Z`);

test('RFC 1982 comparisons across the wrap', () => {
  expect(serialGreater(1, 4294967295)).toBe(true);
  expect(serialGreater(4294967295, 1)).toBe(false);
  expect(serialGreater(2026051400, 4294967000)).toBe(true); // less than half the circle ahead
  expect(serialGreater(5, 5)).toBe(false);
  expect(serialGreater(0x80000000, 0)).toBe(false); // exactly half way: undefined, so not newer
  expect(serialAtLeast(5, 5)).toBe(true);
  expect(serialMax(4294967295, 3)).toBe(3);
  expect(serialMax(3, 4294967295)).toBe(3);
});

test('13 000 changes in one day: +1 each, past YYYYMMDD99, and the date form resumes once the date overtakes the counter', () => {
  let serial = dateSerial(day('2026-05-14'));
  expect(serial).toBe(2026051400);
  for (let i = 1; i <= 13_000; i++) {
    const next = nextSerial(serial, day('2026-05-14'));
    expect(next).toBe(serial + 1);
    serial = next;
  }
  expect(serial).toBe(2026064400); // no longer a date ("2026-06-44")
  // the following days keep counting: the date is behind the counter
  expect(nextSerial(serial, day('2026-05-15'))).toBe(2026064401);
  expect(nextSerial(2026064401, day('2026-06-30'))).toBe(2026064402);
  // the first date past the counter: YYYYMMDD00 again
  expect(nextSerial(2026064402, day('2026-07-01'))).toBe(2026070100);
  // the serial: counts on until next year's first date overtakes it
  expect(nextSerial(2026149660, day('2026-12-31'))).toBe(2026149661);
  expect(nextSerial(2026149661, day('2027-01-01'))).toBe(2027010100);
});

test('at 2^32 − 1 the serial wraps to 1 (0 skipped, as BIND does), and a date still newer takes over', () => {
  // a clock whose date is not newer than the counter (more than half the circle away): plain +1, wrapping
  const late = day('2148-01-01');
  expect(nextSerial(4294967294, late)).toBe(4294967295);
  expect(nextSerial(4294967295, late)).toBe(1);
  expect(nextSerial(1, late)).toBe(2);
  // with today's date, 2026051400 is newer than 4294967295 in RFC 1982 terms (fewer than 2^31 steps ahead)
  expect(nextSerial(4294967295, day('2026-05-14'))).toBe(2026051400);
});

test('nextSerial: always a 32-bit serial other than 0, newer than the current one, either +1 or the date', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 0xffffffff }),
      fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2200-12-31T23:59:59Z'), noInvalidDate: true }),
      (current, now) => {
        const next = nextSerial(current, now);
        expect(Number.isInteger(next) && next >= 1 && next <= 0xffffffff).toBe(true);
        expect(serialGreater(next, current)).toBe(true);
        const plusOne = (current + 1) % 2 ** 32 || 1;
        expect([plusOne, dateSerial(now)]).toContain(next);
      },
    ),
    { numRuns: 5000 },
  );
});

test('the index follows the serial across the wrap: a change after 4294967295 is served with its new serial', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'serial-wrap-'));
  const file = join(dir, 'zones.sqlite');
  const zone = 'wrap.test';
  const store = await openSqliteStore({ file, now: () => day('2026-05-14') });
  try {
    await store.createZone(
      zone,
      {
        adminEmail: 'hostmaster@wrap.test',
        primaryNs: 'ns1.wrap.test',
        refresh: 3600,
        retry: 600,
        expire: 86400,
        minimum: 300,
        defaultTtl: 3600,
      },
      [{ name: zone, type: 'NS', ttl: 300, value: 'ns1.wrap.test.' }],
    );
    // a zone whose serial reached the top of the circle (set in the database: no API sets a serial)
    const db = new Database(file);
    db.prepare('UPDATE zones SET serial = ? WHERE name = ?').run(4294967295, zone);
    db.close();
    const index = new ZoneIndex();
    const loader = new ZoneLoader(store, index);
    await loader.reload(zone);
    expect(index.get(zone)?.soa.data.serial).toBe(4294967295);
    const off = store.onChange((event, detail) => void loader.reload(event.zone, refreshFor(event, detail)));
    const out = await store.change(zone, [
      { op: 'add', record: { name: `www.${zone}`, type: 'A', ttl: 300, value: '192.0.2.1' } },
    ]);
    expect(out.zone.serial).toBe(2026051400);
    await loader.caughtUp(zone, out.zone.serial);
    expect(index.get(zone)?.soa.data.serial).toBe(2026051400);
    expect(index.get(zone)?.nodes.get(`www.${zone}`)?.get('A')).toHaveLength(1);
    off();
    await loader.idle();
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
