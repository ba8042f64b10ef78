import { LRUCache } from 'lru-cache';

/**
 * Rendered record listings by zone version. A listing depends on the zone's contents and the page asked for, not on
 * who asks (each caller's right to read is checked before the cache is looked at), and a zone's ETag changes with
 * every change of the zone: so a listing cached under (ETag, page) is never stale. Large zones are listed whole by
 * scripts again and again; rendering 10 000 records costs tens of milliseconds of CPU each time.
 */
export class ListingCache {
  private readonly entries: LRUCache<string, string>;

  constructor(
    private readonly limits: { maxBytes: number; maxEntryBytes: number } = {
      maxBytes: 32 * 1024 * 1024,
      maxEntryBytes: 4 * 1024 * 1024,
    },
  ) {
    // Size in UTF-16 code units × 2: the memory a JS string takes, near enough.
    this.entries = new LRUCache({ maxSize: limits.maxBytes, sizeCalculation: (body) => Math.max(1, body.length * 2) });
  }

  static key(zoneEtag: string, page: { type?: string; limit?: string; cursor?: string }): string {
    return JSON.stringify([zoneEtag, page.type ?? null, page.limit ?? null, page.cursor ?? null]);
  }

  get(key: string): string | undefined {
    return this.entries.get(key);
  }

  set(key: string, body: string): void {
    if (body.length * 2 <= this.limits.maxEntryBytes) this.entries.set(key, body);
  }

  get size(): number {
    return this.entries.size;
  }
}
