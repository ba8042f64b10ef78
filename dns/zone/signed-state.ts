import type { KeyObject } from 'node:crypto';
import type { RR } from './rr';

/*
 * What a signed copy of a zone holds of its signing. The shapes belong to the in-memory zone (a copy carries them
 * and answers read them); the DNSSEC module fills them in, so the zone never imports the signer.
 */

export type AlgorithmName = 'RSASHA256' | 'ECDSAP256SHA256' | 'ECDSAP384SHA384' | 'ED25519';

export interface Algorithm {
  name: AlgorithmName;
  /** IANA number (DNSKEY, RRSIG and DS fields). */
  number: number;
  /** Key sizes allowed, in bits: a range for RSA, the curve's size otherwise. */
  minBits: number;
  maxBits: number;
  defaultBits: number;
  /** Digest node:crypto signs with (null: Ed25519 hashes itself). */
  digest: 'sha256' | 'sha384' | null;
}

/** A key ready to sign with, and when it is published and signs (seconds since the epoch). */
export interface ZoneKey {
  id: string;
  flags: number;
  algorithm: Algorithm;
  tag: number;
  /** The DNSKEY record (owner: the zone's apex). */
  dnskey: RR;
  privateKey: KeyObject;
  publishAt: number;
  activateAt: number;
  inactiveAt: number | null;
  deleteAt: number | null;
  /** A KSK's CDS and CDNSKEY are published at the apex from `cdsAt` (absent or null: never) until `cdsUntil`. */
  cdsAt?: number | null;
  cdsUntil?: number | null;
}

export interface SigningPolicy {
  /** Seconds a signature is valid from its inception. */
  signatureValidity: number;
  /** Seconds before now that inception is set (clocks of validators run behind). */
  inceptionOffset: number;
  /** TTL of the DNSKEY RRset. */
  dnskeyTtl: number;
  /**
   * Authenticated denial by NSEC3 (RFC 5155, with RFC 9276's parameters: no extra iterations, no salt), and whether
   * with Opt-Out; absent or null: NSEC. Per zone (the store keeps the choice).
   */
  nsec3?: { optOut: boolean } | null;
  /**
   * Expirations of one signing are spread over the last `signatureJitter` seconds of the validity (BIND's jitter), so
   * they do not all come due together; absent: a quarter of the validity.
   */
  signatureJitter?: number;
  /**
   * A signature is made afresh once it has this many seconds left (Knot's rrsig-refresh): a refresh signs only the
   * RRsets whose signatures are that near expiry, not the whole zone; absent: a quarter of the validity.
   */
  signatureRefresh?: number;
  /**
   * A refresh also makes afresh the signatures due within this many seconds after it (Knot's rrsig-pre-refresh): fewer,
   * larger refreshes; absent: a fourteenth of the validity (a day of 14).
   */
  signaturePreRefresh?: number;
}

/** What a signed zone copy knows of its signing, for the next change and for answers. */
export interface SignedState {
  keys: readonly ZoneKey[];
  policy: SigningPolicy;
  /**
   * NSEC: the authoritative owner names (index keys) in canonical order. NSEC3 (`policy.nsec3`): the owner names of
   * the NSEC3 records (index keys), in the order of their hashes.
   */
  chain: readonly string[];
  /** For binary search: canonicalKey of each name of `chain` (NSEC), or its hashed label, base32hex (NSEC3). */
  chainKeys: readonly string[];
  /**
   * Earliest expiration of the copy's signatures (seconds; a patch may leave it earlier than the true one, never
   * later): the next refresh comes `signatureRefresh` before it.
   */
  expiresAt: number;
  /** When the zone was signed whole (seconds): the keys' state is as of then (refreshes leave it). */
  signedAt: number;
}
