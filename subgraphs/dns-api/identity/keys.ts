/**
 * Token signing keys: one Ed25519 key pair, generated on first use and kept in the user store, so every replica
 * on the same PostgreSQL database signs with, and publishes, the same key. `kid` is the RFC 7638 thumbprint of
 * the public key. Several stored keys all verify (room for a later rotation); the oldest signs.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, type JsonWebKey, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { SigningKey, type UserStore } from './store/types';

export const TOKEN_ALGORITHM = 'EdDSA';

/** A public key as published in the JWKS. */
export interface PublicJwk extends JWK {
  kid: string;
  alg: string;
  use: 'sig';
}

export interface Jwks {
  keys: PublicJwk[];
}

/** An unknown `kid` re-reads the store at most this often (a key added by another replica; not a query per token). */
const RELOAD_INTERVAL_MS = 10_000;

async function generate(now: Date): Promise<SigningKey> {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const publicJwk = publicKey.export({ format: 'jwk' }) as JWK;
  const privateJwk = privateKey.export({ format: 'jwk' }) as JWK;
  const kid = await calculateJwkThumbprint(publicJwk, 'sha256');
  return new SigningKey({ kid, algorithm: TOKEN_ALGORITHM, privateJwk, publicJwk, createdAt: now.toISOString() });
}

export class KeyRing {
  private signer: Promise<{ kid: string; key: KeyObject }> | null = null;
  private readonly verifiers = new Map<string, KeyObject>();
  private published: PublicJwk[] = [];
  private lastLoad = -Infinity;

  constructor(
    private readonly store: UserStore,
    private readonly now: () => Date,
  ) {}

  /** The key that signs new tokens (made and stored on first use). */
  signingKey(): Promise<{ kid: string; key: KeyObject }> {
    this.signer ??= (async () => {
      const key = await this.store.ensureSigningKey(await generate(this.now()));
      await this.load();
      return { kid: key.kid, key: createPrivateKey({ key: key.privateJwk as JsonWebKey, format: 'jwk' }) };
    })().catch((err: unknown) => {
      this.signer = null; // a database hiccup must not stick: the next call tries again
      throw err;
    });
    return this.signer;
  }

  /** The public key with id `kid`, or undefined when no stored key has it. */
  async verifier(kid: string): Promise<KeyObject | undefined> {
    await this.signingKey();
    const known = this.verifiers.get(kid);
    if (known) return known;
    if (this.now().getTime() - this.lastLoad < RELOAD_INTERVAL_MS) return undefined;
    await this.load();
    return this.verifiers.get(kid);
  }

  async jwks(): Promise<Jwks> {
    await this.signingKey();
    return { keys: this.published.map((k) => ({ ...k })) };
  }

  private async load(): Promise<void> {
    const keys = (await this.store.signingKeys()).filter((k) => k.algorithm === TOKEN_ALGORITHM);
    this.lastLoad = this.now().getTime();
    for (const k of keys) {
      if (!this.verifiers.has(k.kid))
        this.verifiers.set(k.kid, createPublicKey({ key: k.publicJwk as JsonWebKey, format: 'jwk' }));
    }
    this.published = keys.map((k) => {
      const { kty, crv, x } = k.publicJwk;
      return { kty, crv, x, kid: k.kid, alg: TOKEN_ALGORITHM, use: 'sig' as const };
    });
  }
}
