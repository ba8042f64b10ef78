import type { Ticker } from '../model';
import type { LiveLogger, PriceHub, TickDriver } from './price-hub';

/**
 * Polls in this process: one timer while anything is watched, one batched provider call per interval for every
 * watched ticker, the tick handed to the hub. A poll still running when the next is due makes that one skip, so a
 * slow provider never piles calls up.
 */
export class LocalTicker implements TickDriver {
  private timer?: NodeJS.Timeout;
  private watched: readonly Ticker[] = [];
  private sequence = 0;
  private polling = false;

  constructor(
    private readonly hub: PriceHub,
    private readonly intervalMs: number,
    private readonly log?: LiveLogger,
  ) {}

  get timers(): number {
    return this.timer ? 1 : 0;
  }

  get role(): string {
    return this.timer ? 'local' : 'idle';
  }

  watch(tickers: ReadonlySet<Ticker>): void {
    this.watched = [...tickers];
    if (this.watched.length > 0 && !this.timer) this.timer = setInterval(() => void this.tick(), this.intervalMs);
    if (this.watched.length === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  async close(): Promise<void> {
    this.watch(new Set());
  }

  private async tick(): Promise<void> {
    if (this.polling || this.watched.length === 0) return;
    this.polling = true;
    const at = new Date();
    try {
      const { quotes, failed } = await this.hub.poll(this.watched);
      if (failed) this.log?.warn({ err: failed, tickers: this.watched.length }, 'live poll failed for some tickers');
      if (quotes.size > 0) this.hub.deliver({ sequence: ++this.sequence, at, quotes });
    } catch (err) {
      this.log?.warn({ err }, 'live poll failed');
    } finally {
      this.polling = false;
    }
  }
}
