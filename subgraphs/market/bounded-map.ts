/**
 * A Map that forgets its oldest-written entries beyond `max`: a memo of values that are pure functions of their key
 * (evicting the oldest write, cheaper than true LRU bookkeeping, only costs a recomputation), and the market
 * cache's memory store (Keyv accepts any Map; lru-cache's set() signature does not match what Keyv passes).
 */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(private readonly max: number) {
    super();
  }

  override set(key: K, value: V): this {
    if (this.has(key)) this.delete(key); // re-insert: a rewritten entry counts as new
    super.set(key, value);
    if (this.size > this.max) {
      const oldest = this.keys().next();
      if (!oldest.done) this.delete(oldest.value);
    }
    return this;
  }

  getOrCompute(key: K, compute: (key: K) => V): V {
    const hit = this.get(key);
    if (hit !== undefined) return hit;
    const value = compute(key);
    this.set(key, value);
    return value;
  }
}
