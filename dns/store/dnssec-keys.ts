/**
 * A change of a zone's DNSSEC keys applied in memory to the keys it has, as both stores do under their write lock:
 * the parts in order add, update, remove (`all`: every key the zone would have, so the zone ends with none), so an
 * update or removal may name a key added by the same call. What is left is written in one transaction.
 */
import { type DnssecDenial, StoreError, type DnssecKey } from './types';
import type { CheckedDnssecKeyChange } from './validation';

export interface DnssecKeyPlan {
  inserts: DnssecKey[];
  /** Keys the zone had whose timings changed: their state after the change. */
  updates: DnssecKey[];
  deletes: string[];
}

/**
 * `current`: the zone's keys; `taken`: the ids among those added that some key of any zone already has. CONFLICT for
 * an added id that exists (or is added twice), NOT_FOUND for an update or removal of an id the zone has no key of.
 */
export function planDnssecKeyChange(
  zone: string,
  change: CheckedDnssecKeyChange,
  current: readonly DnssecKey[],
  taken: ReadonlySet<string>,
): DnssecKeyPlan {
  const keys = new Map(current.map((k) => [k.id, k]));
  const added = new Set<string>();
  const updated = new Set<string>();
  const missing = (id: string) => new StoreError('NOT_FOUND', `zone ${zone} has no DNSSEC key ${id}`);
  for (const key of change.add) {
    if (keys.has(key.id) || taken.has(key.id))
      throw new StoreError('CONFLICT', `a DNSSEC key with id ${key.id} already exists`);
    keys.set(key.id, key);
    added.add(key.id);
  }
  for (const { id, ...timings } of change.update) {
    const key = keys.get(id);
    if (!key) throw missing(id);
    keys.set(id, { ...key, ...timings });
    updated.add(id);
  }
  const deletes: string[] = [];
  for (const id of change.remove === 'all' ? [...keys.keys()] : change.remove) {
    if (!keys.delete(id)) throw missing(id);
    if (!added.delete(id)) deletes.push(id);
    updated.delete(id);
  }
  const pick = (ids: Set<string>) => [...keys.values()].filter((k) => ids.has(k.id));
  return { inserts: pick(added), updates: pick(updated).filter((k) => !added.has(k.id)), deletes };
}

/**
 * What a key change does to the zone's denial row: null deletes it (NSEC, or no keys left: DNSSEC off), a value
 * writes it, undefined leaves it.
 */
export function denialAfter(
  change: CheckedDnssecKeyChange,
  plan: DnssecKeyPlan,
  current: readonly DnssecKey[],
): DnssecDenial | null | undefined {
  const left = current.length + plan.inserts.length - plan.deletes.length;
  if (left === 0) return null;
  if (!change.denial) return undefined;
  return change.denial.denial === 'NSEC' ? null : change.denial;
}

/** A denial row as the stores read it (none: NSEC). */
export function storedDenial(row: { denial: string; optOut: number } | undefined): DnssecDenial {
  return row?.denial === 'NSEC3' ? { denial: 'NSEC3', optOut: row.optOut === 1 } : { denial: 'NSEC', optOut: false };
}
