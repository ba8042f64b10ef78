/**
 * The in-memory planner both zone stores share: it applies a batch of record changes to the affected rows and
 * checks the zone rules on the state AFTER the whole batch. The dialect modules only load the rows the planner
 * needs and write its result in one transaction, so both stores accept and refuse the same batches alike.
 */
import { randomUUID } from 'node:crypto';
import { runAtOnce, runInSteps, sortSteps } from '../../platform/async';
import { timestamp } from './clock';
import { invalid, show } from './errors';
import { DEFAULT_STORE_LIMITS, MAX_RECORDS_PER_CREATE, type StoreLimits } from './limits';
import { cmp, compareRows } from './order';
import { withGiven, type RecordRow } from './rows';
import { StoreError, type ChangeResult, type RecordChange } from './types';
import { checkAnyType, checkId, checkRecord, checkRecordName, checkTtl, checkValue, isKey } from './validation';

/** What the planner needs loaded before it runs (see `collectKeys`). */
export interface ChangeKeys {
  /** Ids named by update/delete, and ids given to add. */
  ids: string[];
  /** Names of added records and of deleteMatching. */
  names: string[];
}

/**
 * The ids and names a batch touches, read defensively (the batch is not validated yet). The store loads
 * (1) the rows with these ids (any zone), then (2) every row of the zone at these names and at the names of the
 * rows found in (1), and hands both to `planChanges`.
 */
export function collectKeys(changes: readonly unknown[]): ChangeKeys {
  const ids = new Set<string>();
  const names = new Set<string>();
  for (const c of changes) {
    if (typeof c !== 'object' || c === null) continue;
    const ch = c as Record<string, unknown>;
    // Only strings the databases can compare; anything else fails validation in planChanges.
    if (isKey(ch.id)) ids.add(ch.id);
    if (ch.op === 'add' && typeof ch.record === 'object' && ch.record !== null) {
      const name = (ch.record as Record<string, unknown>).name;
      if (isKey(name)) names.add(name);
    }
    if (ch.op === 'deleteMatching' && isKey(ch.name)) names.add(ch.name);
  }
  return { ids: [...ids], names: [...names] };
}

export interface PlanInput {
  zone: string;
  changes: readonly RecordChange[];
  /**
   * Rows of this zone: every row at the names the batch touches (see `collectKeys`) and every row with an id it
   * names. Rows of other zones must not be passed here but as `foreignIds`.
   */
  rows: Iterable<RecordRow>;
  /** Ids from `collectKeys` that exist in another zone. */
  foreignIds: ReadonlySet<string>;
  now: Date;
  newId?: () => string;
  limits?: StoreLimits;
}

export interface Plan {
  results: ChangeResult[];
  /** False when nothing changes (only deleteMatching that matched nothing): no write, no serial, no event. */
  effective: boolean;
  /** Ids to delete (removed rows, and rows whose id was deleted and added again in the batch). */
  deletes: string[];
  inserts: RecordRow[];
  /** Rows whose ttl/value or owner name case changed (same id, name, type, createdAt). */
  updates: RecordRow[];
  /** Owner names of the rows deleted, inserted or updated: what a reader of the zone must read again. */
  names: string[];
}

interface WorkRow extends RecordRow {
  /** Not loaded: added by this batch. */
  fresh: boolean;
  dirty: boolean;
  /** False once deleted by this batch. */
  live: boolean;
  /** Index of the last change that added or updated this row. */
  origin: number;
}

const key = (r: { type: string; value: string }) => `${r.type}\u0000${r.value}`;

function stored(r: WorkRow): RecordRow {
  return withGiven(
    {
      id: r.id,
      zone: r.zone,
      name: r.name,
      type: r.type,
      ttl: r.ttl,
      value: r.value,
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
    },
    r.givenName,
    r.givenValue,
  );
}

/**
 * Applies the batch in memory, in order, to the loaded rows, then checks the zone rules on the state after the
 * whole batch. Throws the StoreError of the first failing change (with its index) and has no side effects, so
 * the caller's transaction simply rolls back.
 *
 * Error order: per-change errors (malformed change, bad name/type/TTL/value, unknown id, id taken) are raised
 * at the first change that has one; the rules on the final state (duplicate record, CNAME beside other data)
 * are checked only when every change applied, and name the change that completed the violation (the latest
 * change that added or updated one of the rows involved; the smallest such index when there are several).
 */
export function planChanges(input: PlanInput): Plan {
  const { zone, changes, foreignIds, now } = input;
  const limits = input.limits ?? DEFAULT_STORE_LIMITS;
  const newId = input.newId ?? randomUUID;
  const ts = timestamp(now);

  // byId holds the rows an id can reach (loaded rows and adds with a given id): a generated UUID is new, and
  // nobody can name it before this batch returns. byName holds every live row at the names loaded or touched.
  const byId = new Map<string, WorkRow>();
  const byName = new Map<string, { rows: WorkRow[]; touched: boolean }>();
  const originals: WorkRow[] = [];
  const place = (r: WorkRow, indexed: boolean) => {
    if (indexed) byId.set(r.id, r);
    const entry = byName.get(r.name);
    if (entry) entry.rows.push(r);
    else byName.set(r.name, { rows: [r], touched: false });
  };
  const touch = (name: string) => {
    byName.get(name)!.touched = true;
  };
  const remove = (r: WorkRow) => {
    r.live = false;
    if (byId.get(r.id) === r) byId.delete(r.id);
    const rows = byName.get(r.name)?.rows;
    const at = rows ? rows.indexOf(r) : -1;
    if (at >= 0) rows!.splice(at, 1);
  };
  for (const r of input.rows) {
    if (byId.has(r.id)) continue;
    const row: WorkRow = { ...r, fresh: false, dirty: false, live: true, origin: -1 };
    originals.push(row);
    place(row, true);
  }

  const results: ChangeResult[] = [];
  let effective = false;

  changes.forEach((change, index) => {
    if (typeof change !== 'object' || change === null) {
      throw invalid('change must be an object with op add, update, delete or deleteMatching', index);
    }
    switch (change.op) {
      case 'add': {
        checkRecord(change.record, zone, index);
        let id: string;
        if (change.id !== undefined) {
          checkId(change.id, index);
          id = change.id;
          if (byId.has(id) || foreignIds.has(id))
            throw new StoreError('CONFLICT', `record id ${id} already exists`, index);
        } else {
          id = newId();
        }
        const { name, type, ttl, value } = change.record;
        // An RRset has one owner name case, as in BIND (which keeps it per RRset): a record that brings its own
        // gives it to the whole RRset, as an UPDATE does in BIND; one in model form (the API) takes the RRset's.
        const rrset = (byName.get(name)?.rows ?? []).filter((r) => r.type === type);
        const givenName = change.record.givenName ?? rrset[0]?.givenName;
        if (change.record.givenName !== undefined) {
          for (const r of rrset) {
            if ((r.givenName ?? r.name) === change.record.givenName) continue;
            withGiven(r, change.record.givenName, r.givenValue);
            r.updatedAt = ts;
            if (!r.fresh) r.dirty = true;
          }
        }
        const row: WorkRow = {
          id,
          zone,
          name,
          type,
          ttl,
          value,
          createdAt: ts,
          updatedAt: ts,
          fresh: true,
          dirty: false,
          live: true,
          origin: index,
        };
        withGiven(row, givenName, change.record.givenValue);
        place(row, change.id !== undefined);
        touch(name);
        effective = true;
        results.push({ op: 'add', ids: [id], record: stored(row) });
        return;
      }
      case 'update': {
        checkId(change.id, index);
        const row = byId.get(change.id);
        if (!row) throw new StoreError('NOT_FOUND', `no record ${change.id} in zone ${zone}`, index);
        if (change.ttl === undefined && change.value === undefined) {
          throw invalid(`update of record ${change.id} names neither ttl nor value`, index);
        }
        if (change.ttl !== undefined) checkTtl(change.ttl, index);
        if (change.value !== undefined) checkValue(change.value, index);
        if (change.ttl !== undefined) row.ttl = change.ttl;
        if (change.value !== undefined) {
          row.value = change.value;
          delete row.givenValue; // a new value comes in model form
        }
        row.updatedAt = ts;
        row.dirty = true;
        row.origin = index;
        touch(row.name);
        effective = true;
        results.push({ op: 'update', ids: [row.id], record: stored(row) });
        return;
      }
      case 'delete': {
        checkId(change.id, index);
        const row = byId.get(change.id);
        if (!row) throw new StoreError('NOT_FOUND', `no record ${change.id} in zone ${zone}`, index);
        remove(row);
        effective = true;
        results.push({ op: 'delete', ids: [row.id] });
        return;
      }
      case 'deleteMatching': {
        checkRecordName(change.name, zone, index);
        if (change.type !== undefined) checkAnyType(change.type, index);
        if (change.value !== undefined) checkValue(change.value, index);
        const matched = (byName.get(change.name)?.rows ?? [])
          .filter(
            (r) =>
              (change.type === undefined || r.type === change.type) &&
              (change.value === undefined || r.value === change.value),
          )
          .sort(compareRows);
        for (const r of matched) remove(r);
        if (matched.length > 0) effective = true;
        results.push({ op: 'deleteMatching', ids: matched.map((r) => r.id) });
        return;
      }
      default:
        throw invalid(
          `change has unknown op ${show((change as { op?: unknown }).op)} (add, update, delete, deleteMatching)`,
          index,
        );
    }
  });

  // Rules on the state after the batch, at the names where rows were added or updated.
  let failure: StoreError | undefined;
  for (const [name, { rows, touched }] of byName) {
    if (!touched || rows.length < 2) continue;
    const err = nameViolation(zone, name, rows, limits);
    if (err && (!failure || err.index! < failure.index!)) failure = err;
  }
  if (failure) throw failure;

  const deletes: string[] = [];
  const names = new Set<string>();
  for (const r of originals) {
    if (r.live) continue;
    deletes.push(r.id);
    names.add(r.name);
  }
  const inserts: RecordRow[] = [];
  const updates: RecordRow[] = [];
  for (const [name, { rows }] of byName) {
    for (const r of rows) {
      if (r.fresh) inserts.push(r);
      else if (r.dirty) updates.push(r);
      else continue;
      names.add(name);
    }
  }
  return { results, effective, deletes, inserts, updates, names: [...names] };
}

/**
 * The rules on the final state of one name with 2 or more rows: no duplicate (type, value), at most one CNAME
 * and nothing beside it, and no RRset that gained records holding more than `limits.maxRecordsPerRrset` (an RRset
 * already over it, stored before the limit, may still shrink or change). The error's index is the change that
 * completed the violation (the latest `origin` of the rows involved; for the RRset limit, of the rows added); of
 * several violations, the one with the smallest index.
 */
function nameViolation(
  zone: string,
  name: string,
  rows: readonly { type: string; value: string; origin: number; fresh: boolean }[],
  limits: StoreLimits,
): StoreError | undefined {
  let failure: StoreError | undefined;
  const fail = (err: StoreError) => {
    if (!failure || err.index! < failure.index!) failure = err;
  };
  const blame = (group: readonly { origin: number }[]) => group.reduce((max, r) => Math.max(max, r.origin), 0);
  const groups = new Map<string, (typeof rows)[number][]>();
  for (const r of rows) {
    const k = key(r);
    const g = groups.get(k);
    if (g) g.push(r);
    else groups.set(k, [r]);
  }
  for (const g of groups.values()) {
    const [r] = g;
    if (r !== undefined && g.length > 1) {
      fail(
        new StoreError('CONFLICT', `${name} ${r.type} ${r.value} already exists in zone ${zone || '(root)'}`, blame(g)),
      );
    }
  }
  const max = limits.maxRecordsPerRrset;
  if (max > 0 && rows.length > max) {
    const byType = new Map<string, (typeof rows)[number][]>();
    for (const r of rows) {
      const g = byType.get(r.type);
      if (g) g.push(r);
      else byType.set(r.type, [r]);
    }
    for (const [type, g] of byType) {
      const added = g.filter((r) => r.fresh);
      if (g.length > max && added.length > 0) {
        fail(
          invalid(
            `too many records: ${name} ${type} would hold ${g.length}; the limit is ${max} records per name and type (RRset)`,
            blame(added),
          ),
        );
      }
    }
  }
  const cnames = rows.filter((r) => r.type === 'CNAME');
  if (cnames.length > 1) {
    fail(invalid(`a name may have only one CNAME (${name} has ${cnames.length})`, blame(cnames)));
  }
  if (cnames.length > 0) {
    const others = [...new Set(rows.filter((r) => r.type !== 'CNAME').map((r) => r.type))].sort(cmp);
    if (others.length > 0) {
      fail(
        invalid(`CNAME may not share its name with any other record (${name} has ${others.join(', ')})`, blame(rows)),
      );
    }
  }
  return failure;
}

/**
 * Validates the initial records of a new zone (errors name the record's index) and makes their rows: the same
 * rules as `planChanges` with only adds, without its per-row maps (an imported zone may have 100 000s of
 * records): rows sorted by name, then each name with several rows is checked.
 */
export function planCreate(
  zone: string,
  records: unknown,
  now: Date,
  newId: () => string = randomUUID,
  limits: StoreLimits = DEFAULT_STORE_LIMITS,
): Plan {
  return runAtOnce(planCreateSteps(zone, records, now, newId, limits));
}

/** `planCreate` run in steps of 5 ms (a small zone's in one, without a turn of the loop). */
export function planCreateInSteps(zone: string, records: unknown, now: Date, limits: StoreLimits): Promise<Plan> {
  return runInSteps(planCreateSteps(zone, records, now, randomUUID, limits), { stepMs: 5 });
}

/** Rows between two yields of `planCreateSteps`. */
const ROWS_PER_STEP = 1000;

/**
 * `planCreate` as steps (see platform/async runInSteps): planning a 100 000-record zone takes ~200 ms, which the
 * stores run in steps so that the API's loop keeps going.
 */
export function* planCreateSteps(
  zone: string,
  records: unknown,
  now: Date,
  newId: () => string = randomUUID,
  limits: StoreLimits = DEFAULT_STORE_LIMITS,
): Generator<void, Plan> {
  if (!Array.isArray(records)) throw invalid('records must be an array');
  if (records.length > MAX_RECORDS_PER_CREATE) {
    throw invalid(`a new zone may hold at most ${MAX_RECORDS_PER_CREATE} records (got ${records.length})`);
  }
  const ts = timestamp(now);
  const rows = new Array<RecordRow>(records.length);
  for (let i = 0; i < records.length; i++) {
    const record: unknown = records[i];
    checkRecord(record, zone, i);
    rows[i] = withGiven(
      {
        id: newId(),
        zone,
        name: record.name,
        type: record.type,
        ttl: record.ttl,
        value: record.value,
        createdAt: ts,
        updatedAt: ts,
      },
      record.givenName,
      record.givenValue,
    );
    if (i % ROWS_PER_STEP === ROWS_PER_STEP - 1) yield;
  }
  // Row indexes in name order (ties in input order: the sort is stable): each name's rows form one run.
  const nameAt = (i: number): string => at(rows, i).name;
  const order = yield* sortSteps(
    Array.from({ length: rows.length }, (_, i) => i),
    (a, b) => {
      const x = nameAt(a);
      const y = nameAt(b);
      return x < y ? -1 : x > y ? 1 : 0;
    },
  );
  let failure: StoreError | undefined;
  let stepRows = 0;
  for (let start = 0; start < order.length;) {
    if ((stepRows += 1) >= ROWS_PER_STEP) {
      stepRows = 0;
      yield;
    }
    const name = nameAt(at(order, start));
    let end = start + 1;
    while (end < order.length && nameAt(at(order, end)) === name) end++;
    if (end - start > 1) {
      // one owner name case per RRset: its first record's (a master file's, as BIND loads it)
      const firstOfType = new Map<string, string | undefined>();
      for (let k = start; k < end; k++) {
        const row = at(rows, at(order, k));
        if (!firstOfType.has(row.type)) firstOfType.set(row.type, row.givenName);
        else withGiven(row, firstOfType.get(row.type), row.givenValue);
      }
      const group = order.slice(start, end).map((i) => {
        const { type, value } = at(rows, i);
        return { type, value, origin: i, fresh: true };
      });
      const err = nameViolation(zone, name, group, limits);
      if (err && (!failure || err.index! < failure.index!)) failure = err;
    }
    start = end;
  }
  if (failure) throw failure;
  return { results: [], effective: rows.length > 0, deletes: [], inserts: rows, updates: [], names: [] };
}

/** `items[i]` for an index computed from the array itself: a miss is a bug in this module, not bad input. */
function at<T>(items: readonly T[], i: number): T {
  const item = items[i];
  if (item === undefined) throw new RangeError(`index ${i} is outside the ${items.length} items`);
  return item;
}
