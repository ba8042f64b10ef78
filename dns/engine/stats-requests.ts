import type { DnsStatsSnapshot } from '../server';

/**
 * Asks an answering loop in another thread or process for its counts: one message each way per scrape (nothing
 * shared, nothing pushed), and for one that does not answer in time — a long step in its loop — what it sent last.
 */
export class StatsRequests {
  /** What the loop sent last (undefined: nothing yet). */
  last: DnsStatsSnapshot | undefined;
  private readonly waiting = new Map<number, (snapshot: DnsStatsSnapshot | undefined) => void>();
  private next = 1;

  /** Sends a request with `send(id)`; resolves with the answer, or `last` after `timeoutMs`. */
  ask(send: (id: number) => void, timeoutMs: number): Promise<DnsStatsSnapshot | undefined> {
    const id = this.next++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        resolve(this.last);
      }, timeoutMs);
      timer.unref();
      this.waiting.set(id, (snapshot) => {
        clearTimeout(timer);
        resolve(snapshot);
      });
      send(id);
    });
  }

  /** The loop's answer to request `id`. */
  received(id: number, snapshot: DnsStatsSnapshot): void {
    this.last = snapshot;
    this.waiting.get(id)?.(snapshot);
    this.waiting.delete(id);
  }
}
