/**
 * The throttle's counts in Redis (REDIS_URL), shared by every replica: what one replica counts, the others refuse.
 *
 * Keys under `<prefix>:login-throttle:<namespace>:` (one Redis, not a Cluster, as the rest of our Redis use):
 *   failed-pair:<user>|<address>  sorted set attempt id → start time (ms): failures of the pair in the window
 *   failed-address:<address>      the same per address
 *   failed-user:<user>            the same per username (from every address)
 *   turn:<user>                   the earliest time (ms) a slowed username's next password check may run
 *   trusted:<user>|<address>      until when (ms) the pair skips the username's slow-down (it logged in)
 * Each operation is one script, so a check and its count are one step across replicas: attempts sent at once through
 * any replicas cannot all pass. A failure is its attempt's own id (scored by its time), so a success takes back
 * exactly its own.
 * Sets are trimmed as the memory ledger's lists are (to the limit, a username's to 64), and every key expires a window
 * after its last write (a trust when it ends): nothing stays behind once logins stop. Times are the callers' clocks
 * (replicas agree within their skew), never Redis's, so a key's value decides and its expiry only cleans up.
 *
 * While Redis does not answer (unreachable, too slow, an error), attempts are counted in a memory ledger of this
 * process instead — never refused for want of Redis, never let through uncounted — and the ledger says so in one log
 * line when that starts and one when Redis answers again. Counts made meanwhile stay in that process. Erring on
 * the side of counting: an attempt that timed out may be counted in Redis as well, and one Redis admitted whose
 * success Redis cannot hear of keeps its failure there until it leaves the window.
 */
import { createHash, randomBytes } from 'node:crypto';
import { redisKey, type RedisLink } from '../redis';
import {
  MAX_COUNTED_PER_USERNAME,
  type FailureCounts,
  type LedgerFactory,
  type LedgerLog,
  type ThrottleDecision,
  type ThrottleKeys,
  type ThrottleLedger,
  type ThrottleLimits,
  type TrackedKeys,
} from './ledger';
import { MemoryLedger } from './memory-ledger';

/** Drops a key's failures out of the window; `live` counts those left. */
const LUA_WINDOW = `
local t, window = tonumber(ARGV[1]), tonumber(ARGV[2])
local function live(key)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', t - window)
  return redis.call('ZCARD', key)
end
`;

/**
 * KEYS: pair, address, user, turn, trusted. ARGV: t, window ms, limit per pair (and slow-down threshold), limit per
 * address, most counted per user, slow-down base ms, largest spacing ms, longest hold ms, attempt id.
 * {'refused', pair wait, address wait} | {'slowed', wait} | {'admitted', hold}.
 */
const BEGIN = `${LUA_WINDOW}
local pairLimit, addressLimit, userCap = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local base, widest, longest, id = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8]), ARGV[9]
-- ms until the key may try again: 0 under its limit, else until the oldest failure that counts leaves the window
local function waitMs(key, limit)
  local n = live(key)
  if n < limit then return 0 end
  local oldest = tonumber(redis.call('ZRANGE', key, n - limit, n - limit, 'WITHSCORES')[2])
  return math.max(1, oldest + window - t)
end
local pairWait, addressWait = waitMs(KEYS[1], pairLimit), waitMs(KEYS[2], addressLimit)
if pairWait > 0 or addressWait > 0 then return {'refused', pairWait, addressWait} end
local hold = 0
if tonumber(redis.call('GET', KEYS[5]) or '0') <= t then
  local over = live(KEYS[3]) - pairLimit
  if over >= 0 then
    local spacing = math.min(base * 2 ^ over, widest)
    local turn = math.max(t, tonumber(redis.call('GET', KEYS[4]) or '0'))
    hold = turn - t
    if hold > longest then return {'slowed', hold} end
    redis.call('SET', KEYS[4], turn + spacing, 'PX', math.max(window, turn + spacing - t))
  end
end
local function add(key, limit)
  redis.call('ZADD', key, t, id)
  redis.call('ZREMRANGEBYRANK', key, 0, -(limit + 1))
  redis.call('PEXPIRE', key, window)
end
add(KEYS[1], pairLimit)
add(KEYS[2], addressLimit)
add(KEYS[3], userCap)
return {'admitted', hold}
`;

/** KEYS: pair, address, user, trusted. ARGV: attempt id, trusted until (ms), its expiry (ms from now). */
const SUCCEEDED = `
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('SET', KEYS[4], ARGV[2], 'PX', ARGV[3])
return 1
`;

/** KEYS: pair, address, user. ARGV: t, window ms. The failures of each in the window at t. */
const FAILED = `${LUA_WINDOW}
return {live(KEYS[1]), live(KEYS[2]), live(KEYS[3])}
`;

export interface RedisLedgerOptions {
  /** REDIS_PREFIX: keys are `<prefix>:login-throttle:<namespace>:…`. */
  prefix: string;
  /** One per interface (`dns-api`, `dns-tool`): each keeps its own counts, as it does in memory. */
  namespace: string;
}

/** Ids of attempts the memory ledger admitted while Redis did not answer. */
const LOCAL = 'local:';
/** Longest username or address put in a key as it is; a longer one is hashed. */
const KEY_PART_MAX = 200;

/**
 * A username or address as part of a key: letters, digits and `._~@:/+-` as they are (readable), any other UTF-16
 * unit as `%xxxx` (so `|` separates the pair's parts unambiguously), hashed when longer than KEY_PART_MAX.
 */
export function keyPart(value: string): string {
  const escaped = value.replace(/[^A-Za-z0-9._~@:/+-]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (escaped.length <= KEY_PART_MAX) return escaped;
  return `#${createHash('sha256').update(escaped).digest('base64url')}`;
}

function numberAt(reply: readonly unknown[], i: number): number {
  const value = reply[i];
  if (typeof value !== 'number')
    throw new Error(`login throttle: unexpected reply from Redis (${typeof value} at ${i})`);
  return value;
}

function decisionOf(reply: unknown, id: string): ThrottleDecision {
  if (!Array.isArray(reply)) throw new Error('login throttle: unexpected reply from Redis (not a list)');
  const kind: unknown = reply[0];
  if (kind === 'admitted') return { kind, holdMs: numberAt(reply, 1), id };
  if (kind === 'slowed') return { kind, waitMs: numberAt(reply, 1) };
  if (kind !== 'refused') throw new Error('login throttle: unexpected reply from Redis (no decision)');
  const [pairWait, addressWait] = [numberAt(reply, 1), numberAt(reply, 2)];
  const limit = pairWait > 0 && addressWait > 0 ? 'both' : pairWait > 0 ? 'pair' : 'address';
  return { kind, limit, waitMs: Math.max(pairWait, addressWait) };
}

class RedisLedger implements ThrottleLedger {
  private readonly local: MemoryLedger;
  private readonly base: string;
  private readonly windowMs: number;
  /** Since Redis stopped answering (attempts are counted in `local`), until it answers again. */
  private unanswered = false;

  constructor(
    private readonly link: RedisLink,
    options: RedisLedgerOptions,
    private readonly limits: ThrottleLimits,
    private readonly context: { log?: LedgerLog; what: string },
  ) {
    this.base = redisKey(options.prefix, 'login-throttle', options.namespace, '');
    this.windowMs = limits.windowSeconds * 1000;
    this.local = new MemoryLedger(limits);
  }

  /** What this process holds in memory: the counts made while Redis did not answer. */
  get tracked(): TrackedKeys {
    return this.local.tracked;
  }

  async begin(keys: ThrottleKeys, t: number): Promise<ThrottleDecision> {
    const id = randomBytes(12).toString('base64url');
    const k = this.keysOf(keys);
    const o = this.limits;
    const limits = [o.maxFailuresPerUsername, o.maxFailuresPerAddress, MAX_COUNTED_PER_USERNAME];
    const slowdown = [o.slowdownBaseMs, o.slowdownMaxMs, o.maxHoldMs];
    try {
      const keyList = [k.pair, k.address, k.user, k.turn, k.trusted];
      const reply = await this.script(BEGIN, keyList, [t, this.windowMs, ...limits, ...slowdown, id]);
      const decision = decisionOf(reply, id);
      this.answered();
      return decision;
    } catch (err) {
      this.notAnswered(err);
      const decision = await this.local.begin(keys, t);
      return decision.kind === 'admitted' ? { ...decision, id: `${LOCAL}${decision.id}` } : decision;
    }
  }

  async succeeded(keys: ThrottleKeys, t: number, id: string, trustUntil: number): Promise<void> {
    if (id.startsWith(LOCAL)) return this.local.succeeded(keys, t, id.slice(LOCAL.length), trustUntil);
    const k = this.keysOf(keys);
    try {
      await this.script(
        SUCCEEDED,
        [k.pair, k.address, k.user, k.trusted],
        [id, trustUntil, Math.max(1, trustUntil - t)],
      );
      this.answered();
    } catch (err) {
      // Redis keeps this attempt's failure until it leaves the window; this process at least trusts the address.
      this.notAnswered(err);
      await this.local.succeeded(keys, t, id, trustUntil);
    }
  }

  async failed(keys: ThrottleKeys, t: number, id: string): Promise<FailureCounts> {
    if (id.startsWith(LOCAL)) return this.local.failed(keys, t);
    const k = this.keysOf(keys);
    try {
      const reply = await this.script(FAILED, [k.pair, k.address, k.user], [t, this.windowMs]);
      if (!Array.isArray(reply)) throw new Error('login throttle: unexpected reply from Redis (not a list)');
      const counts = { perPair: numberAt(reply, 0), perAddress: numberAt(reply, 1), perUsername: numberAt(reply, 2) };
      this.answered();
      return counts;
    } catch (err) {
      this.notAnswered(err);
      return this.local.failed(keys, t);
    }
  }

  private keysOf({ username, address }: ThrottleKeys) {
    const u = keyPart(username);
    const a = keyPart(address);
    return {
      pair: `${this.base}failed-pair:${u}|${a}`,
      address: `${this.base}failed-address:${a}`,
      user: `${this.base}failed-user:${u}`,
      turn: `${this.base}turn:${u}`,
      trusted: `${this.base}trusted:${u}|${a}`,
    };
  }

  private script(lua: string, keys: string[], args: ReadonlyArray<string | number>): Promise<unknown> {
    const argv = args.map(String);
    return this.link.run((c) => c.eval(lua, { keys, arguments: argv }));
  }

  /** Redis answered: if it had not, say once that counts are shared again. */
  private answered(): void {
    if (!this.unanswered) return;
    this.unanswered = false;
    this.context.log?.info(
      { redis: 'login throttle' },
      `${this.context.what}: the login throttle reaches Redis again; failed logins count across replicas again`,
    );
  }

  /** Redis did not answer: say once, when it starts, that failed logins count per process meanwhile. */
  private notAnswered(err: unknown): void {
    if (this.unanswered) return;
    this.unanswered = true;
    this.context.log?.warn(
      { redis: 'login throttle', err: err instanceof Error ? err.message : String(err) },
      `${this.context.what}: the login throttle cannot reach Redis; failed logins count per process until it answers`,
    );
  }
}

/**
 * The ledger of a throttle whose counts every replica shares through `link` (which its owner closes). Make one per
 * interface, each with its own `namespace`.
 */
export function redisLedger(link: RedisLink, options: RedisLedgerOptions): LedgerFactory {
  if (!/^[a-z0-9-]{1,32}$/.test(options.namespace))
    throw new Error('login throttle: a Redis namespace is 1 to 32 lower-case letters, digits or -');
  return (limits, context) => new RedisLedger(link, options, limits, context);
}
