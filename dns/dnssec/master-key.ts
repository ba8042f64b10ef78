import { readFileSync } from 'node:fs';

/**
 * The master key as configuration gives it (MASTER_KEY, or the contents of MASTER_KEY_FILE): 32 bytes as base64
 * (standard or URL-safe, padding optional: `openssl rand -base64 32`) or as 64 hex digits (`openssl rand -hex 32`).
 * Messages say what is wrong with the text's shape and never show any of it: it is a secret.
 */
export function parseMasterKey(text: string): Buffer {
  const t = text.trim();
  if (t.length === 0) throw new MasterKeyError('is empty');
  if (/^[0-9a-fA-F]+$/.test(t)) {
    if (t.length !== 64) throw new MasterKeyError(`is ${t.length} hex digits, not 64 (32 bytes)`);
    return Buffer.from(t, 'hex');
  }
  const base64 = /^[A-Za-z0-9+/]+={0,2}$/.test(t) || /^[A-Za-z0-9_-]+={0,2}$/.test(t);
  if (!base64 || /=[^=]/.test(t) || t.replace(/=+$/, '').length % 4 === 1)
    throw new MasterKeyError(`is neither base64 nor hex (${t.length} characters)`);
  const key = Buffer.from(t, t.includes('-') || t.includes('_') ? 'base64url' : 'base64');
  if (key.length !== 32) throw new MasterKeyError(`is ${key.length} bytes of base64, not 32`);
  // Buffer's decoder skips what it cannot read: only a text that encodes back the same is the key it seems to be.
  const again = key.toString(t.includes('-') || t.includes('_') ? 'base64url' : 'base64').replace(/=+$/, '');
  if (again !== t.replace(/=+$/, '')) throw new MasterKeyError('is not canonical base64 (its last character is off)');
  return key;
}

/** The key in `file` (one line, as `parseMasterKey` takes it); unreadable or malformed: a MasterKeyError. */
export function readMasterKeyFile(file: string): Buffer {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new MasterKeyError(`cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  return parseMasterKey(text);
}

/** What is wrong with a master key's text; the caller names the setting (MASTER_KEY, MASTER_KEY_FILE). */
export class MasterKeyError extends Error {
  constructor(problem: string) {
    super(
      `${problem}; a master key is 32 random bytes as base64 (openssl rand -base64 32) or hex (openssl rand -hex 32)`,
    );
    this.name = 'MasterKeyError';
  }
}
