/**
 * NSEC3 (RFC 5155): the hash against the published vectors, the chain a zone signed whole gets (with and without
 * Opt-Out), a change re-signed incrementally giving the chain a whole signing gives, and each proof an answer carries.
 */
import type { SoaAnswer } from 'dns-packet';
import type { RecordData } from '../model/model';
import { toPacketAnswer } from '../records';
import { resolve, type RR, type ZoneData, ZoneBuilder, ZoneIndex, type ZoneKey } from '../zone';
import { algorithmByNumber, verifyData } from './algorithms';
import { DnssecAnswerSigner } from './answer-signer';
import { type RrsigFields, signedData } from './canonical';
import { base32hex, fromBase32hex, hashLabel, type Nsec3Data, nsec3Hash } from './nsec3';
import { freshKeys } from './zone-keys';
import { DEFAULT_SIGNING_POLICY, signPatch, signZone, signZoneInSteps } from './zone-signer';

describe('nsec3Hash: RFC 5155 Appendix A (salt aabbccdd, 12 iterations)', () => {
  const salt = Buffer.from('aabbccdd', 'hex');
  it.each([
    ['example', '0p9mhaveqvm6t7vbl5lop2u3t2rp3tom'],
    ['a.example', '35mthgpgcu1qg68fab165klnsnk3dpvl'],
    ['ai.example', 'gjeqe526plbf1g8mklp59enfd789njgi'],
    ['ns1.example', '2t7b4g4vsa5smi47k61mv5bv1a22bojr'],
    ['ns2.example', 'q04jkcevqvmu85r014c7dkba38o0ji5r'],
    ['w.example', 'k8udemvp1j2f7eg6jebps17vp3n8i58h'],
    ['*.w.example', 'r53bq7cc2uvmubfu5ocmm6pers9tk9en'],
    ['x.w.example', 'b4um86eghhds6nea196smvmlo4ors995'],
    ['y.w.example', 'ji6neoaepv8b5o6k4ev33abha8ht9fgc'],
    ['x.y.w.example', '2vptu5timamqttgl4luu9kg21e0aor3s'],
    ['xx.example', 't644ebqk9bibcna874givr6joj62mlhv'],
    ['2t7b4g4vsa5smi47k61mv5bv1a22bojr.example', 'kohar7mbb8dc2ce8a9qvl8hon4k53uhi'],
    ['A.Example', '35mthgpgcu1qg68fab165klnsnk3dpvl'], // the canonical (lower-case) name is hashed
  ])('%s → %s', (name, hash) => {
    expect(base32hex(nsec3Hash(name, 12, salt))).toBe(hash);
  });

  it('with our parameters (no extra iteration, no salt) hashes the name once', () => {
    expect(hashLabel('example')).toBe(base32hex(nsec3Hash('example', 0, Buffer.alloc(0))));
    expect(hashLabel('example')).not.toBe(base32hex(nsec3Hash('example', 1)));
    expect(fromBase32hex(hashLabel('example'))).toEqual(nsec3Hash('example'));
  });
});

const NOW = 1_790_000_000;
const ZONE = 'n3.test';
const soa = (serial = 1): SoaAnswer => ({
  name: ZONE,
  type: 'SOA',
  class: 'IN',
  ttl: 3600,
  data: { mname: `ns1.${ZONE}`, rname: `hostmaster.${ZONE}`, serial, refresh: 1, retry: 2, expire: 3, minimum: 300 },
});
const r = (name: string, type: RecordData['type'], value: string): RecordData => ({
  name: name ? `${name}.${ZONE}` : ZONE,
  type,
  ttl: 600,
  value,
});
const DS = '12345 13 2 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef';
const RECORDS: RecordData[] = [
  r('', 'NS', `ns1.${ZONE}.`),
  r('ns1', 'A', '192.0.2.53'),
  r('a', 'A', '192.0.2.1'),
  r('a', 'TXT', '"text"'),
  r('*.wild', 'A', '192.0.2.9'),
  r('deep.ent.x', 'AAAA', '2001:db8::1'),
  r('secure', 'NS', `ns.secure.${ZONE}.`),
  r('secure', 'DS', DS),
  r('ns.secure', 'A', '192.0.2.98'),
  r('insecure', 'NS', `ns.insecure.${ZONE}.`),
  r('ns.insecure', 'A', '192.0.2.99'),
  r('cut.below.ent', 'NS', 'ns.elsewhere.test.'),
];

function build(records: readonly RecordData[], serial = 1): ZoneData {
  const builder = new ZoneBuilder(ZONE, soa(serial));
  const sorted = [...records].sort((x, y) =>
    x.name < y.name ? -1 : x.name > y.name ? 1 : x.type < y.type ? -1 : x.type > y.type ? 1 : 0,
  );
  for (const rec of sorted) builder.add(rec);
  return builder.finish();
}

const keys: ZoneKey[] = freshKeys(ZONE, 13, NOW - 10);
const policy = (optOut: boolean) => ({ ...DEFAULT_SIGNING_POLICY, nsec3: { optOut } });

/** Every NSEC3 of the zone by hashed label: the next label, the flags and the sorted types. */
function nsec3s(zone: ZoneData): Map<string, { next: string; flags: number; types: string[]; ttl: number }> {
  const out = new Map<string, { next: string; flags: number; types: string[]; ttl: number }>();
  for (const [owner, node] of zone.nodes.entries()) {
    const rr = node.get('NSEC3')?.[0];
    if (!rr) continue;
    const d = rr.data as unknown as Nsec3Data;
    expect(d.algorithm).toBe(1);
    expect(d.iterations).toBe(0);
    expect(d.salt.length).toBe(0);
    out.set(owner.split('.')[0] ?? '', {
      next: base32hex(d.nextDomain),
      flags: d.flags,
      types: [...d.rrtypes].sort(),
      ttl: rr.ttl ?? -1,
    });
  }
  return out;
}

/** Every RRSIG of the zone verified under the key of its tag; returns "owner type" of each. */
function verified(zone: ZoneData): string[] {
  const out: string[] = [];
  for (const [owner, node] of zone.nodes.entries())
    for (const rrsig of node.get('RRSIG') ?? []) {
      const sig = rrsig.data as unknown as RrsigFields & { signature: Buffer };
      const key = keys.find((k) => k.tag === sig.keyTag) as ZoneKey;
      const data = signedData(sig, rrsig.name, node.get(sig.typeCovered) ?? []);
      const publicKey = (key.dnskey.data as unknown as { key: Buffer }).key;
      expect(verifyData(algorithmByNumber(sig.algorithm)!, publicKey, data, sig.signature)).toBe(true);
      out.push(`${owner} ${sig.typeCovered}`);
    }
  return out.sort();
}

describe('signZone with NSEC3', () => {
  const plain = signZone(build(RECORDS), keys, policy(false), NOW);
  const optOut = signZone(build(RECORDS), keys, policy(true), NOW);
  const names = (...list: string[]) => list.map((n) => hashLabel(n ? `${n}.${ZONE}` : ZONE)).sort();

  it('hashes every authoritative name and empty non-terminal, glue and NSEC never', () => {
    const chain = nsec3s(plain);
    expect([...chain.keys()].sort()).toEqual(
      names(
        '',
        'ns1',
        'a',
        '*.wild',
        'wild',
        'deep.ent.x',
        'ent.x',
        'x',
        'secure',
        'insecure',
        'cut.below.ent',
        'below.ent',
        'ent',
      ),
    );
    for (const node of plain.nodes.values()) expect(node.has('NSEC')).toBe(false);
    const typesOf = (n: string) => chain.get(hashLabel(n ? `${n}.${ZONE}` : ZONE))?.types;
    expect(typesOf('')).toEqual(['DNSKEY', 'NS', 'NSEC3PARAM', 'RRSIG', 'SOA']);
    expect(typesOf('a')).toEqual(['A', 'RRSIG', 'TXT']);
    expect(typesOf('ent.x')).toEqual([]);
    expect(typesOf('secure')).toEqual(['DS', 'NS', 'RRSIG']);
    expect(typesOf('insecure')).toEqual(['NS']);
    expect([...chain.values()].every((c) => c.flags === 0 && c.ttl === 300)).toBe(true);
  });

  it('links the hashes in order and back to the first', () => {
    for (const zone of [plain, optOut]) {
      const chain = nsec3s(zone);
      const sorted = [...chain.keys()].sort();
      sorted.forEach((label, i) => expect(chain.get(label)?.next).toBe(sorted[(i + 1) % sorted.length]));
      expect(zone.signing?.chainKeys).toEqual(sorted);
    }
  });

  it('with Opt-Out leaves unsigned delegations out and sets the flag; NSEC3PARAM flags stay 0', () => {
    const chain = nsec3s(optOut);
    expect(chain.has(hashLabel(`insecure.${ZONE}`))).toBe(false);
    // an empty non-terminal with only an unsigned delegation below it goes too
    expect(chain.has(hashLabel(`cut.below.ent.${ZONE}`))).toBe(false);
    expect(chain.has(hashLabel(`below.ent.${ZONE}`))).toBe(false);
    expect(chain.has(hashLabel(`ent.x.${ZONE}`))).toBe(true);
    expect(chain.has(hashLabel(`secure.${ZONE}`))).toBe(true);
    expect([...chain.values()].every((c) => c.flags === 1)).toBe(true);
    const param = optOut.nodes.get(ZONE)?.get('NSEC3PARAM')?.[0]?.data as unknown as Buffer;
    expect([...param]).toEqual([1, 0, 0, 0, 0]);
  });

  it('signs every NSEC3 and the NSEC3PARAM, nothing at a delegation but DS', () => {
    const sigs = verified(plain);
    expect(sigs.filter((s) => s.endsWith(' NSEC3'))).toHaveLength(nsec3s(plain).size);
    expect(sigs).toContain(`${ZONE} NSEC3PARAM`);
    expect(sigs.filter((s) => s.startsWith(`insecure.${ZONE}`))).toEqual([]);
    expect(sigs.filter((s) => s.startsWith(`secure.${ZONE}`))).toEqual([`secure.${ZONE} DS`]);
  });

  it('signing afresh from an NSEC3 copy with NSEC drops the NSEC3 chain and its parameters', () => {
    const back = signZone(plain, keys, DEFAULT_SIGNING_POLICY, NOW + 10);
    expect(nsec3s(back).size).toBe(0);
    expect(back.nodes.get(ZONE)?.has('NSEC3PARAM')).toBe(false);
    expect(back.nodes.get(ZONE)?.has('NSEC')).toBe(true);
    expect(verified(back).some((s) => s.endsWith('NSEC3') || s.endsWith('NSEC3PARAM'))).toBe(false);
  });
});

it('signing in steps, by the signing pool for a large zone, gives the NSEC3 chain signZone gives', async () => {
  const many = [...RECORDS];
  for (let i = 0; i < 2100; i++) many.push(r(`h${i}.g${i % 7}`, 'A', `10.0.${i % 250}.1`));
  const unsigned = build(many);
  const inSteps = await signZoneInSteps(unsigned, keys, policy(false), NOW);
  const whole = signZone(unsigned, keys, policy(false), NOW);
  expect(nsec3s(inSteps)).toEqual(nsec3s(whole));
  expect(nsec3s(inSteps).size).toBe(2100 + 7 + 13); // the hosts, their 7 empty parents, the 13 of RECORDS
  expect(verified(inSteps)).toEqual(verified(whole));
}, 60_000);

describe('signPatch with NSEC3: the chain a whole signing gives', () => {
  const cases: Array<[string, Map<string, RecordData[]>]> = [
    ['a new name', new Map([['b.n3.test', [r('b', 'A', '192.0.2.3')]]])],
    ['a name removed', new Map([['a.n3.test', []]])],
    ['a name under new empty non-terminals', new Map([['p.q.r.n3.test', [r('p.q.r', 'A', '192.0.2.4')]]])],
    ['the only name under empty non-terminals removed', new Map([['deep.ent.x.n3.test', []]])],
    ['an empty non-terminal gets records', new Map([['ent.x.n3.test', [r('ent.x', 'TXT', '"now"')]]])],
    ['types of a name changed', new Map([['a.n3.test', [r('a', 'A', '192.0.2.1')]]])],
    [
      'a DS added to an unsigned delegation',
      new Map([['insecure.n3.test', [r('insecure', 'NS', 'ns.x.'), r('insecure', 'DS', DS)]]]),
    ],
    ['a DS removed from a signed delegation', new Map([['secure.n3.test', [r('secure', 'NS', `ns.secure.${ZONE}.`)]]])],
    [
      'a DS at an unsigned delegation below empty non-terminals',
      new Map([['cut.below.ent.n3.test', [r('cut.below.ent', 'NS', 'ns.x.'), r('cut.below.ent', 'DS', DS)]]]),
    ],
    [
      'a name beside an unsigned delegation below empty non-terminals',
      new Map([['leaf.below.ent.n3.test', [r('leaf.below.ent', 'A', '192.0.2.5')]]]),
    ],
    ['apex records', new Map([['n3.test', [r('', 'NS', `ns1.${ZONE}.`), r('', 'MX', `10 a.${ZONE}.`)]]])],
  ];
  const after = (change: Map<string, RecordData[]>): RecordData[] => {
    const byName = new Map<string, RecordData[]>();
    for (const rec of RECORDS) byName.set(rec.name, [...(byName.get(rec.name) ?? []), rec]);
    for (const [owner, recs] of change) byName.set(owner, recs);
    return [...byName.values()].flat();
  };

  for (const optOut of [false, true])
    it.each(cases)(`${optOut ? 'opt-out' : 'no opt-out'}: %s`, (_, change) => {
      const base = signZone(build(RECORDS), keys, policy(optOut), NOW);
      const owners = new Map<string, RR[]>(
        [...change].map(([owner, recs]) => [owner, recs.map((x) => toPacketAnswer(x) as RR)]),
      );
      const patched = signPatch(base, soa(2), owners, NOW + 60);
      const whole = signZone(build(after(change), 2), keys, policy(optOut), NOW + 60);
      expect(nsec3s(patched)).toEqual(nsec3s(whole));
      expect(verified(patched)).toEqual(verified(whole));
      expect(patched.signing?.chainKeys).toEqual(whole.signing?.chainKeys);
      expect(patched.signing?.chain).toEqual(whole.signing?.chain);
    });
});

describe('answers with NSEC3 proofs (RFC 5155 §7.2)', () => {
  const answer = (zone: ZoneData, qname: string, qtype: string) => {
    const index = new ZoneIndex();
    index.set(zone);
    return new DnssecAnswerSigner().sign(resolve(index, qname, qtype), qname, qtype, true);
  };
  const proofs = (records: readonly RR[]) =>
    records.filter((x) => x.type === 'NSEC3').map((x) => ({ label: x.name.split('.')[0] ?? '', ...x.data }));
  const matches = (p: { label: string }, name: string) => p.label === hashLabel(name);
  const covers = (p: { label: string; nextDomain: Buffer }, name: string) => {
    const h = hashLabel(name);
    const next = base32hex(p.nextDomain);
    return p.label < next ? p.label < h && h < next : h > p.label || h < next; // the last wraps to the first
  };
  const signedWithSigs = (records: readonly RR[]) =>
    proofs(records).every((p) =>
      records.some(
        (x) =>
          x.type === 'RRSIG' &&
          x.name.startsWith(p.label) &&
          (x.data as unknown as RrsigFields).typeCovered === 'NSEC3',
      ),
    );

  for (const optOut of [false, true]) {
    const zone = signZone(build(RECORDS), keys, policy(optOut), NOW);
    const tag = optOut ? ' (opt-out)' : '';

    it(`NXDOMAIN: closest encloser, next closer and wildcard${tag}`, () => {
      const res = answer(zone, `nope.ent.x.${ZONE}`, 'A');
      expect(res.rcode).toBe('NXDOMAIN');
      const p = proofs(res.authorities);
      expect(p.length).toBeLessThanOrEqual(3); // one NSEC3 may cover both the next closer name and the wildcard
      expect(p.some((x) => matches(x, `ent.x.${ZONE}`))).toBe(true);
      expect(p.some((x) => covers(x, `nope.ent.x.${ZONE}`))).toBe(true);
      expect(p.some((x) => covers(x, `*.ent.x.${ZONE}`))).toBe(true);
      expect(signedWithSigs(res.authorities)).toBe(true);
    });

    it(`NODATA: the name's own NSEC3, also at an empty non-terminal${tag}`, () => {
      for (const name of [`a.${ZONE}`, `ent.x.${ZONE}`]) {
        const res = answer(zone, name, 'MX');
        expect(res.rcode).toBe('NOERROR');
        expect(res.answers).toEqual([]);
        const p = proofs(res.authorities);
        expect(p).toHaveLength(1);
        expect(matches(p[0]!, name)).toBe(true);
      }
    });

    it(`a wildcard answer proves the next closer name is not there${tag}`, () => {
      const res = answer(zone, `host.wild.${ZONE}`, 'A');
      expect(res.answers.some((x) => x.type === 'A')).toBe(true);
      const p = proofs(res.authorities);
      expect(p).toHaveLength(1);
      expect(covers(p[0]!, `host.wild.${ZONE}`)).toBe(true);
    });

    it(`wildcard NODATA: closest encloser, next closer, the wildcard's own NSEC3${tag}`, () => {
      const res = answer(zone, `host.wild.${ZONE}`, 'TXT');
      expect(res.answers).toEqual([]);
      const p = proofs(res.authorities);
      expect(p.some((x) => matches(x, `wild.${ZONE}`))).toBe(true);
      expect(p.some((x) => covers(x, `host.wild.${ZONE}`))).toBe(true);
      expect(p.some((x) => matches(x, `*.wild.${ZONE}`))).toBe(true);
    });

    it(`a referral to an unsigned delegation, and DS asked there${tag}`, () => {
      for (const [qname, qtype] of [
        [`www.insecure.${ZONE}`, 'A'],
        [`insecure.${ZONE}`, 'DS'],
      ] as const) {
        const res = answer(zone, qname, qtype);
        const p = proofs(res.authorities);
        if (!optOut) {
          expect(p).toHaveLength(1);
          expect(matches(p[0]!, `insecure.${ZONE}`)).toBe(true);
          expect(p[0]!.rrtypes).not.toContain('DS');
        } else {
          // closest provable encloser (the apex) and an Opt-Out NSEC3 covering the delegation
          expect(p.some((x) => matches(x, ZONE))).toBe(true);
          expect(p.some((x) => covers(x, `insecure.${ZONE}`) && x.flags === 1)).toBe(true);
        }
      }
    });

    it(`a signed delegation's referral carries its DS, no NSEC3${tag}`, () => {
      const res = answer(zone, `www.secure.${ZONE}`, 'A');
      expect(res.authorities.some((x) => x.type === 'DS')).toBe(true);
      expect(proofs(res.authorities)).toEqual([]);
    });
  }

  it('NSEC3PARAM at the apex is answered; a hashed owner name is NXDOMAIN', () => {
    const zone = signZone(build(RECORDS), keys, policy(false), NOW);
    const param = answer(zone, ZONE, 'NSEC3PARAM');
    expect(param.answers.map((x) => x.type)).toEqual(['NSEC3PARAM', 'RRSIG']);
    const owner = `${hashLabel(`a.${ZONE}`)}.${ZONE}`;
    // no name of the zone, whatever the type (RFC 5155 §7.2.8), as BIND answers
    for (const type of ['NSEC3', 'A']) expect(answer(zone, owner, type).rcode).toBe('NXDOMAIN');
  });
});
