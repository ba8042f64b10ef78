import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { securePrivateDir } from '../../platform/files';
import { MasterKeyError, parseMasterKey } from './master-key';

/**
 * Secrets at rest (DNSSEC keys, the DNS API's token signing key, the secrets replicas share): AES-256-GCM under one
 * master key that never enters the store. The master key comes from configuration (MASTER_KEY, MASTER_KEY_FILE) or
 * from a file in the data directory, made on first use with mode 0600. A key sealed under another master key (or altered, or moved to
 * another row: `context` binds it to what it belongs to) does not open: an error, never a wrong key.
 */
export class KeyVault {
  private constructor(private readonly master: Buffer) {}

  /** A vault from 32 bytes of key. */
  static of(master: Buffer): KeyVault {
    if (master.length !== 32) throw new Error(`the master key must be 32 bytes, not ${master.length}`);
    return new KeyVault(Buffer.from(master));
  }

  /**
   * A vault whose key is `key` (MASTER_KEY or MASTER_KEY_FILE, already checked) or else the file
   * `<dataDir>/dnssec-master.key`, made when missing: enough for one machine, not for replicas (each would make its own).
   */
  static open(options: { dataDir: string; key?: Buffer | undefined }): KeyVault {
    if (options.key) return KeyVault.of(options.key);
    const file = join(options.dataDir, MASTER_KEY_FILE);
    try {
      return KeyVault.of(parseMasterKey(readFileSync(file, 'utf8')));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw fileError(file, err);
    }
    const master = randomBytes(32);
    securePrivateDir(dirname(file));
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, `${master.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(temporary, 0o600);
    renameSync(temporary, file);
    // another process may have made one first: the file decides
    return KeyVault.of(parseMasterKey(readFileSync(file, 'utf8')));
  }

  /** The master key, for answer workers of this engine (they open the same keys). */
  get secret(): Buffer {
    return Buffer.from(this.master);
  }

  /** `context` (e.g. the key's id) is authenticated, not stored: `open` must be given the same. */
  seal(plain: Buffer, context?: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.master, iv);
    if (context !== undefined) cipher.setAAD(Buffer.from(context, 'utf8'));
    const sealed = Buffer.concat([cipher.update(plain), cipher.final()]);
    return [VERSION, iv.toString('base64'), cipher.getAuthTag().toString('base64'), sealed.toString('base64')].join(
      ':',
    );
  }

  open(text: string, context?: string, what = 'a DNSSEC private key'): Buffer {
    const [version, iv, tag, sealed] = text.split(':');
    if (version !== VERSION || iv === undefined || tag === undefined || sealed === undefined)
      throw new Error(`${what} is not sealed`);
    const decipher = createDecipheriv('aes-256-gcm', this.master, Buffer.from(iv, 'base64'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    if (context !== undefined) decipher.setAAD(Buffer.from(context, 'utf8'));
    try {
      return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64')), decipher.final()]);
    } catch {
      throw new Error(
        `${what} does not open with this master key (sealed under another: give every replica the same MASTER_KEY or MASTER_KEY_FILE)`,
      );
    }
  }

  /** Whether `text` has the form `seal` gives (says nothing about which master key sealed it). */
  static isSealed(text: string): boolean {
    return text.startsWith(`${VERSION}:`) && text.split(':').length === 4;
  }
}

/** The data directory's own master key when none is configured (the name predates other secrets sealed by it). */
export const MASTER_KEY_FILE = 'dnssec-master.key';

/** A master key file that is there but not a key: a message naming it (a MasterKeyError shows none of its text). */
function fileError(file: string, err: unknown): Error {
  return err instanceof MasterKeyError ? new Error(`${file}: the master key in it ${err.message}`) : (err as Error);
}
const VERSION = 'v1';
