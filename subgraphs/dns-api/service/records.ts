import { createHash } from 'node:crypto';
import { MAX_TTL, RECORD_TYPES, type RecordData, type RecordType, type StoredRecord } from '../../../dns/model';
import { RecordValueError, validateRecord } from '../../../dns/records';
import {
  type RecordChange,
  type RecordPosition,
  type RecordVersion,
  StoreError,
  type ZoneStore,
} from '../../../dns/store';
import { apiError, apiErrorOf, asApi, invalid, type FieldError } from '../errors';
import type { ChangeFeed } from './changes';
import { KeyedQueue, type DnsServing } from './serving';
import { etagMatches, versionWanted, zoneRef } from './zones';

export interface RecordInput {
  name: string;
  type: string;
  value: string;
  /** Default: the zone's default TTL. */
  ttl?: number | null;
}

export interface RecordPatch {
  value?: string | null;
  ttl?: number | null;
}

export interface RecordView extends StoredRecord {
  etag: string;
}

export interface RecordPage {
  zone: string;
  records: RecordView[];
  /** Where the next page starts; null on the last page. */
  nextCursor: string | null;
}

export type BatchOperation =
  | ({ operation: 'create' } & RecordInput)
  | ({ operation: 'update'; id: string } & RecordPatch)
  | { operation: 'delete'; id: string };

export interface BatchResultItem {
  operation: BatchOperation['operation'];
  id: string;
  status: 'success';
  /** The record after the operation (create, update). */
  record: RecordView | null;
}

export interface RecordServiceOptions {
  /** Most operations one batch may hold (413 beyond). */
  maxBatch: number;
  /** Largest page `limit` may ask for. */
  maxPage: number;
}

/** Largest page of a zone's records: about 30 ms of store reading and a few MiB of answer (REST's `limit` too). */
export const MAX_RECORD_PAGE = 10_000;
/** The page GraphQL gives when no `limit` is asked for: a zone of this size or less comes whole, as before. */
export const DEFAULT_RECORD_PAGE = 1_000;

export const RECORD_DEFAULTS: RecordServiceOptions = { maxBatch: 1_000, maxPage: MAX_RECORD_PAGE };

/** Types a client may write (SOA is the zone's settings; it is not a record of the API). */
const WRITABLE = RECORD_TYPES.filter((t) => t !== 'SOA');

/** A record's ETag: it changes whenever its value or TTL does. */
export function recordEtag(record: StoredRecord): string {
  const digest = createHash('sha256')
    .update(`${record.id}|${record.ttl}|${record.value}|${record.updatedAt}`)
    .digest('base64url');
  return `"${digest.slice(0, 22)}"`;
}

/**
 * A record with its ETag, hashed only when read (GraphQL reads fields by property): a listing of a large zone seldom
 * asks for ETags, and hashing each of 10 000 records was a tenth of such a listing's time. (A spread of it has no
 * `etag`: read it by name.)
 */
class View implements RecordView {
  readonly id: string;
  readonly zone: string;
  readonly name: string;
  readonly type: StoredRecord['type'];
  readonly ttl: number;
  readonly value: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  #etag: string | undefined;

  constructor(record: StoredRecord) {
    this.id = record.id;
    this.zone = record.zone;
    this.name = record.name;
    this.type = record.type;
    this.ttl = record.ttl;
    this.value = record.value;
    this.createdAt = record.createdAt;
    this.updatedAt = record.updatedAt;
  }

  get etag(): string {
    return (this.#etag ??= recordEtag(this));
  }
}

const view = (record: StoredRecord): RecordView => new View(record);

function encodeCursor(record: StoredRecord): string {
  return Buffer.from(JSON.stringify([record.name, record.type, record.value, record.id])).toString('base64url');
}

/** The record position a cursor names: listings and pages are in the store's order (name, type, value, id). */
function decodeCursor(cursor: string): RecordPosition {
  try {
    const parts: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(parts) && parts.length === 4 && parts.every((p) => typeof p === 'string')) {
      const [name, type, value, id] = parts as [string, string, string, string];
      if ((RECORD_TYPES as readonly string[]).includes(type)) return { name, type: type as RecordType, value, id };
    }
  } catch {
    // fall through: not one of ours
  }
  throw apiError('BAD_REQUEST', 'cursor is not a cursor this API gave out (use next_cursor of the previous page)', {
    field: 'cursor',
  });
}

function typeArg(type: unknown, field: string): RecordType {
  if (typeof type === 'string' && (WRITABLE as readonly string[]).includes(type.toUpperCase()))
    return type.toUpperCase() as RecordType;
  const message =
    typeof type === 'string' && type.toUpperCase() === 'SOA'
      ? `${field} SOA is not a record here: the zone's SOA comes from its settings (PUT the zone)`
      : `${field} must be one of ${WRITABLE.join(', ')} (got ${JSON.stringify(type)})`;
  throw invalid(field, message);
}

function ttlProblem(ttl: unknown, field: string): FieldError | undefined {
  if (ttl === undefined || ttl === null) return undefined;
  if (typeof ttl === 'number' && Number.isInteger(ttl) && ttl >= 0 && ttl <= MAX_TTL) return undefined;
  return { field, message: `${field} must be an integer from 0 to ${MAX_TTL} (got ${JSON.stringify(ttl)})` };
}

/** A record checked and normalised for `zone` (names fully qualified, values in presentation form). */
function recordOf(input: RecordInput, zone: string, defaultTtl: number, prefix = ''): RecordData {
  const missing = (['name', 'type', 'value'] as const).filter(
    (k) => input[k] === undefined || input[k] === null || input[k] === '',
  );
  if (missing.length)
    throw invalid(
      `${prefix}${missing[0]}`,
      `${prefix}${missing[0]} is required`,
      missing.slice(1).map((k) => ({
        field: `${prefix}${k}`,
        message: `${prefix}${k} is required`,
      })),
    );
  const type = typeArg(input.type, `${prefix}type`);
  const ttlIssue = ttlProblem(input.ttl, `${prefix}ttl`);
  if (ttlIssue) throw invalid(ttlIssue.field, ttlIssue.message);
  try {
    return validateRecord({ name: input.name, type, ttl: input.ttl ?? defaultTtl, value: input.value }, zone);
  } catch (err) {
    if (err instanceof RecordValueError)
      throw invalid(`${prefix}${err.field}`, `${prefix}${err.field}: ${err.message}`);
    throw err;
  }
}

const ifMatchGiven = (ifMatch: string | null | undefined): ifMatch is string =>
  ifMatch !== undefined && ifMatch !== null;

const stale = (id: string, ifMatch: string) =>
  apiError('PRECONDITION_FAILED', `record ${id} changed since it was read (If-Match ${ifMatch} does not match)`);

/** What the record's ETag is made of, as the write's condition. */
const versionOf = (r: StoredRecord): RecordVersion => ({
  id: r.id,
  ttl: r.ttl,
  value: r.value,
  updatedAt: r.updatedAt,
});

/** Records of one zone: each an individual row with its own id (RRsets are not the unit). */
export class RecordService {
  constructor(
    private readonly store: ZoneStore,
    private readonly serving: DnsServing,
    private readonly feed: ChangeFeed,
    private readonly options: RecordServiceOptions = RECORD_DEFAULTS,
    /**
     * API writes of one zone run one at a time in this process (shared with the zone service); an If-Match holds
     * across processes because the store checks it again inside the write (`ifRecord`).
     */
    private readonly writes: KeyedQueue = new KeyedQueue(),
  ) {}

  async list(
    zoneName: string,
    filter: { type?: string | null; limit?: number | null; cursor?: string | null } = {},
  ): Promise<RecordPage> {
    const zone = zoneRef(zoneName);
    const type = filter.type ? typeArg(filter.type, 'type') : undefined;
    const { limit } = filter;
    if (
      limit !== undefined &&
      limit !== null &&
      (!Number.isInteger(limit) || limit < 1 || limit > this.options.maxPage)
    )
      throw invalid('limit', `limit must be an integer from 1 to ${this.options.maxPage} (got ${limit})`);
    const after = filter.cursor ? decodeCursor(filter.cursor) : undefined;
    // One row more than the page tells whether another page follows.
    const rows = await asApi(() =>
      this.store.listRecords(zone, {
        ...(type ? { type } : {}),
        ...(after ? { after } : {}),
        ...(limit ? { limit: limit + 1 } : {}),
      }),
    );
    const page = limit ? rows.slice(0, limit) : rows;
    const last = page[page.length - 1];
    return { zone, records: page.map(view), nextCursor: rows.length > page.length && last ? encodeCursor(last) : null };
  }

  async get(zoneName: string, id: string): Promise<RecordView> {
    const zone = zoneRef(zoneName);
    const record = await asApi(() => this.store.getRecord(zone, id));
    if (!record) throw await this.missing(zone, id);
    return view(record);
  }

  create(zoneName: string, input: RecordInput, by: string): Promise<RecordView> {
    const zone = zoneRef(zoneName);
    return this.writes.run(zone, async () => {
      const settings = await this.zoneOf(zone);
      const record = recordOf(input, zone, settings.defaultTtl);
      const outcome = await asApi(() => this.store.change(zone, [{ op: 'add', record }]));
      await this.committed(zone, outcome.zone.serial, by);
      const created = outcome.results[0]?.record;
      if (!created) throw new Error('the store added a record without returning it');
      return view(created);
    });
  }

  update(
    zoneName: string,
    id: string,
    patch: RecordPatch,
    ifMatch: string | null | undefined,
    by: string,
  ): Promise<RecordView> {
    const zone = zoneRef(zoneName);
    return this.writes.run(zone, async () => {
      const current = await this.current(zone, id, ifMatch);
      const change = this.updateOf(current, id, patch, '');
      const outcome = await this.conditional(id, ifMatch, () =>
        this.store.change(zone, [change], versionWanted(ifMatch) ? { ifRecord: versionOf(current) } : {}),
      );
      await this.committed(zone, outcome.zone.serial, by);
      const updated = outcome.results[0]?.record;
      if (!updated) throw new Error('the store updated a record without returning it');
      return view(updated);
    });
  }

  delete(zoneName: string, id: string, ifMatch: string | null | undefined, by: string): Promise<void> {
    const zone = zoneRef(zoneName);
    return this.writes.run(zone, async () => {
      const current = await this.current(zone, id, ifMatch);
      const outcome = await this.conditional(id, ifMatch, () =>
        this.store.change(zone, [{ op: 'delete', id }], versionWanted(ifMatch) ? { ifRecord: versionOf(current) } : {}),
      );
      await this.committed(zone, outcome.zone.serial, by);
    });
  }

  /**
   * All operations or none, in one transaction: each is checked first (the first bad one is named with its index),
   * then the store applies them together; a conflict found there names its operation too.
   */
  batch(zoneName: string, operations: readonly BatchOperation[], by: string): Promise<BatchResultItem[]> {
    const zone = zoneRef(zoneName);
    const given: unknown = operations; // a GraphQL or REST caller may send anything
    if (!Array.isArray(given) || operations.length === 0)
      throw invalid('operations', 'operations must list at least one operation');
    if (operations.length > this.options.maxBatch)
      throw apiError(
        'PAYLOAD_TOO_LARGE',
        `a batch may hold at most ${this.options.maxBatch} operations (got ${operations.length}; dnsApiMaxBatch)`,
        { limit: 'dnsApiMaxBatch' },
      );
    return this.writes.run(zone, async () => {
      const settings = await this.zoneOf(zone);
      const needsCurrent = operations.some((op) => op.operation === 'update');
      const byId = needsCurrent
        ? new Map((await asApi(() => this.store.listRecords(zone))).map((r) => [r.id, r]))
        : new Map<string, StoredRecord>();
      const changes = operations.map((op, i): RecordChange => {
        const prefix = `operations[${i}].`;
        switch (op.operation) {
          case 'create':
            return { op: 'add', record: recordOf(op, zone, settings.defaultTtl, prefix) };
          case 'update': {
            // GraphQL's batch input has an optional id (a create has none): an update without one is a 422, not a 404.
            if (typeof op.id !== 'string' || op.id === '') throw invalid(`${prefix}id`, `${prefix}id is required`);
            const current = byId.get(op.id);
            if (!current) throw apiError('NOT_FOUND', `${prefix}id: no record ${op.id} in zone ${zone}`, { index: i });
            return this.updateOf(current, op.id, op, prefix);
          }
          case 'delete':
            if (typeof op.id !== 'string' || op.id === '') throw invalid(`${prefix}id`, `${prefix}id is required`);
            return { op: 'delete', id: op.id };
          default:
            throw invalid(
              `${prefix}operation`,
              `${prefix}operation must be create, update or delete (got ${JSON.stringify((op as { operation: unknown }).operation)})`,
            );
        }
      });
      let outcome;
      try {
        outcome = await this.store.change(zone, changes);
      } catch (err) {
        if (err instanceof StoreError && err.index !== undefined) {
          const op = operations[err.index];
          const mapped = apiErrorOf(err, `operations[${err.index}].`);
          throw mapped instanceof Error
            ? Object.assign(mapped, {
                message: `operation ${err.index + 1} (${op?.operation ?? '?'}) failed, nothing was applied: ${err.message}`,
              })
            : mapped;
        }
        throw apiErrorOf(err);
      }
      await this.committed(zone, outcome.zone.serial, by);
      // One result per operation, in order (the store's contract): zipped, not indexed.
      return operations.map((op, i) => {
        const result = outcome.results[i];
        const record = result?.record ? view(result.record) : null;
        return {
          operation: op.operation,
          id: result?.ids[0] ?? (op.operation === 'create' ? '' : op.id),
          status: 'success',
          record,
        };
      });
    });
  }

  private updateOf(current: StoredRecord, id: string, patch: RecordPatch, prefix: string): RecordChange {
    const hasValue = patch.value !== undefined && patch.value !== null;
    const hasTtl = patch.ttl !== undefined && patch.ttl !== null;
    if (!hasValue && !hasTtl)
      throw invalid(`${prefix}value`, `${prefix}value or ${prefix}ttl: give at least one to change`);
    const checked = recordOf(
      {
        name: current.name,
        type: current.type,
        ttl: hasTtl ? patch.ttl : current.ttl,
        value: hasValue ? (patch.value as string) : current.value,
      },
      current.zone,
      current.ttl,
      prefix,
    );
    return { op: 'update', id, ...(hasTtl ? { ttl: checked.ttl } : {}), ...(hasValue ? { value: checked.value } : {}) };
  }

  /**
   * The record as stored, after checking an If-Match against its ETag (412 when it changed since). The write then
   * passes the version read as its condition, so a change committed in between (by any process) is a 412 too.
   */
  private async current(zone: string, id: string, ifMatch: string | null | undefined): Promise<StoredRecord> {
    const record = await asApi(() => this.store.getRecord(zone, id));
    if (!record) throw await this.missing(zone, id);
    if (ifMatchGiven(ifMatch) && !etagMatches(ifMatch, recordEtag(record))) throw stale(id, ifMatch);
    return record;
  }

  /** A conditional write: a condition that failed in the store is the same 412 as the check before it. */
  private async conditional<T>(id: string, ifMatch: string | null | undefined, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (err instanceof StoreError && err.code === 'PRECONDITION_FAILED' && ifMatchGiven(ifMatch))
        throw stale(id, ifMatch);
      throw apiErrorOf(err);
    }
  }

  private async zoneOf(zone: string) {
    const settings = await asApi(() => this.store.getZone(zone));
    if (!settings) throw apiError('NOT_FOUND', `no zone ${zone}`);
    return settings;
  }

  /** NOT_FOUND naming what is missing: the zone, or the record in it. */
  private async missing(zone: string, id: string) {
    const exists = await asApi(() => this.store.getZone(zone));
    return apiError('NOT_FOUND', exists ? `no record ${id} in zone ${zone}` : `no zone ${zone}`);
  }

  /** After a commit: who made it (for the change feed), and the DNS server answers with it before we return. */
  private async committed(zone: string, serial: number, by: string): Promise<void> {
    this.feed.attribute(zone, serial, by);
    await this.serving.served(zone, serial);
  }
}
