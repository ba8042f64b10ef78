/**
 * Batched ECDSA signing for the signing pool's threads (the native addon in ec_sign.c, built by `npm run build`): a
 * key's signing context is set up once, then a whole batch is signed in one call — where node:crypto's sign() sets
 * one up per signature, about a third of the cost of an ECDSA P-256 RRSIG. Signatures come out in RRSIG form (r‖s,
 * RFC 6605 §4), as signData makes them. When the addon is not built, or the algorithm is not ECDSA, the threads sign
 * with node:crypto and the signatures are the same kind.
 */
import { nativeAddonFile } from '../../../platform/files';
import type { Algorithm } from '../algorithms';

interface Addon {
  openKey(pkcs8: Buffer, digest: string, half: number): object;
  sign(key: object, data: Uint8Array, lengths: Uint32Array, out: Uint8Array): void;
}

/** Signs items packed back to back (sign-batch.ts): all signatures, each `size` bytes, back to back. */
export interface BatchSigner {
  size: number;
  sign(data: Uint8Array, lengths: Uint32Array): Uint8Array;
}

/** Half the size of an r‖s signature, per ECDSA algorithm (the curve's size in bytes). */
const HALVES: Readonly<Record<string, number>> = { ECDSAP256SHA256: 32, ECDSAP384SHA384: 48 };

let loaded: Addon | null | undefined;

/** The addon, or null when it is not built. */
export function ecSignAddon(): Addon | null {
  if (loaded !== undefined) return loaded;
  const file = nativeAddonFile(__dirname, ['dns', 'dnssec', 'ec-sign'], 'ec_sign.node');
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a native addon loads only through require
    loaded = file ? (require(file) as Addon) : null;
  } catch {
    loaded = null; // built for another Node (an ABI it does not match): node:crypto signs instead
  }
  return loaded;
}

/** A batch signer for `pkcs8` (a private key of `algorithm`), or undefined: not ECDSA, or the addon is not built. */
export function batchSigner(algorithm: Algorithm, pkcs8: Buffer): BatchSigner | undefined {
  const half = HALVES[algorithm.name];
  const addon = ecSignAddon();
  if (half === undefined || !addon || !algorithm.digest) return undefined;
  let key: object;
  try {
    key = addon.openKey(pkcs8, algorithm.digest, half);
  } catch {
    return undefined; // a key the addon does not take: node:crypto signs with it (or says what is wrong with it)
  }
  const size = 2 * half;
  return {
    size,
    sign(data, lengths) {
      const out = new Uint8Array(new ArrayBuffer(lengths.length * size));
      addon.sign(key, data, lengths, out);
      return out;
    },
  };
}
