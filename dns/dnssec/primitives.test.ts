/**
 * DNSSEC primitives against the published test vectors (docs/dnssec.md; RFC 4034, 4509, 6605, 8080): key tags, DS
 * digests, the RFC 6605 signature, canonical order; and signatures of every algorithm verified by node:crypto.
 */
import { createPrivateKey } from 'node:crypto';
import type { RR } from '../zone/rr';
import {
  ALGORITHMS,
  algorithmByName,
  algorithmByNumber,
  dnskeyPublicKey,
  generatePrivateKey,
  keyBits,
  privateKeyObject,
  publicKeyFromDnskey,
  signData,
  verifyData,
} from './algorithms';
import { canonicalCompare, labelCount, rrsigTime, signedData } from './canonical';
import { canonicalName, dnskeyRdata, dsDigest, keyTag } from './keys';

/** A DNSKEY in presentation form: owner, flags, algorithm, base64 key. */
function dnskey(text: string): { owner: string; rdata: Buffer; flags: number; algorithm: number; key: Buffer } {
  const [owner, flags, protocol, algorithm, ...key] = text.split(/\s+/);
  expect(protocol).toBe('3');
  const k = Buffer.from(key.join(''), 'base64');
  return {
    owner: (owner ?? '').replace(/\.$/, ''),
    rdata: dnskeyRdata(Number(flags), Number(algorithm), k),
    flags: Number(flags),
    algorithm: Number(algorithm),
    key: k,
  };
}

const VECTORS: Array<{ source: string; key: string; tag: number; ds: Array<[1 | 2 | 4, string]> }> = [
  {
    source: 'RFC 4034 §5.4 / RFC 4509 §2.3',
    key: 'dskey.example.com. 256 3 5 AQOeiiR0GOMYkDshWoSKz9XzfwJr1AYtsmx3TGkJaNXVbfi/2pHm822aJ5iI9BMzNXxeYCmZDRD99WYwYqUSdjMmmAphXdvxegXd/M5+X7OrzKBaMbCVdFLUUh6DhweJBjEVv5f2wwjM9XzcnOf+EPbtG9DMBmADjFDc2w/rljwvFw==',
    tag: 60485,
    ds: [
      [1, '2BB183AF5F22588179A53B0A98631FAD1A292118'],
      [2, 'D4B7D520E7BB5F0F67674A0CCEB1E3E0614B93C4F9E99B8383F6A1E4469DA50A'],
    ],
  },
  {
    source: 'RFC 6605 §6.1',
    key: 'example.net. 257 3 13 GojIhhXUN/u4v54ZQqGSnyhWJwaubCvTmeexv7bR6edbkrSqQpF64cYbcB7wNcP+e+MAnLr+Wi9xMWyQLc8NAA==',
    tag: 55648,
    ds: [[2, 'B4C8C1FE2E7477127B27115656AD6256F424625BF5C1E2770CE6D6E37DF61D17']],
  },
  {
    source: 'RFC 6605 §6.2',
    key: 'example.net. 257 3 14 xKYaNhWdGOfJ+nPrL8/arkwf2EY3MDJ+SErKivBVSum1w/egsXvSADtNJhyem5RCOpgQ6K8X1DRSEkrbYQ+OB+v8/uX45NBwY8rp65F6Glur8I/mlVNgF6W/qTI37m40',
    tag: 10771,
    ds: [[4, '72D7B62976CE06438E9C0BF319013CF801F09ECC84B8D7E9495F27E305C6A9B0563A9B5F4D288405C3008A946DF983D6']],
  },
  {
    source: 'RFC 8080 §6.1',
    key: 'example.com. 257 3 15 l02Woi0iS8Aa25FQkUd9RMzZHJpBoRQwAQEX1SxZJA4=',
    tag: 3613,
    ds: [[2, '3AA5AB37EFCE57F737FC1627013FEE07BDF241BD10F3B1964AB55C78E79A304B']],
  },
];

describe.each(VECTORS)('$source', ({ key, tag, ds }) => {
  const k = dnskey(key);
  test(`key tag ${tag}`, () => expect(keyTag(k.rdata)).toBe(tag));
  test.each(ds)('DS digest type %d', (type, digest) =>
    expect(dsDigest(k.owner, k.rdata, type).toString('hex').toUpperCase()).toBe(digest),
  );
  test('the owner name is hashed in lower case (canonical form)', () =>
    expect(dsDigest(k.owner.toUpperCase(), k.rdata, 2)).toEqual(dsDigest(k.owner, k.rdata, 2)));
});

describe('RFC 6605 §6.1: the published RRSIG over www.example.net A', () => {
  const k = dnskey(VECTORS[1]?.key ?? '');
  const algorithm = algorithmByNumber(13);
  const rrset: RR[] = [{ name: 'www.example.net', type: 'A', class: 'IN', ttl: 3600, data: '192.0.2.1' }];
  const fields = {
    typeCovered: 'A',
    algorithm: 13,
    labels: 3,
    originalTTL: 3600,
    expiration: rrsigTime('20100909100439'),
    inception: rrsigTime('20100812100439'),
    keyTag: 55648,
    signersName: 'example.net',
  };
  const published = Buffer.from(
    'qx6wLYqmh+l9oCKTN6qIc+bw6ya+KJ8oMz0YP107epXAyGmt+3SNruPFKG7tZoLBLlUzGGus7ZwmwWep666VCw==',
    'base64',
  );

  test('verifies over the data we build (canonical RRset, RRSIG fields)', () => {
    if (!algorithm) throw new Error('no algorithm 13');
    expect(verifyData(algorithm, k.key, signedData(fields, 'www.example.net', rrset), published)).toBe(true);
    // the wire names handed in by a zone signer give the same data
    const wire = { owner: canonicalName('www.example.net'), signer: canonicalName('example.net') };
    expect(signedData(fields, 'www.example.net', rrset, wire)).toEqual(signedData(fields, 'www.example.net', rrset));
    // the check can fail: another TTL is other signed data
    expect(
      verifyData(algorithm, k.key, signedData({ ...fields, originalTTL: 3601 }, 'www.example.net', rrset), published),
    ).toBe(false);
  });

  test('the published private key gives the published DNSKEY, and our signature with it verifies', () => {
    if (!algorithm) throw new Error('no algorithm 13');
    const half = k.key.length / 2;
    const jwk = {
      kty: 'EC',
      crv: 'P-256',
      d: Buffer.from('GU6SnQ/Ou+xC5RumuIUIuJZteXT2z0O/ok1s38Et6mQ=', 'base64').toString('base64url'),
      x: k.key.subarray(0, half).toString('base64url'),
      y: k.key.subarray(half).toString('base64url'),
    };
    const privateKey = createPrivateKey({ key: jwk, format: 'jwk' });
    expect(dnskeyPublicKey(algorithm, privateKey)).toEqual(k.key);
    const data = signedData(fields, 'WWW.Example.NET', rrset); // owner case does not matter
    const ours = signData(algorithm, privateKey, data);
    expect(ours).toHaveLength(64);
    expect(verifyData(algorithm, k.key, data, ours)).toBe(true);
  });
});

describe.each(ALGORITHMS.map((a) => [a.name, a] as const))('%s', (_, algorithm) => {
  const pkcs8 = generatePrivateKey(algorithm, algorithm.name === 'RSASHA256' ? 1024 : undefined);
  const key = privateKeyObject(pkcs8);
  const publicKey = dnskeyPublicKey(algorithm, key);

  test('signatures verify under the DNSKEY public key, and not for other data', () => {
    const data = Buffer.from('signed data');
    const signature = signData(algorithm, key, data);
    expect(verifyData(algorithm, publicKey, data, signature)).toBe(true);
    expect(verifyData(algorithm, publicKey, Buffer.from('other data'), signature)).toBe(false);
  });

  test('the DNSKEY public key field has the size of its algorithm, and reads back as the same key', () => {
    const size = { RSASHA256: 1 + 3 + 128, ECDSAP256SHA256: 64, ECDSAP384SHA384: 96, ED25519: 32 }[algorithm.name];
    expect(publicKey).toHaveLength(size);
    expect(publicKeyFromDnskey(algorithm, publicKey).export({ format: 'jwk' })).toEqual(
      publicKeyFromDnskey(algorithm, dnskeyPublicKey(algorithm, key)).export({ format: 'jwk' }),
    );
    expect(keyBits(algorithm, key)).toBe(algorithm.name === 'RSASHA256' ? 1024 : algorithm.defaultBits);
  });
});

test('algorithms by name (any case) and number; unknown ones are undefined', () => {
  expect(algorithmByName('ecdsap256sha256')?.number).toBe(13);
  expect(algorithmByName('RSASHA1')).toBeUndefined();
  expect(algorithmByNumber(15)?.name).toBe('ED25519');
  expect(algorithmByNumber(5)).toBeUndefined();
});

test('canonical order: the example of RFC 4034 §6.1, for the names a zone here can hold', () => {
  const ordered = [
    'example',
    'a.example',
    'yljkjljk.a.example',
    'z.a.example',
    'zabc.a.example',
    'z.example',
    '*.z.example',
  ];
  const shuffled = [...ordered].reverse();
  shuffled.push(shuffled.splice(2, 1)[0] ?? '');
  expect(shuffled.sort(canonicalCompare)).toEqual(ordered);
  expect(canonicalCompare('a-b.example', 'a.example')).toBeGreaterThan(0);
  expect(canonicalCompare('', 'example')).toBeLessThan(0);
});

test('RRSIG labels field: no root, no wildcard label', () => {
  expect([labelCount('www.example.net'), labelCount('*.example.net'), labelCount('.'), labelCount('')]).toEqual([
    3, 2, 0, 0,
  ]);
  // a trailing dot is the root; a wildcard is only a whole first label; the wildcard of the root
  expect([labelCount('www.example.net.'), labelCount('*x.example.net'), labelCount('*'), labelCount('net')]).toEqual([
    3, 3, 0, 1,
  ]);
});
