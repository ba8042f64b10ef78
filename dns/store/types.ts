import type { RecordData, RecordType, StoredRecord, Zone, ZoneSettings } from '../model';

/** A record's place in the listing order (name, type, value, id): a page starts after it. */
export interface RecordPosition {
  name: string;
  type: RecordType;
  value: string;
  id: string;
}

/**
 * One change of a zone's records. All changes of one `ZoneStore.change` call are applied in one transaction:
 * all or none, and the SOA serial rises once.
 */
export type RecordChange =
  /** Adds a record; `id` may be given (e.g. to replay), else a UUID is made. */
  | { op: 'add'; record: RecordData; id?: string }
  /** Changes TTL and/or value of a record, keeping its id. */
  | { op: 'update'; id: string; ttl?: number; value?: string }
  | { op: 'delete'; id: string }
  /** Deletes every record at `name` (of `type`, with `value` when given); matching none is not an error (RFC 2136). */
  | { op: 'deleteMatching'; name: string; type?: RecordType; value?: string };

export interface ChangeResult {
  op: RecordChange['op'];
  /** Id of the record added, updated or deleted; for deleteMatching, the ids deleted. */
  ids: string[];
  /** The record after the change (add, update). */
  record?: StoredRecord;
}

export interface ChangeOutcome {
  zone: Zone;
  results: ChangeResult[];
}

export type StoreErrorCode =
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'INVALID'
  | 'SERIAL_MISMATCH'
  /** A write's condition (`ifRecord`, `ifVersion`, `ifKeys`) did not hold under its write lock. */
  | 'PRECONDITION_FAILED'
  | 'UNAVAILABLE';

/**
 * A zone as a writer saw it: the write goes ahead only if the zone still has this serial and update time when the
 * write holds the zone's lock (what an If-Match on the zone's ETag checks, atomically across processes).
 */
export interface ZoneVersion {
  serial: number;
  updatedAt: string;
}

/** A record as a writer saw it (what its ETag is made of): the write goes ahead only if it is still so. */
export interface RecordVersion {
  id: string;
  ttl: number;
  value: string;
  updatedAt: string;
}

/** Conditions of `change`, checked inside its transaction after the zone is locked. */
export interface ChangeOptions {
  /** SERIAL_MISMATCH unless the zone has this serial. */
  ifSerial?: number;
  /** PRECONDITION_FAILED unless the zone has this record unchanged (gone counts as changed). */
  ifRecord?: RecordVersion;
}

/** Conditions of `updateZone` and `deleteZone`, checked inside their transaction. */
export interface ZoneWriteOptions {
  /** PRECONDITION_FAILED unless the zone is still this version (gone counts as changed). */
  ifVersion?: ZoneVersion;
}

/** Conditions of `changeDnssecKeys`, checked inside its transaction after the zone is locked. */
export interface DnssecKeyChangeOptions {
  /** SERIAL_MISMATCH unless the zone has this serial (a scheduled re-sign of the copy a server has). */
  ifSerial?: number;
  /**
   * PRECONDITION_FAILED unless the zone's keys are exactly these ids, in any order: the change was planned from that
   * key set (`[]`: only when the zone has no keys — enabling DNSSEC).
   */
  ifKeys?: readonly string[];
  /** PRECONDITION_FAILED unless these keys still have these timings (null: unset), e.g. `{id, dsSeenAt: null}`. */
  ifTimings?: readonly DnssecKeyTimings[];
}

/** A refused store operation. Nothing was written. `index` names the failing change of a batch. */
export class StoreError extends Error {
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    readonly index?: number,
  ) {
    super(message);
    this.name = 'StoreError';
  }
}

export interface ZoneChangeEvent {
  zone: string;
  serial: number;
  /**
   * The serial the zone had before this change (absent: creation, deletion, or an event of an older process). A
   * mirror whose copy has another serial missed a change and must catch up (`changesSince`) instead of patching.
   */
  previous?: number;
  /** `dnssec-changed`: the zone's DNSSEC keys or their timings changed (or a re-sign was asked for). */
  kind: 'zone-created' | 'zone-updated' | 'zone-deleted' | 'records-changed' | 'dnssec-changed';
}

/**
 * What a committed change touched, beside its event (a second listener argument, so events stay as they were):
 * lets a listener that mirrors the zone read again only these names instead of the whole zone.
 */
export interface ZoneChangeDetail {
  /**
   * records-changed: the owner names at which records were added, removed or changed (each at most once). Absent
   * when unknown (e.g. relayed from another process with too many names for a NOTIFY payload): read everything.
   */
  readonly names?: readonly string[];
}

export type ZoneChangeListener = (event: ZoneChangeEvent, detail?: ZoneChangeDetail) => void;

/** Which version of which incarnation of a zone: what a mirror compares with the store. */
export interface ZoneMark {
  serial: number;
  createdAt: string;
}

/** One committed change as the store's change log keeps it (a row of `zone_changes`). */
export interface ZoneLogEntry {
  /** Rises with every change of the store (all zones). */
  position: number;
  zone: string;
  serial: number;
  /** The serial before the change; null for a creation. */
  previous: number | null;
  kind: ZoneChangeEvent['kind'];
  /** The owner names a records change touched; null when its extent is the zone row (settings, keys) or everything. */
  names: string[] | null;
  committedAt: string;
}

/** Filter of `listRecords`; given together, conditions must all hold. */
export interface RecordFilter {
  name?: string;
  /** Records at any of these names (one query for many names; an empty list matches nothing). */
  names?: readonly string[];
  type?: RecordType;
  /** At most this many records (1 to MAX_STORE_PAGE). */
  limit?: number;
  /** Only records after this one in the listing order (name, type, value, id): the next page of a keyset paging. */
  after?: RecordPosition;
}

export interface CreateZoneOptions {
  /** The SOA serial to start from (an imported master file's), instead of today's YYYYMMDD00. */
  serial?: number;
}

/**
 * A DNSSEC key of a zone as the store keeps it. Its state at any moment follows from its timestamps alone (RFC 7583
 * timing: published from `publishAt` until `deleteAt`, signing from `activateAt` until `inactiveAt`), so a rollover
 * advances with the clock and survives restarts without a state machine of its own. Timestamps: ISO 8601 UTC with Z.
 */
export interface DnssecKey {
  /** UUID. */
  id: string;
  zone: string;
  /** IANA algorithm number (8, 13, 14, 15). */
  algorithm: number;
  /** DNSKEY flags: 257 KSK, 256 ZSK. */
  flags: number;
  bits: number;
  /** The DNSKEY public key field, base64. */
  publicKey: string;
  /** The private key (PKCS#8), encrypted by the caller: the store never sees it in the clear. */
  privateKey: string;
  createdAt: string;
  publishAt: string;
  activateAt: string;
  /** Stops signing (a rollover's old key); null: signs until replaced. */
  inactiveAt: string | null;
  /** Leaves the DNSKEY RRset; null: stays. */
  deleteAt: string | null;
  /** End of the key's lifetime by policy (shown by the API). */
  expiresAt: string;
  /** CDS and CDNSKEY of this KSK are published at the apex from then (RFC 7344); null: never. */
  cdsAt: string | null;
  /** ... until then; null: as long as the key is published. */
  cdsUntil: string | null;
  /** When the parent's DS for this KSK was seen (a KSK rollover goes on from it); null: not seen (yet). */
  dsSeenAt: string | null;
}

/** Later timings of a key (a rollover retires the old one). */
export interface DnssecKeyTimings {
  id: string;
  inactiveAt?: string | null;
  deleteAt?: string | null;
  cdsAt?: string | null;
  cdsUntil?: string | null;
  dsSeenAt?: string | null;
}

/**
 * One change of a zone's DNSSEC keys, in one transaction: keys added, timings changed, keys removed (`all`: every
 * key of the zone — DNSSEC off). An empty change only raises the serial (asks every server to sign afresh).
 */
export interface DnssecKeyChange {
  add?: DnssecKey[];
  update?: DnssecKeyTimings[];
  remove?: string[] | 'all';
  /** How the zone denies existence from this change on (absent: as before). Removing every key resets it. */
  denial?: DnssecDenial;
}

/** How a signed zone denies existence: NSEC, or NSEC3 (RFC 9276 parameters) with or without Opt-Out. */
export interface DnssecDenial {
  denial: 'NSEC' | 'NSEC3';
  /** Only with NSEC3. */
  optOut: boolean;
}

/** The zone store: SQLite by default, PostgreSQL when DATABASE_URL is set. Both pass the same contract tests. */
/** A zone served as a secondary of another server (table `secondary_zones`): transferred from its primary. */
export interface SecondaryZoneRow {
  /** Model form (lower case, no trailing dot). */
  name: string;
  /** The primary's IP address and port. */
  primaryHost: string;
  primaryPort: number;
  /** Name of the TSIG key transfers are signed with (one of the configured keys); null: unsigned. */
  tsigKey: string | null;
  createdAt: string;
}

export interface ZoneStore {
  readonly kind: 'sqlite' | 'postgres';
  listZones(): Promise<Zone[]>;
  getZone(name: string): Promise<Zone | null>;
  /** Creates a zone with its initial records (e.g. NS, or an imported master file) in one transaction. */
  createZone(name: string, settings: ZoneSettings, records?: RecordData[], options?: CreateZoneOptions): Promise<Zone>;
  /** Changes zone settings; raises the serial. `ifVersion`: only if the zone is still that version. */
  updateZone(name: string, patch: Partial<ZoneSettings>, options?: ZoneWriteOptions): Promise<Zone>;
  /**
   * Deletes the zone and all its records; false if there was none (PRECONDITION_FAILED instead when `ifVersion` is
   * given: the zone read is gone).
   */
  deleteZone(name: string, options?: ZoneWriteOptions): Promise<boolean>;
  listRecords(zone: string, filter?: RecordFilter): Promise<StoredRecord[]>;
  /**
   * Every record of the zone in `listRecords` order, without ids and timestamps, handed to `visit` one at a time:
   * reads a large zone whole without holding all its rows at once. NOT_FOUND for an unknown zone.
   */
  eachRecord(zone: string, visit: (record: RecordData) => void): Promise<void>;
  getRecord(zone: string, id: string): Promise<StoredRecord | null>;
  /**
   * Applies changes atomically; `ifSerial` makes it conditional on the current serial (optimistic locking),
   * `ifRecord` on one record being as it was read.
   */
  change(zone: string, changes: RecordChange[], options?: ChangeOptions): Promise<ChangeOutcome>;
  /** The zone's DNSSEC keys, oldest first (none: the zone is not signed). NOT_FOUND for an unknown zone. */
  listDnssecKeys(zone: string): Promise<DnssecKey[]>;
  /**
   * Applies a change of the zone's DNSSEC keys atomically, raises the serial and emits `dnssec-changed`; returns
   * the zone after it. NOT_FOUND for an unknown zone or key id, CONFLICT for a key id that exists; `ifSerial` as
   * for `change`; `ifKeys`: only if the zone's keys are those (PRECONDITION_FAILED). Keys go with their zone when it
   * is deleted.
   */
  changeDnssecKeys(zone: string, change: DnssecKeyChange, options?: DnssecKeyChangeOptions): Promise<Zone>;
  /**
   * How the zone denies existence when signed, as the last `changeDnssecKeys` with a `denial` set it: NSEC unless
   * told otherwise (a zone without keys: NSEC). NOT_FOUND for an unknown zone.
   */
  getDnssecDenial(zone: string): Promise<DnssecDenial>;
  /** A shared secret's sealed text (migration 4, sealed by the caller under the master key); null when absent. */
  getSealedSecret(name: string): Promise<string | null>;
  /**
   * Keeps `sealed` under `name` unless the store holds one already, and returns what it holds now: of replicas
   * starting at once, the first writer wins and every other one gets its value. INVALID for a bad name or text.
   */
  putSealedSecretIfAbsent(name: string, sealed: string): Promise<string>;
  /**
   * Every zone's serial and creation time now (a zone deleted and created again may repeat a serial, not both):
   * one cheap read, for a mirror to check it serves what the store has.
   */
  zoneSerials(): Promise<Map<string, ZoneMark>>;
  /**
   * The changes that brought `zone` from `serial` to the serial it has now, oldest first (empty when it has that
   * serial); null when the log cannot tell (pruned, the zone was created again or never had that serial since).
   */
  changesSince(zone: string, serial: number): Promise<ZoneLogEntry[] | null>;
  /**
   * Rewrites every sealed text the store holds — each sealed secret and each DNSSEC private key — as `reseal` gives
   * it, in one transaction (all or none; a master key rotation). `reseal` gets the text and its kind: `secret:<name>`
   * or `dnssec-key`; it returns the new sealed text (the store never sees clear text). Returns how many were rewritten.
   */
  resealAll(reseal: (sealed: string, kind: string) => string): Promise<number>;
  /** The secondary zones, by name. */
  listSecondaryZones(): Promise<SecondaryZoneRow[]>;
  /** Adds a secondary zone; CONFLICT when the name is a secondary zone already, or a zone of the store. */
  addSecondaryZone(zone: Omit<SecondaryZoneRow, 'createdAt'>): Promise<SecondaryZoneRow>;
  /** Removes a secondary zone; false when there was none of that name. */
  removeSecondaryZone(name: string): Promise<boolean>;
  /**
   * Called after every committed change (by this process; PostgreSQL also relays other processes' changes), with
   * the names it touched when known.
   */
  onChange(listener: ZoneChangeListener): () => void;
  close(): Promise<void>;
}
