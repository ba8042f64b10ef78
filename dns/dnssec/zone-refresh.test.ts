/**
 * Signatures with spread expirations, and refreshes that sign again only what nears expiry (Knot's rrsig-refresh,
 * BIND's re-signing in slices): a whole signing spreads expirations over the last quarter of the validity, a refresh
 * at the scheduler's time signs again exactly the RRsets due (and the SOA for its serial), every signature still
 * verifies, and refreshes one after another keep the zone valid for months without signing it whole.
 */
import type { SoaAnswer } from 'dns-packet';
import type { RecordData } from '../model/model';
import { encodeZoneImage, readZoneImage, type RR, ZoneBuilder, type ZoneData, type ZoneKey } from '../zone';
import { algorithmByNumber, verifyData } from './algorithms';
import { type RrsigFields, signedData } from './canonical';
import { SigningScheduler } from './scheduler';
import { jitterOf, signingTimes, signingTimesProblem } from './signing-times';
import { freshKeys } from './zone-keys';
import { refreshSignatures } from './zone-refresh';
import { DEFAULT_SIGNING_POLICY, signZone } from './zone-signer';

const T0 = 1_790_000_000;
const DAY = 86_400;
const ZONE = 'fresh.test';

const soa = (serial: number): SoaAnswer => ({
  name: 'Fresh.Test',
  type: 'SOA',
  class: 'IN',
  ttl: 3600,
  data: {
    mname: 'ns1.fresh.test',
    rname: 'hostmaster.fresh.test',
    serial,
    refresh: 1,
    retry: 2,
    expire: 3,
    minimum: 300,
  },
});
const r = (name: string, type: RecordData['type'], value: string): RecordData => ({
  name: name ? `${name}.${ZONE}` : ZONE,
  type,
  ttl: 300,
  value,
});
const RECORDS: RecordData[] = [
  r('', 'NS', 'ns1.fresh.test.'),
  r('', 'MX', '10 mail.fresh.test.'),
  r('*.wild', 'A', '192.0.2.9'),
  r('ns1', 'A', '192.0.2.53'),
  r('sub', 'NS', 'ns.sub.fresh.test.'),
  r('ns.sub', 'A', '192.0.2.99'),
  r('signed', 'NS', 'ns.signed.fresh.test.'),
  r('signed', 'DS', '12345 13 2 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef'),
  r('www', 'CNAME', 'h1.fresh.test.'),
  ...Array.from({ length: 120 }, (_, i) => r(`h${i}`, 'A', `192.0.2.${i % 250}`)),
  ...Array.from({ length: 40 }, (_, i) => r(`h${i}`, 'TXT', `"host ${i}"`)),
];

function build(): ZoneData {
  const builder = new ZoneBuilder(ZONE, soa(1));
  for (const rec of RECORDS) builder.add(rec);
  return builder.finish();
}

const keys = freshKeys('Fresh.Test', 13, T0 - 10);
const policy = DEFAULT_SIGNING_POLICY; // 14 days; jitter 3.5 d, refresh 3.5 d, pre-refresh 1 d
const nsec3Policy = { ...policy, nsec3: { optOut: false } };

interface Sig extends RrsigFields {
  signature: Buffer;
}

/** Every RRSIG of the zone by "owner type tag". */
function signatures(zone: ZoneData): Map<string, Sig> {
  const out = new Map<string, Sig>();
  for (const [owner, node] of zone.nodes.entries())
    for (const rrsig of node.get('RRSIG') ?? []) {
      const sig = rrsig.data as unknown as Sig;
      out.set(`${owner} ${sig.typeCovered} ${sig.keyTag}`, sig);
    }
  return out;
}

/**
 * Checks every RRSIG: it is valid at `now` with more than `left` seconds to go, and (`verify`) verifies under its key.
 */
function expectValid(zone: ZoneData, zoneKeys: readonly ZoneKey[], now: number, left = 0, verify = true): void {
  for (const [owner, node] of zone.nodes.entries())
    for (const rrsig of node.get('RRSIG') ?? []) {
      const sig = rrsig.data as unknown as Sig;
      if (!(sig.inception <= now && sig.expiration - now > left))
        throw new Error(`RRSIG ${owner} ${sig.typeCovered} not valid at ${now}: ${sig.inception}–${sig.expiration}`);
      if (!verify) continue;
      const key = zoneKeys.find((k) => k.tag === sig.keyTag);
      const algorithm = algorithmByNumber(sig.algorithm);
      if (!key || !algorithm) throw new Error(`no key ${sig.keyTag}`);
      const data = signedData(sig, rrsig.name, node.get(sig.typeCovered) ?? []);
      const publicKey = (key.dnskey.data as unknown as { key: Buffer }).key;
      if (!verifyData(algorithm, publicKey, data, sig.signature))
        throw new Error(`bad RRSIG ${owner} ${sig.typeCovered}`);
    }
}

/** Which RRSIGs of `before` were made again in `after` (a new inception). */
function remade(before: ZoneData, after: ZoneData): string[] {
  const old = signatures(before);
  return [...signatures(after)].filter(([id, sig]) => old.get(id)?.inception !== sig.inception).map(([id]) => id);
}

const earliest = (zone: ZoneData): number => Math.min(...[...signatures(zone).values()].map((s) => s.expiration));
const nsecs = (zone: ZoneData): RR[] => [...zone.nodes.values()].flatMap((n) => [...(n.get('NSEC') ?? [])]);

describe('spread expirations', () => {
  const signed = signZone(build(), keys, policy, T0);

  test('a signing spreads them over the last quarter of the validity, the same in a signing at the same time', () => {
    const sigs = [...signatures(signed).values()];
    const expirations = sigs.map((s) => s.expiration);
    expect(Math.min(...expirations)).toBeGreaterThanOrEqual(T0 + 10.5 * DAY);
    expect(Math.max(...expirations)).toBeLessThanOrEqual(T0 + 14 * DAY);
    expect(new Set(expirations).size).toBeGreaterThan(sigs.length / 2);
    expect(signed.signing?.expiresAt).toBe(Math.min(...expirations));
    for (const s of sigs) expect(s.inception).toBe(T0 - 3600);
    const again = signatures(signZone(build(), keys, policy, T0));
    for (const [id, sig] of signatures(signed)) expect(again.get(id)?.expiration).toBe(sig.expiration);
  });

  test("an RRset's jitter depends on its owner (whatever its case), type and signing time, within the window", () => {
    expect(jitterOf('A.Fresh.Test', 'A', 1000, T0)).toBe(jitterOf('a.fresh.test', 'A', 1000, T0));
    expect(jitterOf('a.fresh.test', 'A', 0, T0)).toBe(0);
    const later = Array.from({ length: 50 }, (_, i) => jitterOf('a.fresh.test', 'A', 1000, T0 + i));
    expect(new Set(later).size).toBeGreaterThan(40); // signed again: another draw
    const values = Array.from({ length: 200 }, (_, i) => jitterOf(`h${i}.fresh.test`, 'A', 1000, T0));
    expect(Math.min(...values)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...values)).toBeLessThanOrEqual(1000);
    expect(new Set(values).size).toBeGreaterThan(150);
  });

  test('times that do not fit together are refused: a fresh signature would be due at once', () => {
    expect(signingTimesProblem(signingTimes(policy))).toBeNull();
    const bad = signingTimes({ ...policy, signatureJitter: 7 * DAY, signatureRefresh: 7 * DAY });
    expect(signingTimesProblem(bad)).toMatch(/must be less than the validity/);
    expect(signingTimesProblem({ ...signingTimes(policy), refresh: -1 })).toMatch(/≥ 0/);
  });
});

describe.each([
  ['NSEC', policy],
  ['NSEC3', nsec3Policy],
])('refreshSignatures (%s)', (denial, zonePolicy) => {
  const signed = signZone(build(), keys, zonePolicy, T0);

  test('at the scheduler time, signs again only the RRsets due and the SOA; all verify, the chain stays', async () => {
    const due = SigningScheduler.dueAt(signed) as number;
    expect(due).toBe((signed.signing?.expiresAt ?? 0) - 3.5 * DAY);
    const dueBy = due + 3.5 * DAY + DAY;
    const expected = [...signatures(signed)]
      .filter(([id, sig]) => sig.expiration <= dueBy || id.startsWith(`${ZONE} SOA `))
      .map(([id]) => id);
    const refreshed = await refreshSignatures(signed, soa(2), due);
    if (!refreshed) throw new Error('not refreshed');
    const { data } = refreshed;
    expect(remade(signed, data).sort()).toEqual(expected.sort());
    expect(refreshed.resigned).toBe(expected.length);
    expect(expected.length).toBeGreaterThan(1);
    expect(expected.length).toBeLessThan(signatures(signed).size / 2); // a slice, not the zone
    if (denial === 'NSEC3') expect(expected.some((id) => id.includes(' NSEC3 '))).toBe(true);
    else expect(expected.some((id) => id.includes(' NSEC '))).toBe(true);
    expectValid(data, keys, due, 3.5 * DAY);
    expect(nsecs(data)).toEqual(nsecs(signed));
    expect(data.signing?.chain).toEqual(signed.signing?.chain);
    expect(data.soa.data.serial).toBe(2);
    expect(data.signing?.expiresAt).toBe(earliest(data));
    expect(data.signing?.signedAt).toBe(T0); // the keys' state: as of the whole signing
    expect(SigningScheduler.dueAt(data)).toBeGreaterThan(due + DAY - 1); // the pre-refresh took a day's worth
  });

  test("refresh after refresh at the scheduler's times: valid for a year, never the whole zone at once", async () => {
    let zone = signed;
    let serial = 1;
    let at = T0;
    const total = signatures(signed).size;
    while (at < T0 + 365 * DAY) {
      const due = SigningScheduler.dueAt(zone) as number;
      expect(due).toBeGreaterThan(at);
      at = due;
      expectValid(zone, keys, at, 3.5 * DAY - 1, false); // nothing has less than the refresh margin left when due
      const refreshed = await refreshSignatures(zone, soa(++serial), at);
      if (!refreshed) throw new Error('not refreshed');
      expect(refreshed.resigned).toBeLessThan(total);
      zone = refreshed.data;
      expect(zone.signing?.expiresAt).toBe(earliest(zone));
    }
    expectValid(zone, keys, at, 3.5 * DAY);
    // in slices, at most one a day (the pre-refresh), more often than a whole signing at half the validity would be
    expect(serial - 1).toBeLessThanOrEqual(366);
    expect(serial - 1).toBeGreaterThan(365 / 7);
  });

  test('nothing due: only the SOA is signed again for the new serial (the same serial: nothing)', async () => {
    const refreshed = await refreshSignatures(signed, soa(2), T0 + 60);
    expect(remade(signed, refreshed?.data as ZoneData)).toEqual([`${ZONE} SOA ${keys[1]?.tag}`]);
    const same = await refreshSignatures(signed, soa(1), T0 + 60);
    expect(same?.resigned).toBe(0);
    expectValid(refreshed?.data as ZoneData, keys, T0 + 60);
  });

  test('the zone image (kept files, answer threads) keeps each signature’s times and the earliest expiration', async () => {
    const due = SigningScheduler.dueAt(signed) as number;
    const { data } = (await refreshSignatures(signed, soa(2), due)) ?? { data: signed };
    const back = await readZoneImage(await encodeZoneImage(data), undefined);
    const expected = [...signatures(data)].map(([id, s]) => [id, s.inception, s.expiration]);
    expect([...signatures(back)].map(([id, s]) => [id, s.inception, s.expiration])).toEqual(expected);
    expect(back.signing?.expiresAt).toBe(data.signing?.expiresAt);
  });
});

test('a due signature by a key that stopped signing: null, the zone is signed whole', async () => {
  const [ksk, zsk] = keys as [ZoneKey, ZoneKey];
  const retiring = [ksk, { ...zsk, inactiveAt: T0 + 5 * DAY }];
  const signed = signZone(build(), retiring, policy, T0);
  expect(await refreshSignatures(signed, soa(2), (signed.signing?.expiresAt ?? 0) - 3.5 * DAY)).toBeNull();
});
