import { randomUUID } from 'node:crypto';
import { algorithmByNumber, type Algorithm } from './algorithms';
import type { KeyVault } from './key-vault';
import { describeKey, newKeyMaterial, zoneKey, type KeyMaterial } from './zone-keys';
import type { SigningPolicy, ZoneKey } from '../zone';
import { signingTimes, signingTimesProblem } from './signing-times';
import { DEFAULT_SIGNING_POLICY } from './zone-signer';
import type { DnssecKey, ZoneStore } from '../store';

/** What the zone loader needs to keep signed zones signed: their keys, the policy, the time. */
export interface ZoneSigning {
  /** The zone's keys, ready to sign `apex` (its name as the SOA gives it); none: the zone is not signed. */
  keysFor(zone: string, apex: string): Promise<ZoneKey[]>;
  /** How the zone denies existence (the store's choice): NSEC3 with or without Opt-Out, or null: NSEC. */
  nsec3For?(zone: string): Promise<SigningPolicy['nsec3']>;
  policy: SigningPolicy;
  /** Seconds since the epoch. */
  now(): number;
}

/** Seconds since the epoch of an ISO 8601 timestamp (null stays null). */
export const seconds = (iso: string | null): number | null =>
  iso === null ? null : Math.floor(Date.parse(iso) / 1000);

/** A stored key as a ZoneKey: its private key opened from the vault. */
export function storedZoneKey(apex: string, key: DnssecKey, vault: KeyVault): ZoneKey {
  const algorithm = algorithmByNumber(key.algorithm);
  if (!algorithm) throw new Error(`DNSSEC key ${key.id} of zone ${key.zone} has an unknown algorithm ${key.algorithm}`);
  const made = zoneKey(
    key.id,
    apex,
    { algorithm, flags: key.flags, privateKey: vault.open(key.privateKey) },
    {
      publishAt: seconds(key.publishAt) ?? 0,
      activateAt: seconds(key.activateAt) ?? 0,
      inactiveAt: seconds(key.inactiveAt),
      deleteAt: seconds(key.deleteAt),
      cdsAt: seconds(key.cdsAt),
      cdsUntil: seconds(key.cdsUntil),
    },
  );
  const publicKey = (made.dnskey.data as unknown as { key: Buffer }).key.toString('base64');
  if (publicKey !== key.publicKey)
    throw new Error(`DNSSEC key ${key.id} of zone ${key.zone}: its private and public keys do not match`);
  return made;
}

/** Signing from the store's keys, opened with `vault`. */
export function storeSigning(
  store: ZoneStore,
  vault: KeyVault,
  options: { policy?: Partial<SigningPolicy>; now?: () => number } = {},
): ZoneSigning {
  const policy = { ...DEFAULT_SIGNING_POLICY, ...options.policy };
  // times that do not fit would have every refresh sign the zone again at once, over and over
  const problem = signingTimesProblem(signingTimes(policy));
  if (problem) throw new Error(`DNSSEC signing policy: ${problem}`);
  return {
    keysFor: async (zone, apex) => (await store.listDnssecKeys(zone)).map((k) => storedZoneKey(apex, k, vault)),
    nsec3For: async (zone) => {
      const d = await store.getDnssecDenial(zone);
      return d.denial === 'NSEC3' ? { optOut: d.optOut } : null;
    },
    policy,
    now: options.now ?? (() => Math.floor(Date.now() / 1000)),
  };
}

/** When a new key is published, starts signing (seconds), and how long it lives; a KSK: when its CDS come. */
export interface NewKeyTimes {
  publishAt: number;
  activateAt: number;
  lifetime: number;
  cdsAt?: number | null;
}

/** A key for the store from `material`: its private key sealed by `vault`, its timings from `times`. */
export function storedKey(zone: string, material: KeyMaterial, vault: KeyVault, times: NewKeyTimes): DnssecKey {
  const described = describeKey(material);
  const iso = (s: number): string => new Date(s * 1000).toISOString();
  return {
    id: randomUUID(),
    zone,
    algorithm: material.algorithm.number,
    flags: material.flags,
    bits: described.bits,
    publicKey: described.publicKey.toString('base64'),
    privateKey: vault.seal(material.privateKey),
    createdAt: iso(times.publishAt),
    publishAt: iso(times.publishAt),
    activateAt: iso(times.activateAt),
    inactiveAt: null,
    deleteAt: null,
    expiresAt: iso(times.activateAt + times.lifetime),
    cdsAt: times.cdsAt == null ? null : iso(times.cdsAt),
    cdsUntil: null,
    dsSeenAt: null,
  };
}

/** A new key for the store, made at once (tests and tools; see storedKey). RSA: `bits` long. */
export function newStoredKey(
  zone: string,
  algorithm: Algorithm,
  flags: number,
  vault: KeyVault,
  times: NewKeyTimes,
  bits?: number,
): DnssecKey {
  return storedKey(zone, newKeyMaterial(algorithm, flags, bits), vault, times);
}
