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
export function mapStream<S, T>(source: AsyncIterator<S>, map: (value: S) => T | Promise<T>, cleanup?: () => void): Stream<T> {
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

/**
 * A push-driven stream: producers `push` values, the consumer pulls them. Values queue up to `maxQueued` (a slow
 * consumer then loses the oldest, never grows memory without bound). `onClose` runs once on return/end.
 */
export class PushStream<T> implements Stream<T> {
  private readonly queue: T[] = [];
  private waiting?: { resolve: (step: IteratorResult<T>) => void; reject: (err: unknown) => void };
  private failed?: { error: unknown };
  private closed = false;

  constructor(private readonly onClose?: () => void, private readonly maxQueued = 1_000) {}

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
    if (this.queue.length >= this.maxQueued) this.queue.shift();
    this.queue.push(value);
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
    if (this.queue.length > 0) return { done: false, value: this.queue.shift() as T };
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
