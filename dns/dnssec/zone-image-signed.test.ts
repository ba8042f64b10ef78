/**
 * A signed zone shipped as an image (whole, then patches signed incrementally) answers queries with the DO bit
 * exactly as the signed copy it was made from: RRSIGs, the NSEC or NSEC3 chain and denial proofs included.
 */
import * as packet from 'dns-packet';
import type { Question, SoaAnswer } from 'dns-packet';
import type { RecordData } from '../model/model';
import { toPacketAnswer } from '../records';
import { questionsFor } from '../testing/zone-compare';
import { encodeZoneImage, readZoneImage, resolve, type RR, ZoneBuilder, type ZoneData, ZoneIndex } from '../zone';
import { DnssecAnswerSigner } from './answer-signer';
import { freshKeys } from './zone-keys';
import { DEFAULT_SIGNING_POLICY, signPatch, signZone } from './zone-signer';

const NOW = 1_790_000_000;
const ZONE = 'sig.test';
const soa = (serial: number): SoaAnswer => ({
  name: 'Sig.Test',
  type: 'SOA',
  class: 'IN',
  ttl: 3600,
  data: { mname: 'ns1.sig.test', rname: 'hostmaster.sig.test', serial, refresh: 1, retry: 2, expire: 3, minimum: 300 },
});
const r = (name: string, type: RecordData['type'], value: string): RecordData => ({
  name: name ? `${name}.${ZONE}` : ZONE,
  type,
  ttl: 300,
  value,
});
const RECORDS: RecordData[] = [
  r('', 'NS', 'ns1.sig.test.'),
  r('*.wild', 'A', '192.0.2.9'),
  r('a', 'A', '192.0.2.1'),
  r('deep.ent.x', 'AAAA', '2001:db8::1'),
  r('ns1', 'A', '192.0.2.53'),
  r('ns.sub', 'A', '192.0.2.99'),
  r('sub', 'NS', 'ns.sub.sig.test.'),
  r('www', 'CNAME', 'a.sig.test.'),
];

/** Each question answered with DO from `zone` alone, signed as the server signs it, as wire bytes (hex). */
function signedAnswers(zone: ZoneData, questions: ReadonlyArray<[string, string]>): string[] {
  const index = new ZoneIndex();
  index.set(zone);
  const signer = new DnssecAnswerSigner();
  return questions.map(([name, type]) => {
    const s = signer.sign(resolve(index, name, type), name, type, true);
    const wire = packet.encode({
      type: 'response',
      id: 0,
      flags: 0,
      questions: [{ name, type: type as Question['type'], class: 'IN' }],
      answers: s.answers,
      authorities: s.authorities,
      additionals: s.additionals,
    });
    return `${name} ${type} ${s.rcode} ${wire.toString('hex')}`;
  });
}

it.each([
  ['NSEC', DEFAULT_SIGNING_POLICY],
  ['NSEC3', { ...DEFAULT_SIGNING_POLICY, nsec3: { optOut: false } }],
  ['NSEC3 with Opt-Out', { ...DEFAULT_SIGNING_POLICY, nsec3: { optOut: true } }],
])('%s: a signed zone and its incremental re-signing answer the same through images', async (_, policy) => {
  const builder = new ZoneBuilder(ZONE, soa(1));
  for (const rec of RECORDS) builder.add(rec);
  const keys = freshKeys('Sig.Test', 13, NOW - 10);
  const v1 = signZone(builder.finish(), keys, policy, NOW);
  const copy1 = await readZoneImage(await encodeZoneImage(v1), undefined);
  const extra = [`nx.${ZONE}`, `x.wild.${ZONE}`, `ent.x.${ZONE}`, `b.${ZONE}`, `zz.${ZONE}`];
  const questions = [
    ...questionsFor([v1], extra),
    ...questionsFor([v1], extra).map(([n]): [string, string] => [n, 'NSEC']),
    ...questionsFor([v1], extra).map(([n]): [string, string] => [n, 'NSEC3']),
  ];
  expect(copy1.signing?.policy.nsec3 ?? null).toEqual(policy.nsec3 ?? null);
  expect(signedAnswers(copy1, questions)).toEqual(signedAnswers(v1, questions));

  // a name added (the chain changes) and one changed (it does not)
  const added = toPacketAnswer(r('b', 'A', '192.0.2.2')) as RR;
  const v2 = signPatch(v1, soa(2), new Map([['b.sig.test', [added]]]), NOW + 5);
  const patch2 = await encodeZoneImage(v2, v1);
  expect(patch2.whole).toBe(false);
  expect(patch2.chain).not.toBeNull();
  const copy2 = await readZoneImage(patch2, copy1);
  expect(signedAnswers(copy2, questions)).toEqual(signedAnswers(v2, questions));

  const changed = toPacketAnswer(r('a', 'A', '192.0.2.3')) as RR;
  const v3 = signPatch(v2, soa(3), new Map([['a.sig.test', [changed]]]), NOW + 6);
  const patch3 = await encodeZoneImage(v3, v2);
  expect(patch3.chain).toBeNull();
  const copy3 = await readZoneImage(patch3, copy2);
  expect(signedAnswers(copy3, questions)).toEqual(signedAnswers(v3, questions));
});
