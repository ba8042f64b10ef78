/** The DNS model every engine module shares: record and zone types, domain names, serial arithmetic. Only re-exports. */
export {
  MAX_TTL,
  RECORD_TYPES,
  type RecordData,
  type RecordType,
  type StoredRecord,
  type Zone,
  type ZoneSettings,
} from './model';
export {
  isInZone,
  isWildcardName,
  MAX_NAME_LENGTH,
  NameError,
  type NameOptions,
  type NameSyntax,
  normalizeName,
  relativeName,
  splitLabels,
  toFqdn,
  wireName,
} from './names';
export { serialAdd, serialAtLeast, serialGreater, serialMax } from './serial';
