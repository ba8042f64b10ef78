/**
 * Passwords nobody should use: the common-passwords list of zxcvbn-ts (`@zxcvbn-ts/language-common`, MIT, about
 * 49 000 passwords seen most often in breaches, maintained with the zxcvbn-ts strength estimator), compared without
 * regard to case. Loaded on first use: a process that never sets a password never holds it.
 */
import { dictionary } from '@zxcvbn-ts/language-common';

let common: ReadonlySet<string> | undefined;

function list(): ReadonlySet<string> {
  common ??= new Set(dictionary['passwords-common'].map((p) => p.toLowerCase()));
  return common;
}

/** Whether `password` (trimmed, any case) is on the list. */
export function isCommonPassword(password: string): boolean {
  return list().has(password.trim().toLowerCase());
}

/** How many passwords the list holds (the error says so). */
export function commonPasswordCount(): number {
  return list().size;
}
