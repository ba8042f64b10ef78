import { performance } from 'node:perf_hooks';
import { nextTurn } from './next-turn';

/**
 * Work written as a generator that yields between steps, run two ways: to its end at once (`runAtOnce`), or letting
 * the event loop run between steps (`runInSteps`) — so one piece of code serves callers that need the result now
 * (tests, small inputs) and the APIs, whose loop must keep answering while a large input is worked through.
 */
export function runAtOnce<T>(steps: Generator<unknown, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

export interface StepOptions {
  /** Let the loop run only once a step has taken this long (ms); 0 (the default): at every yield. */
  stepMs?: number;
  /** Checked after each turn of the loop: once it fires, the work stops with its reason. */
  signal?: AbortSignal;
}

export async function runInSteps<T>(steps: Generator<unknown, T>, options: StepOptions = {}): Promise<T> {
  const stepMs = options.stepMs ?? 0;
  let started = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (stepMs > 0 && performance.now() - started < stepMs) continue;
    await nextTurn();
    options.signal?.throwIfAborted();
    started = performance.now();
  }
}
