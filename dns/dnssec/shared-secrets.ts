/**
 * Secrets the replicas of one store share, sealed under the master key (the store's `sealed_secrets`), and the
 * start-up check that a replica's master key opens what the store holds: a replica with another key must not start
 * (it could open no DNSSEC key and would serve zones unsigned), so it is refused before it serves anything.
 */
import { StoreError, type ZoneStore } from '../store';
import type { KeyVault } from './key-vault';

/** The check value's name: sealed by the first replica's master key; every other one must open it. */
export const MASTER_KEY_CHECK = 'master-key-check';
const CHECK_PLAIN = Buffer.from('onegraph master key check v1', 'utf8');

/** A secret's additional data: a sealed value copied under another name does not open. */
const contextOf = (name: string): string => `secret:${name}`;

/** The master key does not open what the store holds; `what` says what did not open. */
export class MasterKeyMismatchError extends Error {
  constructor(readonly what: string) {
    super(`the master key does not open ${what} the store holds`);
    this.name = 'MasterKeyMismatchError';
  }
}

/**
 * The secret `name`: what the store holds, opened; else `candidate()` sealed and kept, unless another replica kept
 * one first (then its value). `created`: the store took ours. A value this master key cannot open: MasterKeyMismatchError.
 */
export async function sharedSecret(
  store: ZoneStore,
  vault: KeyVault,
  name: string,
  candidate: () => Buffer,
): Promise<{ value: Buffer; created: boolean }> {
  const held = await store.getSealedSecret(name);
  if (held !== null) return { value: openSecret(vault, name, held), created: false };
  const mine = vault.seal(candidate(), contextOf(name));
  const kept = await store.putSealedSecretIfAbsent(name, mine);
  return { value: openSecret(vault, name, kept), created: kept === mine };
}

function openSecret(vault: KeyVault, name: string, sealed: string): Buffer {
  try {
    return vault.open(sealed, contextOf(name), `secret ${name}`);
  } catch {
    throw new MasterKeyMismatchError(`the secret ${name}`);
  }
}

/**
 * Checks that `vault` opens what the store holds: its check value, or — on a store that has none yet (first start,
 * or one from before the check) — one private key of every signed zone, before the check value is kept under this key.
 */
export async function verifyMasterKey(store: ZoneStore, vault: KeyVault): Promise<void> {
  const held = await store.getSealedSecret(MASTER_KEY_CHECK);
  if (held === null) await verifyDnssecKeys(store, vault);
  const { value } = await sharedSecret(store, vault, MASTER_KEY_CHECK, () => CHECK_PLAIN);
  if (!value.equals(CHECK_PLAIN)) throw new MasterKeyMismatchError('the check value');
}

async function verifyDnssecKeys(store: ZoneStore, vault: KeyVault): Promise<void> {
  for (const zone of await store.listZones()) {
    const keys = await store.listDnssecKeys(zone.name).catch((err: unknown) => {
      if (err instanceof StoreError && err.code === 'NOT_FOUND') return []; // deleted meanwhile
      throw err;
    });
    const [key] = keys;
    if (!key) continue;
    try {
      vault.open(key.privateKey);
    } catch {
      throw new MasterKeyMismatchError(`the DNSSEC private keys of zone ${zone.name || '.'}`);
    }
  }
}
