/**
 * Response rate limiting (RRL) for UDP answers, as BIND 9's `rate-limit` and Knot DNS's `mod-rrl` do it: identical
 * responses to one client network (the address masked to /24 or /56) are limited to a rate per second; past it a
 * response is dropped, or every `slip`-th one sent truncated (TC, question only) so that a real client asks again
 * over TCP, which a forged source cannot. A reflection attack gets at most the rate, and no amplification.
 *
 * Accounts follow BIND: each (network, kind of response, identity) has a balance that starts at the rate, gains
 * the rate per second up to the rate, and loses one per response down to -window × rate; a response is limited while
 * the balance is negative. So a flood is limited until it has been quiet (or below the rate) for up to `window`.
 *
 * Everything lives in typed arrays of a fixed size (an open-addressing table, a few probes, the least recently used
 * of them replaced when all are taken): no allocation, no string, per response. The caller decides what is exempt
 * beyond the configured networks (TCP, TSIG, a valid server cookie: see respond.ts).
 */
import { formatIPv6, parseIPv6 } from '../../records';

/** What to do with a response. */
export const RRL = {
  /** Send it. */
  send: 0,
  /** Limited: send nothing. */
  drop: 1,
  /** Limited: send the truncated form instead (slipResponse). */
  slip: 2,
} as const;
export type RrlVerdict = (typeof RRL)[keyof typeof RRL];

export type RrlMode = 'on' | 'log-only';

/** The kinds of response, each with its own rate (BIND's categories). */
export const RRL_CATEGORIES = ['response', 'nxdomain', 'nodata', 'referral', 'error'] as const;
const RESPONSE = 0;
const NXDOMAIN = 1;
const NODATA = 2;
const REFERRAL = 3;
const ERROR = 4;

export interface RrlOptions {
  /** `on` limits; `log-only` counts and logs what it would limit, and sends everything. */
  mode: RrlMode;
  /** Identical answers (NOERROR with records) per second per network; 0: not limited. */
  responsesPerSecond: number;
  /** NXDOMAIN per second per network and zone (default: responsesPerSecond). */
  nxdomainsPerSecond?: number;
  /** NOERROR without records per second per network, name and type (default: responsesPerSecond). */
  nodataPerSecond?: number;
  /** Referrals per second per network and delegation (default: responsesPerSecond). */
  referralsPerSecond?: number;
  /** Errors (SERVFAIL, REFUSED, FORMERR, ...) per second per network (default: responsesPerSecond). */
  errorsPerSecond?: number;
  /** Seconds a limited account takes to recover at most (its balance goes down to -window × rate). */
  windowS: number;
  /** Every slip-th limited response goes out truncated; 0 never, 1 always. */
  slip: number;
  /** Prefix lengths a client address is masked to. */
  ipv4Prefix: number;
  ipv6Prefix: number;
  /** Networks never limited (CIDR, or a bare address). */
  exempt: readonly string[];
  /** Accounts kept at most. */
  tableSize: number;
}

/** BIND 9's defaults (responses-per-second 20 as commonly advised; BIND's own is 0: off) and Knot's slip 2. */
export const DEFAULT_RRL: RrlOptions = {
  mode: 'on',
  responsesPerSecond: 20,
  windowS: 15,
  slip: 2,
  ipv4Prefix: 24,
  ipv6Prefix: 56,
  exempt: [],
  tableSize: 20_000,
};

export interface RrlLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/** A network as four 32-bit words (IPv4: the first), its family and prefix. */
interface Network {
  v6: boolean;
  words: Uint32Array;
  prefix: number;
}

/** The bits of a prefix length within word `w` (0-3). */
function wordMask(prefix: number, w: number): number {
  const bits = Math.max(0, Math.min(32, prefix - w * 32));
  return bits === 0 ? 0 : bits === 32 ? 0xffffffff : (0xffffffff << (32 - bits)) >>> 0;
}

/** A dotted quad's value, or -1 (no allocation: the answer path parses every new sender). */
export function ipv4Value(s: string, from = 0): number {
  let value = 0;
  let part = -1;
  let dots = 0;
  for (let i = from; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 46) {
      if (part < 0 || ++dots > 3) return -1;
      value = value * 256 + part;
      part = -1;
    } else if (c >= 48 && c <= 57) {
      part = (part < 0 ? 0 : part * 10) + (c - 48);
      if (part > 255) return -1;
    } else return -1;
  }
  if (dots !== 3 || part < 0) return -1;
  return value * 256 + part;
}

/** `address` (text, as transports give it) as a network of `words` (IPv4-mapped IPv6 is IPv4); false: unreadable. */
function readAddress(address: string, words: Uint32Array): 'v4' | 'v6' | false {
  let v4 = ipv4Value(address);
  if (v4 < 0 && address.length > 7 && address.charCodeAt(0) === 58 && /^::ffff:/i.test(address))
    v4 = ipv4Value(address, 7);
  if (v4 >= 0) {
    words[0] = v4;
    words[1] = words[2] = words[3] = 0;
    return 'v4';
  }
  const groups = parseIPv6(address.replace(/%.*$/, ''));
  if (!groups) return false;
  for (let w = 0; w < 4; w++) words[w] = (((groups[w * 2] ?? 0) << 16) | (groups[w * 2 + 1] ?? 0)) >>> 0;
  return 'v6';
}

/** A CIDR (or a bare address) of the exempt list; throws with what is wrong. */
export function parseNetwork(text: string): Network {
  const [addr = '', bits, extra] = text.trim().split('/');
  const words = new Uint32Array(4);
  const kind = extra === undefined ? readAddress(addr, words) : false;
  if (!kind) throw new Error(`"${text}" is not an IPv4 or IPv6 network (e.g. 192.0.2.0/24, 2001:db8::/32, 192.0.2.1)`);
  const max = kind === 'v4' ? 32 : 128;
  const prefix = bits === undefined ? max : /^\d{1,3}$/.test(bits) ? Number(bits) : NaN;
  if (!(prefix >= 0 && prefix <= max)) throw new Error(`"${text}": the prefix length must be 0 to ${max}`);
  for (let w = 0; w < 4; w++) words[w] = ((words[w] ?? 0) & wordMask(prefix, w)) >>> 0;
  return { v6: kind === 'v6', words, prefix };
}

/** The text of the network of `words` masked to `prefix`. */
function networkText(v6: boolean, words: Uint32Array, prefix: number): string {
  if (!v6) {
    const v = (words[0] ?? 0) & wordMask(prefix, 0);
    return `${v >>> 24}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}/${prefix}`;
  }
  const groups: number[] = [];
  for (let w = 0; w < 4; w++) {
    const v = ((words[w] ?? 0) & wordMask(prefix, w)) >>> 0;
    groups.push(v >>> 16, v & 0xffff);
  }
  return `${formatIPv6(groups)}/${prefix}`;
}

/** Offset just past the (possibly compressed) name at `o`, or -1. */
function skipName(m: Buffer, o: number): number {
  for (let n = 0; n < 128; n++) {
    const l = m[o];
    if (l === undefined) return -1;
    if (l === 0) return o + 1;
    if (l >= 0xc0) return o + 2 <= m.length ? o + 2 : -1;
    o += l + 1;
  }
  return -1;
}

/** The name at `o` as text, for a log line. */
function nameText(m: Buffer, o: number): string {
  const labels: string[] = [];
  for (let hops = 0; hops < 128; hops++) {
    const l = m[o];
    if (l === undefined || l === 0) break;
    if (l >= 0xc0) {
      o = ((l & 0x3f) << 8) | (m[o + 1] ?? 0);
      continue;
    }
    labels.push(m.toString('latin1', o + 1, o + 1 + l));
    o += l + 1;
  }
  return labels.length === 0 ? '.' : labels.join('.').toLowerCase();
}

/** How often the limiter's clock is read (ms): RRL's time is at most this stale, as BIND's is up to a second. */
const CLOCK_TICK_MS = 10;
let coarse = performance.now();
let ticking: NodeJS.Timeout | undefined;

/**
 * Milliseconds of a monotonic clock read by a timer, not per answer: reading the clock costs 100–250 ns on this
 * project's VMs, as much as the rest of the accounting. The timer starts with the first reading (one per thread).
 */
function coarseNow(): number {
  if (ticking === undefined) {
    ticking = setInterval(() => {
      coarse = performance.now();
    }, CLOCK_TICK_MS);
    ticking.unref();
    coarse = performance.now();
  }
  return coarse;
}

/** Most log lines per second (starts and stops of limiting, a full table): a flood of sources cannot flood the log. */
const LOG_LINES_PER_S = 5;
/** Slots looked at for an account before the least recently used of them is replaced. */
const PROBES = 8;

/** The limiter of one answering loop (each has its own: workers do not share accounts). */
export class ResponseRateLimiter {
  readonly logOnly: boolean;
  private readonly rates: Float64Array;
  private readonly windowMs: number;
  private readonly slip: number;
  private readonly exempt: Network[];
  private readonly capacity: number;
  // the table: a fingerprint per slot (0: empty), the balance, when it was last touched (ms), slip count, limited
  private readonly check: Uint32Array;
  private readonly balance: Float64Array;
  private readonly seen: Float64Array;
  private readonly slips: Uint8Array;
  private readonly limitedNow: Uint8Array;
  /** A sender of each account (for log lines only: a reference to the string the transport made). */
  private readonly who: Array<string | undefined>;
  private readonly kind: Uint8Array;
  /** The last sender read (a flood comes from one): its network, family and whether it is exempt. */
  private lastAddress = '';
  private lastV6 = false;
  private lastOk = false;
  private readonly words = new Uint32Array(4);
  /** The account `account` found last (for `limit` / `refund`). */
  private slot = -1;
  private identityAt = 12;
  /** Accounts replaced while still active (the table was too small for the traffic). */
  evictions = 0;
  private logSecond = 0;
  private logLines = 0;
  private suppressed = 0;

  constructor(
    private readonly options: RrlOptions,
    private readonly log?: RrlLog,
    /** Milliseconds of a monotonic clock (tests move it; default: read every CLOCK_TICK_MS). */
    private readonly now: () => number = coarseNow,
  ) {
    this.logOnly = options.mode === 'log-only';
    const r = options.responsesPerSecond;
    this.rates = Float64Array.from([
      r,
      options.nxdomainsPerSecond ?? r,
      options.nodataPerSecond ?? r,
      options.referralsPerSecond ?? r,
      options.errorsPerSecond ?? r,
    ]);
    this.windowMs = options.windowS * 1000;
    this.slip = options.slip;
    this.exempt = options.exempt.map(parseNetwork);
    const n = Math.max(1, options.tableSize);
    this.capacity = n;
    this.check = new Uint32Array(n);
    this.balance = new Float64Array(n);
    this.seen = new Float64Array(n);
    this.slips = new Uint8Array(n);
    this.limitedNow = new Uint8Array(n);
    this.kind = new Uint8Array(n);
    this.who = new Array<string | undefined>(n).fill(undefined);
  }

  /** Reads `address` into `words` masked to its prefix (cached for a repeated sender); false: not limited. */
  private sender(address: string): boolean {
    if (address === this.lastAddress) return this.lastOk;
    this.lastAddress = address;
    const words = this.words;
    const kind = readAddress(address, words);
    if (!kind) return (this.lastOk = false);
    const v6 = kind === 'v6';
    const prefix = v6 ? this.options.ipv6Prefix : this.options.ipv4Prefix;
    let exempt = false;
    for (const net of this.exempt) {
      if (net.v6 !== v6) continue;
      let inside = true;
      for (let w = 0; w < 4 && inside; w++)
        inside = ((words[w] ?? 0) & wordMask(net.prefix, w)) >>> 0 === (net.words[w] ?? 0);
      if (inside) exempt = true;
    }
    for (let w = 0; w < 4; w++) words[w] = ((words[w] ?? 0) & wordMask(prefix, w)) >>> 0;
    this.lastV6 = v6;
    return (this.lastOk = !exempt);
  }

  /**
   * Debits the account of `reply` (a response to a query, as it would go out) sent to `address`: true when it is
   * limited now (then `limit()` says what to send, or `refund()` when the caller exempts it after all).
   */
  account(address: string, reply: Buffer): boolean {
    this.slot = -1;
    if (reply.length < 17 || !this.sender(address)) return false;
    // the kind of response and the offset of the name that identifies it
    const rcode = (reply[3] ?? 0) & 0xf;
    const answers = ((reply[6] ?? 0) << 8) | (reply[7] ?? 0);
    const authority = ((reply[8] ?? 0) << 8) | (reply[9] ?? 0);
    const qEnd = skipName(reply, 12);
    if (qEnd < 0 || qEnd + 4 > reply.length) return false;
    let category: number;
    let at = 12; // the question name
    let withType = true; // identical responses: the name and the question type
    if (rcode === 0 && answers > 0) category = RESPONSE;
    else if (rcode === 0 || rcode === 3) {
      const aa = ((reply[2] ?? 0) & 0x04) !== 0;
      category = rcode === 3 ? NXDOMAIN : !aa && authority > 0 ? REFERRAL : NODATA;
      if (category !== NODATA && authority > 0) {
        // NXDOMAIN: the zone (owner of the SOA); referral: the delegation (owner of the NS) — first authority record
        let o = qEnd + 4;
        for (let i = 0; i < answers && o >= 0; i++) {
          o = skipName(reply, o);
          if (o >= 0) o = o + 10 + (((reply[o + 8] ?? 0) << 8) | (reply[o + 9] ?? 0));
        }
        if (o >= 0 && o < reply.length) {
          at = o;
          withType = false;
        }
      }
    } else {
      category = ERROR;
      at = -1; // errors: the network (and class) alone
    }
    const rate = this.rates[category] ?? 0;
    if (rate <= 0) return false;
    // two independent 32-bit hashes of (network, kind, identity): one picks the slot, the other is the fingerprint
    let h1 = 0x811c9dc5 ^ category;
    let h2 = 0x9e3779b9 ^ (this.lastV6 ? 0x5bd1e995 : 0);
    const words = this.words;
    for (let w = 0; w < 4; w++) {
      const v = words[w] ?? 0;
      h1 = Math.imul(h1 ^ v, 0x01000193);
      h2 = Math.imul(h2 ^ v, 0x85ebca6b) ^ (h2 >>> 13);
    }
    if (at >= 0) {
      // the name, lower-cased, following compression (a client's 0x20 case does not make a new account)
      let o = at;
      for (let hops = 0; hops < 128; hops++) {
        const l = reply[o] ?? 0;
        if (l === 0) break;
        if (l >= 0xc0) {
          o = ((l & 0x3f) << 8) | (reply[o + 1] ?? 0);
          continue;
        }
        for (let i = o; i <= o + l; i++) {
          let c = reply[i] ?? 0;
          if (c >= 65 && c <= 90) c += 32;
          h1 = Math.imul(h1 ^ c, 0x01000193);
          h2 = Math.imul(h2 ^ c, 0xcc9e2d51) ^ (h2 >>> 15);
        }
        o += l + 1;
      }
      if (withType) {
        const qtype = ((reply[qEnd] ?? 0) << 8) | (reply[qEnd + 1] ?? 0);
        h1 = Math.imul(h1 ^ qtype, 0x01000193);
        h2 = Math.imul(h2 ^ qtype, 0xcc9e2d51);
      }
    }
    const qclass = ((reply[qEnd + 2] ?? 0) << 8) | (reply[qEnd + 3] ?? 0);
    h1 = Math.imul(h1 ^ qclass, 0x01000193) >>> 0;
    h2 = ((h2 ^ (h2 >>> 16) ^ qclass) | 1) >>> 0; // never 0: 0 marks an empty slot
    // the account: found within PROBES slots, else a new one in an empty slot or the least recently used
    const cap = this.capacity;
    const now = this.now();
    let slot = -1;
    let free = -1;
    let oldest = -1;
    let i = h1 % cap;
    for (let p = 0; p < PROBES && p < cap; p++, i = i + 1 === cap ? 0 : i + 1) {
      const c = this.check[i] ?? 0;
      if (c === h2) {
        slot = i;
        break;
      }
      if (c === 0) {
        if (free < 0) free = i;
      } else if (oldest < 0 || (this.seen[i] ?? 0) < (this.seen[oldest] ?? 0)) oldest = i;
    }
    const window = this.windowMs;
    let balance: number;
    if (slot >= 0) {
      const elapsed = now - (this.seen[slot] ?? 0);
      balance = elapsed > window ? rate : Math.min(rate, (this.balance[slot] ?? 0) + (rate * elapsed) / 1000);
    } else {
      slot = free >= 0 ? free : oldest;
      if (free < 0) {
        if (now - (this.seen[slot] ?? 0) <= window) this.evicted();
        this.stopped(slot);
      }
      this.check[slot] = h2;
      this.slips[slot] = 0;
      this.limitedNow[slot] = 0;
      this.who[slot] = address;
      this.kind[slot] = category;
      balance = rate;
    }
    this.seen[slot] = now;
    if (balance > -this.options.windowS * rate) balance -= 1;
    this.balance[slot] = balance;
    if (balance >= 0) {
      if (this.limitedNow[slot] === 1) this.stopped(slot);
      return false;
    }
    this.slot = slot;
    this.identityAt = at;
    return true;
  }

  /** The account `account` found limited is exempt after all (a valid server cookie): the debit is given back. */
  refund(): void {
    const slot = this.slot;
    if (slot < 0) return;
    this.balance[slot] = (this.balance[slot] ?? 0) + 1;
    this.slot = -1;
  }

  /** What to do with the response `account` found limited (`reply` as it would go out): drop, slip, or (log-only) send. */
  limit(reply: Buffer): { verdict: RrlVerdict; would: RrlVerdict } {
    const slot = this.slot;
    this.slot = -1;
    if (slot < 0) return SEND;
    if (this.limitedNow[slot] === 0) {
      this.limitedNow[slot] = 1;
      const name = this.identityAt >= 0 ? nameText(reply, this.identityAt) : undefined;
      this.line('warn', slot, name, this.logOnly ? 'would limit (log-only)' : 'limiting');
    }
    let would: RrlVerdict = RRL.drop;
    if (this.slip > 0) {
      const n = (this.slips[slot] ?? 0) + 1;
      if (n >= this.slip) {
        this.slips[slot] = 0;
        would = RRL.slip;
      } else this.slips[slot] = n;
    }
    return this.logOnly ? (would === RRL.drop ? WOULD_DROP : WOULD_SLIP) : would === RRL.drop ? DROP : SLIP;
  }

  private evicted(): void {
    this.evictions++;
    if (this.evictions === 1 || this.evictions % 10_000 === 0)
      this.emit(
        'warn',
        { evictions: this.evictions, tableSize: this.capacity },
        'RRL table full: accounts still in their window replaced (raise DNS_RRL_TABLE_SIZE)',
      );
  }

  private stopped(slot: number): void {
    if (this.limitedNow[slot] !== 1) return;
    this.limitedNow[slot] = 0;
    this.line('info', slot, undefined, this.logOnly ? 'would stop limiting (log-only)' : 'stopped limiting');
  }

  private line(level: 'warn' | 'info', slot: number, name: string | undefined, what: string): void {
    if (!this.log) return;
    const address = this.who[slot];
    const words = new Uint32Array(4);
    const v6 = address !== undefined && readAddress(address, words) === 'v6';
    const network = networkText(v6, words, v6 ? this.options.ipv6Prefix : this.options.ipv4Prefix);
    const category = RRL_CATEGORIES[this.kind[slot] ?? 0];
    this.emit(
      level,
      { network, category, ...(name === undefined ? {} : { name }) },
      `RRL: ${what} answers (${category})${name === undefined ? '' : ` for ${name}`} to ${network}`,
    );
  }

  /** A log line, at most LOG_LINES_PER_S a second; those held back are counted on the next one. */
  private emit(level: 'warn' | 'info', obj: object, msg: string): void {
    const second = Math.floor(this.now() / 1000);
    if (second !== this.logSecond) {
      this.logSecond = second;
      this.logLines = 0;
    }
    if (++this.logLines > LOG_LINES_PER_S) {
      this.suppressed++;
      return;
    }
    const held = this.suppressed;
    this.suppressed = 0;
    this.log?.[level](held > 0 ? { ...obj, suppressed: held } : obj, msg);
  }
}

// `limit`'s answers, made once
const SEND = { verdict: RRL.send, would: RRL.send } as const;
const DROP = { verdict: RRL.drop, would: RRL.drop } as const;
const SLIP = { verdict: RRL.slip, would: RRL.slip } as const;
const WOULD_DROP = { verdict: RRL.send, would: RRL.drop } as const;
const WOULD_SLIP = { verdict: RRL.send, would: RRL.slip } as const;

/**
 * The truncated form of `reply` a slip sends, written into `into` (which must hold 12 + 255 + 4 + 11 bytes): its
 * header with TC set and no records, its question, and an OPT record when the query had EDNS — never longer than
 * the query. Returns the view of `into` to send.
 */
export function slipResponse(reply: Buffer, edns: boolean, into: Buffer): Buffer {
  const qEnd = skipName(reply, 12) + 4;
  const end = qEnd < 16 || qEnd > reply.length ? 12 : qEnd;
  reply.copy(into, 0, 0, end);
  into[2] = (into[2] ?? 0) | 0x02;
  into.fill(0, 6, 12);
  if (end === 12) into.fill(0, 4, 6);
  if (!edns || end === 12) return into.subarray(0, end);
  into[11] = 1;
  // root, OPT, our payload size (1232), extended rcode 0, version 0, no flags, no options
  into.set(SLIP_OPT, end);
  return into.subarray(0, end + SLIP_OPT.length);
}
const SLIP_OPT = Buffer.from([0, 0, 41, 0x04, 0xd0, 0, 0, 0, 0, 0, 0]);
/** Bytes a slip buffer must hold: header, the longest question, an OPT record. */
export const SLIP_BYTES = 12 + 255 + 4 + 11;
