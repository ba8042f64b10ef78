/**
 * The in-memory zone signer: every RRSIG verifies under the zone's DNSKEYs, the NSEC chain runs through every
 * authoritative name in canonical order and back to the apex, delegations and glue are treated as RFC 4035 §2.2
 * says, and a change re-signed incrementally gives the chain and signatures a zone signed whole would have.
 */
import type { SoaAnswer } from 'dns-packet';
import type { RecordData } from '../model/model';
import { toPacketAnswer } from '../records';
import type { RR } from '../zone/rr';
import { ZoneBuilder, type ZoneData } from '../zone/zone-index';
import { algorithmByNumber, verifyData } from './algorithms';
import { canonicalCompare, signedData } from './canonical';
import { jitterOf } from './signing-times';
import { freshKeys } from './zone-keys';
import type { ZoneKey } from '../zone';
import { DEFAULT_SIGNING_POLICY, signPatch, signZone, signZoneInSteps } from './zone-signer';

const NOW = 1_790_000_000;
const ZONE = 'sig.test';

const soa = (serial = 1): SoaAnswer => ({
  name: 'Sig.Test',
  type: 'SOA',
  class: 'IN',
  ttl: 3600,
  data: { mname: 'ns1.sig.test', rname: 'hostmaster.sig.test', serial, refresh: 1, retry: 2, expire: 3, minimum: 300 },
});
const r = (name: string, type: RecordData['type'], value: string, ttl = 300): RecordData => ({
  name: name ? `${name}.${ZONE}` : ZONE,
  type,
  ttl,
  value,
});

const RECORDS: RecordData[] = [
  r('', 'NS', 'ns1.sig.test.'),
  r('', 'MX', '10 mail.sig.test.'),
  r('*.wild', 'A', '192.0.2.9'),
  r('a', 'A', '192.0.2.1'),
  r('a', 'A', '192.0.2.2'),
  r('a', 'TXT', '"text"'),
  r('deep.ent.x', 'AAAA', '2001:db8::1'),
  r('mail', 'A', '192.0.2.25'),
  r('ns1', 'A', '192.0.2.53'),
  r('sub', 'DS', '12345 13 2 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef'),
  r('sub', 'NS', 'ns.sub.sig.test.'),
  r('ns.sub', 'A', '192.0.2.99'),
  r('www', 'CNAME', 'a.sig.test.'),
];

function build(records: readonly RecordData[], serial = 1): ZoneData {
  const builder = new ZoneBuilder(ZONE, soa(serial));
  for (const rec of [...records].sort((x, y) =>
    x.name < y.name ? -1 : x.name > y.name ? 1 : x.type < y.type ? -1 : x.type > y.type ? 1 : 0,
  ))
    builder.add(rec);
  return builder.finish();
}

const keys = freshKeys('Sig.Test', 13, NOW - 10);

interface Sig {
  typeCovered: string;
  keyTag: number;
  algorithm: number;
  labels: number;
  originalTTL: number;
  expiration: number;
  inception: number;
  signersName: string;
  signature: Buffer;
}

/** Every RRSIG of the zone checked: it verifies under the DNSKEY of its tag; returns "owner type" of each. */
function verifiedSignatures(zone: ZoneData, zoneKeys: readonly ZoneKey[]): string[] {
  const out: string[] = [];
  for (const [owner, node] of zone.nodes.entries()) {
    for (const rrsig of node.get('RRSIG') ?? []) {
      const sig = rrsig.data as unknown as Sig;
      const key = zoneKeys.find((k) => k.tag === sig.keyTag);
      if (!key) throw new Error(`no key ${sig.keyTag}`);
      const rrset = node.get(sig.typeCovered) ?? [];
      const data = signedData(sig, rrsig.name, rrset);
      const algorithm = algorithmByNumber(sig.algorithm);
      if (!algorithm) throw new Error('algorithm');
      const publicKey = (key.dnskey.data as unknown as { key: Buffer }).key;
      if (!verifyData(algorithm, publicKey, data, sig.signature))
        throw new Error(`bad RRSIG ${owner} ${sig.typeCovered}`);
      out.push(`${owner} ${sig.typeCovered}`);
    }
  }
  return out.sort();
}

/** The NSEC chain as [owner, next, types] from the apex round to it again. */
function chain(zone: ZoneData): Array<[string, string, string[]]> {
  const out: Array<[string, string, string[]]> = [];
  let owner = 'sig.test';
  for (let i = 0; i < 10_000; i++) {
    const nsec = zone.nodes.get(owner)?.get('NSEC')?.[0];
    if (!nsec) throw new Error(`no NSEC at ${owner}`);
    const data = nsec.data as unknown as { nextDomain: string; rrtypes: string[] };
    out.push([owner, data.nextDomain, [...data.rrtypes].sort()]);
    owner = data.nextDomain;
    if (owner === 'sig.test') return out;
  }
  throw new Error('the chain does not come back to the apex');
}

describe('signZone', () => {
  const zone = signZone(build(RECORDS), keys, DEFAULT_SIGNING_POLICY, NOW);

  it('signs every authoritative RRset with the ZSK, the DNSKEY RRset with the KSK, and nothing below the cut', () => {
    const sigs = verifiedSignatures(zone, keys);
    expect(sigs).toEqual(
      [
        '*.wild.sig.test A',
        '*.wild.sig.test NSEC',
        'a.sig.test A',
        'a.sig.test NSEC',
        'a.sig.test TXT',
        'deep.ent.x.sig.test AAAA',
        'deep.ent.x.sig.test NSEC',
        'mail.sig.test A',
        'mail.sig.test NSEC',
        'ns1.sig.test A',
        'ns1.sig.test NSEC',
        'sig.test DNSKEY',
        'sig.test MX',
        'sig.test NS',
        'sig.test NSEC',
        'sig.test SOA',
        'sub.sig.test DS',
        'sub.sig.test NSEC',
        'www.sig.test CNAME',
        'www.sig.test NSEC',
      ].sort(),
    );
    const ksk = keys.find((k) => k.flags === 257);
    const dnskeySigs = zone.nodes
      .get('sig.test')
      ?.get('RRSIG')
      ?.filter((s) => (s.data as unknown as Sig).typeCovered === 'DNSKEY');
    expect(dnskeySigs?.map((s) => (s.data as unknown as Sig).keyTag)).toEqual([ksk?.tag]);
    expect(zone.nodes.get('ns.sub.sig.test')?.has('RRSIG')).toBe(false); // glue
  });

  it('chains every authoritative name in canonical order, with the types each has', () => {
    const links = chain(zone);
    // by labels from the right: wild sorts after sub, x after www
    expect(links.map(([owner]) => owner)).toEqual([
      'sig.test',
      'a.sig.test',
      'mail.sig.test',
      'ns1.sig.test',
      'sub.sig.test',
      '*.wild.sig.test',
      'www.sig.test',
      'deep.ent.x.sig.test',
    ]);
    const owners = links.map(([owner]) => owner);
    expect([...owners].sort(canonicalCompare)).toEqual(owners);
    expect(links.find(([o]) => o === 'sub.sig.test')?.[2]).toEqual(['DS', 'NS', 'NSEC', 'RRSIG']);
    expect(links[0]?.[2]).toEqual(['DNSKEY', 'MX', 'NS', 'NSEC', 'RRSIG', 'SOA']);
    expect(links.find(([o]) => o === 'www.sig.test')?.[2]).toEqual(['CNAME', 'NSEC', 'RRSIG']);
    const nsec = zone.nodes.get('a.sig.test')?.get('NSEC')?.[0];
    expect(nsec?.ttl).toBe(300); // min(SOA TTL, SOA minimum), RFC 4035 §2.3 / RFC 9077
  });

  it('gives signatures the validity of the policy, starting an hour back, less the jitter of their RRset', () => {
    const sig = zone.nodes.get('a.sig.test')?.get('RRSIG')?.[0]?.data as unknown as Sig;
    expect(sig.inception).toBe(NOW - 3600);
    expect(sig.expiration).toBe(NOW + 14 * 86_400 - jitterOf('a.sig.test', sig.typeCovered, 3.5 * 86_400, NOW));
    expect(sig.signersName).toBe('sig.test');
    expect(sig.originalTTL).toBe(300);
  });

  it('signs nothing when no key signs yet', () => {
    const later = freshKeys('sig.test', 13, NOW + 1000);
    const unsigned = build(RECORDS);
    expect(signZone(unsigned, later, DEFAULT_SIGNING_POLICY, NOW)).toBe(unsigned);
  });
});

describe('signPatch: a change re-signs what it touched, as signing the zone whole would', () => {
  const base = signZone(build(RECORDS), keys, DEFAULT_SIGNING_POLICY, NOW);
  const cases: Array<[string, Map<string, RecordData[]>]> = [
    ['a new name between two', new Map([['b.sig.test', [r('b', 'A', '192.0.2.3')]]])],
    ['a name removed', new Map([['mail.sig.test', []]])],
    ['records of a name changed', new Map([['a.sig.test', [r('a', 'A', '192.0.2.7')]]])],
    ['a new last name (its NSEC goes back to the apex)', new Map([['zzz.sig.test', [r('zzz', 'TXT', '"last"')]]])],
    ['apex records changed', new Map([['sig.test', [r('', 'NS', 'ns1.sig.test.'), r('', 'TXT', '"apex"')]]])],
    ['glue changed', new Map([['ns.sub.sig.test', [r('ns.sub', 'A', '192.0.2.100')]]])],
    ['a new delegation (the zone is signed whole)', new Map([['a.sig.test', [r('a', 'NS', 'ns.elsewhere.test.')]]])],
  ];

  it.each(cases)('%s', (_, change) => {
    const after = new Map<string, RecordData[]>();
    for (const rec of RECORDS) after.set(rec.name, [...(after.get(rec.name) ?? []), rec]);
    for (const [owner, recs] of change) after.set(owner, recs);
    const final = [...after.values()].flat();
    const owners = new Map<string, RR[]>(
      [...change].map(([owner, recs]) => [owner, recs.map((x) => toPacketAnswer(x) as RR)]),
    );
    const patched = signPatch(base, soa(2), owners, NOW + 60);
    const whole = signZone(build(final, 2), keys, DEFAULT_SIGNING_POLICY, NOW + 60);
    expect(chain(patched)).toEqual(chain(whole));
    expect(verifiedSignatures(patched, keys)).toEqual(verifiedSignatures(whole, keys));
    expect(patched.soa.data.serial).toBe(2);
    expect(patched.signing?.chain).toEqual(whole.signing?.chain);
  });
});

describe('signZoneInSteps', () => {
  it('lets the event loop run while it signs, and signs as signZone does', async () => {
    const many = [...RECORDS];
    for (let i = 0; i < 400; i++) many.push(r(`host${i}`, 'A', `192.0.2.${i % 250}`));
    const unsigned = build(many);
    let turns = 0;
    const timer = setInterval(() => turns++, 0);
    const inSteps = await signZoneInSteps(unsigned, keys, DEFAULT_SIGNING_POLICY, NOW);
    clearInterval(timer);
    expect(turns).toBeGreaterThan(0);
    const whole = signZone(unsigned, keys, DEFAULT_SIGNING_POLICY, NOW);
    expect(chain(inSteps)).toEqual(chain(whole));
    expect(verifiedSignatures(inSteps, keys)).toEqual(verifiedSignatures(whole, keys));
  });
});

test('signing in steps tells its progress: names signed so far, of every name of the chain', async () => {
  const many = [...RECORDS];
  for (let i = 0; i < 120; i++) many.push(r(`h${String(i).padStart(3, '0')}`, 'A', `10.0.0.${i}`));
  const zone = build(many);
  const seen: Array<[number, number]> = [];
  const signed = await signZoneInSteps(zone, keys, DEFAULT_SIGNING_POLICY, NOW, (done, total) =>
    seen.push([done, total]),
  );
  const names = signed.signing?.chain.length ?? 0;
  expect(names).toBeGreaterThan(120);
  expect(seen.length).toBeGreaterThanOrEqual(2);
  expect(seen.every(([, total]) => total === names)).toBe(true);
  expect(seen.map(([done]) => done)).toEqual([...seen.map(([done]) => done)].sort((a, b) => a - b));
  expect(seen.at(-1)?.[0]).toBeLessThanOrEqual(names);
});
