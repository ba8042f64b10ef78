import type { SoaAnswer } from 'dns-packet';
import { standInFor } from './binary-labels';
import type { RR } from '../../zone/rr';
import { ZoneData, ZoneIndex } from '../../zone/zone-index';

const SOA: SoaAnswer = {
  name: 'ex.test',
  type: 'SOA',
  class: 'IN',
  ttl: 3600,
  data: { mname: 'ns.ex.test', rname: 'h.ex.test', serial: 1, refresh: 1, retry: 1, expire: 1, minimum: 1 },
};
const a = (name: string): RR => ({ name, type: 'A', class: 'IN', ttl: 60, data: '192.0.2.1' });

/** A query for the name made of `labels` (bytes each), type A. */
function query(labels: Buffer[]): Buffer {
  const name = Buffer.concat([...labels.flatMap((l) => [Buffer.from([l.length]), l]), Buffer.from([0])]);
  return Buffer.concat([Buffer.from([0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]), name, Buffer.from([0, 1, 0, 1])]);
}
const ZONE = [Buffer.from('ex'), Buffer.from('test')];

function index(records: RR[]): ZoneIndex {
  const i = new ZoneIndex();
  i.set(new ZoneData('ex.test', SOA, records));
  return i;
}

test('plain and UTF-8 names need no stand-in', () => {
  expect(standInFor(query([Buffer.from('www'), ...ZONE]), index([]))).toBeUndefined();
  expect(standInFor(query([Buffer.from('é'), ...ZONE]), index([]))).toBeUndefined();
});

test('a label with a dot or bytes that are not UTF-8 gets a stand-in of the same length, put back in the answer', () => {
  const raw = query([Buffer.from('a.b'), Buffer.from([0x78, 0x80, 0x79]), ...ZONE]);
  const standIn = standInFor(raw, index([]));
  expect(standIn?.raw.length).toBe(raw.length);
  expect(standIn?.raw.subarray(12, 20).toString('latin1')).toBe('\x03~~~\x03~~~');
  // an answer: the question, then an owner name and a CNAME target that hold the stand-in run
  const answer = Buffer.concat([standIn?.raw as Buffer, standIn?.raw.subarray(12, 20) as Buffer, Buffer.from('tail')]);
  const restored = standIn?.restore(answer) as Buffer;
  expect(restored.subarray(12, raw.length)).toEqual(raw.subarray(12));
  expect(restored.subarray(raw.length, raw.length + 8)).toEqual(raw.subarray(12, 20));
  expect(restored.subarray(0, 12)).toEqual(answer.subarray(0, 12));
});

test('the stand-in never names something the zone has: another character is taken', () => {
  const raw = query([Buffer.from('a.b'), ...ZONE]);
  const standIn = standInFor(raw, index([a('~~~.ex.test'), a('x.!!!.ex.test')]));
  expect(standIn?.raw.subarray(13, 16).toString('latin1')).toBe('###');
});

test('a compressed or cut-off question name is no stand-in (the caller answers FORMERR)', () => {
  const raw = query([Buffer.from('a.b'), ...ZONE]);
  expect(standInFor(raw.subarray(0, 16), index([]))).toBeUndefined();
  const compressed = Buffer.concat([raw.subarray(0, 12), Buffer.from([0xc0, 0x0c, 0, 1, 0, 1])]);
  expect(standInFor(compressed, index([]))).toBeUndefined();
});
