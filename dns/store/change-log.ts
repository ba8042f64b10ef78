/**
 * The change log both dialects keep (`zone_changes`, migration 5): one row per committed change, written in the
 * change's transaction. A mirror of a zone (an engine of another replica) that finds its copy at a serial other than
 * the one a change started from follows the chain `previous` → `serial` from what it serves to what the store has,
 * and reads again only the names on the way.
 */
import type { ZoneChangeEvent, ZoneLogEntry } from './types';

/** Log rows older than this are pruned (a mirror further behind reads the whole zone). */
export const CHANGE_LOG_KEEP_MS = 24 * 3600_000;
/** At most one pruning per process in this time. */
export const CHANGE_LOG_PRUNE_EVERY_MS = 10 * 60_000;
/** A chain longer than this is not followed: reading the zone whole is cheaper. */
export const MAX_CHAIN = 10_000;

/** What the log keeps of a change's names: a records change's owner names (JSON); null for other kinds. */
export function logNames(kind: ZoneChangeEvent['kind'], names: readonly string[] | undefined): string | null {
  return kind === 'records-changed' && names ? JSON.stringify(names) : null;
}

/** A log row as both dialects select it. */
export interface ChangeLogRow {
  position: number | string;
  zone: string;
  serial: number | string;
  previous: number | string | null;
  kind: string;
  names: string | null;
  committed_at: string;
}

export function toLogEntry(row: ChangeLogRow): ZoneLogEntry {
  return {
    position: Number(row.position),
    zone: row.zone,
    serial: Number(row.serial),
    previous: row.previous === null ? null : Number(row.previous),
    kind: row.kind as ZoneLogEntry['kind'],
    names: row.names === null ? null : (JSON.parse(row.names) as string[]),
    committedAt: row.committed_at,
  };
}

/**
 * The changes from `serial` to `current` (the zone's serial, read in the same snapshot as `rows`: the zone's log rows
 * after the last one that produced `serial`, oldest first), or null when they do not form an unbroken chain.
 */
export function chainFrom(serial: number, current: number, rows: readonly ZoneLogEntry[]): ZoneLogEntry[] | null {
  if (rows.length > MAX_CHAIN) return null;
  let at = serial;
  for (const row of rows) {
    if (row.previous !== at || row.kind === 'zone-created' || row.kind === 'zone-deleted') return null;
    at = row.serial;
  }
  return at === current ? [...rows] : null;
}

/**
 * Calls `prune` at most once per CHANGE_LOG_PRUNE_EVERY_MS, on a later turn (never inside the write's transaction); a
 * failure waits for the next time (pruning can wait).
 */
export class LogPruning {
  private last = 0;

  constructor(private readonly prune: (before: Date) => Promise<unknown>) {}

  afterWrite(now = Date.now()): void {
    if (now - this.last < CHANGE_LOG_PRUNE_EVERY_MS) return;
    this.last = now;
    setImmediate(() => {
      this.prune(new Date(now - CHANGE_LOG_KEEP_MS)).catch(() => {});
    });
  }
}
