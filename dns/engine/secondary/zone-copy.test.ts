import type { ClientRecord } from '../../client';
import { answersOf, questionsFor, transferOf, zoneView } from '../../testing/zone-compare';
import { applySteps, patchedData, touchedNames, type Transferred, zoneData } from './zone-copy';

const soa = (serial: number): ClientRecord => ({
  name: 'z.test',
  type: 'SOA',
  ttl: 300,
  value: `ns1.z.test. hostmaster.z.test. ${serial} 3600 600 86400 60`,
});
const a = (name: string, value: string, ttl = 60): ClientRecord => ({ name: `${name}.z.test`, type: 'A', ttl, value });
const held: Transferred = {
  zone: 'z.test',
  soa: {
    mname: 'ns1.z.test',
    rname: 'hostmaster.z.test',
    serial: 5,
    refresh: 3600,
    retry: 600,
    expire: 86400,
    minimum: 60,
    ttl: 300,
  },
  records: [
    { name: 'www.z.test', type: 'A', ttl: 60, value: '192.0.2.1' },
    { name: 'mail.z.test', type: 'A', ttl: 60, value: '192.0.2.2' },
  ],
  skipped: 0,
};

test('IXFR steps applied: deletions, additions (a TTL change is both), the final serial', () => {
  const next = applySteps(
    held,
    [
      { from: soa(5), to: soa(6), deleted: [a('www', '192.0.2.1')], added: [a('www', '192.0.2.9')] },
      { from: soa(6), to: soa(7), deleted: [a('mail', '192.0.2.2')], added: [a('mail', '192.0.2.2', 600)] },
    ],
    soa(7),
  );
  expect(next?.soa.serial).toBe(7);
  expect(next?.records).toEqual([
    { name: 'www.z.test', type: 'A', ttl: 60, value: '192.0.2.9' },
    { name: 'mail.z.test', type: 'A', ttl: 600, value: '192.0.2.2' },
  ]);
});

test('steps that do not fit the copy give nothing (the caller transfers the zone whole)', () => {
  // from another serial than the copy's
  expect(applySteps(held, [{ from: soa(4), to: soa(6), deleted: [], added: [] }], soa(6))).toBeUndefined();
  // deleting a record the copy does not hold
  expect(
    applySteps(held, [{ from: soa(5), to: soa(6), deleted: [a('nope', '192.0.2.7')], added: [] }], soa(6)),
  ).toBeUndefined();
  // ending elsewhere than the final SOA says
  expect(applySteps(held, [{ from: soa(5), to: soa(6), deleted: [], added: [] }], soa(8))).toBeUndefined();
});

test('the copy patched at the names an IXFR touched answers and transfers as the copy built afresh', () => {
  const steps = [
    {
      from: soa(5),
      to: soa(6),
      deleted: [a('www', '192.0.2.1')],
      added: [a('www', '192.0.2.9'), a('new', '192.0.2.5')],
    },
    { from: soa(6), to: soa(7), deleted: [a('mail', '192.0.2.2')], added: [a('deep.sub', '192.0.2.6')] },
  ];
  const next = applySteps(held, steps, soa(7))!;
  const touched = touchedNames('z.test', steps);
  expect([...touched].sort()).toEqual(['deep.sub.z.test', 'mail.z.test', 'new.z.test', 'www.z.test']);
  const patched = patchedData(zoneData(held), next, touched);
  const fresh = zoneData(next);
  expect(zoneView(patched)).toEqual(zoneView(fresh));
  const questions = questionsFor([patched, fresh], ['mail.z.test', 'sub.z.test']);
  expect(answersOf(patched, questions)).toEqual(answersOf(fresh, questions));
  expect(transferOf(patched)).toEqual(transferOf(fresh));
});
