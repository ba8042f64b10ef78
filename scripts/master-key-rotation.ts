import { join } from 'node:path';
import { KeyVault, MASTER_KEY_FILE, verifyMasterKey } from '../dns/dnssec';
import { openZoneStore } from '../dns/store';
import { writePrivateFile } from '../platform/files';
import { openUserStore, signingKeySealContext } from '../subgraphs/dns-api/identity';

export interface RotationTarget {
  dataDir: string;
  databaseUrl?: string | undefined;
  /** The master key in use now: configured, or the data directory's file (then the file gets the new key). */
  current: { key: Buffer; fromDataDir: boolean };
  next: Buffer;
}

export interface RotationResult {
  /** Sealed secrets and DNSSEC private keys of the zone store re-sealed. */
  zoneStore: number;
  /** DNS API token signing keys re-sealed. */
  signingKeys: number;
}

/**
 * Re-seals every secret the store holds under `next`: the zone store's sealed secrets and DNSSEC private keys in one
 * transaction, then the DNS API's signing keys one by one. A value `next` opens already is left as it is, so a run cut
 * short is completed by running it again. Every replica is stopped first, and started again with the new key: one
 * still on the old key would seal new keys under it (and a restart with it is refused by the start-up check).
 */
export async function rotateMasterKey(target: RotationTarget): Promise<RotationResult> {
  const old = KeyVault.of(target.current.key);
  const next = KeyVault.of(target.next);
  const reseal = (sealed: string, context: string | undefined, what: string): string => {
    try {
      next.open(sealed, context);
      return sealed; // done by an earlier run
    } catch {
      return next.seal(old.open(sealed, context, what), context);
    }
  };
  const options = { dataDir: target.dataDir, databaseUrl: target.databaseUrl };
  const store = await openZoneStore(options);
  let zoneStore: number;
  let signingKeys = 0;
  try {
    await verifyMasterKey(store, old).catch(async (err: unknown) => {
      await verifyMasterKey(store, next).catch(() => {
        throw err; // neither key opens the store: not this store's key
      });
    });
    zoneStore = await store.resealAll((sealed, kind) =>
      kind === 'dnssec-key' ? reseal(sealed, undefined, 'a DNSSEC private key') : reseal(sealed, kind, kind),
    );
    const users = await openUserStore(options);
    try {
      for (const key of await users.signingKeys()) {
        if (!KeyVault.isSealed(key.privateKey)) continue; // sealed by the next start, under the key it has
        const context = signingKeySealContext(key.kid);
        const sealed = reseal(key.privateKey, context, 'the DNS API token signing key');
        if (sealed !== key.privateKey && (await users.replaceSigningKeyPrivate(key.kid, key.privateKey, sealed)))
          signingKeys++;
      }
    } finally {
      await users.close();
    }
  } finally {
    await store.close();
  }
  if (target.current.fromDataDir)
    writePrivateFile(join(target.dataDir, MASTER_KEY_FILE), `${target.next.toString('base64')}\n`);
  return { zoneStore, signingKeys };
}
