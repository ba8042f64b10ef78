/**
 * Small async-iterator helpers for subscription streams. Every iterator here has `next`, `return` and `throw`
 * (graphql-sse only releases an operation's iterator on disconnect when it looks like an async generator), and
 * `return()` always reaches the source, even when the consumer never pulled a value: that is what frees hub
 * entries, timers and upstream connections when a client goes away.
 */
export type Stream<T> = AsyncIterableIterator<T> & {
  return(value?: unknown): Promise<IteratorResult<T>>;
  throw(err?: unknown): Promise<IteratorResult<T>>;
};

const DONE = { done: true, value: undefined } as IteratorResult<never>;

/** Maps every value of `source` (in order, one at a time); `cleanup` runs once when the stream ends for any reason. */
export function mapStream<S, T>(
  source: AsyncIterator<S>,
  map: (value: S) => T | Promise<T>,
  cleanup?: () => void,
): Stream<T> {
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    cleanup?.();
  };
  const stream: Stream<T> = {
    async next() {
      if (finished) return DONE;
      try {
        const step = await source.next();
        if (step.done) {
          finish();
          return DONE;
        }
        return { done: false, value: await map(step.value) };
      } catch (err) {
        finish();
        throw err;
      }
    },
    async return() {
      if (!finished) {
        finish();
        await source.return?.();
      }
      return DONE;
    },
    async throw(err?: unknown) {
      if (!finished) {
        finish();
        await source.return?.();
      }
      throw err;
    },
    [Symbol.asyncIterator]() {
      return stream;
    },
  };
  return stream;
}

/** How much a PushStream queues for a consumer that has not pulled yet. */
export interface QueueBound<T> {
  /** Values queued at most (default 1 000). */
  maxQueued?: number;
  /** Bytes queued at most, as `sizeOf` counts them (the newest value always stays). */
  maxBytes?: number;
  sizeOf?: (value: T) => number;
}

/**
 * A push-driven stream: producers `push` values, the consumer pulls them. Values queue up to `maxQueued` values (and
 * `maxBytes` bytes when sized): a slow consumer then loses the oldest, never grows memory without bound. Only
 * values that wait are sized: a consumer that keeps up costs no sizing. `onClose` runs once on return/end.
 */
export class PushStream<T> implements Stream<T> {
  private readonly queue: T[] = [];
  private readonly sizes: number[] = [];
  private queuedBytes = 0;
  private waiting?: { resolve: (step: IteratorResult<T>) => void; reject: (err: unknown) => void };
  private failed?: { error: unknown };
  private closed = false;
  private readonly bound: QueueBound<T>;

  constructor(
    private readonly onClose?: () => void,
    bound: number | QueueBound<T> = 1_000,
  ) {
    this.bound = typeof bound === 'number' ? { maxQueued: bound } : bound;
  }

  /** Bytes of the values waiting (0 unless the stream sizes them). */
  get bytes(): number {
    return this.queuedBytes;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  push(value: T): void {
    if (this.closed) return;
    if (this.waiting) {
      const { resolve } = this.waiting;
      this.waiting = undefined;
      resolve({ done: false, value });
      return;
    }
    const { maxQueued = 1_000, maxBytes, sizeOf } = this.bound;
    const size = sizeOf && maxBytes !== undefined ? sizeOf(value) : 0;
    this.queue.push(value);
    this.sizes.push(size);
    this.queuedBytes += size;
    while (
      this.queue.length > 1 &&
      (this.queue.length > maxQueued || (maxBytes !== undefined && this.queuedBytes > maxBytes))
    )
      this.dropOldest();
  }

  private dropOldest(): T | undefined {
    this.queuedBytes -= this.sizes.shift() ?? 0;
    return this.queue.shift();
  }

  /** Ends the stream after the queued values; with an error, the consumer gets it once they are drained. */
  end(error?: unknown): void {
    if (this.closed) return;
    if (error !== undefined) this.failed = { error };
    this.close();
    if (this.waiting) {
      const { resolve, reject } = this.waiting;
      this.waiting = undefined;
      if (this.failed) {
        const { error: failure } = this.failed;
        this.failed = undefined;
        reject(failure);
      } else resolve(DONE);
    }
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    this.onClose?.();
  }

  async next(): Promise<IteratorResult<T>> {
    if (this.queue.length > 0) return { done: false, value: this.dropOldest() as T };
    if (this.failed) {
      const { error } = this.failed;
      this.failed = undefined;
      throw error;
    }
    if (this.closed) return DONE;
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
    });
  }

  async return(): Promise<IteratorResult<T>> {
    this.queue.length = 0;
    this.sizes.length = 0;
    this.queuedBytes = 0;
    this.failed = undefined;
    this.close();
    if (this.waiting) {
      const { resolve } = this.waiting;
      this.waiting = undefined;
      resolve(DONE);
    }
    return DONE;
  }

  async throw(err?: unknown): Promise<IteratorResult<T>> {
    await this.return();
    throw err;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
