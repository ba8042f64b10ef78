import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sharedSecret, type KeyVault } from '../../dns/dnssec';
import type { ZoneStore } from '../../dns/store';
import { securePrivateDir, writePrivateFile } from '../../platform/files';

/** The token the all-in-one process makes when no token is configured: `admin_<40 hex>` (no `_` in the secret: logs show the user as the part before the last `_`), kept in DATA_DIR. */
export const GENERATED_TOKEN_FILE = 'dns-tool-token';
/** Its name among the store's sealed secrets: one token for every replica of the store. */
export const GENERATED_TOKEN_SECRET = 'dns-tool-token';

export interface GeneratedToken {
  token: string;
  /** Made by this process: the caller shows it once (it is never logged). */
  created: boolean;
  file: string;
}

const newToken = (): string => `admin_${randomBytes(20).toString('hex')}`;

/** The token in `file`, or undefined when there is none. */
function readToken(file: string): string | undefined {
  if (!existsSync(file)) return undefined;
  const token = readFileSync(file, 'utf8').trim();
  if (token.length < 8) throw new Error(`${file}: not a token (delete the file to generate a new one)`);
  return token;
}

/** The generated API token: read from DATA_DIR, or made on first start (mode 0600). */
export function ensureGeneratedToken(dataDir: string): GeneratedToken {
  const file = join(dataDir, GENERATED_TOKEN_FILE);
  const token = readToken(file);
  if (token !== undefined) return { token, created: false, file };
  const made = newToken();
  securePrivateDir(dataDir);
  writeFileSync(file, `${made}\n`, { mode: 0o600, flag: 'wx' });
  return { token: made, created: true, file };
}

/**
 * The generated token every replica of `store` shares, sealed there under the master key: the store's when it holds
 * one, else this data directory's (an older start's) or a new one, kept unless another replica was first. The file in
 * DATA_DIR is written too (the README reads it), replaced when it held another token.
 */
export async function sharedGeneratedToken(
  dataDir: string,
  shared: { store: ZoneStore; vault: KeyVault },
): Promise<GeneratedToken & { replacedFile: boolean }> {
  const file = join(dataDir, GENERATED_TOKEN_FILE);
  const local = readToken(file);
  const held = await sharedSecret(shared.store, shared.vault, GENERATED_TOKEN_SECRET, () =>
    Buffer.from(local ?? newToken(), 'utf8'),
  );
  const token = held.value.toString('utf8');
  if (token !== local) writePrivateFile(file, `${token}\n`);
  // New to the user only when no file of theirs had it already.
  return {
    token,
    created: held.created && local === undefined,
    file,
    replacedFile: local !== undefined && token !== local,
  };
}
