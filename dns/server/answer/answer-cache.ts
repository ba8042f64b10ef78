/**
 * Encoded answers to plain queries by the exact bytes of their question section and their EDNS state (none, EDNS,
 * EDNS with DO). Each answer is kept whole and, when longer than 512 bytes, truncated (TC) as well; ID, RD and CD
 * are the query's on the way out (plain-query.ts writes them in). An entry is used while its zone is the index's
 * current copy and no zone was added or removed since (a new child zone changes which zone answers), so a zone
 * reload invalidates that zone's answers only. When full, it evicts a sixteenth of its buckets at a time, in turn
 * (not everything at once: a set of questions a little larger than the cache would otherwise empty it again and
 * again, and almost every answer would be computed afresh).
 */
import type { Answered } from './answer';

/** Entries and bytes of answers held at most (reaching either evicts some); maxEntries 0: off. */
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
  /** What it counts for against `maxBytes` (set by the cache). */
  bytes: number;
  /** Next entry of the same hash bucket. */
  next: CachedAnswer | undefined;
}

/** FNV-1a over the question section (bytes 12 to `end` of `raw`) and the EDNS state, folded to a small integer. */
export function questionHash(raw: Buffer, end: number, edns: number): number {
  let h = 0x811c9dc5 ^ edns;
  for (let i = 12; i < end; i++) h = Math.imul(h ^ (raw[i] ?? 0), 0x01000193);
  return (h ^ (h >>> 15)) & 0x3fffffff;
}

/** Buckets evicted at once when full: 1/EVICT_PARTS of them. */
const EVICT_PARTS = 16;

/** A hash table of chained buckets; when full, whole buckets are evicted, a slice at a time, in turn. */
export class AnswerCache {
  private table: Array<CachedAnswer | undefined> = [];
  private mask = -1;
  private size = 0;
  private bytes = 0;
  /** The next bucket to evict from. */
  private sweep = 0;

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

  /** Bytes of answers held now. */
  get heldBytes(): number {
    return this.bytes;
  }

  insert(entry: CachedAnswer, hash: number, bytes: number): void {
    const { maxEntries, maxBytes } = this.limits;
    if (this.mask < 0) {
      let buckets = 1024;
      while (buckets < maxEntries) buckets *= 2;
      this.table = new Array<CachedAnswer | undefined>(buckets).fill(undefined);
      this.mask = buckets - 1;
    }
    // bounded: one full turn of the sweep empties the table
    for (let i = 0; i < EVICT_PARTS && this.size > 0 && (this.size >= maxEntries || this.bytes + bytes > maxBytes); i++)
      this.evict();
    const slot = hash & this.mask;
    entry.next = this.table[slot];
    entry.bytes = bytes;
    this.table[slot] = entry;
    this.size++;
    this.bytes += bytes;
  }

  /** An entry's answer was computed again (its zone changed): `bytes`, its new size, counts instead of the old. */
  resize(entry: CachedAnswer, bytes: number): void {
    this.bytes += bytes - entry.bytes;
    entry.bytes = bytes;
  }

  /** Empties the next slice of buckets. */
  private evict(): void {
    const table = this.table;
    const buckets = table.length;
    const end = Math.min(buckets, this.sweep + Math.max(1, buckets / EVICT_PARTS));
    for (let b = this.sweep; b < end; b++) {
      for (let e = table[b]; e !== undefined; e = e.next) {
        this.size--;
        this.bytes -= e.bytes;
      }
      table[b] = undefined;
    }
    this.sweep = end === buckets ? 0 : end;
  }
}
