/** RFC 1035 master files: parse into an SOA and validated records, and write them back. */
export { parseZoneFile, parseZoneFileInSteps, type ParsedZone, type ParseZoneOptions, type ZoneSoa } from './parse';
export {
  formatZoneFile,
  formatZoneFileInSteps,
  formatZoneFilePart,
  formatZoneFilePartInSteps,
  compareRecords,
  compareNames,
  type ZoneFileInput,
  type ZoneFilePartInput,
} from './format';
export { ZoneFileError } from './lexer';
export { exportZoneFile, importZoneFile } from './zone-files';
export { canonicalKey, ZoneChangedError, ZoneFileCursorError, ZoneFilePages, type ZoneFilePage } from './export-pages';
