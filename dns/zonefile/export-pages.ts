import { LRUCache } from 'lru-cache';
import type { Zone } from '../model';
import { soaNames } from '../records';
import { StoreError, type ZoneStore } from '../store';
import { formatZoneFilePartInSteps } from './format';

/** A zone's master file a page at a time: the page's text and where the next one starts (null: the file is whole). */
export interface ZoneFilePage {
  text: string;
  nextCursor: string | null;
}

/** A cursor that is not one this export gave out, or one of another zone. */
export class ZoneFileCursorError extends Error {
  constructor(message = 'cursor is not a cursor of this zone’s export (use nextCursor of the page before)') {
    super(message);
    this.name = 'ZoneFileCursorError';
  }
}

/** The zone changed after its export began: its pages would not show one version (its SOA serial would lie). */
export class ZoneChangedError extends Error {
  constructor(
    readonly zone: string,
    readonly serialThen: number,
    readonly serialNow: number | null,
  ) {
    super(
      serialNow === null
        ? `zone ${zone} was deleted while it was exported`
        : `zone ${zone} changed while it was exported (serial ${serialThen}, now ${serialNow}): export it again`,
    );
    this.name = 'ZoneChangedError';
  }
}

/** A zone version's owner names in the order a master file lists them, and how many records each holds. */
interface NameOrder {
  names: string[];
  counts: number[];
  /** Roughly the memory it takes (UTF-16 names, array slots). */
  bytes: number;
}

/** Where a page starts: after `position` names of the version (serial, updatedAt), the last of them `last`. */
interface Position {
  serial: number;
  updatedAt: string;
  position: number;
  last: string;
}

/** Reads of a first page made again when the zone changed while it was read (nothing of the file is out yet). */
const FIRST_PAGE_ATTEMPTS = 3;

/**
 * The key of a name in the order of {@link compareNames} (RFC 4034 §6.1 canonical order): its labels from the right,
 * joined by a character below any a label holds, so that plain string order is label-by-label order (sorting 100 000
 * names by keys takes a tenth of the time of comparing their labels each time).
 */
export function canonicalKey(name: string): string {
  return name === '' ? '' : name.split('.').reverse().join('\u0000');
}

const versionOf = (zone: Zone): string => `${zone.name}|${zone.serial}|${zone.updatedAt}`;
const sameVersion = (a: Zone, b: Zone | null): boolean =>
  b !== null && a.serial === b.serial && a.updatedAt === b.updatedAt;

function encodeCursor(zone: string, at: Position): string {
  return Buffer.from(JSON.stringify([zone, at.serial, at.updatedAt, at.position, at.last])).toString('base64url');
}

function decodeCursor(cursor: string, zone: string): Position {
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new ZoneFileCursorError();
  }
  if (!Array.isArray(parts) || parts.length !== 5) throw new ZoneFileCursorError();
  const [of, serial, updatedAt, position, last] = parts as unknown[];
  if (
    of !== zone ||
    !Number.isInteger(serial) ||
    typeof updatedAt !== 'string' ||
    !Number.isInteger(position) ||
    (position as number) < 1 ||
    typeof last !== 'string'
  )
    throw new ZoneFileCursorError();
  return { serial: serial as number, updatedAt, position: position as number, last };
}

/**
 * Master files written a page at a time, each page a few thousand records read from the store, so that a zone of any
 * size is exported with a page of records in memory (docs/dns-api.md#whole-zone-reads). The store lists records by
 * name in byte order while a master file is in DNS canonical order: the zone's owner names are read once per zone
 * version, sorted, and kept (shared by every export of that version, at most `maxBytes` of them across zones); each
 * page then reads the records of its names. A page read after the zone changed is refused (ZoneChangedError): the
 * file's SOA serial is the one its first page was read at, and every record in it is of that version.
 */
export class ZoneFilePages {
  private readonly orders: LRUCache<string, NameOrder>;
  /** Name orders being read, by version: exports of one version at once read it once. */
  private readonly reading = new Map<string, Promise<NameOrder | null>>();

  constructor(
    private readonly store: ZoneStore,
    options: { maxBytes?: number } = {},
  ) {
    this.orders = new LRUCache({ maxSize: options.maxBytes ?? 64 * 1024 * 1024, sizeCalculation: (o) => o.bytes });
  }

  /**
   * The page of the zone's master file after `cursor` (null: the first, with `$ORIGIN`, `$TTL` and the SOA): the
   * records of whole owner names, about `limit` of them (more when one name holds more). NOT_FOUND (StoreError) for no
   * zone, ZoneFileCursorError for a foreign cursor, ZoneChangedError once the zone changed after the first page, and
   * the RecordValueError or ZoneNameError of a record or SOA that cannot be written.
   */
  async page(name: string, cursor: string | null, limit: number, signal?: AbortSignal): Promise<ZoneFilePage> {
    const after = cursor === null ? undefined : decodeCursor(cursor, name);
    for (let attempt = 1; ; attempt++) {
      signal?.throwIfAborted();
      const zone = await this.store.getZone(name);
      if (!zone) {
        if (after) throw new ZoneChangedError(name, after.serial, null);
        throw new StoreError('NOT_FOUND', `no zone ${name}`);
      }
      if (after && (zone.serial !== after.serial || zone.updatedAt !== after.updatedAt))
        throw new ZoneChangedError(name, after.serial, zone.serial);
      const order = await this.orderOf(zone);
      const page = order && (await this.read(zone, order, after, limit, signal));
      if (page) return page;
      if (after || attempt >= FIRST_PAGE_ATTEMPTS) {
        const now = await this.store.getZone(name);
        throw new ZoneChangedError(name, zone.serial, now?.serial ?? null);
      }
    }
  }

  /** The page of `zone`'s version, or null when the zone changed while it was read. */
  private async read(
    zone: Zone,
    order: NameOrder,
    after: Position | undefined,
    limit: number,
    signal: AbortSignal | undefined,
  ): Promise<ZoneFilePage | null> {
    const from = after?.position ?? 0;
    if (after && (from > order.names.length || order.names[from - 1] !== after.last)) throw new ZoneFileCursorError();
    let to = from;
    for (let count = 0; to < order.names.length; to++) {
      const more = order.counts[to] ?? 0;
      if (to > from && count + more > limit) break;
      count += more;
    }
    const names = order.names.slice(from, to);
    const records = names.length ? await this.store.listRecords(zone.name, { names }) : [];
    if (!sameVersion(zone, await this.store.getZone(zone.name))) return null;
    // ZoneNameError for a zone stored before its names were checked: its SOA cannot be written.
    const head = after
      ? undefined
      : {
          soa: {
            mname: zone.primaryNs,
            rname: soaNames(zone.name, zone).rname,
            serial: zone.serial,
            refresh: zone.refresh,
            retry: zone.retry,
            expire: zone.expire,
            minimum: zone.minimum,
            ttl: zone.defaultTtl,
          },
        };
    // Written in steps: a page of 10 000 records is a quarter of a second of work.
    const text = await formatZoneFilePartInSteps(
      {
        origin: zone.name,
        ttl: zone.defaultTtl,
        records,
        ...(head ? { head } : {}),
        ...(after ? { previous: after.last } : {}),
      },
      signal,
    );
    const last = names[names.length - 1];
    const nextCursor =
      to < order.names.length && last !== undefined
        ? encodeCursor(zone.name, { serial: zone.serial, updatedAt: zone.updatedAt, position: to, last })
        : null;
    return { text, nextCursor };
  }

  /** The owner names of the zone's version in file order (null: the zone changed while they were read). */
  private async orderOf(zone: Zone): Promise<NameOrder | null> {
    const version = versionOf(zone);
    const known = this.orders.get(version);
    if (known) return known;
    let reading = this.reading.get(version);
    if (!reading) {
      reading = this.readOrder(zone).finally(() => this.reading.delete(version));
      this.reading.set(version, reading);
    }
    const order = await reading;
    if (order) this.orders.set(version, order);
    return order;
  }

  private async readOrder(zone: Zone): Promise<NameOrder | null> {
    const names: string[] = [];
    const counts: number[] = [];
    // listRecords order: a name's records are together
    await this.store.eachRecord(zone.name, (r) => {
      const n = names.length - 1;
      if (names[n] === r.name) counts[n] = (counts[n] ?? 0) + 1;
      else {
        names.push(r.name);
        counts.push(1);
      }
    });
    if (!sameVersion(zone, await this.store.getZone(zone.name))) return null;
    const keys = names.map(canonicalKey);
    const order = names
      .map((_, i) => i)
      .sort((a, b) => {
        const x = keys[a] ?? '';
        const y = keys[b] ?? '';
        return x < y ? -1 : x > y ? 1 : 0;
      });
    let bytes = 64;
    const sorted = order.map((i) => {
      const name = names[i] ?? '';
      bytes += 2 * name.length + 40;
      return name;
    });
    return { names: sorted, counts: order.map((i) => counts[i] ?? 0), bytes };
  }
}
