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

/** `<USER>_<SECRET>` cut at the last `_`; a token without a USER part is all secret. */
function splitToken(token: string): { user: string | undefined; secret: string } {
  const cut = token.lastIndexOf('_');
  return cut > 0 ? { user: token.slice(0, cut), secret: token.slice(cut + 1) } : { user: undefined, secret: token };
}

/**
 * The user a token stands for in logs and `is_logged`: `<USER>_<SECRET>` → `USER`. A token without a USER part is
 * shown as `token`: the original showed it whole, but a secret never goes into a log.
 */
export function tokenUser(token: string): string {
  return splitToken(token).user ?? 'token';
}

/** API tokens must be at least this hard to guess (NIST SP 800-63B's minimum for a look-up secret is 64 bits). */
export const MIN_TOKEN_BITS = 128;

/** A token's secret part: after the last `_` (the USER part before it is no secret: logs show it). */
export function tokenSecret(token: string): string {
  return splitToken(token).secret;
}

/**
 * About how many bits of guessing a token's secret part is worth: its length times the bits of the smallest
 * alphabet its characters come from (lower-case hex 4, digits 3.3, letters and digits 5.2–5.95, with other
 * printable characters 6.55); a secret of at most 4 different characters counts only those (`aaaa…` is no secret).
 */
export function tokenSecretBits(token: string): { bits: number; length: number; alphabet: string } {
  const secret = [...tokenSecret(token)];
  const classes: Array<[RegExp, number, string]> = [
    [/^[0-9]$/, 10, '0-9'],
    [/^[0-9a-f]$/, 16, '0-9a-f'],
    [/^[0-9A-F]$/, 16, '0-9A-F'],
    [/^[a-z]$/, 26, 'a-z'],
    [/^[0-9a-z]$/, 36, '0-9a-z'],
    [/^[A-Za-z]$/, 52, 'A-Za-z'],
    [/^[0-9A-Za-z]$/, 62, '0-9A-Za-z'],
    [/^[0-9A-Za-z_-]$/, 64, 'base64url'],
  ];
  const fit = classes.find(([re]) => secret.every((c) => re.test(c)));
  const [size, alphabet] = fit ? [fit[1], fit[2]] : [95, 'printable'];
  const distinct = new Set(secret).size;
  const used = distinct <= 4 ? Math.max(1, distinct) : size;
  return { bits: Math.floor(secret.length * Math.log2(used)), length: secret.length, alphabet };
}
