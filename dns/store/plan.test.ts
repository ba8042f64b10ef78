/**
 * The planner on its own: createZone's bulk planner must judge initial records exactly like change() judges the
 * same records as adds (same code, index and message).
 */
import fc from 'fast-check';
import type { RecordData, RecordType } from '../model/model';
import { planChanges, planCreate } from './plan';
import { StoreError, type RecordChange } from './types';

const ZONE = 'example.com';
const now = new Date('2024-03-05T10:00:00Z');

function outcome(run: () => unknown): string {
  try {
    run();
    return 'ok';
  } catch (err) {
    if (!(err instanceof StoreError)) throw err;
    return `${err.code} ${err.index} ${err.message}`;
  }
}

const recordArb: fc.Arbitrary<RecordData> = fc.record({
  name: fc.constantFrom(ZONE, `www.${ZONE}`, `mail.${ZONE}`, 'www.other.org'),
  type: fc.constantFrom<RecordType>('A', 'CNAME', 'TXT', 'MX', 'SOA'),
  ttl: fc.constantFrom(0, 300, -1),
  value: fc.constantFrom('192.0.2.1', '192.0.2.2', 'target.example.', ''),
});

test('planCreate and planChanges (adds only) agree on every batch of records, whatever the RRset limit', () => {
  fc.assert(
    fc.property(fc.array(recordArb, { maxLength: 8 }), fc.constantFrom(0, 1, 2, 100), (records, maxRecordsPerRrset) => {
      const limits = { maxRecordsPerRrset };
      const viaCreate = outcome(() => planCreate(ZONE, records, now, undefined, limits));
      const changes: RecordChange[] = records.map((record) => ({ op: 'add', record }));
      const viaChange = outcome(() =>
        planChanges({ zone: ZONE, changes, rows: [], foreignIds: new Set(), now, limits }),
      );
      expect(viaCreate).toBe(viaChange);
    }),
    { numRuns: 2000 },
  );
});

test('planCreate names the record that completed a violation', () => {
  const r = (name: string, type: RecordType, value: string): RecordData => ({ name, type, ttl: 60, value });
  expect(
    outcome(() =>
      planCreate(ZONE, [r(`a.${ZONE}`, 'A', '1'), r(`b.${ZONE}`, 'A', '1'), r(`a.${ZONE}`, 'A', '1')], now),
    ),
  ).toBe(`CONFLICT 2 a.${ZONE} A 1 already exists in zone ${ZONE}`);
  expect(
    outcome(() =>
      planCreate(ZONE, [r(`w.${ZONE}`, 'CNAME', 'x.'), r(`v.${ZONE}`, 'A', '1'), r(`w.${ZONE}`, 'TXT', '"t"')], now),
    ),
  ).toBe(`INVALID 2 CNAME may not share its name with any other record (w.${ZONE} has TXT)`);
  expect(planCreate(ZONE, [r(`a.${ZONE}`, 'A', '1'), r(`a.${ZONE}`, 'A', '2')], now).inserts).toHaveLength(2);
});
