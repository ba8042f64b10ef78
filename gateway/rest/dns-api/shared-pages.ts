import { LRUCache } from 'lru-cache';

/** A page of a whole-zone read as walks share it: its rendered bytes and where the next page starts. */
export interface SharedPage {
  bytes: Buffer;
  /** The cursor of the next page; null on the last one. */
  next: string | null;
  /** A listing's page: how many records it holds (maybe none), its zone's name and the zone's ETag it was read at. */
  count?: number;
  zone?: string;
  etag?: string;
}

/**
 * Pages of whole-zone reads shared by the walks that read the same zone version at once, so that twenty clients
 * listing one zone cost about one walk: a page being read is awaited by every walk that needs it, a page read is kept
 * (bytes bounded, least recently used first out) for the walks a little behind. Keys name the zone version, so a kept
 * page is never stale; each caller's right to read the zone is checked before it asks (as for the ListingCache).
 */
export class SharedPages {
  private readonly kept: LRUCache<string, SharedPage>;
  private readonly reading = new Map<string, Promise<SharedPage>>();
  /** Pages read from the graph, and pages a walk took from another one (kept or being read). */
  readonly counts = { read: 0, shared: 0 };

  constructor(readonly maxBytes = 16 * 1024 * 1024) {
    this.kept = new LRUCache({ maxSize: maxBytes, sizeCalculation: (p) => Math.max(1, p.bytes.length) });
  }

  /**
   * The page under `key`: kept, being read by another walk, or read now with `read` (kept unless it says the page is
   * not of the version its key names). A read that fails fails its own walk; a walk that awaited it reads for itself.
   */
  async get(key: string, read: () => Promise<{ page: SharedPage; keep: boolean }>): Promise<SharedPage> {
    const kept = this.kept.get(key);
    if (kept) {
      this.counts.shared++;
      return kept;
    }
    const reading = this.reading.get(key);
    if (reading) {
      try {
        const page = await reading;
        this.counts.shared++;
        return page;
      } catch {
        // the other walk's failure (its caller's, maybe): this walk reads for itself below
      }
    }
    const mine = read().then(({ page, keep }) => {
      this.counts.read++;
      if (keep) this.kept.set(key, page);
      return page;
    });
    this.reading.set(key, mine);
    try {
      return await mine;
    } finally {
      if (this.reading.get(key) === mine) this.reading.delete(key);
    }
  }
}
