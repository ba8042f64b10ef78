import type { StoredRecord, Zone, ZoneSettings } from '../model';

/** A record row as both stores keep it. */
export type RecordRow = StoredRecord;

/** A zone row as both SQL dialects return it (PostgreSQL gives the bigint serial as a string). */
export interface ZoneRow {
  name: string;
  admin_email: string;
  primary_ns: string;
  refresh: number;
  retry: number;
  expire: number;
  minimum: number;
  default_ttl: number;
  serial: number | string;
  created_at: string;
  updated_at: string;
  records_count: number;
}

export function toZone(r: ZoneRow): Zone {
  return {
    name: r.name,
    adminEmail: r.admin_email,
    primaryNs: r.primary_ns,
    refresh: r.refresh,
    retry: r.retry,
    expire: r.expire,
    minimum: r.minimum,
    defaultTtl: r.default_ttl,
    serial: Number(r.serial),
    recordsCount: r.records_count,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** The settings part of a zone. */
export function pickSettings(zone: Zone): ZoneSettings {
  const { adminEmail, primaryNs, refresh, retry, expire, minimum, defaultTtl } = zone;
  return { adminEmail, primaryNs, refresh, retry, expire, minimum, defaultTtl };
}

/** `row` with the name and value as given, each only where it differs from the model form (else absent). */
export function withGiven<T extends RecordRow>(
  row: T,
  givenName: string | null | undefined,
  givenValue: string | null | undefined,
): T {
  // `delete` only where the property is there: most rows never have one, and stay plain fast objects
  if (givenName != null && givenName !== row.name) row.givenName = givenName;
  else if ('givenName' in row) delete row.givenName;
  if (givenValue != null && givenValue !== row.value) row.givenValue = givenValue;
  else if ('givenValue' in row) delete row.givenValue;
  return row;
}
