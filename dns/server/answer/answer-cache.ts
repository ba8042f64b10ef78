/**
 * Encoded answers to plain queries by the exact bytes of their question section and their EDNS state (none, EDNS,
 * EDNS with DO). Each answer is kept whole and, when longer than 512 bytes, truncated (TC) as well; ID, RD and CD
 * are the query's on the way out (plain-query.ts writes them in). An entry is used while its zone is the index's
 * current copy and no zone was added or removed since (a new child zone changes which zone answers), so a zone
 * reload invalidates that zone's answers only.
 */
import type { Answered } from './answer';

/** Entries and bytes of answers held at most (the cache is emptied when either is reached); maxEntries 0: off. */
export interface AnswerCacheLimits {
  maxEntries: number;
  maxBytes: number;
}

export const DEFAULT_ANSWER_CACHE: Readonly<AnswerCacheLimits> = { maxEntries: 50_000, maxBytes: 32 * 1024 * 1024 };

export interface CachedAnswer extends Answered {
  /**
   * The question section as received (name as sent: the answer echoes its case; type; class) when it differs from
   * the answer's question section (bytes 12 to 12 + length of `full`), which holds it otherwise.
   */
  question: Buffer | undefined;
  length: number;
  /** 0 no EDNS, 1 EDNS, 2 EDNS with DO. */
  edns: number;
  /** `ZoneIndex.layout` when computed. */
  layout: number;
  /** Where its zone's counters are (DnsStats.zoneBase). */
  statBase: number;
  /** Next entry of the same hash bucket. */
  next: CachedAnswer | undefined;
}

/** FNV-1a over the question section (bytes 12 to `end` of `raw`) and the EDNS state, folded to a small integer. */
export function questionHash(raw: Buffer, end: number, edns: number): number {
  let h = 0x811c9dc5 ^ edns;
  for (let i = 12; i < end; i++) h = Math.imul(h ^ (raw[i] ?? 0), 0x01000193);
  return (h ^ (h >>> 15)) & 0x3fffffff;
}

/** A hash table of chained buckets; when full, it starts over empty. */
export class AnswerCache {
  private table: Array<CachedAnswer | undefined> = [];
  private mask = -1;
  private size = 0;
  private bytes = 0;

  constructor(readonly limits: Readonly<AnswerCacheLimits> = DEFAULT_ANSWER_CACHE) {}

  /** Answers held now. */
  get entries(): number {
    return this.size;
  }

  get enabled(): boolean {
    return this.limits.maxEntries > 0;
  }

  find(raw: Buffer, end: number, edns: number, hash: number): CachedAnswer | undefined {
    if (this.mask < 0) return undefined;
    next: for (let e = this.table[hash & this.mask]; e !== undefined; e = e.next) {
      if (e.edns !== edns || e.length !== end - 12) continue;
      const q = e.question;
      if (q === undefined) {
        const full = e.full;
        for (let i = 12; i < end; i++) if (full[i] !== raw[i]) continue next;
      } else {
        for (let i = 12; i < end; i++) if (q[i - 12] !== raw[i]) continue next;
      }
      return e;
    }
    return undefined;
  }

  insert(entry: CachedAnswer, hash: number, bytes: number): void {
    const { maxEntries, maxBytes } = this.limits;
    if (this.mask < 0 || this.size >= maxEntries || this.bytes + bytes > maxBytes) {
      let buckets = 1024;
      while (buckets < maxEntries) buckets *= 2;
      this.table = new Array<CachedAnswer | undefined>(buckets).fill(undefined);
      this.mask = buckets - 1;
      this.size = 0;
      this.bytes = 0;
    }
    const slot = hash & this.mask;
    entry.next = this.table[slot];
    this.table[slot] = entry;
    this.size++;
    this.bytes += bytes;
  }

  /** An entry's answer was computed again (its zone changed): its new size counts instead of the old. */
  grow(bytes: number): void {
    this.bytes += bytes;
  }
}
