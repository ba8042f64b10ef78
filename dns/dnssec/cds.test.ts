/**
 * CDS and CDNSKEY at the apex of a signed zone (RFC 7344): published for a KSK only within its window, their
 * contents the DS (SHA-256) and DNSKEY of that key, signed by the KSK and the ZSK, in the apex's NSEC bitmap; the
 * window's ends are key events (the zone is signed afresh then).
 */
import type { SoaAnswer } from 'dns-packet';
import { ZoneBuilder, type ZoneData } from '../zone/zone-index';
import type { ZoneKey } from '../zone';
import { algorithmByNumber, verifyData } from './algorithms';
import { type RrsigFields, signedData } from './canonical';
import { dnskeyRdata, dsDigest, keyTag } from './keys';
import { freshKeys } from './zone-keys';
import { DEFAULT_SIGNING_POLICY, nextKeyEvent, signZone } from './zone-signer';

const NOW = 1_790_000_000;
const soa: SoaAnswer = {
  name: 'Cds.Test',
  type: 'SOA',
  class: 'IN',
  ttl: 3600,
  data: { mname: 'ns1.cds.test', rname: 'h.cds.test', serial: 1, refresh: 1, retry: 2, expire: 3, minimum: 300 },
};

function zone(): ZoneData {
  const b = new ZoneBuilder('cds.test', soa);
  b.add({ name: 'cds.test', type: 'NS', ttl: 300, value: 'ns1.cds.test.' });
  b.add({ name: 'ns1.cds.test', type: 'A', ttl: 300, value: '192.0.2.53' });
  return b.finish();
}

const [ksk, zsk] = freshKeys('Cds.Test', 13, NOW - 10) as [ZoneKey, ZoneKey];
const windowed = (cdsAt: number | null, cdsUntil: number | null): ZoneKey[] => [{ ...ksk, cdsAt, cdsUntil }, zsk];
const rdataOf = (k: ZoneKey): Buffer => {
  const d = k.dnskey.data as unknown as { flags: number; algorithm: number; key: Buffer };
  return dnskeyRdata(d.flags, d.algorithm, d.key);
};

describe('CDS and CDNSKEY', () => {
  it('are published within the KSK window only, and the window ends are key events', () => {
    const keys = windowed(NOW + 100, NOW + 200);
    expect(nextKeyEvent(keys, NOW)).toBe(NOW + 100);
    expect(nextKeyEvent(keys, NOW + 100)).toBe(NOW + 200);
    for (const [at, present] of [
      [NOW, false],
      [NOW + 100, true],
      [NOW + 199, true],
      [NOW + 200, false],
    ] as const) {
      const apex = signZone(zone(), keys, DEFAULT_SIGNING_POLICY, at).nodes.get('cds.test');
      expect([apex?.has('CDS'), apex?.has('CDNSKEY')]).toEqual([present, present]);
    }
    expect(signZone(zone(), windowed(null, null), DEFAULT_SIGNING_POLICY, NOW).nodes.get('cds.test')?.has('CDS')).toBe(
      false,
    );
  });

  it('hold the KSK as DS (SHA-256) and DNSKEY, signed by the KSK and the ZSK, and are in the NSEC bitmap', () => {
    const apex = signZone(zone(), windowed(NOW, null), DEFAULT_SIGNING_POLICY, NOW).nodes.get('cds.test');
    const rdata = rdataOf(ksk);
    const cds = apex?.get('CDS') ?? [];
    expect(cds).toHaveLength(1);
    const ds = cds[0]?.data as unknown as Buffer;
    expect(ds.readUInt16BE(0)).toBe(keyTag(rdata));
    expect([ds[2], ds[3]]).toEqual([13, 2]);
    expect(ds.subarray(4)).toEqual(dsDigest('cds.test', rdata, 2));
    expect((apex?.get('CDNSKEY') ?? []).map((r) => r.data)).toEqual([rdata]);
    const nsec = apex?.get('NSEC')?.[0]?.data as unknown as { rrtypes: string[] };
    expect(nsec.rrtypes).toEqual(expect.arrayContaining(['CDS', 'CDNSKEY', 'DNSKEY']));
    for (const type of ['CDS', 'CDNSKEY']) {
      const sigs = (apex?.get('RRSIG') ?? [])
        .map((r) => r.data as unknown as RrsigFields & { signature: Buffer })
        .filter((s) => s.typeCovered === type);
      expect(sigs.map((s) => s.keyTag).sort()).toEqual([ksk.tag, zsk.tag].sort());
      for (const s of sigs) {
        const key = s.keyTag === ksk.tag ? ksk : zsk;
        const data = signedData(s, 'Cds.Test', apex?.get(type) ?? []);
        const algorithm = algorithmByNumber(13);
        if (!algorithm) throw new Error('algorithm 13');
        expect(verifyData(algorithm, (key.dnskey.data as unknown as { key: Buffer }).key, data, s.signature)).toBe(
          true,
        );
      }
    }
  });
});
