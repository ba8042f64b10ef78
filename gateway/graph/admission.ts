import { performance, type EventLoopUtilization } from 'node:perf_hooks';

/** GRAPHQL_CONCURRENCY: `auto` (adapts), `off` (no bound) or a fixed number of operations at once. */
export type ConcurrencySetting = 'auto' | 'off' | number;

/** What /metrics reads of the admission at each scrape. */
export interface AdmissionState {
  readonly limit: number;
  readonly running: number;
  readonly waiting: number;
}

/** What the adaptive limit reads and how it moves; tests give their own. */
export interface AdaptiveBounds {
  min: number;
  max: number;
  everyMs: number;
  /** The event loop's busy share since the previous call (0–1). */
  utilization?: () => number;
}

/**
 * Starts at 4, the floor: on gwbench with one core at 50 connections (subgraphs answering in well under a millisecond),
 * gateway CPU per request was 1.38 ms at 2 or 4 at once, 1.45 ms at 8, 1.57 ms at 16; slower subgraphs raise it.
 */
export const DEFAULT_BOUNDS: AdaptiveBounds = { min: 4, max: 4096, everyMs: 100 };
/** Below this busy share, operations wait while the loop has time for more: the limit rises. */
const SPARE = 0.9;
/** Above it, the loop is saturated: fewer at once are served as fast, holding less data. */
const SATURATED = 0.97;

function loopUtilization(): () => number {
  let last: EventLoopUtilization = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const { utilization } = performance.eventLoopUtilization(now, last);
    last = now;
    return utilization;
  };
}

/**
 * How many GraphQL operations execute at once. Without a bound, every request the event loop has read runs
 * interleaved with all the others: at 50 connections, 50 operations' subgraph answers and results are alive at once,
 * and beyond the few that keep the CPU busy that only puts more data through every young-generation collection
 * (which copies what is alive) and raises the peak memory. Waiting operations hold only their request.
 *
 * `auto` adapts the bound to the event loop every `everyMs`: raised by half while operations wait and the loop has
 * time to spare (they wait on subgraphs, so more can run), lowered by an eighth while the loop is saturated, never
 * under `min` nor over `max`. Operations are admitted in arrival order.
 */
export class OperationAdmission implements AdmissionState {
  private limitNow: number;
  private runningNow = 0;
  private readonly queue: Array<(() => void) | undefined> = [];
  private head = 0;
  private readonly timer?: NodeJS.Timeout;

  constructor(
    setting: ConcurrencySetting,
    private readonly bounds: AdaptiveBounds = DEFAULT_BOUNDS,
  ) {
    this.limitNow = typeof setting === 'number' ? setting : setting === 'off' ? Infinity : bounds.min;
    if (setting === 'auto') {
      const utilization = bounds.utilization ?? loopUtilization();
      this.timer = setInterval(() => this.adapt(utilization()), bounds.everyMs).unref();
    }
  }

  get limit(): number {
    return this.limitNow;
  }

  get running(): number {
    return this.runningNow;
  }

  get waiting(): number {
    return this.queue.length - this.head;
  }

  /** Runs `work` once the bound lets it (at once when it does), counted until it settles. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.limitNow === Infinity) return work();
    if (this.runningNow < this.limitNow && this.waiting === 0) this.runningNow++;
    else await new Promise<void>((admit) => this.queue.push(admit));
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  /** One step of `auto` (exposed for tests): the limit moved by the event loop's busy share since the last. */
  adapt(utilization: number): void {
    const { min, max } = this.bounds;
    if (this.waiting > 0 && utilization < SPARE)
      this.limitNow = Math.min(max, this.limitNow + Math.max(1, Math.ceil(this.limitNow / 2)));
    else if (utilization > SATURATED && this.limitNow > min)
      this.limitNow = Math.max(min, this.limitNow - Math.max(1, Math.floor(this.limitNow / 8)));
    while (this.runningNow < this.limitNow && this.admitNext()) this.runningNow++;
  }

  close(): void {
    clearInterval(this.timer);
    // nothing is left waiting for a timer that no longer runs
    this.limitNow = Infinity;
    while (this.admitNext()) this.runningNow++;
  }

  /** A slot freed: handed to the first waiting operation, unless the limit was lowered under those running. */
  private release(): void {
    if (this.runningNow <= this.limitNow && this.admitNext()) return;
    this.runningNow--;
  }

  private admitNext(): boolean {
    if (this.head >= this.queue.length) return false;
    const admit = this.queue[this.head];
    this.queue[this.head++] = undefined;
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
    admit?.();
    return true;
  }
}
