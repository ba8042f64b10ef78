import { KeyVault, MasterKeyError, parseMasterKey, readMasterKeyFile } from '../../dns/dnssec';
import { ConfigError } from './config/load';
import type { Config } from './config/schema';

type MasterKeySettings = Pick<Config, 'dataDir' | 'masterKey' | 'masterKeyFile' | 'dnssecMasterKey'>;

/** The configured master key (MASTER_KEY_FILE read now), or undefined: the data directory's own. */
export function configuredMasterKey(config: MasterKeySettings): Buffer | undefined {
  if (config.masterKeyFile !== undefined) {
    try {
      return readMasterKeyFile(config.masterKeyFile);
    } catch (err) {
      if (!(err instanceof MasterKeyError)) throw err;
      throw new ConfigError(`MASTER_KEY_FILE (masterKeyFile): ${config.masterKeyFile} ${err.message}`);
    }
  }
  const text = config.masterKey ?? config.dnssecMasterKey;
  return text === undefined ? undefined : parseMasterKey(text); // checked by the schema already
}

/** The vault of this process: `key` (configured), else DATA_DIR/dnssec-master.key (made when missing). */
export function openVault(dataDir: string, key: Buffer | undefined): KeyVault {
  try {
    return KeyVault.open({ dataDir, key });
  } catch (err) {
    throw new ConfigError(`DATA_DIR: ${(err as Error).message}`);
  }
}
