import { join } from 'node:path';
import {
  KeyVault,
  MASTER_KEY_FILE,
  MasterKeyError,
  MasterKeyMismatchError,
  parseMasterKey,
  readMasterKeyFile,
  verifyMasterKey,
} from '../../dns/dnssec';
import type { ZoneStore } from '../../dns/store';
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

/**
 * Refuses to start (one line naming the setting and what to do) when this master key cannot open what the store
 * holds — another replica's secrets: serving on would mean zones unsigned and tokens refused.
 */
export async function checkMasterKey(store: ZoneStore, vault: KeyVault, config: MasterKeySettings): Promise<void> {
  try {
    await verifyMasterKey(store, vault);
  } catch (err) {
    if (!(err instanceof MasterKeyMismatchError)) throw err;
    const source =
      config.masterKeyFile !== undefined
        ? `the key in MASTER_KEY_FILE ${config.masterKeyFile}`
        : config.masterKey !== undefined
          ? 'the key in MASTER_KEY'
          : config.dnssecMasterKey !== undefined
            ? 'the key in DNSSEC_MASTER_KEY'
            : `no MASTER_KEY was given, so this replica made its own in ${join(config.dataDir, MASTER_KEY_FILE)}, which`;
    throw new ConfigError(
      `MASTER_KEY / MASTER_KEY_FILE: ${source} does not open ${err.what} the store holds (sealed under another ` +
        'master key): start every replica on this database with the same MASTER_KEY or MASTER_KEY_FILE as the first; ' +
        'nothing was served',
    );
  }
}
