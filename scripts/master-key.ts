import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Command } from 'commander';
import { MASTER_KEY_FILE, MasterKeyError, parseMasterKey, readMasterKeyFile } from '../dns/dnssec';
import { ConfigError, loadConfig } from '../gateway/host/config/load';
import { configuredMasterKey } from '../gateway/host/master-key';
import { rotateMasterKey } from './master-key-rotation';

/** `npm run` starts commands in the project's folder: a relative path is meant from where npm was run. */
const fromCaller = (file: string): string => resolve(process.env.INIT_CWD ?? process.cwd(), file);

/** A refusal of this command: its message is the whole story (no stack). */
class RotationError extends Error {}

/** The new key: --new-key-file, else NEW_MASTER_KEY (never a flag holding the key: command lines are visible). */
function newKey(file: string | undefined): Buffer {
  try {
    if (file !== undefined) return readMasterKeyFile(fromCaller(file));
    const text = process.env.NEW_MASTER_KEY;
    if (text === undefined || text === '')
      throw new RotationError('give the new key: NEW_MASTER_KEY or --new-key-file');
    return parseMasterKey(text);
  } catch (err) {
    if (err instanceof MasterKeyError)
      throw new RotationError(`${file === undefined ? 'NEW_MASTER_KEY' : `--new-key-file ${file}`}: ${err.message}`);
    throw err;
  }
}

/**
 * `npm run master-key -- rotate`: re-seals every secret of the store (configured as the server is: DATA_DIR,
 * DATABASE_URL, CONFIG) from the master key in use (MASTER_KEY / MASTER_KEY_FILE, else DATA_DIR/dnssec-master.key)
 * to the new one. Stop every replica first; start them again with the new key.
 */
function program(): Command {
  const cli = new Command()
    .name('npm run master-key --')
    .description('Master key of the secrets sealed in the store (MASTER_KEY, MASTER_KEY_FILE).');
  cli
    .command('rotate')
    .description(
      'Re-seal every secret in the store (DNSSEC private keys, token signing keys, the shared secrets) under a new ' +
        'master key, given as NEW_MASTER_KEY or --new-key-file; the current one comes from the configuration as the ' +
        'server reads it. Stop every replica first, then start each with the new key. Running it again completes a ' +
        'run cut short.',
    )
    .option('--new-key-file <file>', 'a file holding the new key (32 bytes, base64 or hex)')
    .action(async (opts: { newKeyFile?: string }) => {
      const next = newKey(opts.newKeyFile);
      const config = loadConfig();
      const dataDir = fromCaller(config.dataDir);
      const configured = configuredMasterKey({ ...config, dataDir });
      const ownFile = join(dataDir, MASTER_KEY_FILE);
      if (!configured && !existsSync(ownFile))
        throw new RotationError(`no master key to rotate from: neither MASTER_KEY, MASTER_KEY_FILE nor ${ownFile}`);
      const current = configured ?? readMasterKeyFile(ownFile);
      if (current.equals(next)) throw new RotationError('the new master key is the one in use');
      const done = await rotateMasterKey({
        dataDir,
        databaseUrl: config.databaseUrl,
        current: { key: current, fromDataDir: !configured },
        next,
      });
      console.log(
        `re-sealed under the new master key: ${done.zoneStore} secrets and DNSSEC keys, ${done.signingKeys} token signing keys. ` +
          (configured
            ? 'Now start every replica with the new key as MASTER_KEY (or MASTER_KEY_FILE).'
            : `${ownFile} holds the new key.`),
      );
    });
  return cli;
}

program()
  .parseAsync(process.argv)
  .catch((err: unknown) => {
    const known = err instanceof RotationError || err instanceof ConfigError || err instanceof MasterKeyError;
    console.error(known ? `master-key: ${err.message}` : err);
    process.exit(1);
  });
