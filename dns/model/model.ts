/**
 * The DNS engine's data model, shared by the record codecs, the zone store and the server. Names are absolute,
 * lower case (a record may also carry its name and value in the case it was given: `givenName`, `givenValue`), in ASCII (internationalised names as punycode), WITHOUT the trailing dot ("www.example.com"); the
 * root is "". Record values are the RDATA in zone-file presentation form, normalised (names inside values fully
 * qualified WITH a trailing dot, e.g. MX "10 mail.example.com.").
 */

export const RECORD_TYPES = [
  'A',
  'AAAA',
  'CNAME',
  'DNAME',
  'MX',
  'NS',
  'PTR',
  'SRV',
  'TXT',
  'SPF',
  'CAA',
  'SSHFP',
  'TLSA',
  'DS',
  'NAPTR',
  'SOA',
] as const;
export type RecordType = (typeof RECORD_TYPES)[number];

/** Largest TTL we accept (RFC 2181 §8: 2^31 − 1). */
export const MAX_TTL = 2_147_483_647;

/** A resource record of class IN in presentation form. */
export interface RecordData {
  name: string;
  type: RecordType;
  ttl: number;
  value: string;
  /**
   * The owner name as its master file or UPDATE gave it, when that differs from `name` (only in letter case).
   * Answers and zone transfers use it, as BIND does; lookups, comparisons and the REST API use `name`.
   */
  givenName?: string;
  /** The value as given, when it differs from `value` (only in the letter case of names in it); see `givenName`. */
  givenValue?: string;
}

/** A record as the store keeps it: with its stable id. */
export interface StoredRecord extends RecordData {
  /** UUID, stable for the record's life (an update keeps it). */
  id: string;
  zone: string;
  /** ISO 8601 UTC with Z. */
  createdAt: string;
  updatedAt: string;
}

/** The zone settings that make up its SOA (besides the serial) and its default TTL. */
export interface ZoneSettings {
  /** Responsible mailbox as an e-mail address (`hostmaster@example.com`); SOA RNAME is derived from it. */
  adminEmail: string;
  /** SOA MNAME: the primary name server, absolute name without trailing dot. */
  primaryNs: string;
  refresh: number;
  retry: number;
  expire: number;
  minimum: number;
  defaultTtl: number;
}

export interface Zone extends ZoneSettings {
  name: string;
  /** SOA serial, YYYYMMDDnn, raised on every change. */
  serial: number;
  /** Records the API shows (SOA and DNSSEC records excluded). */
  recordsCount: number;
  createdAt: string;
  updatedAt: string;
}
