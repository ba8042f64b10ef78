import { randomBytes } from 'node:crypto';

/** Who a session belongs to. */
export interface Session {
  /** The user name (for a token session: the token's USER part). */
  user: string;
  /** The key of the users-to-roles map: the user name, or the whole token for a token login. */
  rolesKey: string;
  /** Roles from the users file, when the user logged in with file login and the file gives some. */
  fileRoles?: readonly string[];
  /** How the session was opened. */
  via: 'password' | 'token';
}

export interface SessionStore {
  /** Where sessions are kept (`memory`, `redis`), for health. */
  readonly kind: string;
  /** Opens a session; returns its new id. */
  open(session: Session): Promise<string>;
  /** The session, its expiry pushed forward (sliding), or null when unknown or expired. */
  touch(id: string): Promise<Session | null>;
  /** Ends a session: its id no longer works. */
  end(id: string): Promise<void>;
  close(): Promise<void>;
}

/** Idle time after which a session ends (the original: PHP's 3600 s). */
export const SESSION_IDLE_S = 3600;

/** 128 random bits, URL- and cookie-safe. */
export function newSessionId(): string {
  return randomBytes(16).toString('hex');
}

/** A session id as we issue them (anything else is not looked up). */
export function isSessionId(id: string): boolean {
  return /^[0-9a-f]{32}$/.test(id);
}

/**
 * Sessions in this process's memory (the default; REDIS_URL shares them between replicas). Bounded: past
 * `maxSessions` the oldest session ends.
 */
export class MemorySessionStore implements SessionStore {
  readonly kind = 'memory';
  private readonly sessions = new Map<string, { session: Session; expires: number }>();

  constructor(private readonly options: { idleSeconds?: number; maxSessions?: number; now?: () => number } = {}) {}

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  async open(session: Session): Promise<string> {
    const id = newSessionId();
    this.sweep();
    const max = this.options.maxSessions ?? 100_000;
    while (this.sessions.size >= max) {
      const oldest = this.sessions.keys().next();
      if (oldest.done) break;
      this.sessions.delete(oldest.value);
    }
    this.sessions.set(id, { session, expires: this.now() + (this.options.idleSeconds ?? SESSION_IDLE_S) * 1000 });
    return id;
  }

  async touch(id: string): Promise<Session | null> {
    const entry = isSessionId(id) ? this.sessions.get(id) : undefined;
    if (!entry) return null;
    if (entry.expires <= this.now()) {
      this.sessions.delete(id);
      return null;
    }
    // Re-inserted: the map's order stays least recently used first, for the bound above.
    this.sessions.delete(id);
    this.sessions.set(id, {
      session: entry.session,
      expires: this.now() + (this.options.idleSeconds ?? SESSION_IDLE_S) * 1000,
    });
    return entry.session;
  }

  async end(id: string): Promise<void> {
    this.sessions.delete(id);
  }

  async close(): Promise<void> {
    this.sessions.clear();
  }

  /** Ends expired sessions at the front (least recently used) of the map. */
  private sweep(): void {
    const now = this.now();
    for (const [id, entry] of this.sessions) {
      if (entry.expires > now) break;
      this.sessions.delete(id);
    }
  }
}
