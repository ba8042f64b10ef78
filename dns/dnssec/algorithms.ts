import {
  createPrivateKey,
  createPublicKey,
  generateKeyPair,
  generateKeyPairSync,
  sign,
  verify,
  type KeyObject,
} from 'node:crypto';
import type { Algorithm, AlgorithmName } from '../zone';

/**
 * The DNSSEC signing algorithms we sign with (RFC 8624 §3.1: the ones to implement and use), with node:crypto:
 * key generation, the public key as DNSKEY RDATA writes it, and RRSIG signatures in DNSSEC's wire format.
 */
export type { Algorithm, AlgorithmName } from '../zone';

export const ALGORITHMS: readonly Algorithm[] = [
  { name: 'RSASHA256', number: 8, minBits: 1024, maxBits: 4096, defaultBits: 2048, digest: 'sha256' },
  { name: 'ECDSAP256SHA256', number: 13, minBits: 256, maxBits: 256, defaultBits: 256, digest: 'sha256' },
  { name: 'ECDSAP384SHA384', number: 14, minBits: 384, maxBits: 384, defaultBits: 384, digest: 'sha384' },
  { name: 'ED25519', number: 15, minBits: 256, maxBits: 256, defaultBits: 256, digest: null },
];

export const DEFAULT_ALGORITHM: AlgorithmName = 'ECDSAP256SHA256';

export function algorithmByName(name: string): Algorithm | undefined {
  return ALGORITHMS.find((a) => a.name === name.toUpperCase());
}

export function algorithmByNumber(n: number): Algorithm | undefined {
  return ALGORITHMS.find((a) => a.number === n);
}

/** How node:crypto makes a key pair of `algorithm` (RSA: `bits` long, exponent 65537; the curves' own sizes). */
function keyPairSpec(algorithm: Algorithm, bits: number): [type: string, options: object] {
  switch (algorithm.name) {
    case 'RSASHA256':
      return ['rsa', { modulusLength: bits, publicExponent: 65537 }];
    case 'ECDSAP256SHA256':
      return ['ec', { namedCurve: 'P-256' }];
    case 'ECDSAP384SHA384':
      return ['ec', { namedCurve: 'P-384' }];
    case 'ED25519':
      return ['ed25519', {}];
  }
}

/** node:crypto's key pair makers, seen through the one form keyPairSpec gives them (their overloads are per type). */
const makePair = generateKeyPairSync as (type: string, options: object) => { privateKey: KeyObject };
const makePairAsync = generateKeyPair as (
  type: string,
  options: object,
  done: (err: Error | null, publicKey: KeyObject, privateKey: KeyObject) => void,
) => void;

const pkcs8 = (key: KeyObject): Buffer => key.export({ type: 'pkcs8', format: 'der' });

/** A new private key of `algorithm`, as PKCS#8 DER (tests and tools; a server makes keys with the async form). */
export function generatePrivateKey(algorithm: Algorithm, bits = algorithm.defaultBits): Buffer {
  return pkcs8(makePair(...keyPairSpec(algorithm, bits)).privateKey);
}

/**
 * generatePrivateKey off the event loop (node:crypto's thread pool): two RSA keys of 4096 bits take seconds to make,
 * during which a synchronous generation would stop every request and DNS answer of the process.
 */
export function generatePrivateKeyAsync(algorithm: Algorithm, bits = algorithm.defaultBits): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    makePairAsync(...keyPairSpec(algorithm, bits), (err, _publicKey, privateKey) =>
      err ? reject(err) : resolve(pkcs8(privateKey)),
    );
  });
}

export function privateKeyObject(pkcs8: Buffer): KeyObject {
  return createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' });
}

/** Bytes of a base64url JWK field. */
function jwkBytes(value: string | undefined, field: string): Buffer {
  if (value === undefined) throw new Error(`the key has no JWK field ${field}`);
  return Buffer.from(value, 'base64url');
}

/**
 * The public key field of DNSKEY RDATA: RSA as RFC 3110 (exponent length in one byte, or 0 and two bytes, then
 * exponent and modulus), ECDSA as X‖Y (RFC 6605), Ed25519 as its 32 bytes (RFC 8080).
 */
export function dnskeyPublicKey(algorithm: Algorithm, key: KeyObject): Buffer {
  const jwk = createPublicKey(key).export({ format: 'jwk' });
  if (algorithm.name === 'RSASHA256') {
    const e = jwkBytes(jwk.e, 'e');
    const n = jwkBytes(jwk.n, 'n');
    const length = e.length > 255 ? Buffer.from([0, e.length >> 8, e.length & 0xff]) : Buffer.from([e.length]);
    return Buffer.concat([length, e, n]);
  }
  if (algorithm.name === 'ED25519') return jwkBytes(jwk.x, 'x');
  return Buffer.concat([jwkBytes(jwk.x, 'x'), jwkBytes(jwk.y, 'y')]);
}

/** Bits of a key as the API shows it: the RSA modulus length, or the curve's size. */
export function keyBits(algorithm: Algorithm, key: KeyObject): number {
  if (algorithm.name !== 'RSASHA256') return algorithm.defaultBits;
  return key.asymmetricKeyDetails?.modulusLength ?? algorithm.defaultBits;
}

/** A signature over `data` in the form RRSIG carries (ECDSA: r‖s of fixed size, RFC 6605 §4). */
export function signData(algorithm: Algorithm, key: KeyObject, data: Buffer): Buffer {
  return sign(
    algorithm.digest,
    data,
    algorithm.digest && algorithm.name !== 'RSASHA256' ? { key, dsaEncoding: 'ieee-p1363' } : key,
  );
}

/** Whether `signature` (RRSIG form) is good for `data` under the DNSKEY public key field `publicKey`. */
export function verifyData(algorithm: Algorithm, publicKey: Buffer, data: Buffer, signature: Buffer): boolean {
  const key = publicKeyFromDnskey(algorithm, publicKey);
  return verify(
    algorithm.digest,
    data,
    algorithm.name === 'RSASHA256' || algorithm.name === 'ED25519' ? key : { key, dsaEncoding: 'ieee-p1363' },
    signature,
  );
}

/** The public key a DNSKEY's public key field holds, as a KeyObject (the reverse of dnskeyPublicKey). */
export function publicKeyFromDnskey(algorithm: Algorithm, field: Buffer): KeyObject {
  const b64 = (b: Buffer) => b.toString('base64url');
  switch (algorithm.name) {
    case 'RSASHA256': {
      const long = field[0] === 0;
      const eLength = long ? field.readUInt16BE(1) : (field[0] ?? 0);
      const start = long ? 3 : 1;
      const e = field.subarray(start, start + eLength);
      const n = field.subarray(start + eLength);
      return createPublicKey({ key: { kty: 'RSA', e: b64(e), n: b64(n) }, format: 'jwk' });
    }
    case 'ED25519':
      return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: b64(field) }, format: 'jwk' });
    default: {
      const half = field.length / 2;
      const crv = algorithm.name === 'ECDSAP256SHA256' ? 'P-256' : 'P-384';
      return createPublicKey({
        key: { kty: 'EC', crv, x: b64(field.subarray(0, half)), y: b64(field.subarray(half)) },
        format: 'jwk',
      });
    }
  }
}
