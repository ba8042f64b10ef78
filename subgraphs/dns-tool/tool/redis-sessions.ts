import type { RedisLink } from '../../market/redis-link';
import { isSessionId, newSessionId, SESSION_IDLE_S, type Session, type SessionStore } from './sessions';

/**
 * Sessions in Redis (with REDIS_URL), so every replica knows every session: one key per session holding its JSON,
 * expiring after the idle time; each request pushes the expiry forward (GETEX). Redis bounds them by time.
 */
export class RedisSessionStore implements SessionStore {
  readonly kind = 'redis';
  constructor(
    private readonly link: RedisLink,
    private readonly options: { prefix: string; idleSeconds?: number },
  ) {}

  private key(id: string): string {
    return `${this.options.prefix}tool-session:${id}`;
  }

  private get idle(): number {
    return this.options.idleSeconds ?? SESSION_IDLE_S;
  }

  async open(session: Session): Promise<string> {
    const id = newSessionId();
    await this.link.run((c) =>
      c.set(this.key(id), JSON.stringify(session), { expiration: { type: 'EX', value: this.idle } }),
    );
    return id;
  }

  async touch(id: string): Promise<Session | null> {
    if (!isSessionId(id)) return null;
    const text = await this.link.run((c) => c.getEx(this.key(id), { type: 'EX', value: this.idle }));
    if (typeof text !== 'string') return null;
    const parsed: unknown = JSON.parse(text);
    return isSession(parsed) ? parsed : null;
  }

  async end(id: string): Promise<void> {
    if (isSessionId(id)) await this.link.run((c) => c.del(this.key(id)));
  }

  async close(): Promise<void> {
    // the link is shared and closed by its owner
  }
}

/** A stored value is used only when it has a session's shape (another writer's key is not trusted blindly). */
function isSession(value: unknown): value is Session {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.user === 'string' &&
    typeof v.rolesKey === 'string' &&
    (v.via === 'password' || v.via === 'token') &&
    (v.fileRoles === undefined || (Array.isArray(v.fileRoles) && v.fileRoles.every((r) => typeof r === 'string')))
  );
}
