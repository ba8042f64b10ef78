/** The order listRecords returns rows in, the same in memory as in both databases. */
import type { RecordRow } from './rows';

/**
 * Byte-order comparison of strings (UTF-8 order = code point order), the order of SQLite's BINARY and
 * PostgreSQL's "C" collation, which the stores' ORDER BY use.
 */
export function cmp(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x < y ? -1 : 1;
    if (x > 0xffff) i++;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

/** Rows the way listRecords returns them: name, type, value (byte order), then id. */
export function compareRows(a: RecordRow, b: RecordRow): number {
  return cmp(a.name, b.name) || cmp(a.type, b.type) || cmp(a.value, b.value) || cmp(a.id, b.id);
}
