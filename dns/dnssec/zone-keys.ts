import { randomUUID } from 'node:crypto';
import type { RR } from '../zone';
import {
  algorithmByNumber,
  dnskeyPublicKey,
  generatePrivateKey,
  generatePrivateKeyAsync,
  keyBits,
  privateKeyObject,
  type Algorithm,
} from './algorithms';
import { dnskeyRdata, keyTag } from './keys';
import type { ZoneKey } from '../zone';

/** A key's material: what the store keeps of it, before timings (see ZoneKey). */
export interface KeyMaterial {
  algorithm: Algorithm;
  flags: number;
  /** PKCS#8 DER. */
  privateKey: Buffer;
}

/** New key material of `algorithm` (RSA `bits` long). */
export function newKeyMaterial(algorithm: Algorithm, flags: number, bits?: number): KeyMaterial {
  return { algorithm, flags, privateKey: generatePrivateKey(algorithm, bits) };
}

/** newKeyMaterial off the event loop (see generatePrivateKeyAsync). */
export async function newKeyMaterialAsync(algorithm: Algorithm, flags: number, bits?: number): Promise<KeyMaterial> {
  return { algorithm, flags, privateKey: await generatePrivateKeyAsync(algorithm, bits) };
}

/** The DNSKEY public key field, key tag and size of key material. */
export function describeKey(material: KeyMaterial): { publicKey: Buffer; tag: number; bits: number } {
  const key = privateKeyObject(material.privateKey);
  const publicKey = dnskeyPublicKey(material.algorithm, key);
  return {
    publicKey,
    tag: keyTag(dnskeyRdata(material.flags, material.algorithm.number, publicKey)),
    bits: keyBits(material.algorithm, key),
  };
}

/** Timings of a key in seconds since the epoch (null: never). */
export interface KeyTimes {
  publishAt: number;
  activateAt: number;
  inactiveAt: number | null;
  deleteAt: number | null;
  cdsAt?: number | null;
  cdsUntil?: number | null;
}

/** A key ready to sign `apex` (the zone's name as its SOA gives it) with. */
export function zoneKey(id: string, apex: string, material: KeyMaterial, times: KeyTimes): ZoneKey {
  const key = privateKeyObject(material.privateKey);
  const publicKey = dnskeyPublicKey(material.algorithm, key);
  const dnskey = {
    name: apex,
    type: 'DNSKEY',
    class: 'IN',
    ttl: 3600,
    data: { flags: material.flags, algorithm: material.algorithm.number, key: publicKey },
  } as unknown as RR;
  return {
    id,
    flags: material.flags,
    algorithm: material.algorithm,
    tag: keyTag(dnskeyRdata(material.flags, material.algorithm.number, publicKey)),
    dnskey,
    privateKey: key,
    ...times,
  };
}

/** A KSK and a ZSK of `algorithm` for `apex`, signing from `now` (tests and tools). */
export function freshKeys(apex: string, algorithmNumber: number, now: number): ZoneKey[] {
  const algorithm = algorithmByNumber(algorithmNumber);
  if (!algorithm) throw new Error(`unknown algorithm ${algorithmNumber}`);
  const times = { publishAt: now, activateAt: now, inactiveAt: null, deleteAt: null };
  return [257, 256].map((flags) =>
    zoneKey(randomUUID(), apex, newKeyMaterial(algorithm, flags, algorithm.number === 8 ? 1024 : undefined), times),
  );
}
