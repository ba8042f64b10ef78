import type { ZoneChangeDetail, ZoneChangeEvent, ZoneStore } from '../../../dns/store';
import { PushStream, type Stream } from '../../async-streams';

/** One committed change of a zone, as the `zoneChanges` subscription delivers it. */
export interface ZoneChange {
  zone: string;
  serial: number;
  kind: ZoneChangeEvent['kind'];
  /** Who made it through the API (the user name); null for changes made otherwise (DNS UPDATE, another process). */
  by: string | null;
  /** When this process learned of it (ISO 8601 UTC). */
  at: string;
  /** Owner names whose records changed (records-changed), when known. */
  names: string[] | null;
}

/** Events a subscriber may fall behind by before it loses the oldest. */
const MAX_QUEUED = 256;
/** Authors remembered for changes not announced yet (an announcement comes within milliseconds of the commit). */
const MAX_PENDING_AUTHORS = 10_000;

/**
 * Every committed change of any zone, from the store's change events (this process's writes, and on PostgreSQL
 * every process's), fanned out to subscribers that watch all zones or some. The API names who made a change by
 * `attribute`-ing it before (or as) it commits; changes arriving without a name were made some other way.
 */
export class ChangeFeed {
  private readonly subscribers = new Set<{ zones: ReadonlySet<string> | null; stream: PushStream<ZoneChange> }>();
  private readonly authors = new Map<string, string>();
  private readonly unsubscribe: () => void;

  constructor(
    store: ZoneStore,
    private readonly now: () => Date = () => new Date(),
  ) {
    // The store announces a change inside the call that commits it, before that call returns the new serial to
    // the API, which then names the author: publishing on the next turn of the event loop lets the name land first.
    this.unsubscribe = store.onChange((event, detail) => {
      setImmediate(() => this.publish(event, detail));
    });
  }

  /** Names the author of the change of `zone` that commits with `serial` (a deletion: the zone's last serial). */
  attribute(zone: string, serial: number, by: string, kind: ZoneChangeEvent['kind'] | '' = ''): void {
    if (this.authors.size >= MAX_PENDING_AUTHORS) {
      const oldest = this.authors.keys().next();
      if (!oldest.done) this.authors.delete(oldest.value);
    }
    this.authors.set(this.authorKey(zone, serial, kind), by);
  }

  /** Changes of the given zones (null: all), from now on. */
  subscribe(zones: readonly string[] | null): Stream<ZoneChange> {
    const entry = {
      zones: zones ? new Set(zones) : null,
      stream: new PushStream<ZoneChange>(() => this.subscribers.delete(entry), MAX_QUEUED),
    };
    this.subscribers.add(entry);
    return entry.stream;
  }

  get size(): number {
    return this.subscribers.size;
  }

  close(): void {
    this.unsubscribe();
    for (const { stream } of this.subscribers) stream.end();
    this.subscribers.clear();
  }

  private authorKey(zone: string, serial: number, kind: string): string {
    return `${zone}|${kind === 'zone-deleted' ? 'deleted' : serial}`;
  }

  private publish(event: ZoneChangeEvent, detail?: ZoneChangeDetail): void {
    const key = this.authorKey(event.zone, event.serial, event.kind);
    const by = this.authors.get(key) ?? null;
    this.authors.delete(key);
    if (this.subscribers.size === 0) return;
    const change: ZoneChange = {
      zone: event.zone,
      serial: event.serial,
      kind: event.kind,
      by,
      at: this.now().toISOString(),
      names: detail?.names ? [...detail.names] : null,
    };
    for (const { zones, stream } of this.subscribers) if (!zones || zones.has(event.zone)) stream.push(change);
  }
}
