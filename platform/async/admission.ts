/** Refusal of {@link Admission.enter}: every slot is taken and the queue is full. */
export class AdmissionFullError extends Error {
  constructor(
    readonly running: number,
    readonly waiting: number,
  ) {
    super(`${running} running and ${waiting} waiting already`);
    this.name = 'AdmissionFullError';
  }
}

export interface AdmissionLimits {
  /** Most holders at once (at least 1). */
  running: number;
  /** Most callers waiting for a slot (0: none wait, a full admission refuses at once). */
  waiting: number;
}

interface Waiter {
  admit: (release: () => void) => void;
}

/**
 * At most `running` holders at once, and at most `waiting` callers queued for a slot (first come, first served);
 * beyond that a caller is refused at once, never piled up. A queued caller whose signal fires leaves the queue.
 */
export class Admission {
  private holders = 0;
  private readonly queue: Waiter[] = [];

  constructor(readonly limits: AdmissionLimits) {
    if (!Number.isInteger(limits.running) || limits.running < 1) throw new Error('running must be at least 1');
    if (!Number.isInteger(limits.waiting) || limits.waiting < 0) throw new Error('waiting must be 0 or more');
  }

  get running(): number {
    return this.holders;
  }

  get waiting(): number {
    return this.queue.length;
  }

  /**
   * A slot: resolves with the function that gives it back (calling it again does nothing). Rejects with an
   * AdmissionFullError when all slots are taken and the queue is full, with the signal's reason when it fires first.
   */
  enter(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    if (this.holders < this.limits.running) return Promise.resolve(this.take());
    if (this.queue.length >= this.limits.waiting)
      return Promise.reject(new AdmissionFullError(this.holders, this.queue.length));
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        const i = this.queue.indexOf(waiter);
        if (i >= 0) this.queue.splice(i, 1);
        reject(signal?.reason as Error);
      };
      const waiter: Waiter = {
        admit: (release) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(release);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(waiter);
    });
  }

  private take(): () => void {
    this.holders++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.queue.shift();
      // The slot passes straight to the first waiter: nobody arriving meanwhile overtakes the queue.
      if (next) next.admit(this.handOver());
      else this.holders--;
    };
  }

  /** A release for a slot passed on without being given back (the holder count stays). */
  private handOver(): () => void {
    this.holders--;
    return this.take();
  }
}
