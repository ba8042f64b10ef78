import { createLocalJWKSet, errors as joseErrors, jwtVerify, type JSONWebKeySet } from 'jose';

/** Who a DNS API token says its bearer is. */
export interface DnsApiClaims {
  username: string;
  /** The DNS API role (`admin`, `editor`, `viewer`). */
  role: string;
}

/** The DNS API's public keys are fetched again on an unknown key id at most this often. */
const REFRESH_INTERVAL_MS = 10_000;

/**
 * Verifies the DNS API's JWTs with its published public keys (a JWKS), so one login serves both DNS domains
 * (DESIGN.md, "Identity and authorization"). Only the signature, issuer, audience and expiry are checked here: a
 * token stays good for its short lifetime even if the DNS API revokes it earlier.
 */
export class DnsApiTokens {
  private keys: ReturnType<typeof createLocalJWKSet> | null = null;
  private fetchedAt = -Infinity;
  private fetching: Promise<void> | null = null;

  constructor(
    private readonly jwks: () => Promise<JSONWebKeySet>,
    private readonly expect: { issuer: string; audience: string },
    private readonly now: () => number = Date.now,
  ) {}

  /** The token's user, or null when it is not a valid DNS API token. */
  async verify(token: string): Promise<DnsApiClaims | null> {
    if (!this.keys) await this.refresh();
    try {
      return await this.check(token);
    } catch (err) {
      if (!(err instanceof joseErrors.JWKSNoMatchingKey) || this.now() - this.fetchedAt < REFRESH_INTERVAL_MS)
        return null;
      await this.refresh();
      return this.check(token).catch(() => null);
    }
  }

  private async check(token: string): Promise<DnsApiClaims | null> {
    if (!this.keys) return null;
    const { payload } = await jwtVerify(token, this.keys, {
      issuer: this.expect.issuer,
      audience: this.expect.audience,
      algorithms: ['EdDSA'],
    });
    const { name, role } = payload as { name?: unknown; role?: unknown };
    return typeof name === 'string' && typeof role === 'string' ? { username: name, role } : null;
  }

  private refresh(): Promise<void> {
    this.fetching ??= this.jwks()
      .then((set) => {
        this.keys = createLocalJWKSet(set);
      })
      .catch(() => undefined) // the DNS API unreachable: its tokens are refused until it answers
      .finally(() => {
        this.fetchedAt = this.now();
        this.fetching = null;
      });
    return this.fetching;
  }
}
