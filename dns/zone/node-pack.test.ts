/**
 * A zone built packed from store records (ZoneBuilder, NodePack) must hold and answer exactly what a zone built
 * from answer objects holds and answers; decoded nodes stay the same objects while in use, and their cache is
 * bounded.
 */
import type { SoaAnswer } from 'dns-packet';
import type { RecordData } from '../model/model';
import { toPacketAnswer } from '../records';
import { answersOf, questionsFor, transferOf, zoneView } from '../testing/zone-compare';
import { NodePacker, type NodePack } from './node-pack';
import type { RR } from './rr';
import { ZoneBuilder, ZoneData } from './zone-index';

const soa = (name: string): SoaAnswer => ({
  name: name || '.',
  type: 'SOA',
  class: 'IN',
  ttl: 3600,
  data: { mname: `ns1.${name}`, rname: `hostmaster.${name}`, serial: 7, refresh: 1, retry: 2, expire: 3, minimum: 60 },
});

/** The zone as answer objects: one TTL per RRset (the lowest), names and values in the case given. */
function reference(zone: string, records: readonly RecordData[]): ZoneData {
  const ttl = new Map<string, number>();
  for (const r of records) ttl.set(`${r.name} ${r.type}`, Math.min(ttl.get(`${r.name} ${r.type}`) ?? Infinity, r.ttl));
  const answers = records.map(
    (r) =>
      toPacketAnswer({
        name: r.givenName ?? r.name,
        type: r.type,
        ttl: ttl.get(`${r.name} ${r.type}`) ?? r.ttl,
        value: r.givenValue ?? r.value,
      }) as RR,
  );
  return new ZoneData(zone, soa(zone), answers);
}

function packed(zone: string, records: readonly RecordData[]): ZoneData {
  const builder = new ZoneBuilder(zone, soa(zone));
  for (const r of records) builder.add(r);
  return builder.finish();
}

const r = (name: string, type: RecordData['type'], value: string, ttl = 300, given?: Partial<RecordData>) => ({
  name,
  type,
  ttl,
  value,
  ...given,
});

// 20 000 bytes written as \DDD: 80 000 characters, past a 16-bit length
const LONG_TXT = Array.from({ length: 80 }, () => `"${'\\200'.repeat(250)}"`).join(' ');

const ZONE_RECORDS: RecordData[] = [
  r('pk.test', 'NS', 'ns1.pk.test.'),
  r('pk.test', 'MX', '10 mail.pk.test.'),
  r('a.pk.test', 'A', '192.0.2.1', 300, { givenName: 'A.Pk.Test' }),
  r('a.pk.test', 'A', '192.0.2.2', 100, { givenName: 'A.Pk.Test' }),
  r('a.pk.test', 'TXT', '"grüße" "x"', 50, { givenName: 'a.PK.test' }),
  r('alias.pk.test', 'CNAME', 'a.pk.test.', 300, { givenValue: 'A.pk.TEST.' }),
  r('deep.er.pk.test', 'TXT', LONG_TXT),
  r('mail.pk.test', 'A', '192.0.2.25'),
  r('mail.pk.test', 'AAAA', '2001:db8::25'),
  r('sub.pk.test', 'NS', 'ns.sub.pk.test.'),
  r('ns.sub.pk.test', 'A', '192.0.2.53'),
  r('d.pk.test', 'DNAME', 'elsewhere.test.'),
  r('*.w.pk.test', 'A', '192.0.2.9'),
  r('*.w.pk.test', 'MX', '5 mail.pk.test.'),
];

describe('a zone built packed', () => {
  it.each([
    [
      'a zone with cuts, DNAME, wildcards, mixed case, per-record TTLs, UTF-8 and an 80 000-character value',
      'pk.test',
      ZONE_RECORDS,
    ],
    ['the root zone', '', [r('', 'NS', 'a.root.'), r('test', 'NS', 'ns.test.'), r('ns.test', 'A', '192.0.2.1')]],
    ['a zone with no record but its SOA', 'empty.test', []],
  ])('holds and answers as one built from answer objects: %s', (_, zone, records) => {
    const ours = packed(zone, records);
    const theirs = reference(zone, records);
    expect(zoneView(ours)).toEqual(zoneView(theirs));
    const questions = questionsFor([theirs], [`x.y.w.${zone}`, `q.d.${zone}`, `no.${zone}`]);
    expect(answersOf(ours, questions)).toEqual(answersOf(theirs, questions));
    expect(transferOf(ours)).toEqual(transferOf(theirs));
  });

  it('merges an owner whose records come in two runs (store order broken) instead of losing the first run', () => {
    const records = [r('b.pk.test', 'A', '192.0.2.1'), r('c.pk.test', 'A', '192.0.2.3'), r('b.pk.test', 'TXT', '"b"')];
    const zone = packed('pk.test', records);
    expect([...(zone.nodes.get('b.pk.test')?.keys() ?? [])]).toEqual(['A', 'TXT']);
    expect(zone.nodes.size).toBe(3);
  });

  it('patches like a zone of answer objects', () => {
    const base = packed('pk.test', ZONE_RECORDS);
    const change = new Map<string, RR[]>([
      ['a.pk.test', []],
      ['new.pk.test', [toPacketAnswer(r('new.pk.test', 'A', '192.0.2.77')) as RR]],
    ]);
    const next = { ...soa('pk.test'), data: { ...soa('pk.test').data, serial: 8 } };
    const ours = base.patched(next, change);
    const theirs = reference('pk.test', ZONE_RECORDS).patched(next, change);
    expect(zoneView(ours)).toEqual(zoneView(theirs));
    expect(transferOf(ours)).toEqual(transferOf(theirs));
    expect(base.nodes.get('a.pk.test')).toBeDefined(); // the copy it came from is unchanged
  });
});

describe('NodePack', () => {
  function pack(names: number, limit: number): { pack: NodePack; offsets: number[] } {
    const offsets: number[] = [];
    const packer = new NodePacker((offset) => offsets.push(offset));
    for (let i = 0; i < names; i++) packer.add(r(`n${i}.pk.test`, 'A', `192.0.2.${i % 250}`));
    return { pack: packer.finish(limit), offsets };
  }

  it('gives the same node object while it is in use, and decodes it again only after many others', () => {
    const { pack: p, offsets } = pack(10, 2);
    const [o0, o1, o2, o3, o4] = offsets as [number, number, number, number, number];
    const first = p.node(o0);
    expect(p.node(o0)).toBe(first);
    p.node(o1);
    p.node(o2); // o0 moves to the older generation
    expect(p.node(o0)).toBe(first); // and comes back from it
    for (const o of [o1, o2, o3, o4]) p.node(o);
    const again = p.node(o0);
    expect(again).not.toBe(first); // evicted after two generations of others: decoded anew
    expect(again).toEqual(first);
  });

  it('peek decodes without keeping the node, so a zone transfer does not evict hot names', () => {
    const { pack: p, offsets } = pack(6, 2);
    const [o0, o1, o2, o3] = offsets as [number, number, number, number];
    const hot = p.node(o0);
    for (const o of offsets) p.peek(o);
    expect(p.peek(o0)).toBe(hot);
    expect(p.peek(o1)).not.toBe(p.peek(o1)); // not kept
    p.node(o2);
    p.node(o3);
    expect(p.node(o0)).toBe(hot);
  });

  it('keeps records in a few bytes each', () => {
    const { pack: p } = pack(1000, 10);
    expect(p.bytes).toBeLessThan(1000 * 48);
  });
});
