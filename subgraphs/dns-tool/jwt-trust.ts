import { createLocalJWKSet, errors as joseErrors, jwtVerify, type JSONWebKeySet } from 'jose';

/** Who a DNS API token says its bearer is. */
export interface DnsApiClaims {
  username: string;
  /** The DNS API role (`admin`, `operator`, `viewer`). */
  role: string;
}

/** Where the DNS API's keys and its users' current state come from. */
export interface DnsApiSource {
  /** Its published public keys (a JWKS). */
  jwks: () => Promise<JSONWebKeySet>;
  /**
   * The token's user as the DNS API sees it now — its current role — or null when the DNS API refuses the token
   * (user deleted or disabled, password changed since, token expired) or cannot be asked (fail closed).
   */
  currentUser: (token: string) => Promise<DnsApiClaims | null>;
}

/** The DNS API's public keys are fetched again on an unknown key id at most this often. */
const REFRESH_INTERVAL_MS = 10_000;

/**
 * Accepts the DNS API's JWTs, so one login serves both DNS domains (docs/design.md, "Identity"). The
 * signature, issuer, audience and expiry are checked here with the published keys (junk never reaches the DNS API);
 * then the DNS API is asked for the token's user as it is now, on every use and without a cache, so a token it
 * revoked (user disabled, deleted, password changed) stops working here at once, and a demotion applies at once.
 */
export class DnsApiTokens {
  private keys: ReturnType<typeof createLocalJWKSet> | null = null;
  private fetchedAt = -Infinity;
  private fetching: Promise<void> | null = null;

  constructor(
    private readonly source: DnsApiSource,
    private readonly expect: { issuer: string; audience: string },
    private readonly now: () => number = Date.now,
  ) {}

  /** The token's user with its current role, or null when it is not a valid, current DNS API token. */
  async verify(token: string): Promise<DnsApiClaims | null> {
    if (!(await this.signedByDnsApi(token))) return null;
    return this.source.currentUser(token);
  }

  private async signedByDnsApi(token: string): Promise<boolean> {
    if (!this.keys) await this.refresh();
    try {
      return await this.check(token);
    } catch (err) {
      if (!(err instanceof joseErrors.JWKSNoMatchingKey) || this.now() - this.fetchedAt < REFRESH_INTERVAL_MS)
        return false;
      await this.refresh();
      return this.check(token).catch(() => false);
    }
  }

  private async check(token: string): Promise<boolean> {
    if (!this.keys) return false;
    await jwtVerify(token, this.keys, {
      issuer: this.expect.issuer,
      audience: this.expect.audience,
      algorithms: ['EdDSA'],
    });
    return true;
  }

  private refresh(): Promise<void> {
    this.fetching ??= this.source
      .jwks()
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
