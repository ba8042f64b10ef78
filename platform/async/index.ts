/** Small async helpers: yielding to the event loop between steps, tasks run one at a time per key. Only re-exports. */
export { KeyedQueue } from './keyed-queue';
export { nextTurn } from './next-turn';
