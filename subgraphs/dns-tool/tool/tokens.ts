import { createHash, timingSafeEqual } from 'node:crypto';

/** Equal in constant time (digests first: lengths differ without telling how much). */
function sameSecret(a: string, b: string): boolean {
  const da = createHash('sha256').update(a, 'utf8').digest();
  const db = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(da, db) && a === b;
}

/** The configured token equal to `given` (exact, constant-time: the original compared loosely), or null. */
export function matchToken(tokens: readonly string[], given: string): string | null {
  let found: string | null = null;
  for (const token of tokens) if (sameSecret(token, given) && found === null) found = token;
  return found;
}

/**
 * The user a token stands for in logs and `is_logged`: `<USER>_<SECRET>` → `USER` (cut at the last `_`). A token
 * without a USER part is shown as `token`: the original showed it whole, but a secret never goes into a log.
 */
export function tokenUser(token: string): string {
  const cut = token.lastIndexOf('_');
  return cut > 0 ? token.slice(0, cut) : 'token';
}
