/** The sizes the zone store accepts, the same in both dialects. */

/** Most changes one `change()` call may hold. */
export const MAX_CHANGES_PER_CALL = 10_000;
/** Most records `createZone` accepts at once (an imported master file). */
export const MAX_RECORDS_PER_CREATE = 1_000_000;
/** Longest record value (presentation text) the store keeps. */
export const MAX_VALUE_LENGTH = 65_535;
/** Longest record id the store accepts when one is given (UUIDs are 36). */
export const MAX_ID_LENGTH = 255;
/** Longest name (RFC 1035: 253 characters in presentation form without the trailing dot). */
export const MAX_NAME_LENGTH = 253;
/** Longest text setting (admin e-mail, primary NS). */
export const MAX_SETTING_TEXT_LENGTH = 320;

/**
 * Most records one RRset (name and type) may hold after a write, by default: BIND 9's `max-records-per-type` default
 * (100 since 9.18.28; `named -C` shows it). An RRset far beyond it cannot be served whole (over 65 535 bytes) and
 * makes every answer from it expensive. 0 = no limit.
 */
export const DEFAULT_MAX_RECORDS_PER_RRSET = 100;

/** Limits a store applies to every write (createZone and change alike). */
export interface StoreLimits {
  /** Most records at one name of one type after a write that adds to that RRset; 0 = no limit. */
  maxRecordsPerRrset: number;
}

export const DEFAULT_STORE_LIMITS: StoreLimits = { maxRecordsPerRrset: DEFAULT_MAX_RECORDS_PER_RRSET };

/** Most DNSSEC keys one `changeDnssecKeys` call may add (a rollover adds one or two). */
export const MAX_DNSSEC_KEYS_PER_CALL = 16;
/** Longest DNSSEC public key (base64) or private key (encrypted PKCS#8, as the caller encodes it). */
export const MAX_DNSSEC_KEY_TEXT_LENGTH = 8192;
/** Largest key size in bits: the INTEGER column's range (PostgreSQL `integer`). */
export const MAX_DNSSEC_KEY_BITS = 2_147_483_647;
