/**
 * A memo with a hard size cap. Entries are pure functions of their key, so evicting the oldest insertion
 * (cheaper than true LRU bookkeeping) only costs a recomputation.
 */
export class BoundedMap<K, V> {
  private readonly map = new Map<K, V>();

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.map.size;
  }

  get(key: K): V | undefined {
    return this.map.get(key);
  }

  set(key: K, value: V): void {
    if (this.map.size >= this.capacity) {
      const oldest = this.map.keys().next();
      if (!oldest.done) this.map.delete(oldest.value);
    }
    this.map.set(key, value);
  }

  getOrCompute(key: K, compute: (key: K) => V): V {
    const hit = this.map.get(key);
    if (hit !== undefined) return hit;
    const value = compute(key);
    this.set(key, value);
    return value;
  }
}
