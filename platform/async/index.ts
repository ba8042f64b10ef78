/** Small async helpers: yielding to the event loop between steps, tasks run one at a time per key, a bounded
 * admission, a deadline for a wait. Only re-exports. */
export { Admission, AdmissionFullError, type AdmissionLimits } from './admission';
export { KeyedQueue } from './keyed-queue';
export { nextTurn } from './next-turn';
export { runAtOnce, runInSteps, type StepOptions } from './steps';
export { sortSteps } from './sort-steps';
export { DeadlineError, withDeadline } from './deadline';
