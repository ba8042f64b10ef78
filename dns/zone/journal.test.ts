/**
 * The IXFR journal: what each served copy changed from the one before, found through the copy's lineage, kept
 * bounded, broken when a copy does not come from the one served, and carried as bytes to the answer thread.
 */
import type { SoaAnswer } from 'dns-packet';
import { decodeSteps, encodeSteps, ZoneJournal, type JournalStep } from './journal';
import type { RR } from './rr';
import { ZoneData, ZoneIndex } from './zone-index';

const ZONE = 'j.test';
const soa = (serial: number): SoaAnswer => ({
  name: ZONE,
  type: 'SOA',
  class: 'IN',
  ttl: 3600,
  data: { mname: 'ns1.j.test', rname: 'hostmaster.j.test', serial, refresh: 1, retry: 2, expire: 3, minimum: 60 },
});
const a = (name: string, address: string, ttl = 300): RR => ({ name, type: 'A', class: 'IN', ttl, data: address });
const owners = (entries: Array<[string, RR[]]>) => new Map(entries);
const text = (rrs: readonly RR[]) =>
  rrs.map((r) => `${r.name} ${r.ttl} ${r.type} ${typeof r.data === 'string' ? r.data : JSON.stringify(r.data)}`).sort();
const shape = (steps: readonly JournalStep[] | undefined) =>
  steps?.map((s) => ({
    from: s.from.data.serial,
    to: s.to.data.serial,
    deleted: text(s.deleted),
    added: text(s.added),
  }));

function start(): { index: ZoneIndex; first: ZoneData } {
  const index = new ZoneIndex();
  const first = new ZoneData(ZONE, soa(1), [a('www.j.test', '192.0.2.1'), a('www.j.test', '192.0.2.2')]);
  index.set(first);
  return { index, first };
}

test('a patched copy served after the one it came from: the records it deleted and added, SOA apart', () => {
  const { index, first } = start();
  const second = first.patched(
    soa(2),
    owners([
      ['www.j.test', [a('www.j.test', '192.0.2.1'), a('www.j.test', '192.0.2.3')]],
      ['new.j.test', [a('new.j.test', '198.51.100.1')]],
    ]),
  );
  index.set(second);
  expect(shape(index.journal(ZONE)?.since(1, 2))).toEqual([
    {
      from: 1,
      to: 2,
      deleted: ['www.j.test 300 A 192.0.2.2'],
      added: ['new.j.test 300 A 198.51.100.1', 'www.j.test 300 A 192.0.2.3'],
    },
  ]);
  expect(second.lineage).toBeUndefined(); // the old copy is not held by the new one
  // a TTL change is a deletion and an addition; a name that goes is deleted whole
  index.set(second.patched(soa(3), owners([['www.j.test', [a('www.j.test', '192.0.2.1', 60)]]])));
  index.set(index.get(ZONE)!.patched(soa(4), owners([['new.j.test', []]])));
  expect(shape(index.journal(ZONE)?.since(2, 4))).toEqual([
    {
      from: 2,
      to: 3,
      deleted: ['www.j.test 300 A 192.0.2.1', 'www.j.test 300 A 192.0.2.3'],
      added: ['www.j.test 60 A 192.0.2.1'],
    },
    { from: 3, to: 4, deleted: ['new.j.test 300 A 198.51.100.1'], added: [] },
  ]);
  expect(index.journal(ZONE)?.since(1, 4)).toHaveLength(3);
  expect(index.journal(ZONE)?.since(1, 3)).toBeUndefined(); // not the serial served now
  expect(index.journal(ZONE)?.since(7, 4)).toBeUndefined(); // never had it
});

test('copies patched several times before one is served: one step with every name any of them touched', () => {
  const { index, first } = start();
  const between = first.patched(soa(2), owners([['x.j.test', [a('x.j.test', '192.0.2.7')]]]));
  const served = between.patched(soa(3), owners([['y.j.test', [a('y.j.test', '192.0.2.8')]]]));
  index.set(served);
  expect(shape(index.journal(ZONE)?.since(1, 3))).toEqual([
    { from: 1, to: 3, deleted: [], added: ['x.j.test 300 A 192.0.2.7', 'y.j.test 300 A 192.0.2.8'] },
  ]);
});

test('a copy not patched from the one served (read whole, or from another copy) starts the chain anew', () => {
  const { index, first } = start();
  index.set(first.patched(soa(2), owners([['x.j.test', [a('x.j.test', '192.0.2.7')]]])));
  expect(index.journal(ZONE)?.length).toBe(1);
  index.set(new ZoneData(ZONE, soa(3), [a('www.j.test', '192.0.2.1')]));
  expect(index.journal(ZONE)?.length).toBe(0);
  expect(index.journal(ZONE)?.since(2, 3)).toBeUndefined();
  // patched from a copy that is not the one served (first): no chain either
  index.set(first.patched(soa(4), owners([['z.j.test', [a('z.j.test', '192.0.2.9')]]])));
  expect(index.journal(ZONE)?.since(3, 4)).toBeUndefined();
  // a change that keeps the serial cannot be told incrementally
  const served = index.get(ZONE)!;
  index.set(served.patched(soa(5), owners([['q.j.test', [a('q.j.test', '192.0.2.10')]]])));
  expect(index.journal(ZONE)?.since(4, 5)).toHaveLength(1);
  index.set(index.get(ZONE)!.patched(soa(5), owners([['q.j.test', []]])));
  expect(index.journal(ZONE)?.since(4, 5)).toBeUndefined();
  index.delete(ZONE);
  expect(index.journal(ZONE)).toBeUndefined();
});

test('bounds: the oldest versions go first; a change larger than the records kept breaks the chain', () => {
  const journal = new ZoneJournal({ maxSteps: 2, maxRecords: 3 });
  let copy = new ZoneData(ZONE, soa(1), []);
  journal.follow(undefined, copy);
  for (let serial = 2; serial <= 4; serial++) {
    const next = copy.patched(soa(serial), owners([[`h${serial}.j.test`, [a(`h${serial}.j.test`, '192.0.2.1')]]]));
    journal.follow(copy, next);
    copy = next;
  }
  expect(journal.length).toBe(2);
  expect(journal.since(1, 4)).toBeUndefined();
  expect(journal.since(2, 4)).toHaveLength(2);
  const big = copy.patched(
    soa(5),
    owners([1, 2, 3, 4].map((i): [string, RR[]] => [`b${i}.j.test`, [a(`b${i}.j.test`, '192.0.2.2')]])),
  );
  journal.follow(copy, big);
  expect(journal.length).toBe(0);
  expect(journal.since(4, 5)).toBeUndefined();
});

test('steps cross to the answer thread as bytes, and are appended only where they lead from its copy to the next', () => {
  const { index, first } = start();
  const second = first.patched(soa(2), owners([['www.j.test', [a('www.j.test', '192.0.2.9')]]]));
  index.set(second);
  const steps = index.journal(ZONE)!.since(1, 2)!;
  const decoded = decodeSteps(encodeSteps(steps));
  expect(shape(decoded)).toEqual(shape(steps));

  const other = new ZoneIndex();
  other.set(new ZoneData(ZONE, soa(1), [a('www.j.test', '192.0.2.1'), a('www.j.test', '192.0.2.2')]));
  other.set(new ZoneData(ZONE, soa(2), [a('www.j.test', '192.0.2.9')]), decoded);
  expect(shape(other.journal(ZONE)?.since(1, 2))).toEqual(shape(steps));
  // steps from another serial than the copy held: the chain starts anew
  other.set(new ZoneData(ZONE, soa(9), []), decoded);
  expect(other.journal(ZONE)?.length).toBe(0);
});

test('an index without a journal (an answer worker) diffs nothing and holds no old copy', () => {
  const index = new ZoneIndex({ journal: false });
  const first = new ZoneData(ZONE, soa(1), [a('www.j.test', '192.0.2.1')]);
  index.set(first);
  const second = first.patched(soa(2), owners([['www.j.test', [a('www.j.test', '192.0.2.2')]]]));
  index.set(second);
  expect(index.journal(ZONE)).toBeUndefined();
  expect(second.lineage).toBeUndefined();
});
