import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { securePrivateDir } from '../../platform/files';
import { join } from 'node:path';

/** The token the all-in-one process makes when no token is configured: `admin_<40 hex>` (no `_` in the secret: logs show the user as the part before the last `_`), kept in DATA_DIR. */
export const GENERATED_TOKEN_FILE = 'dns-tool-token';

/**
 * The generated API token: read from DATA_DIR, or made on first start (mode 0600). `created` says it is new, so
 * the caller shows it once; it is never logged.
 */
export function ensureGeneratedToken(dataDir: string): { token: string; created: boolean; file: string } {
  const file = join(dataDir, GENERATED_TOKEN_FILE);
  if (existsSync(file)) {
    const token = readFileSync(file, 'utf8').trim();
    if (token.length < 8) throw new Error(`${file}: not a token (delete the file to generate a new one)`);
    return { token, created: false, file };
  }
  const token = `admin_${randomBytes(20).toString('hex')}`;
  securePrivateDir(dataDir);
  writeFileSync(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
  return { token, created: true, file };
}
