/**
 * Token signing keys: Ed25519 key pairs kept in the user store, so every replica on the same PostgreSQL database
 * signs with, and publishes, the same keys. The private key is stored sealed under the master key (the vault that
 * seals DNSSEC keys): reading the database file does not give it. `kid` is the RFC 7638 thumbprint.
 *
 * Rotation: a new key takes over signing (on request, or when the signing key is older than its lifetime); the
 * one it replaces is retired but still verifies until every token it signed has expired (the longest token lifetime
 * plus a grace for replicas to notice), then it is deleted. The JWKS shows every key that still verifies. A key
 * found stored in clear (written before sealing) is sealed and, since anyone who read the file could have it,
 * rotated at once.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, type JsonWebKey, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { KeyVault } from '../../../dns/dnssec';
import { IdentityError } from './errors';
import type { IdentityLog } from './log';
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

/** Seals private keys at rest (the master-key vault). */
export interface KeySealer {
  seal(plain: Buffer, context?: string): string;
  open(text: string, context?: string, what?: string): Buffer;
}

/** A signing key as the API shows it (no secret). */
export interface SigningKeyInfo {
  kid: string;
  algorithm: string;
  createdAt: string;
  /** When a newer key took over; null for the key that signs. */
  retiredAt: string | null;
  /** Until when it verifies tokens (then it is deleted); null for the key that signs. */
  verifiesUntil: string | null;
  signing: boolean;
}

export interface Rotation {
  /** The key that signs from now on. */
  key: SigningKeyInfo;
  /** The key it replaced (it verifies its tokens until `verifiesUntil`), or null when there was none. */
  previous: SigningKeyInfo | null;
}

export interface KeyRingOptions {
  store: UserStore;
  vault: KeySealer;
  now: () => Date;
  /** The longest a token may live (seconds): a retired key verifies this long (plus a grace), then goes. */
  tokenLifetimeSeconds: number;
  /** The longest a key signs before a new one takes over (seconds); 0: only on request. */
  keyLifetimeSeconds: number;
  log?: IdentityLog;
}

/** The stored keys are read again at most this often: a rotation by another replica is seen within it. */
const RELOAD_INTERVAL_MS = 10_000;
/** Beyond the token lifetime a retired key stays: a replica may sign with it until it reloads. */
const RETIRED_GRACE_MS = 3 * RELOAD_INTERVAL_MS;

/** What a signing key is sealed for (its kid: a key moved to another row does not open); master key rotation too. */
export const sealContext = (kid: string): string => `dns-api-signing-key:${kid}`;

async function generate(now: Date, vault: KeySealer): Promise<SigningKey> {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const publicJwk = publicKey.export({ format: 'jwk' }) as JWK;
  const privateJwk = Buffer.from(JSON.stringify(privateKey.export({ format: 'jwk' })), 'utf8');
  const kid = await calculateJwkThumbprint(publicJwk, 'sha256');
  const sealed = vault.seal(privateJwk, sealContext(kid));
  privateJwk.fill(0);
  return new SigningKey({
    kid,
    algorithm: TOKEN_ALGORITHM,
    privateKey: sealed,
    publicJwk,
    createdAt: now.toISOString(),
  });
}

/** The keys as loaded: the one that signs, and every key that verifies. */
interface Ring {
  signer: SigningKey;
  verifiers: Map<string, { key: KeyObject; until: number }>;
  keys: SigningKey[];
}

export class KeyRing {
  private ring: Ring | null = null;
  private loadedAt = -Infinity;
  private loading: Promise<Ring> | null = null;
  /** The signer's private key, opened once per signing key. */
  private opened: { kid: string; key: KeyObject } | null = null;

  constructor(private readonly o: KeyRingOptions) {}

  /** How long after retiring a key still verifies, in ms. */
  private get retiredLifeMs(): number {
    return this.o.tokenLifetimeSeconds * 1000 + RETIRED_GRACE_MS;
  }

  /** The key that signs new tokens (made and stored on first use; rotated when past its lifetime). */
  async signingKey(): Promise<{ kid: string; key: KeyObject }> {
    const { signer } = await this.current();
    if (this.opened?.kid === signer.kid) return this.opened;
    let jwk: Buffer;
    try {
      jwk = this.o.vault.open(signer.privateKey, sealContext(signer.kid), 'the DNS API token signing key');
    } catch (err) {
      // Tokens cannot be issued, but those issued still verify (public keys need no master key).
      throw new IdentityError('UNAVAILABLE', `${(err as Error).message}; every replica needs the same master key`);
    }
    const key = createPrivateKey({ key: JSON.parse(jwk.toString('utf8')) as JsonWebKey, format: 'jwk' });
    jwk.fill(0);
    this.opened = { kid: signer.kid, key };
    return this.opened;
  }

  /** The public key with id `kid`, or undefined when no key that still verifies has it. */
  async verifier(kid: string): Promise<KeyObject | undefined> {
    const found = (await this.current()).verifiers.get(kid);
    return found && this.o.now().getTime() <= found.until ? found.key : undefined;
  }

  async jwks(): Promise<Jwks> {
    const { keys } = await this.current();
    return {
      keys: keys.map((k) => {
        const { kty, crv, x } = k.publicJwk;
        return { kty, crv, x, kid: k.kid, alg: TOKEN_ALGORITHM, use: 'sig' as const };
      }),
    };
  }

  /** Every key that still verifies, the signing one last. */
  async list(): Promise<SigningKeyInfo[]> {
    const ring = await this.current();
    return ring.keys.map((k) => this.info(k, ring.signer.kid));
  }

  /** A new key signs from now on; the one it replaces verifies its tokens until they have all expired. */
  async rotate(reason = 'requested'): Promise<Rotation> {
    const before = (await this.current()).signer;
    const candidate = await generate(this.o.now(), this.o.vault);
    const after = await this.o.store.rotateSigningKey(before.kid, candidate, this.o.now().toISOString());
    const ring = await this.current(true);
    const keyInfo = ring.keys.find((k) => k.kid === after.kid);
    const previous = ring.keys.find((k) => k.kid === before.kid);
    if (after.kid === candidate.kid) {
      this.o.log?.info({ kid: after.kid, previousKid: before.kid, reason }, 'DNS API token signing key rotated');
    }
    return {
      key: this.info(keyInfo ?? after, ring.signer.kid),
      previous: previous && previous.kid !== after.kid ? this.info(previous, ring.signer.kid) : null,
    };
  }

  private info(k: SigningKey, signerKid: string): SigningKeyInfo {
    const retired = k.retiredAt === null ? null : Date.parse(k.retiredAt);
    return {
      kid: k.kid,
      algorithm: k.algorithm,
      createdAt: k.createdAt,
      retiredAt: k.retiredAt,
      verifiesUntil: retired === null ? null : new Date(retired + this.retiredLifeMs).toISOString(),
      signing: k.kid === signerKid,
    };
  }

  /** The loaded keys, read again when older than the reload interval (or when `force`). */
  private current(force = false): Promise<Ring> {
    if (!force && this.ring && this.o.now().getTime() - this.loadedAt < RELOAD_INTERVAL_MS) {
      return Promise.resolve(this.ring);
    }
    this.loading ??= this.load().finally(() => {
      this.loading = null;
    });
    return this.loading;
  }

  private async load(): Promise<Ring> {
    const { store, vault } = this.o;
    let keys = await this.keysOfAlgorithm();
    // What load writes (a key sealed, deleted, made or rotated in) is read back once at the end; else the first read serves.
    let wrote = false;
    const clear = keys.filter((k) => !KeyVault.isSealed(k.privateKey));
    for (const k of clear) {
      const sealed = vault.seal(Buffer.from(k.privateKey), sealContext(k.kid));
      wrote = (await store.replaceSigningKeyPrivate(k.kid, k.privateKey, sealed)) || wrote;
    }
    const now = this.o.now().getTime();
    for (const k of keys) {
      if (k.retiredAt !== null && Date.parse(k.retiredAt) + this.retiredLifeMs < now) {
        if (await store.deleteRetiredSigningKey(k.kid)) {
          wrote = true;
          this.o.log?.info({ kid: k.kid }, 'retired DNS API signing key deleted');
        }
      }
    }
    let signer = newestUnretired(keys);
    if (!signer) {
      signer = await store.ensureSigningKey(await generate(this.o.now(), vault));
      wrote = true;
    }
    const why = this.rotationDue(signer, clear.length > 0);
    if (why) {
      const candidate = await generate(this.o.now(), vault);
      signer = await store.rotateSigningKey(signer.kid, candidate, this.o.now().toISOString());
      wrote = true;
      if (signer.kid === candidate.kid && why === 'stored in clear') {
        this.o.log?.warn({ kid: signer.kid, reason: why }, 'DNS API token signing key rotated');
      } else if (signer.kid === candidate.kid) {
        this.o.log?.info({ kid: signer.kid, reason: why }, 'DNS API token signing key rotated');
      }
    }
    if (wrote) keys = await this.keysOfAlgorithm();
    const ring: Ring = { signer, verifiers: new Map(), keys: [] };
    for (const k of keys) {
      const until = k.retiredAt === null ? Infinity : Date.parse(k.retiredAt) + this.retiredLifeMs;
      if (until < this.o.now().getTime()) continue;
      ring.keys.push(k);
      ring.verifiers.set(k.kid, { key: createPublicKey({ key: k.publicJwk as JsonWebKey, format: 'jwk' }), until });
    }
    // The signer last: a JWKS reader that takes the last key takes the one in use.
    ring.keys.sort((a, b) => Number(a.kid === signer.kid) - Number(b.kid === signer.kid));
    this.ring = ring;
    this.loadedAt = this.o.now().getTime();
    return ring;
  }

  /** Why the signing key must be replaced now, or null. */
  private rotationDue(signer: SigningKey, wasClear: boolean): string | null {
    if (wasClear) return 'stored in clear';
    const life = this.o.keyLifetimeSeconds * 1000;
    if (life > 0 && this.o.now().getTime() - Date.parse(signer.createdAt) >= life) return 'key lifetime reached';
    return null;
  }

  private async keysOfAlgorithm(): Promise<SigningKey[]> {
    return (await this.o.store.signingKeys()).filter((k) => k.algorithm === TOKEN_ALGORITHM);
  }
}

function newestUnretired(keys: readonly SigningKey[]): SigningKey | undefined {
  return keys.filter((k) => k.retiredAt === null).at(-1);
}
