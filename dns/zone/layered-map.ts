/** Marks a key the top layer removes from the base. */
const GONE: unique symbol = Symbol('gone');

/**
 * A map that is never changed once made: `with()` returns a new one holding the changes and leaves this one as it
 * was, so a zone copy that queries still use stays consistent. To make that cheap for large zones the new map shares
 * this one's base and copies only the changes made since the base was built (the top layer); when the top grows past
 * about √(base size) it is folded into a new base. A change of k keys so costs O(k + √n) amortised, not O(n).
 */
export class LayeredMap<V> {
  private constructor(
    private readonly base: ReadonlyMap<string, V>,
    private readonly top: ReadonlyMap<string, V | typeof GONE>,
    readonly size: number,
  ) {}

  /** Takes `entries` over as its base: the caller must not change it afterwards. */
  static of<V>(entries: Map<string, V>): LayeredMap<V> {
    return new LayeredMap<V>(entries, new Map<string, V | typeof GONE>(), entries.size);
  }

  get(key: string): V | undefined {
    if (this.top.size !== 0) {
      const v = this.top.get(key);
      if (v !== undefined) return v === GONE ? undefined : v;
    }
    return this.base.get(key);
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  /**
   * A map with `changes` applied (a value of undefined removes the key). `fold` false never folds (an answer thread
   * must not spend O(n) at once: the side that ships it zone versions folds, and ships it the folded map whole).
   */
  with(changes: ReadonlyMap<string, V | undefined>, fold = true): LayeredMap<V> {
    if (changes.size === 0) return this;
    const top = new Map(this.top);
    let size = this.size;
    for (const [key, value] of changes) {
      const had = this.has(key);
      if (value === undefined) {
        if (!had) continue;
        size--;
        if (this.base.has(key)) top.set(key, GONE);
        else top.delete(key);
      } else {
        if (!had) size++;
        top.set(key, value);
      }
    }
    if (!fold || top.size <= 64 + 2 * Math.sqrt(this.base.size)) return new LayeredMap(this.base, top, size);
    const base = new Map<string, V>();
    for (const [key, value] of this.entriesOf(top)) base.set(key, value);
    return new LayeredMap<V>(base, new Map<string, V | typeof GONE>(), size);
  }

  /**
   * The changes that make `previous` into this map (undefined: a key this map lacks), found from the top layers
   * alone — O(changes) — when both share one base; null when they do not (a fold came between them, or they are
   * unrelated): then the whole map is the difference. Values are compared by identity.
   */
  changesSince(previous: LayeredMap<V>): Map<string, V | undefined> | null {
    if (previous.base !== this.base) return null;
    const changes = new Map<string, V | undefined>();
    for (const top of [this.top, previous.top])
      for (const key of top.keys()) {
        const now = this.get(key);
        if (now !== previous.get(key)) changes.set(key, now);
      }
    return changes;
  }

  *keys(): IterableIterator<string> {
    for (const [key] of this.entries()) yield key;
  }

  *values(): IterableIterator<V> {
    for (const [, value] of this.entries()) yield value;
  }

  /** The base's entries in its order (those the top changed in place), then keys the top added. */
  entries(): IterableIterator<[string, V]> {
    return this.entriesOf(this.top);
  }

  private *entriesOf(top: ReadonlyMap<string, V | typeof GONE>): IterableIterator<[string, V]> {
    for (const [key, value] of this.base) {
      const v = top.get(key);
      if (v === undefined) yield [key, value];
      else if (v !== GONE) yield [key, v];
    }
    for (const [key, value] of top) if (value !== GONE && !this.base.has(key)) yield [key, value];
  }
}
