/**
 * Password hashes with node:crypto's scrypt (RFC 7914), encoded `scrypt$N$r$p$<salt>$<hash>` (salt and hash in
 * base64). New hashes use N=2^15, r=8, p=1, a 16-byte random salt and a 32-byte key: 32 MiB of memory and, on this
 * machine (2 shared cores, load ~2), 90–140 ms per hash (measured 2025-11 with Node 20). Hashes made with other
 * parameters still verify (within sane bounds, so a corrupt row cannot make one check take minutes);
 * `needsRehash` tells the caller to replace them after a successful login.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

export interface ScryptParams {
  /** CPU/memory cost, a power of two. */
  N: number;
  /** Block size. */
  r: number;
  /** Parallelism. */
  p: number;
}

export const DEFAULT_SCRYPT: Readonly<ScryptParams> = Object.freeze({ N: 2 ** 15, r: 8, p: 1 });
const SALT_BYTES = 16;
const KEY_BYTES = 32;

/** What a hash may ask for: up to 256 MiB of memory; a stored hash beyond is treated as corrupt. */
const LIMITS = { maxN: 2 ** 20, maxR: 32, maxP: 16, maxMemory: 256 * 1024 * 1024, minKey: 16, maxKey: 64 };

/** The memory scrypt needs (128·N·r for V, 128·r·p for B) plus headroom: Node refuses above `maxmem`. */
const maxmemFor = ({ N, r, p }: ScryptParams): number => 128 * r * (N + p) + 32 * 1024 * 1024;

function derive(password: string, salt: Buffer, keyLength: number, params: ScryptParams): Promise<Buffer> {
  const options: ScryptOptions = { N: params.N, r: params.r, p: params.p, maxmem: maxmemFor(params) };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, keyLength, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** Throws a plain Error (a configuration mistake, not user input) unless `params` are usable for new hashes. */
export function checkScryptParams(params: ScryptParams): void {
  const { N, r, p } = params;
  const powerOfTwo = Number.isInteger(N) && N >= 2 && (N & (N - 1)) === 0;
  if (!powerOfTwo || N > LIMITS.maxN) throw new Error(`scrypt N must be a power of two from 2 to ${LIMITS.maxN}`);
  if (!Number.isInteger(r) || r < 1 || r > LIMITS.maxR)
    throw new Error(`scrypt r must be an integer 1 to ${LIMITS.maxR}`);
  if (!Number.isInteger(p) || p < 1 || p > LIMITS.maxP)
    throw new Error(`scrypt p must be an integer 1 to ${LIMITS.maxP}`);
  if (128 * N * r > LIMITS.maxMemory) throw new Error('scrypt 128·N·r (its memory) must not exceed 256 MiB');
}

export async function hashPassword(password: string, params: ScryptParams = DEFAULT_SCRYPT): Promise<string> {
  checkScryptParams(params);
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, KEY_BYTES, params);
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64'), key.toString('base64')].join('$');
}

interface Parsed {
  params: ScryptParams;
  salt: Buffer;
  key: Buffer;
}

const INT = /^[1-9][0-9]{0,9}$/;
const B64 = /^[A-Za-z0-9+/]+={0,2}$/;

function parse(encoded: string): Parsed | null {
  const parts = encoded.split('$');
  if (parts.length !== 6) return null;
  const [scheme, n, r, p, salt, key] = parts as [string, string, string, string, string, string];
  if (scheme !== 'scrypt' || !INT.test(n) || !INT.test(r) || !INT.test(p) || !B64.test(salt) || !B64.test(key)) {
    return null;
  }
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  try {
    checkScryptParams(params);
  } catch {
    return null;
  }
  const parsed = { params, salt: Buffer.from(salt, 'base64'), key: Buffer.from(key, 'base64') };
  if (parsed.salt.length < 8 || parsed.key.length < LIMITS.minKey || parsed.key.length > LIMITS.maxKey) return null;
  return parsed;
}

/** True when `password` matches `encoded`; false for a wrong password or an unreadable hash (never throws for those). */
export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const parsed = parse(encoded);
  if (!parsed) return false;
  const key = await derive(password, parsed.salt, parsed.key.length, parsed.params);
  return timingSafeEqual(key, parsed.key);
}

/** True when `encoded` was made with other parameters than `params` (or cannot be read). */
export function needsRehash(encoded: string, params: ScryptParams = DEFAULT_SCRYPT): boolean {
  const parsed = parse(encoded);
  if (!parsed) return true;
  const { N, r, p } = parsed.params;
  return N !== params.N || r !== params.r || p !== params.p || parsed.key.length !== KEY_BYTES;
}
