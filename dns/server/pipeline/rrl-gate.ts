/**
 * Response rate limiting on a responder's UDP answers (rrl.ts is the limiter): what goes out for an answer — itself,
 * its truncated form (a slip), or nothing — counted. The callers (plain-query.ts, respond.ts) decide first what is
 * never limited: TCP, TSIG-signed requests, and (checked only once an answer would be limited: an HMAC) a valid
 * server cookie.
 */
import { add, type DnsStats, G } from '../stats/dns-stats';
import type { ServerCookies } from './cookies';
import { ResponseRateLimiter, RRL, type RrlLog, type RrlOptions, SLIP_BYTES, slipResponse } from './rrl';

export class RrlGate {
  readonly limiter: ResponseRateLimiter;
  /** Where slips are written: lent out like the answer cache's buffers (see `detach`). */
  private scratch = Buffer.allocUnsafeSlow(SLIP_BYTES);
  private lent = false;

  constructor(
    options: RrlOptions,
    private readonly cookies: ServerCookies,
    private readonly stats: DnsStats,
    log?: RrlLog,
    now?: () => number,
  ) {
    this.limiter = new ResponseRateLimiter(options, log, now);
  }

  /** Debits the account of `reply` to `address`; true when it is limited: then `cookieExempts` or `outcome`. */
  limited(reply: Buffer, address: string): boolean {
    this.lent = false;
    return this.limiter.account(address, reply);
  }

  /** Whether `cookie` (the query's COOKIE option data) is a valid server cookie: then the debit is given back. */
  cookieExempts(cookie: Buffer, address: string): boolean {
    if (!this.cookies.valid(cookie, address)) return false;
    this.limiter.refund();
    return true;
  }

  /**
   * What goes out instead of the limited `reply`: null (dropped), a slip in this gate's buffer (send or copy it
   * before the next call; `detach` when still held after), or `reply` itself in log-only mode. Counted.
   */
  outcome(reply: Buffer, edns: boolean): Buffer | null {
    const { verdict, would } = this.limiter.limit(reply);
    add(this.stats.counts, would === RRL.slip ? G.rrlSlipped : G.rrlDropped);
    if (verdict === RRL.send) return reply;
    if (verdict === RRL.drop) return null;
    this.lent = true;
    return slipResponse(reply, edns, this.scratch);
  }

  /** The slip `outcome` gave last is still in use (a send left queued): the next one goes to a new buffer. */
  detach(): void {
    if (!this.lent) return;
    this.scratch = Buffer.allocUnsafeSlow(SLIP_BYTES);
    this.lent = false;
  }
}
