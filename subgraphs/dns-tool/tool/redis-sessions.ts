import { redisKey, type RedisLink } from '../../../platform/redis';
import { toolErrors } from '../protocol';
import {
  DEFAULT_SESSION_BOUNDS,
  isSessionId,
  newSessionId,
  SESSION_IDLE_S,
  sessionBytes,
  sessionOwner,
  type Session,
  type SessionBounds,
  type SessionStore,
} from './sessions';

/*
 * Keys under P = REDIS_PREFIX and `:` (redisKey), one Redis, not a Cluster (the scripts name keys they build from P,
 * as the rest of our Redis use assumes one instance):
 *   P tool-session:<id>        the session's JSON, expiring with it (PXAT): what touch reads
 *   P tool-sessions            sorted set id → expiry (ms): finds expired sessions to clean
 *   P tool-session-meta        hash id → "<bytes>:<owner>": what an ended session gives back, and where it is indexed
 *   P tool-session-bytes       the estimated bytes of all indexed sessions (sessionBytes)
 *   P tool-sessions-of:<owner> sorted set id → order of last use: the owner's least recently used first
 * Every change runs in one script, so replicas never see an index half written. The byte bound is a counter of our
 * estimate, kept by the same scripts that add and drop sessions: exact for the estimate and free per request, where
 * MEMORY USAGE would cost a call per key and a key count × a size would ignore what each session holds. The index
 * keys expire one idle time after their last session would: nothing stays behind once logins stop.
 */

const LUA_COMMON = `
local P = ARGV[1]
local ALL, META, BYTES = P .. 'tool-sessions', P .. 'tool-session-meta', P .. 'tool-session-bytes'
local function ownerKey(owner) return P .. 'tool-sessions-of:' .. owner end
local function metaOf(id)
  local meta = redis.call('HGET', META, id)
  if not meta then return 0, nil end
  local cut = string.find(meta, ':', 1, true)
  return tonumber(string.sub(meta, 1, cut - 1)), string.sub(meta, cut + 1)
end
local function drop(id)
  local bytes, owner = metaOf(id)
  if owner then
    redis.call('DECRBY', BYTES, bytes)
    redis.call('ZREM', ownerKey(owner), id)
    redis.call('HDEL', META, id)
  end
  redis.call('ZREM', ALL, id)
  redis.call('DEL', P .. 'tool-session:' .. id)
end
local function keep(key, expires, idle) redis.call('PEXPIREAT', key, expires + idle) end
local function lastUse(mine, now)
  local top = redis.call('ZRANGE', mine, -1, -1, 'WITHSCORES')[2]
  if top and tonumber(top) >= now then return tonumber(top) + 1 end
  return now
end
`;

/** ARGV: P, id, json, now, expires, idle ms, bytes, owner, max per user, max bytes. 1: opened, 0: no room. */
const OPEN = `${LUA_COMMON}
local id, json, now, expires, idle = ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local bytes, owner, maxPerUser, maxBytes = tonumber(ARGV[7]), ARGV[8], tonumber(ARGV[9]), tonumber(ARGV[10])
-- expired sessions first, at most 1000 a login (a script holds Redis while it runs; touches clean their own)
for _, old in ipairs(redis.call('ZRANGEBYSCORE', ALL, '-inf', now, 'LIMIT', 0, 1000)) do drop(old) end
if redis.call('ZCARD', ALL) == 0 then redis.call('DEL', BYTES) end
-- the owner's own least recently used sessions past the per-user bound
local mine = ownerKey(owner)
while redis.call('ZCARD', mine) >= maxPerUser do
  local oldest = redis.call('ZRANGE', mine, 0, 0)[1]
  drop(oldest)
  redis.call('ZREM', mine, oldest)
end
-- the byte bound: only the owner's own sessions may make room, and only if they can
local total = tonumber(redis.call('GET', BYTES) or '0')
if total + bytes > maxBytes then
  local ids = redis.call('ZRANGE', mine, 0, -1)
  local own = 0
  for _, old in ipairs(ids) do own = own + metaOf(old) end
  if total - own + bytes > maxBytes then return 0 end
  for _, old in ipairs(ids) do
    if total + bytes <= maxBytes then break end
    total = total - metaOf(old)
    drop(old)
    redis.call('ZREM', mine, old)
  end
end
redis.call('SET', P .. 'tool-session:' .. id, json, 'PXAT', expires)
redis.call('ZADD', ALL, expires, id)
redis.call('HSET', META, id, bytes .. ':' .. owner)
redis.call('INCRBY', BYTES, bytes)
redis.call('ZADD', mine, lastUse(mine, now), id)
for _, key in ipairs({ALL, META, BYTES, mine}) do keep(key, expires, idle) end
return 1
`;

/** ARGV: P, id, now, expires, idle ms. The session's JSON, or nil when unknown or expired. */
const TOUCH = `${LUA_COMMON}
local id, now, expires, idle = ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local key = P .. 'tool-session:' .. id
local json = redis.call('GET', key)
local at = redis.call('ZSCORE', ALL, id)
if not at then
  -- opened by a replica before the index (a rolling upgrade): it slides as it did, unbounded until it ends
  if json then redis.call('PEXPIREAT', key, expires) end
  return json
end
if tonumber(at) <= now or not json then
  drop(id)
  return false
end
redis.call('PEXPIREAT', key, expires)
redis.call('ZADD', ALL, expires, id)
local _, owner = metaOf(id)
local keys = {ALL, META, BYTES}
if owner then
  local mine = ownerKey(owner)
  redis.call('ZADD', mine, lastUse(mine, now), id)
  keys[4] = mine
end
for _, k in ipairs(keys) do keep(k, expires, idle) end
return json
`;

/** ARGV: P, id. */
const END = `${LUA_COMMON}
drop(ARGV[2])
return 1
`;

export interface RedisSessionOptions {
  prefix: string;
  idleSeconds?: number;
  bounds?: SessionBounds;
  /** The clock expiry is measured by (every replica's own; they agree within their clocks' skew). */
  now?: () => number;
}

/**
 * Sessions in Redis (with REDIS_URL), so every replica knows every session: one key per session holding its JSON,
 * and indexes that bound them per user and in bytes (SessionBounds) as the memory store does; each request pushes
 * the expiry forward.
 */
export class RedisSessionStore implements SessionStore {
  readonly kind = 'redis';
  constructor(
    private readonly link: RedisLink,
    private readonly options: RedisSessionOptions,
  ) {}

  private get idleMs(): number {
    return (this.options.idleSeconds ?? SESSION_IDLE_S) * 1000;
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  private script(lua: string, args: readonly (string | number)[]): Promise<unknown> {
    const argv = [redisKey(this.options.prefix, ''), ...args].map(String);
    return this.link.run((c) => c.eval(lua, { keys: [], arguments: argv }));
  }

  async open(session: Session): Promise<string> {
    const id = newSessionId();
    const bounds = this.options.bounds ?? DEFAULT_SESSION_BOUNDS;
    const now = this.now();
    const args = [id, JSON.stringify(session), now, now + this.idleMs, this.idleMs, sessionBytes(session)];
    const opened = await this.script(OPEN, [...args, sessionOwner(session), bounds.maxPerUser, bounds.maxBytes]);
    if (opened !== 1) throw toolErrors.sessionLimit(bounds.maxBytes);
    return id;
  }

  async touch(id: string): Promise<Session | null> {
    if (!isSessionId(id)) return null;
    const now = this.now();
    const text = await this.script(TOUCH, [id, now, now + this.idleMs, this.idleMs]);
    if (typeof text !== 'string') return null;
    const parsed: unknown = JSON.parse(text);
    return isSession(parsed) ? parsed : null;
  }

  async end(id: string): Promise<void> {
    if (isSessionId(id)) await this.script(END, [id]);
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
