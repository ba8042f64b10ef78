/**
 * A zone copy shipped as an image (whole, then patches) must answer exactly as the copy it was made from: the
 * answer threads answer from what they read, the control plane from what it built.
 */
import type { SoaAnswer } from 'dns-packet';
import type { RecordData } from '../model/model';
import { toPacketAnswer } from '../records';
import { answersOf, questionsFor, transferOf, zoneView } from '../testing/zone-compare';
import type { RR } from './rr';
import { encodeZoneImage, readZoneImage } from './zone-image';
import { ZoneBuilder, type ZoneData } from './zone-index';

const ZONE = 'img.test';
const soa = (serial: number): SoaAnswer => ({
  name: 'Img.Test',
  type: 'SOA',
  class: 'IN',
  ttl: 3600,
  data: { mname: 'ns1.img.test', rname: 'hostmaster.img.test', serial, refresh: 1, retry: 2, expire: 3, minimum: 60 },
});
const r = (name: string, type: RecordData['type'], value: string, ttl = 300, givenName?: string): RecordData => ({
  name: name ? `${name}.${ZONE}` : ZONE,
  type,
  ttl,
  value,
  ...(givenName ? { givenName } : {}),
});

const RECORDS: RecordData[] = [
  r('', 'NS', 'ns1.img.test.'),
  r('', 'MX', '10 mail.img.test.'),
  r('*.w', 'A', '192.0.2.9'),
  r('*.w', 'MX', '5 mail.img.test.'),
  r('a', 'A', '192.0.2.1', 300, 'A.Img.Test'),
  r('a', 'A', '192.0.2.2', 100, 'A.Img.Test'),
  r('a', 'TXT', '"grüße" "x"', 50),
  r('alias', 'CNAME', 'a.img.test.'),
  r('d', 'DNAME', 'elsewhere.test.'),
  r('deep.er', 'TXT', `"${'\\200'.repeat(250)}"`),
  r('mail', 'A', '192.0.2.25'),
  r('mail', 'AAAA', '2001:db8::25'),
  r('ns.sub', 'A', '192.0.2.53'),
  r('sub', 'NS', 'ns.sub.img.test.'),
  r('srv', 'SRV', '0 5 5060 sip.img.test.'),
];

function build(records: readonly RecordData[]): ZoneData {
  const builder = new ZoneBuilder(ZONE, soa(1));
  for (const rec of records) builder.add(rec);
  return builder.finish();
}

const answer = (rec: RecordData): RR => toPacketAnswer(rec) as RR;

/**
 * Everything a copy holds but the order of its nodes (an image's copy lists them in no particular order: zone
 * transfers are sent by the side that built the zone) and dns-packet's `flush: false` on records it decoded (a bit
 * of mDNS, always clear here: the bytes are the same).
 */
const held = (zone: ZoneData): unknown =>
  JSON.parse(
    JSON.stringify({ ...zoneView(zone), order: null }, (key, value: unknown) => (key === 'flush' ? undefined : value)),
  );

describe('zone images', () => {
  const extra = [`x.y.w.${ZONE}`, `q.d.${ZONE}`, `no.${ZONE}`, `new.${ZONE}`];

  it('a whole image answers as the packed copy it was made from', async () => {
    const source = build(RECORDS);
    const image = await encodeZoneImage(source);
    expect(image.whole).toBe(true);
    const copy = await readZoneImage(image, undefined);
    const questions = questionsFor([source], extra);
    expect(answersOf(copy, questions)).toEqual(answersOf(source, questions));
    expect(held(copy)).toEqual(held(source));
    // in owner order as shipped: a transfer from the copy sends the same messages without sorting its names first
    expect(copy.inOwnerOrder).toBe(true);
    expect(transferOf(copy)).toEqual(transferOf(source));
    // a patch with a new name: the order comes from sorting, the same again
    const patched = await readZoneImage(
      await encodeZoneImage(
        source.patched(soa(2), new Map([['0new.img.test', [answer(r('0new', 'A', '192.0.2.9'))]]])),
        source,
      ),
      copy,
    );
    expect(patched.inOwnerOrder).toBe(false);
    expect(transferOf(patched)).toEqual(
      transferOf(source.patched(soa(2), new Map([['0new.img.test', [answer(r('0new', 'A', '192.0.2.9'))]]]))),
    );
  });

  it('patches carry only the names a change touched, and the patched copy answers as the source', async () => {
    const v1 = build(RECORDS);
    const copy1 = await readZoneImage(await encodeZoneImage(v1), undefined);
    const v2 = v1.patched(
      soa(2),
      new Map([
        ['a.img.test', []],
        ['new.img.test', [answer(r('new', 'A', '192.0.2.77')), answer(r('new', 'TXT', '"n"'))]],
        ['sub.img.test', [answer(r('sub', 'DNAME', 'other.test.'))]],
      ]),
    );
    const patch = await encodeZoneImage(v2, v1);
    expect(patch.whole).toBe(false);
    const copy2 = await readZoneImage(patch, copy1);
    const questions = questionsFor([v1, v2], extra);
    expect(answersOf(copy2, questions)).toEqual(answersOf(v2, questions));
    expect(held(copy2)).toEqual(held(v2));
    expect(copy2.soa.data.serial).toBe(2);
    // the copy patched is unchanged: answers computed from it stay true to it
    expect(answersOf(copy1, questions)).toEqual(answersOf(v1, questions));

    // a patch over two versions at once (one was never shipped) gives the latest
    const v3 = v2.patched(soa(3), new Map([['new.img.test', []]]));
    const v4 = v3.patched(soa(4), new Map([['mail.img.test', [answer(r('mail', 'A', '192.0.2.26'))]]]));
    const copy4 = await readZoneImage(await encodeZoneImage(v4, v2), copy2);
    expect(answersOf(copy4, questions)).toEqual(answersOf(v4, questions));
  });

  it('ships the whole copy when the source was built afresh, and refuses a patch of a copy it does not hold', async () => {
    const v1 = build(RECORDS);
    const rebuilt = build(RECORDS.slice(1));
    const image = await encodeZoneImage(rebuilt, v1);
    expect(image.whole).toBe(true);
    const patch = await encodeZoneImage(v1.patched(soa(2), new Map()), v1);
    await expect(readZoneImage(patch, undefined)).rejects.toThrow(/a patch of img\.test, which is not held/);
  });

  it('a zone of 20 000 names is read in steps: other work runs between them', async () => {
    const many: RecordData[] = [];
    for (let i = 0; i < 20_000; i++) many.push(r(`h${String(i).padStart(5, '0')}`, 'A', `10.0.${i >> 8}.${i & 255}`));
    const source = build(many);
    const image = await encodeZoneImage(source);
    let turns = 0;
    const ticking = setInterval(() => turns++, 0);
    try {
      const copy = await readZoneImage(image, undefined);
      expect(copy.nodes.size).toBe(source.nodes.size);
    } finally {
      clearInterval(ticking);
    }
    expect(turns).toBeGreaterThan(0);
  });
});
