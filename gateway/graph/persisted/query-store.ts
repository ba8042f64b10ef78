import { LRUCache } from 'lru-cache';

export interface QueryStoreOptions {
  /** Most documents held; the least recently used go first. */
  maxEntries: number;
  /** Bytes of document text (UTF-8) held; the least recently used go first. */
  maxBytes: number;
}

/** A store behind the in-process one, shared by replicas (Redis); it never throws. */
export interface SharedQueryStore {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * The automatic persisted queries' store: document text by key (Apollo Server keys it `apq:<sha256>`), bounded in
 * entries and bytes, least recently used first out. Apollo Server's `persistedQueries.cache` (a KeyValueCache of
 * strings); /graphql/stream looks hashes up in the same store, so one registration serves both paths. With a
 * shared store behind it (Redis), a miss here is looked up there and a registration goes to both.
 */
export class QueryStore {
  private readonly lru: LRUCache<string, string>;

  constructor(
    readonly options: QueryStoreOptions,
    readonly shared?: SharedQueryStore,
  ) {
    this.lru = new LRUCache<string, string>({
      max: Math.max(1, options.maxEntries),
      maxSize: Math.max(1, options.maxBytes),
      // the key counts too: a flood of tiny documents under long keys must not slip past the byte bound
      sizeCalculation: (value, key) => Buffer.byteLength(value) + key.length,
    });
  }

  async get(key: string): Promise<string | undefined> {
    const local = this.lru.get(key);
    if (local !== undefined || !this.shared) return local;
    const shared = await this.shared.get(key);
    if (shared !== undefined) this.lru.set(key, shared);
    return shared;
  }

  /** A document larger than the whole bound is not kept here (lru-cache refuses it); the shared store takes it. */
  async set(key: string, value: string): Promise<void> {
    this.lru.set(key, value);
    await this.shared?.set(key, value);
  }

  async delete(key: string): Promise<boolean> {
    return this.lru.delete(key);
  }

  async close(): Promise<void> {
    await this.shared?.close();
  }

  /** Documents held in this process and their bytes (metrics, tests). */
  stats(): { entries: number; bytes: number } {
    return { entries: this.lru.size, bytes: this.lru.calculatedSize };
  }
}

/** Apollo Server's prefix of APQ keys in its `persistedQueries.cache` (requestPipeline's APQ_CACHE_PREFIX). */
export const APQ_KEY_PREFIX = 'apq:';
