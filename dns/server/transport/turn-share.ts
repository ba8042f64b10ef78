import { performance } from 'node:perf_hooks';

/**
 * Long answers (zone transfers) take turns at a shared budget per turn of the event loop: together they run at most
 * `budgetMs`, then wait for the next turn, so a query arriving meanwhile waits for that budget at most, however many
 * transfers run at once. (Each transfer yielding on its own let ten of them take ten slices per turn.)
 *
 * One holder runs at a time. It holds its share until it calls `next(true)` (it wants more: queued behind the
 * others, and the first waiting goes on now if the turn's budget lasts, else in the next turn) or `release()` (it
 * ended, or waits for something else, e.g. its socket to drain). Newcomers call `next(false)`.
 */
export class TurnShare {
  private readonly waiting: Array<() => void> = [];
  private running = false;
  private scheduled = false;
  private started = 0;

  constructor(private readonly budgetMs: number) {}

  next(held: boolean): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      if (held) this.pass();
      else if (!this.running) this.schedule();
    });
  }

  release(): void {
    this.pass();
  }

  private pass(): void {
    this.running = false;
    if (performance.now() - this.started < this.budgetMs) this.wakeNext();
    else if (this.waiting.length > 0) this.schedule();
  }

  private wakeNext(): void {
    const next = this.waiting.shift();
    if (!next) return;
    this.running = true;
    next();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.started = performance.now();
      if (!this.running) this.wakeNext();
    });
  }
}
