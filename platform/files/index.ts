/**
 * Private files: the data directory 0700 and every secret or database file in it 0600; where a native addon was built.
 * Only re-exports.
 */
export {
  ensurePrivateDatabaseFile,
  ensurePrivateFile,
  securePrivateDir,
  tightenIfPresent,
  type Tightened,
  writePrivateFile,
} from './private-files';
export { nativeAddonFile } from './native-addon';
