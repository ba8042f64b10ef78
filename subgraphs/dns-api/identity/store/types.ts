/**
 * What the identity library keeps: users and token signing keys, in the zone store's database (SQLite file or
 * PostgreSQL), in tables prefixed `api_`. Two implementations (sqlite.ts, postgres.ts) pass one contract
 * (user-store.contract.ts).
 *
 * Secrets stay out of logs: a stored user's password hash and a signing key's private JWK are private fields,
 * left out of `toJSON`, `util.inspect` and object spreads.
 */
import { inspect } from 'node:util';
import type { JWK } from 'jose';
import type { Role } from '../roles';

/** A user as shown to callers (no secrets). Timestamps are ISO 8601 UTC with `Z`. */
export interface User {
  id: string;
  /** Lower-case. */
  username: string;
  email: string;
  role: Role;
  disabled: boolean;
  createdAt: string;
  updatedAt: string;
  /** null until the first login. */
  lastLogin: string | null;
}

export interface UserFields extends User {
  passwordHash: string;
  /** Raised when the password changes or the user is disabled: tokens carrying an older one are refused. */
  tokenVersion: number;
}

export class StoredUser implements User {
  readonly id: string;
  readonly username: string;
  readonly email: string;
  readonly role: Role;
  readonly disabled: boolean;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly lastLogin: string | null;
  readonly tokenVersion: number;
  readonly #passwordHash: string;

  constructor(f: UserFields) {
    this.id = f.id;
    this.username = f.username;
    this.email = f.email;
    this.role = f.role;
    this.disabled = f.disabled;
    this.createdAt = f.createdAt;
    this.updatedAt = f.updatedAt;
    this.lastLogin = f.lastLogin;
    this.tokenVersion = f.tokenVersion;
    this.#passwordHash = f.passwordHash;
  }

  get passwordHash(): string {
    return this.#passwordHash;
  }

  /** True for a user that counts towards "at least one enabled admin". */
  get isEnabledAdmin(): boolean {
    return this.role === 'admin' && !this.disabled;
  }

  /** The user without secrets, as a plain object. */
  toUser(): User {
    const { id, username, email, role, disabled, createdAt, updatedAt, lastLogin } = this;
    return { id, username, email, role, disabled, createdAt, updatedAt, lastLogin };
  }

  toJSON(): User {
    return this.toUser();
  }

  [inspect.custom](): string {
    return `StoredUser ${inspect(this.toUser())}`;
  }
}

export interface NewUser {
  id: string;
  username: string;
  email: string;
  role: Role;
  passwordHash: string;
  createdAt: string;
}

/** A change of one user; fields left out keep their value. */
export interface UserPatch {
  email?: string;
  role?: Role;
  passwordHash?: string;
  disabled?: boolean;
  /** Raise token_version by one (password changed, user disabled). */
  bumpTokenVersion?: boolean;
  updatedAt: string;
}

/**
 * A token signing key pair. `algorithm` is the JOSE name (`EdDSA`). The private key is kept sealed under the master
 * key (`v1:…`, opened by the identity library); rows written before sealing hold the JWK as JSON until the first
 * start of this version seals them.
 */
export class SigningKey {
  readonly kid: string;
  readonly algorithm: string;
  readonly publicJwk: JWK;
  readonly createdAt: string;
  /** When a newer key took over signing (the key still verifies the tokens it signed); null while it signs. */
  readonly retiredAt: string | null;
  readonly #privateKey: string;

  constructor(f: {
    kid: string;
    algorithm: string;
    privateKey: string;
    publicJwk: JWK;
    createdAt: string;
    retiredAt?: string | null;
  }) {
    this.kid = f.kid;
    this.algorithm = f.algorithm;
    this.publicJwk = f.publicJwk;
    this.createdAt = f.createdAt;
    this.retiredAt = f.retiredAt ?? null;
    this.#privateKey = f.privateKey;
  }

  /** Sealed text (or, in a row from before sealing, the private JWK as JSON). */
  get privateKey(): string {
    return this.#privateKey;
  }

  toJSON(): { kid: string; algorithm: string; publicJwk: JWK; createdAt: string; retiredAt: string | null } {
    const { kid, algorithm, publicJwk, createdAt, retiredAt } = this;
    return { kid, algorithm, publicJwk, createdAt, retiredAt };
  }

  [inspect.custom](): string {
    return `SigningKey ${inspect(this.toJSON())}`;
  }
}

export interface UserStore {
  readonly kind: 'sqlite' | 'postgres';
  countUsers(): Promise<number>;
  /** Every user, by username. */
  listUsers(): Promise<StoredUser[]>;
  getUser(id: string): Promise<StoredUser | null>;
  /** `username` lower-cased. */
  getUserByUsername(username: string): Promise<StoredUser | null>;
  /** CONFLICT when the username is taken. */
  createUser(user: NewUser): Promise<StoredUser>;
  /** Creates `user` only when no user exists at all (atomically, also across processes); null when one exists. */
  createFirstUser(user: NewUser): Promise<StoredUser | null>;
  /**
   * Applies `patch`; null when there is no such user. CONFLICT (nothing changed) when the change would leave no
   * enabled admin. Atomic with respect to other writers, also in other processes.
   */
  updateUser(id: string, patch: UserPatch): Promise<StoredUser | null>;
  /** false when there is no such user; CONFLICT when it is the last enabled admin. */
  deleteUser(id: string): Promise<boolean>;
  /** Sets last_login (and, when given, a re-made hash of the same password: token_version stays). */
  recordLogin(id: string, at: string, rehashed?: string): Promise<void>;
  /** Every signing key, oldest first. */
  signingKeys(): Promise<SigningKey[]>;
  /**
   * The signing key in use for `candidate.algorithm` (the newest not retired), or `candidate` after storing it when
   * there is none (atomically, so processes starting together agree on one key).
   */
  ensureSigningKey(candidate: SigningKey): Promise<SigningKey>;
  /**
   * Rotation: when the key in use for `candidate.algorithm` is still `expectedKid` (null: none), retires it (and any
   * other unretired key of the algorithm) at `at` and stores `candidate`, which then signs; returns `candidate`.
   * When another process rotated first, changes nothing and returns the key in use (so replicas rotate once).
   */
  rotateSigningKey(expectedKid: string | null, candidate: SigningKey, at: string): Promise<SigningKey>;
  /** Replaces the private key of `kid` when it still is `from` (sealing a clear one); false when it was not. */
  replaceSigningKeyPrivate(kid: string, from: string, to: string): Promise<boolean>;
  /** Deletes the retired key `kid` (a key in use is never deleted); false when there was none. */
  deleteRetiredSigningKey(kid: string): Promise<boolean>;
  close(): Promise<void>;
}
