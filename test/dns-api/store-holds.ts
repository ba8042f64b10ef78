import type { ZoneStore } from '../../dns/store/types';

/** Zone store methods a test may hold. */
export type HeldMethod = 'createZone' | 'updateZone' | 'change' | 'getZone' | 'changeDnssecKeys';

export interface Hold {
  /** Resolves once the held call has begun (and waits). */
  entered: Promise<void>;
  /** Lets the held call go on; resolves with its own outcome. */
  release(): Promise<unknown>;
}

/** Holds the store's next `method` call until `release()`: a write that takes as long as the test wants, no longer. */
export function holdStore(store: ZoneStore, method: HeldMethod): Hold {
  const real = store[method].bind(store) as (...args: unknown[]) => Promise<unknown>;
  let open = (): void => undefined;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let enter = (): void => undefined;
  const entered = new Promise<void>((resolve) => (enter = resolve));
  let finish = (_outcome: Promise<unknown>): void => undefined;
  const done = new Promise<unknown>((resolve) => (finish = resolve));
  const spy = jest.spyOn(store, method).mockImplementation((async (...args: unknown[]) => {
    spy.mockRestore(); // only this one call is held
    enter();
    await gate;
    const outcome = real(...args);
    finish(outcome);
    return outcome;
  }) as never);
  return {
    entered,
    release: () => {
      open();
      return done;
    },
  };
}

/**
 * Holds the store's next `method` call past `timeoutMs` (the subgraph timeout), then lets it go. The gateway's timer
 * of the fetch was set before the store was called, this wait's after and for longer: were the fetch bounded by
 * that timeout, its timer would fire first.
 */
export async function holdPast(store: ZoneStore, method: HeldMethod, timeoutMs: number): Promise<void> {
  const held = holdStore(store, method);
  await held.entered;
  await new Promise((resolve) => setTimeout(resolve, timeoutMs + 200));
  await held.release();
}
