/**
 * Secrets the replicas of one database share (table `sealed_secrets`, migration 4): the store keeps text sealed by
 * the caller under the master key and never sees a secret in the clear. Both stores check input here alike.
 */
import { invalid, show } from './errors';

/** Longest sealed text kept: far above any secret we seal (a token, a TSIG key, a check value). */
export const MAX_SEALED_SECRET_LENGTH = 16_384;
const NAME = /^[a-z0-9][a-z0-9._:-]{0,99}$/;
/** What `KeyVault.seal` gives: printable ASCII without spaces. */
const SEALED = /^[\x21-\x7e]+$/;

/** A secret's name: lower-case letters, digits and `._:-`, 1 to 100 characters. */
export function checkSecretName(name: unknown): asserts name is string {
  if (typeof name !== 'string' || !NAME.test(name))
    throw invalid(
      `secret name must be 1 to 100 of a-z 0-9 . _ : - starting with a letter or digit (got ${show(name)})`,
    );
}

/** Sealed text: never shown in the message (sealed or not, it stays out of logs). */
export function checkSealed(sealed: unknown): asserts sealed is string {
  if (typeof sealed !== 'string' || sealed.length === 0 || sealed.length > MAX_SEALED_SECRET_LENGTH)
    throw invalid(`a sealed secret must be text of 1 to ${MAX_SEALED_SECRET_LENGTH} characters`);
  if (!SEALED.test(sealed)) throw invalid('a sealed secret must be printable ASCII without spaces');
}

/** A name that cannot be stored is not there either: lookups by it find nothing without asking the database. */
export const isSecretName = (name: unknown): name is string => typeof name === 'string' && NAME.test(name);
