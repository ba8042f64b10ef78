/**
 * The DNS API's identity provider: users and roles, password login with throttling, EdDSA-signed JWTs and their
 * JWKS, and checking the `Authorization` header of every call.
 *
 * Secrets: passwords, hashes, tokens and private keys are never logged here, never put in an error message, and
 * left out of `toJSON` / `util.inspect` of every object that holds one.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { inspect } from 'node:util';
import { SignJWT, decodeProtectedHeader, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { IdentityError, invalid, throwIfInvalid, unauthenticated } from './errors';
import { KeyRing, TOKEN_ALGORITHM, type Jwks, type KeySealer, type Rotation, type SigningKeyInfo } from './keys';
import {
  DEFAULT_SCRYPT,
  PASSWORD_MAX,
  checkPassword,
  checkScryptParams,
  hashPassword,
  needsRehash,
  verifyPassword,
  type ScryptParams,
} from '../../../platform/passwords';
import type { Role } from './roles';
import type { StoredUser, User, UserPatch, UserStore } from './store/types';
import type { IdentityLog } from './log';
import { LoginThrottle, type LedgerFactory, type ThrottleOptions } from '../../../platform/login-throttle';
import { bearerCredential } from '../../bearer';
import { Problems, USERNAME_MAX, checkBoolean, checkEmail, checkRole, checkUsername, isUuid } from './validation';

export interface IdentityOptions {
  store: UserStore;
  /** Seals the token signing keys at rest (the master-key vault of the DNSSEC keys). */
  vault: KeySealer;
  /** The longest a signing key signs before a new one takes over, seconds (default 90 days; 0: only on request). */
  signingKeyLifetimeSeconds?: number;
  /** Where key rotations and failed logins are reported (never a secret). */
  log?: IdentityLog;
  /** `iss` of the tokens (default `onegraph-dns-api`). */
  issuer?: string;
  /** `aud` of the tokens (default `onegraph`). */
  audience?: string;
  /** Token lifetime in seconds (default 3600; 60 to 31 536 000). */
  tokenLifetimeSeconds?: number;
  throttle?: ThrottleOptions;
  /** Where the throttle counts (default: this process's memory; with Redis, shared by every replica). */
  throttleLedger?: LedgerFactory;
  /** Clock for tokens, timestamps and throttle windows (tests inject one). */
  now?: () => Date;
  /** scrypt parameters of new hashes (default N=2^15, r=8, p=1; tests may lower them). */
  scrypt?: ScryptParams;
  /** Email of the `admin` user made by ensureAdmin (default `admin@localhost`). */
  adminEmail?: string;
}

export const IDENTITY_DEFAULTS = Object.freeze({
  issuer: 'onegraph-dns-api',
  audience: 'onegraph',
  tokenLifetimeSeconds: 3600,
  signingKeyLifetimeSeconds: 7_776_000,
  adminEmail: 'admin@localhost',
});

/** Longest Authorization header looked at (our tokens are about 600 characters). */
export const MAX_AUTHORIZATION_LENGTH = 4096;
export const BOOTSTRAP_USERNAME = 'admin';
const TOKEN_LIFETIME = { min: 60, max: 31_536_000 };
/** Clocks of the processes that issue and check tokens may differ by this much (seconds). */
const CLOCK_SKEW_S = 60;
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
const REDACTED = '[redacted]';

/** Who is calling: role as stored now (a demotion applies at once, whatever the token says). */
export interface Caller {
  id: string;
  username: string;
  role: Role;
}

/** A token and its expiry; `toJSON`/inspect hide the token (send `token` itself on purpose). */
export class IssuedToken {
  constructor(
    readonly token: string,
    /** ISO 8601 UTC with `Z`. */
    readonly expiresAt: string,
  ) {}

  toJSON(): { token: string; expiresAt: string } {
    return { token: REDACTED, expiresAt: this.expiresAt };
  }

  [inspect.custom](): string {
    return `IssuedToken { token: '${REDACTED}', expiresAt: '${this.expiresAt}' }`;
  }
}

/** What ensureAdmin did. `generatedPassword` is set only when it made one: print it once; it is never logged here. */
export class BootstrapResult {
  constructor(
    readonly created: boolean,
    readonly username?: string,
    readonly generatedPassword?: string,
  ) {}

  toJSON(): { created: boolean; username?: string; generatedPassword?: string } {
    return {
      created: this.created,
      ...(this.username !== undefined && { username: this.username }),
      ...(this.generatedPassword !== undefined && { generatedPassword: REDACTED }),
    };
  }

  [inspect.custom](): string {
    return `BootstrapResult ${inspect(this.toJSON())}`;
  }
}

export interface NewUserInput {
  username: string;
  email: string;
  password: string;
  /** `admin`, `operator` or `viewer`. */
  role: string;
}

/** Fields left out keep their value; at least one must be given. */
export interface UserUpdateInput {
  email?: string;
  role?: string;
  password?: string;
  disabled?: boolean;
}

/** Claims of our tokens beyond the registered ones. */
interface TokenClaims extends JWTPayload {
  name?: unknown;
  role?: unknown;
  ver?: unknown;
}

export class Identity {
  private readonly store: UserStore;
  private readonly issuer: string;
  private readonly audience: string;
  private readonly lifetime: number;
  private readonly now: () => Date;
  private readonly scrypt: ScryptParams;
  private readonly adminEmail: string;
  private readonly throttle: LoginThrottle;
  private readonly keys: KeyRing;
  /** A hash of a random password: unknown usernames are checked against it, so they take as long as known ones. */
  private dummyHash: Promise<string> | null = null;

  constructor(options: IdentityOptions) {
    const o = { ...IDENTITY_DEFAULTS, ...options };
    if (
      !Number.isSafeInteger(o.tokenLifetimeSeconds) ||
      o.tokenLifetimeSeconds < TOKEN_LIFETIME.min ||
      o.tokenLifetimeSeconds > TOKEN_LIFETIME.max
    ) {
      throw invalid(
        'tokenLifetimeSeconds',
        `tokenLifetimeSeconds must be an integer from ${TOKEN_LIFETIME.min} to ${TOKEN_LIFETIME.max}`,
      );
    }
    if (!Number.isSafeInteger(o.signingKeyLifetimeSeconds) || o.signingKeyLifetimeSeconds < 0) {
      throw invalid(
        'signingKeyLifetimeSeconds',
        'signingKeyLifetimeSeconds must be a whole number of seconds, 0 or more',
      );
    }
    if (o.issuer.trim() === '') throw invalid('issuer', 'issuer must not be empty');
    if (o.audience.trim() === '') throw invalid('audience', 'audience must not be empty');
    const email = checkEmail(o.adminEmail, 'adminEmail');
    if (!email.ok) throw invalid(email.problem.field, email.problem.message);
    this.scrypt = { ...(options.scrypt ?? DEFAULT_SCRYPT) };
    checkScryptParams(this.scrypt);
    this.store = o.store;
    this.issuer = o.issuer;
    this.audience = o.audience;
    this.lifetime = o.tokenLifetimeSeconds;
    this.now = o.now ?? (() => new Date());
    this.adminEmail = email.value;
    this.throttle = new LoginThrottle(o.throttle, {
      refuse: ({ message, retryAfterSeconds }) => new IdentityError('THROTTLED', message, { retryAfterSeconds }),
      now: this.now,
      what: 'DNS API',
      ...(o.log ? { log: o.log } : {}),
      ...(o.throttleLedger ? { ledger: o.throttleLedger } : {}),
    });
    this.keys = new KeyRing({
      store: this.store,
      vault: o.vault,
      now: this.now,
      tokenLifetimeSeconds: this.lifetime,
      keyLifetimeSeconds: o.signingKeyLifetimeSeconds,
      ...(o.log ? { log: o.log } : {}),
    });
  }

  toJSON(): { issuer: string; audience: string; tokenLifetimeSeconds: number; store: string } {
    return {
      issuer: this.issuer,
      audience: this.audience,
      tokenLifetimeSeconds: this.lifetime,
      store: this.store.kind,
    };
  }

  [inspect.custom](): string {
    return `Identity ${inspect(this.toJSON())}`;
  }

  /** Keys the login throttle holds in this process's memory (usernames, addresses, pairs of both). */
  get throttleSize(): { usernames: number; addresses: number; pairs: number } {
    return this.throttle.tracked;
  }

  /** Resolves once the throttle has recorded how every login so far ended (before its Redis link closes). */
  settled(): Promise<void> {
    return this.throttle.settled();
  }

  // -- tokens -------------------------------------------------------------------------------------------------

  /** The public keys that verify our tokens, as a JWKS document (`GET /.well-known/jwks.json`). */
  jwks(): Promise<Jwks> {
    return this.keys.jwks();
  }

  /** The signing keys that still verify tokens, the one that signs last (admin). */
  signingKeys(): Promise<SigningKeyInfo[]> {
    return this.keys.list();
  }

  /** A new key signs from now on; the old one verifies the tokens it signed until they expire (admin). */
  rotateSigningKey(): Promise<Rotation> {
    return this.keys.rotate();
  }

  private async issue(user: StoredUser): Promise<IssuedToken> {
    const { kid, key } = await this.keys.signingKey();
    const iat = Math.floor(this.now().getTime() / 1000);
    const exp = iat + this.lifetime;
    const token = await new SignJWT({ name: user.username, role: user.role, ver: user.tokenVersion })
      .setProtectedHeader({ alg: TOKEN_ALGORITHM, kid, typ: 'JWT' })
      .setSubject(user.id)
      .setIssuer(this.issuer)
      .setAudience(this.audience)
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .setJti(randomUUID())
      .sign(key);
    return new IssuedToken(token, new Date(exp * 1000).toISOString());
  }

  /**
   * The caller of an `Authorization: Bearer <jwt>` header; UNAUTHENTICATED (with `reason`) when it is missing or
   * not a valid, current token of an existing, enabled user.
   */
  async authenticate(authorization: string | undefined): Promise<Caller> {
    if (authorization === undefined || authorization.trim() === '') {
      throw unauthenticated('missing', 'no credential was sent; send the header Authorization: Bearer <token>');
    }
    if (authorization.length > MAX_AUTHORIZATION_LENGTH) {
      throw unauthenticated(
        'too_long',
        `the Authorization header is longer than ${MAX_AUTHORIZATION_LENGTH} characters; send Bearer <token>`,
      );
    }
    const token = bearerCredential(authorization);
    if (token === undefined) {
      throw unauthenticated('not_bearer', 'the Authorization header must be Bearer <token>, with the token from login');
    }
    if (!COMPACT_JWS.test(token)) {
      throw unauthenticated('malformed', 'the bearer token is not a JWT (three base64url parts separated by dots)');
    }
    let header: ReturnType<typeof decodeProtectedHeader>;
    try {
      header = decodeProtectedHeader(token);
    } catch {
      throw unauthenticated('malformed', 'the bearer token is not a JWT: its header is not base64url-encoded JSON');
    }
    if (header.alg !== TOKEN_ALGORITHM) {
      const alg = typeof header.alg === 'string' ? JSON.stringify(header.alg.slice(0, 20)) : 'no algorithm';
      throw unauthenticated('algorithm', `tokens signed with ${alg} are not accepted; only ${TOKEN_ALGORITHM}`);
    }
    const key = typeof header.kid === 'string' ? await this.keys.verifier(header.kid) : undefined;
    if (!key) throw unauthenticated('unknown_key', 'the token was not signed by a key of this server (unknown kid)');

    let claims: TokenClaims;
    try {
      ({ payload: claims } = await jwtVerify<TokenClaims>(token, key, {
        algorithms: [TOKEN_ALGORITHM],
        issuer: this.issuer,
        audience: this.audience,
        currentDate: this.now(),
        requiredClaims: ['sub', 'iat', 'exp', 'jti'],
      }));
    } catch (err) {
      throw verificationError(err, this.issuer, this.audience);
    }
    this.checkLifetime(claims);
    const ver = claims.ver;
    if (!isUuid(claims.sub) || typeof ver !== 'number' || !Number.isSafeInteger(ver) || ver < 0) {
      throw unauthenticated('claims', 'the token lacks a valid sub (user id) or ver (token version) claim');
    }
    const user = await this.store.getUser(claims.sub);
    if (!user) throw unauthenticated('user_deleted', "the token's user no longer exists");
    if (user.disabled) throw unauthenticated('user_disabled', "the token's user is disabled");
    if (ver !== user.tokenVersion) {
      throw unauthenticated(
        'revoked',
        "the token was revoked: its user's password changed or the user was disabled after it was issued; log in again",
      );
    }
    return { id: user.id, username: user.username, role: user.role };
  }

  /**
   * A token must not live longer than this server issues them for, nor claim to be issued in the future: a token
   * signed with a stolen key, or by a server configured otherwise, cannot outlast the configured lifetime.
   */
  private checkLifetime(claims: TokenClaims): void {
    const { iat, exp } = claims;
    if (typeof iat !== 'number' || typeof exp !== 'number') {
      throw unauthenticated('claims', 'the token lacks numeric iat and exp claims');
    }
    if (iat > this.now().getTime() / 1000 + CLOCK_SKEW_S) {
      throw unauthenticated('claims', 'the token claims to be issued in the future (iat); check the clocks');
    }
    if (exp - iat > this.lifetime) {
      throw unauthenticated(
        'lifetime',
        `the token lives ${exp - iat} s (exp − iat), longer than the ${this.lifetime} s this server issues; log in again`,
      );
    }
  }

  // -- login --------------------------------------------------------------------------------------------------

  /**
   * A token for `username` and `password`. A wrong password, an unknown user and a disabled user all fail with the
   * same message after the same work (one scrypt hash); failures are throttled per username and per client address.
   */
  async login(username: string, password: string, clientAddress: string): Promise<IssuedToken> {
    const problems: { field: string; message: string }[] = [];
    if (typeof username !== 'string' || username.length === 0 || username.length > USERNAME_MAX) {
      problems.push({ field: 'username', message: `username must be a string of 1 to ${USERNAME_MAX} characters` });
    }
    const units = typeof password === 'string' ? password.length : 0;
    if (units === 0 || units > 16 * PASSWORD_MAX || [...password].length > PASSWORD_MAX) {
      problems.push({ field: 'password', message: `password must be a string of 1 to ${PASSWORD_MAX} characters` });
    }
    throwIfInvalid(problems);
    const name = username.toLowerCase();
    const attempt = await this.throttle.begin(name, clientAddress);
    // Started for every login, so the process's first one pays for it whoever logs in (no first-time oracle).
    const dummy = this.dummy();
    dummy.catch(() => {}); // awaited only for unknown users
    try {
      const user = await this.store.getUserByUsername(name);
      const hash = user?.passwordHash ?? (await dummy);
      const matches = await verifyPassword(password, hash);
      if (!user || !matches || user.disabled) {
        attempt.failed();
        throw unauthenticated('credentials', 'the username or password is wrong');
      }
      attempt.succeeded();
      const rehashed = needsRehash(user.passwordHash, this.scrypt)
        ? await hashPassword(password, this.scrypt)
        : undefined;
      await this.store.recordLogin(user.id, this.now().toISOString(), rehashed);
      return await this.issue(user);
    } catch (err) {
      attempt.failed(); // a store failure counts like a wrong password (no effect after succeeded())
      throw err;
    }
  }

  private dummy(): Promise<string> {
    this.dummyHash ??= hashPassword(randomBytes(16).toString('base64'), this.scrypt);
    return this.dummyHash;
  }

  // -- users --------------------------------------------------------------------------------------------------

  async listUsers(): Promise<User[]> {
    return (await this.store.listUsers()).map((u) => u.toUser());
  }

  async getUser(id: string): Promise<User> {
    return (await this.stored(id)).toUser();
  }

  /** The caller's own user. */
  async me(caller: Caller): Promise<User> {
    return (await this.stored(caller.id)).toUser();
  }

  private async stored(id: string): Promise<StoredUser> {
    const user = isUuid(id) ? await this.store.getUser(id.toLowerCase()) : null;
    if (!user) throw notFound(id);
    return user;
  }

  async createUser(input: NewUserInput): Promise<User> {
    const p = new Problems();
    const username = p.take(checkUsername(input.username));
    const email = p.take(checkEmail(input.email));
    const password = p.take(checkPassword(input.password, username));
    const role = p.take(checkRole(input.role));
    throwIfInvalid(p.list);
    if (username === undefined || email === undefined || password === undefined || role === undefined) {
      throw new Error('unreachable: every field passed its check');
    }
    const user = await this.store.createUser({
      id: randomUUID(),
      username,
      email,
      role,
      passwordHash: await hashPassword(password, this.scrypt),
      createdAt: this.now().toISOString(),
    });
    return user.toUser();
  }

  /**
   * Changes email, role, password and/or disabled. A new password or disabling raises the user's token version
   * (their tokens stop working); a demotion applies at once anyway (roles are read from the store).
   */
  async updateUser(id: string, input: UserUpdateInput): Promise<User> {
    if (
      input.email === undefined &&
      input.role === undefined &&
      input.password === undefined &&
      input.disabled === undefined
    ) {
      throw invalid('input', 'give at least one of email, role, password or disabled to change');
    }
    const current = await this.stored(id);
    const p = new Problems();
    const email = input.email === undefined ? undefined : p.take(checkEmail(input.email));
    const role = input.role === undefined ? undefined : p.take(checkRole(input.role));
    const password = input.password === undefined ? undefined : p.take(checkPassword(input.password, current.username));
    const disabled = input.disabled === undefined ? undefined : p.take(checkBoolean(input.disabled, 'disabled'));
    throwIfInvalid(p.list);
    const patch: UserPatch = { updatedAt: this.now().toISOString() };
    if (email !== undefined) patch.email = email;
    if (role !== undefined) patch.role = role;
    if (disabled !== undefined) patch.disabled = disabled;
    if (password !== undefined) patch.passwordHash = await hashPassword(password, this.scrypt);
    if (password !== undefined || (disabled === true && !current.disabled)) patch.bumpTokenVersion = true;
    const updated = await this.store.updateUser(current.id, patch);
    if (!updated) throw notFound(id);
    return updated.toUser();
  }

  async deleteUser(id: string): Promise<void> {
    const deleted = isUuid(id) && (await this.store.deleteUser(id.toLowerCase()));
    if (!deleted) throw notFound(id);
  }

  /**
   * Changes the caller's own password (the current one must be given; wrong guesses count against the login
   * throttle of the username). Every token of the user stops working: the new token returned replaces the caller's.
   */
  async changeOwnPassword(
    caller: Caller,
    currentPassword: string,
    newPassword: string,
    clientAddress?: string,
  ): Promise<IssuedToken> {
    const user = await this.stored(caller.id);
    const p = new Problems();
    if (typeof currentPassword !== 'string' || currentPassword.length === 0) {
      p.list.push({ field: 'currentPassword', message: 'currentPassword must be given (your password now)' });
    }
    const password = p.take(checkPassword(newPassword, user.username, 'newPassword'));
    throwIfInvalid(p.list);
    if (password === undefined) throw new Error('unreachable: newPassword passed its check');
    const attempt = await this.throttle.begin(user.username, clientAddress ?? `user:${user.id}`);
    try {
      if (!(await verifyPassword(currentPassword, user.passwordHash))) {
        throw invalid('currentPassword', 'currentPassword is not your password now');
      }
      attempt.succeeded();
      const updated = await this.store.updateUser(user.id, {
        passwordHash: await hashPassword(password, this.scrypt),
        bumpTokenVersion: true,
        updatedAt: this.now().toISOString(),
      });
      if (!updated) throw notFound(user.id);
      return await this.issue(updated);
    } finally {
      attempt.failed();
    }
  }

  // -- bootstrap ----------------------------------------------------------------------------------------------

  /**
   * On first start (no user at all) creates `admin` with `passwordFromEnv` (e.g. ADMIN_PASSWORD) or, when none is
   * given, a random password returned as `generatedPassword` for the caller to print once. Safe when several
   * processes start together: only one creates the user.
   */
  async ensureAdmin(passwordFromEnv?: string): Promise<BootstrapResult> {
    if ((await this.store.countUsers()) > 0) return new BootstrapResult(false);
    let password: string;
    let generated: string | undefined;
    if (passwordFromEnv === undefined) {
      password = generated = randomBytes(18).toString('base64url'); // 24 characters, 144 bits
    } else {
      const checked = checkPassword(passwordFromEnv, BOOTSTRAP_USERNAME, 'ADMIN_PASSWORD');
      if (!checked.ok) throw invalid(checked.problem.field, checked.problem.message);
      password = checked.value;
    }
    const created = await this.store.createFirstUser({
      id: randomUUID(),
      username: BOOTSTRAP_USERNAME,
      email: this.adminEmail,
      role: 'admin',
      passwordHash: await hashPassword(password, this.scrypt),
      createdAt: this.now().toISOString(),
    });
    return created ? new BootstrapResult(true, BOOTSTRAP_USERNAME, generated) : new BootstrapResult(false);
  }
}

function notFound(id: string): IdentityError {
  const shown = isUuid(id) ? id : 'that id';
  return new IdentityError('NOT_FOUND', `no user has the id ${shown}`);
}

/** A jose verification failure as our UNAUTHENTICATED error (never echoing the token). */
function verificationError(err: unknown, issuer: string, audience: string): unknown {
  if (err instanceof joseErrors.JWSSignatureVerificationFailed) {
    return unauthenticated('signature', 'the token signature does not verify (the token was altered or forged)');
  }
  if (err instanceof joseErrors.JWTExpired) return unauthenticated('expired', 'the token has expired; log in again');
  if (err instanceof joseErrors.JWTClaimValidationFailed) {
    if (err.claim === 'iss') return unauthenticated('issuer', `the token was not issued by ${issuer}`);
    if (err.claim === 'aud') return unauthenticated('audience', `the token is not meant for ${audience}`);
    return unauthenticated('claims', `the token's ${err.claim} claim is missing or invalid`);
  }
  if (err instanceof joseErrors.JOSEAlgNotAllowed) {
    return unauthenticated('algorithm', `tokens must be signed with ${TOKEN_ALGORITHM}`);
  }
  if (err instanceof joseErrors.JOSEError) return unauthenticated('malformed', 'the bearer token is not a valid JWT');
  return err;
}
