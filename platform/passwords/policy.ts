/**
 * The password policy: what a new password must be, wherever one is set (the DNS API's users, the DNS tool's users
 * file). Each refusal names the field and says in one sentence what is allowed.
 */
import { commonPasswordCount, isCommonPassword } from './common-passwords';

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 256;

/** The normalised password, or the problem with it. */
export type CheckedPassword = { ok: true; value: string } | { ok: false; problem: { field: string; message: string } };

const bad = (field: string, message: string): CheckedPassword => ({ ok: false, problem: { field, message } });

/** Length in characters (code points, so an emoji counts once). */
const charCount = (s: string): number => [...s].length;

/** Fewer different characters than this is a pattern, not a password (`aaaaaaaa`, `abababab`). */
export const PASSWORD_MIN_DISTINCT = 3;

/**
 * Passwords: 8 to 256 characters, not the username (compared case-insensitively), not only white space, at least
 * 3 different characters, and not on the list of common passwords (NIST SP 800-63B §5.1.1.2: compare against values
 * known to be commonly used or compromised). Unicode is normalised to NFC before hashing (RFC 8265's OpaqueString),
 * so the same password typed on different systems matches.
 */
export function checkPassword(value: unknown, username: string | undefined, field = 'password'): CheckedPassword {
  if (typeof value !== 'string') return bad(field, `${field} must be a string`);
  // Far too long to be allowed whatever its normalisation: refused before any work proportional to its size.
  if (value.length > 16 * PASSWORD_MAX) {
    return bad(field, `${field} must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters long (got ${value.length})`);
  }
  const normalised = value.normalize('NFC');
  const n = charCount(normalised);
  if (n < PASSWORD_MIN || n > PASSWORD_MAX) {
    return bad(field, `${field} must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters long (got ${n})`);
  }
  if (normalised.trim() === '') return bad(field, `${field} must not be only white space`);
  if (username !== undefined && normalised.trim().toLowerCase() === username.toLowerCase()) {
    return bad(field, `${field} must not be the username`);
  }
  if (new Set(normalised.toLowerCase()).size < PASSWORD_MIN_DISTINCT) {
    return bad(
      field,
      `${field} must have at least ${PASSWORD_MIN_DISTINCT} different characters (it is too easy to guess)`,
    );
  }
  if (isCommonPassword(normalised)) {
    return bad(
      field,
      `${field} is one of the ${commonPasswordCount().toLocaleString('en-US')} most common passwords, which attackers try first; choose another`,
    );
  }
  return { ok: true, value: normalised };
}
