/** The store's change events: one emitter per store, shared by both dialects. */
import type { ZoneChangeDetail, ZoneChangeEvent, ZoneChangeListener } from './types';

/** Listeners of one store. A listener that throws does not disturb the store or the other listeners. */
export class ChangeEmitter {
  private readonly listeners = new Set<ZoneChangeListener>();

  on(listener: ZoneChangeListener): () => void {
    // Wrapped so the same function may be registered twice and unsubscribed independently.
    const wrapped: ZoneChangeListener = (e, detail) => listener(e, detail);
    this.listeners.add(wrapped);
    return () => {
      this.listeners.delete(wrapped);
    };
  }

  /** `names`: the owner names a records-changed event touched, when known (listeners share one frozen array). */
  emit(event: ZoneChangeEvent, names?: readonly string[]): void {
    const detail: ZoneChangeDetail | undefined = names
      ? Object.freeze({ names: Object.freeze([...names]) })
      : undefined;
    for (const l of [...this.listeners]) {
      try {
        l({ ...event }, detail);
      } catch {
        // A faulty listener must not turn a committed change into an error.
      }
    }
  }

  clear(): void {
    this.listeners.clear();
  }
}
