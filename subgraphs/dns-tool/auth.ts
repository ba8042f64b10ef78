import { grantOf, ROOT_ROLE, type Grant, type RoleSettings } from './tool/access';
import { toolErrors } from './protocol';
import type { ToolCaller } from './tool/service';
import { isSessionId, type Session, type SessionStore } from './tool/sessions';
import { matchToken, tokenUser } from './tool/tokens';
import { fileLogin, type FileUser } from './tool/users-file';
import type { DnsApiTokens } from './jwt-trust';
import { bearerCredential } from '../bearer';
import {
  LoginThrottle,
  type LedgerFactory,
  type LoginAttempt,
  type ThrottleLog,
  type ThrottleOptions,
} from '../../platform/login-throttle';
import { Semaphore } from './tool/semaphore';

/** Directory (LDAP) login: the user's name as the directory spells it, or a `Login failed` tool error. */
export type DirectoryLogin = (username: string, password: string) => Promise<{ user: string }>;

export interface ToolAuthOptions {
  roles: RoleSettings;
  /** The API tokens (`$g_api_tokens`). */
  tokens: readonly string[];
  sessions: SessionStore;
  /** File login's users, when a users file is configured. */
  usersFile?: ReadonlyMap<string, FileUser>;
  directory?: DirectoryLogin;
  /** The DNS API's tokens, when the tool trusts its issuer. */
  dnsApi?: DnsApiTokens;
  /** DNS API role → the tool's roles, for DNS API users the users-to-roles map does not list. */
  dnsApiRoles: Readonly<Record<string, readonly string[]>>;
  /** Failed logins and token guesses: limits as the DNS API's login (per name/token and address, per address). */
  throttle?: ThrottleOptions;
  /** Where the throttle counts (default: this process's memory; with Redis, shared by every replica). */
  throttleLedger?: LedgerFactory;
  /** Where failed logins are reported (never a password or a token). */
  log?: ThrottleLog;
  /** Clock of the throttle (tests). */
  now?: () => Date;
}

/**
 * Password checks of file login run at most this many at once (each scrypt hash takes a core for ~100 ms): a
 * flood of wrong logins waits in line instead of taking every core, and the DNS API's own logins keep theirs.
 */
const MAX_PASSWORD_CHECKS = 2;

/** A signed-in caller and how: `session` callers have a session id that logout ends. */
export interface AuthenticatedCaller extends ToolCaller {
  via: 'session' | 'token' | 'dns-api';
  /** The key of the users-to-roles map (a token session: the whole token). */
  rolesKey: string;
  sessionId?: string;
}

const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * Who is calling the DNS tool: a session id from login, an API token sent as the credential itself, or (when the
 * tool trusts the DNS API) a DNS API token. Logins open sessions; roles are looked up on every request, so a change
 * of the roles map applies to open sessions at once.
 */
export class ToolAuth {
  private readonly throttle: LoginThrottle;
  private readonly checks = new Semaphore(MAX_PASSWORD_CHECKS);

  constructor(private readonly options: ToolAuthOptions) {
    this.throttle = new LoginThrottle(options.throttle, {
      // Answered as the original answers a failed login (`"result": "failure"`), saying how long to wait.
      refuse: ({ message }) => toolErrors.loginFailed(`${message.charAt(0).toUpperCase()}${message.slice(1)}`),
      what: 'DNS tool',
      ...(options.now ? { now: options.now } : {}),
      ...(options.log ? { log: options.log } : {}),
      ...(options.throttleLedger ? { ledger: options.throttleLedger } : {}),
    });
  }

  /**
   * Runs a credential check under the throttle: `key` names what is guessed (a user name, a token's USER part), so
   * failures count per (key, address) and per address, and many addresses guessing one key slow down together.
   */
  private async guarded<T>(key: string, address: string | undefined, check: () => Promise<T>): Promise<T> {
    const attempt: LoginAttempt = await this.throttle.begin(key, address ?? 'unknown');
    try {
      const result = await check();
      attempt.succeeded();
      return result;
    } catch (err) {
      attempt.failed();
      throw err;
    }
  }

  /** Resolves once the throttle has recorded how every login so far ended (before its Redis link closes). */
  settled(): Promise<void> {
    return this.throttle.settled();
  }

  /** Whether any way of logging in is configured (the original without one lets everyone in; we never do). */
  get passwordLogin(): boolean {
    return this.options.usersFile !== undefined || this.options.directory !== undefined;
  }

  /**
   * The caller of an Authorization header: null when anonymous, or when the session id is unknown or expired. A
   * credential that is neither a session id nor a DNS API token is taken as an API token: a wrong one is the
   * original's `Login failed` / `Invalid username or password`.
   */
  async caller(authorization: string | undefined, address?: string, eid?: string): Promise<AuthenticatedCaller | null> {
    const caller = await this.resolve(authorization, address);
    return caller && eid ? { ...caller, eid } : caller;
  }

  private async resolve(authorization: string | undefined, address?: string): Promise<AuthenticatedCaller | null> {
    const credential = bearerCredential(authorization);
    if (credential === undefined) return null;
    if (isSessionId(credential)) {
      const session = await this.options.sessions.touch(credential);
      if (session) return this.sessionCaller(session, address, credential);
      // Not a session (any more); it may still be a token that happens to look like one.
      if (matchToken(this.options.tokens, credential) === null) return null;
    }
    if (JWT.test(credential)) {
      const claims = this.options.dnsApi ? await this.options.dnsApi.verify(credential) : null;
      // A JWT we cannot take (expired, another issuer, no trust configured) is no API token either: the caller is
      // anonymous and hears `Not authenticated`, not a misleading `Login failed`. (Guessing a JWT is guessing an
      // Ed25519 signature: no throttle needed.)
      if (!claims)
        return matchToken(this.options.tokens, credential) === null ? null : this.tokenCaller(credential, address);
      const grant = this.grant(claims.username);
      const roles = grant.explicit ? grant : { roles: this.options.dnsApiRoles[claims.role] ?? [], explicit: false };
      return { user: claims.username, grant: roles, via: 'dns-api', rolesKey: claims.username, address };
    }
    // A token sent as the credential of any action is a login too: guesses are throttled like login_token's.
    return this.guarded(tokenKey(credential), address, async () => {
      if (matchToken(this.options.tokens, credential) === null) throw toolErrors.badToken();
      return this.tokenCaller(credential, address);
    });
  }

  private tokenCaller(token: string, address: string | undefined): AuthenticatedCaller {
    return { user: tokenUser(token), grant: this.grant(token), via: 'token', rolesKey: token, address };
  }

  /**
   * `login`: file login, then directory login; a new session on success. Throttled per user name and address like
   * the DNS API's login; file login's password checks wait in a short line.
   */
  async loginPassword(username: string | undefined, password: string | undefined, address?: string): Promise<string> {
    if (!username || password === undefined)
      throw toolErrors.loginFailed('No credentials provided (loginUsername or loginPassword missing)');
    const { usersFile, directory } = this.options;
    if (!usersFile && !directory) throw toolErrors.loginFailed('Unsupported authentication mechanism');
    if (password === '') throw toolErrors.loginFailed('Empty password is not allowed');
    // Only the credential check counts against the throttle; a session the store then refuses is no failed login.
    const session = await this.guarded(`user:${username.slice(0, 256)}`, address, async (): Promise<Session> => {
      if (usersFile && (usersFile.has(username) || !directory)) {
        const { user, fileRoles } = await this.checks.run(() => fileLogin(usersFile, username, password));
        return { user, rolesKey: user, via: 'password', fileRoles };
      }
      if (!directory) throw toolErrors.loginFailed('Unsupported authentication mechanism');
      const { user } = await directory(username, password);
      // A directory user needs a place in the roles map (or a default role): the directory says who, we say what.
      if (this.grant(user).roles.length === 0)
        throw toolErrors.loginFailed(
          'This user is not allowed to login to this tool (username not present in config.php)',
        );
      return { user, rolesKey: user, via: 'password' };
    });
    return this.options.sessions.open(session);
  }

  /**
   * `login_token`: any configured token (compared exactly, in constant time); a new session on success. Guesses are
   * throttled per token USER part and address (and per address).
   */
  async loginToken(token: string | undefined, address?: string): Promise<string> {
    if (!token) throw toolErrors.noToken();
    const found = await this.guarded(tokenKey(token), address, async () => {
      const match = matchToken(this.options.tokens, token);
      if (match === null) throw toolErrors.loginFailed('Invalid username or password');
      return match;
    });
    return this.options.sessions.open({ user: tokenUser(found), rolesKey: found, via: 'token' });
  }

  /** Ends the caller's session (its id stops working); token and DNS API callers have none to end. */
  async logout(caller: AuthenticatedCaller): Promise<void> {
    if (caller.sessionId) await this.options.sessions.end(caller.sessionId);
  }

  private grant(rolesKey: string, fileRoles?: readonly string[]): Grant {
    return grantOf(this.options.roles, rolesKey, fileRoles);
  }

  private sessionCaller(session: Session, address: string | undefined, sessionId: string): AuthenticatedCaller {
    return {
      user: session.user,
      grant: this.grant(session.rolesKey, session.fileRoles),
      via: 'session',
      rolesKey: session.rolesKey,
      sessionId,
      address,
    };
  }
}

/** What a token guess counts against: its USER part (guesses without one share `token`), bounded in length. */
function tokenKey(token: string): string {
  return `token:${tokenUser(token).slice(0, 256)}`;
}

/** The roles `is_logged` shows: only those of the map or the users file (not a default role), joined with `,`. */
export function shownRoles(grant: Grant): string | null {
  return grant.explicit && grant.roles.length > 0 ? grant.roles.join(',') : null;
}

export { ROOT_ROLE };
