import { createHash, randomBytes } from 'node:crypto';
import { isSessionId, toolErrors } from '../protocol';

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
  /**
   * Opens a session; returns its new id. Past the per-user bound the user's least recently used session ends; a
   * login the byte bound has no room for is refused with a tool error (`Session limit reached`).
   */
  open(session: Session): Promise<string>;
  /** The session, its expiry pushed forward (sliding), or null when unknown or expired. */
  touch(id: string): Promise<Session | null>;
  /** Ends a session: its id no longer works. */
  end(id: string): Promise<void>;
  close(): Promise<void>;
}

/** Idle time after which a session ends (the original: PHP's 3600 s). */
export const SESSION_IDLE_S = 3600;

/** How many sessions the store holds (one token opened 124 779 and evicted other users' sessions: docs/dns-tool.md). */
export interface SessionBounds {
  /** Sessions one user may hold; the next login ends that user's least recently used one. */
  maxPerUser: number;
  /** Estimated bytes of all sessions (sessionBytes): a login its user's own sessions cannot make room for fails. */
  maxBytes: number;
}

export const DEFAULT_SESSION_BOUNDS: SessionBounds = { maxPerUser: 100, maxBytes: 64 * 1024 * 1024 };

/** 128 random bits, URL- and cookie-safe. */
export function newSessionId(): string {
  return randomBytes(16).toString('hex');
}

export { isSessionId };

/**
 * The user a session counts against: how it was opened and its roles key — one login name, or one whole token (two
 * tokens of one USER part are two credentials). A token and a user of the same name never share a bound. Hashed: a
 * token must not show in Redis key names.
 */
export function sessionOwner(session: Session): string {
  return createHash('sha256').update(`${session.via}\u0000${session.rolesKey}`).digest('hex');
}

/**
 * What one session costs besides its strings: the map entries, objects and index entries that hold it. Measured
 * with the memory store on Node 20: about 550 bytes of heap per session with short names, strings included.
 */
const SESSION_OVERHEAD_BYTES = 384;

/** A session's estimated size: its strings (two bytes a character, V8's most), its id and owner, and the rest. */
export function sessionBytes(session: Session): number {
  const roles = (session.fileRoles ?? []).reduce((n, r) => n + r.length, 0);
  const chars = session.user.length + session.rolesKey.length + session.via.length + roles + 32 + 64;
  return SESSION_OVERHEAD_BYTES + 2 * chars;
}

interface Entry {
  session: Session;
  owner: string;
  bytes: number;
  expires: number;
}

export interface MemorySessionOptions {
  idleSeconds?: number;
  bounds?: SessionBounds;
  now?: () => number;
}

/**
 * Sessions in this process's memory (the default; REDIS_URL shares them between replicas). Bounded per user and
 * in bytes (SessionBounds): a flood of logins ends the flooder's own sessions, never another user's.
 */
export class MemorySessionStore implements SessionStore {
  readonly kind = 'memory';
  /** Every session, least recently used first (a request moves its session to the end): expiry order too. */
  private readonly sessions = new Map<string, Entry>();
  /** Each owner's session ids, least recently used first. */
  private readonly owners = new Map<string, Set<string>>();
  private bytes = 0;

  constructor(private readonly options: MemorySessionOptions = {}) {}

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  private get bounds(): SessionBounds {
    return this.options.bounds ?? DEFAULT_SESSION_BOUNDS;
  }

  private expiry(): number {
    return this.now() + (this.options.idleSeconds ?? SESSION_IDLE_S) * 1000;
  }

  async open(session: Session): Promise<string> {
    const owner = sessionOwner(session);
    const bytes = sessionBytes(session);
    this.sweep();
    this.trimOwner(owner, this.bounds.maxPerUser - 1);
    this.makeRoom(owner, bytes);
    const id = newSessionId();
    this.add(id, { session, owner, bytes, expires: this.expiry() });
    return id;
  }

  async touch(id: string): Promise<Session | null> {
    const entry = isSessionId(id) ? this.sessions.get(id) : undefined;
    if (!entry) return null;
    if (entry.expires <= this.now()) {
      this.remove(id);
      return null;
    }
    // Re-inserted at the end: both orders stay least recently used first.
    this.remove(id);
    this.add(id, { ...entry, expires: this.expiry() });
    return entry.session;
  }

  async end(id: string): Promise<void> {
    this.remove(id);
  }

  async close(): Promise<void> {
    this.sessions.clear();
    this.owners.clear();
    this.bytes = 0;
  }

  private add(id: string, entry: Entry): void {
    this.sessions.set(id, entry);
    let ids = this.owners.get(entry.owner);
    if (!ids) this.owners.set(entry.owner, (ids = new Set()));
    ids.add(id);
    this.bytes += entry.bytes;
  }

  private remove(id: string): void {
    const entry = this.sessions.get(id);
    if (!entry) return;
    this.sessions.delete(id);
    const ids = this.owners.get(entry.owner);
    ids?.delete(id);
    if (ids?.size === 0) this.owners.delete(entry.owner);
    this.bytes -= entry.bytes;
  }

  /** Ends expired sessions at the front (least recently used) of the map. */
  private sweep(): void {
    const now = this.now();
    for (const [id, entry] of this.sessions) {
      if (entry.expires > now) break;
      this.remove(id);
    }
  }

  /** Ends the owner's least recently used sessions until it holds at most `keep`. */
  private trimOwner(owner: string, keep: number): void {
    const ids = this.owners.get(owner);
    if (!ids) return;
    for (const id of ids) {
      if (ids.size <= keep) break;
      this.remove(id);
    }
  }

  /**
   * Room for `bytes` more: the owner's own least recently used sessions end if that is enough; if even all of
   * them are not, the login is refused and nothing ends — another user's session never does.
   */
  private makeRoom(owner: string, bytes: number): void {
    const max = this.bounds.maxBytes;
    if (this.bytes + bytes <= max) return;
    const ids = [...(this.owners.get(owner) ?? [])];
    const own = ids.reduce((n, id) => n + (this.sessions.get(id)?.bytes ?? 0), 0);
    if (this.bytes - own + bytes > max) throw toolErrors.sessionLimit(max);
    for (const id of ids) {
      if (this.bytes + bytes <= max) break;
      this.remove(id);
    }
  }
}
