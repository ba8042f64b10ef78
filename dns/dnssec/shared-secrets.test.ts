import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore, type ZoneStore } from '../store';
import { dnssecKey, SETTINGS } from '../store/store.contract';
import { KeyVault } from './key-vault';
import { MASTER_KEY_CHECK, MasterKeyMismatchError, sharedSecret, verifyMasterKey } from './shared-secrets';

/** Secrets shared through the store, and the start-up check that this master key opens what the store holds. */
describe('shared secrets', () => {
  let dir: string;
  const stores: ZoneStore[] = [];
  const open = async (): Promise<ZoneStore> => {
    const store = await openSqliteStore({ file: join(dir, 'zones.sqlite') });
    stores.push(store);
    return store;
  };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'shared-secrets-'));
  });
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the first replica makes the secret; another one with the same master key gets the same value', async () => {
    const key = randomBytes(32);
    const [a, b] = [await open(), await open()];
    const first = await sharedSecret(a, KeyVault.of(key), 'tool-token', () => Buffer.from('one'));
    const second = await sharedSecret(b, KeyVault.of(key), 'tool-token', () => Buffer.from('two'));
    expect(first).toEqual({ value: Buffer.from('one'), created: true });
    expect(second).toEqual({ value: Buffer.from('one'), created: false });
    // sealed at rest: the store holds no clear text
    expect(await a.getSealedSecret('tool-token')).not.toContain(Buffer.from('one').toString('base64'));
  });

  test('another master key: MasterKeyMismatchError naming the secret, never a wrong value', async () => {
    const store = await open();
    await sharedSecret(store, KeyVault.of(randomBytes(32)), 'tool-token', () => Buffer.from('one'));
    await expect(
      sharedSecret(store, KeyVault.of(randomBytes(32)), 'tool-token', () => Buffer.from('x')),
    ).rejects.toThrow(new MasterKeyMismatchError('the secret tool-token'));
  });

  test('a sealed value moved to another name does not open', async () => {
    const store = await open();
    const vault = KeyVault.of(randomBytes(32));
    await sharedSecret(store, vault, 'a', () => Buffer.from('one'));
    await store.putSealedSecretIfAbsent('b', (await store.getSealedSecret('a')) ?? '');
    await expect(sharedSecret(store, vault, 'b', () => Buffer.from('x'))).rejects.toThrow(MasterKeyMismatchError);
  });

  test('verifyMasterKey: the first key is kept as a check value; the same key passes, another is refused', async () => {
    const key = randomBytes(32);
    const store = await open();
    await verifyMasterKey(store, KeyVault.of(key));
    expect(await store.getSealedSecret(MASTER_KEY_CHECK)).toMatch(/^v1:/);
    await verifyMasterKey(await open(), KeyVault.of(key));
    await expect(verifyMasterKey(await open(), KeyVault.of(randomBytes(32)))).rejects.toThrow(
      /does not open the secret master-key-check/,
    );
  });

  test('a store from before the check value: its DNSSEC keys decide, and a key that opens none writes no check', async () => {
    const old = KeyVault.of(randomBytes(32));
    const store = await open();
    await store.createZone('signed.test', SETTINGS);
    await store.createZone('plain.test', SETTINGS);
    await store.changeDnssecKeys('signed.test', {
      add: [dnssecKey('signed.test', { privateKey: old.seal(Buffer.from('pkcs8')) })],
    });
    await expect(verifyMasterKey(store, KeyVault.of(randomBytes(32)))).rejects.toThrow(
      'the master key does not open the DNSSEC private keys of zone signed.test the store holds',
    );
    expect(await store.getSealedSecret(MASTER_KEY_CHECK)).toBeNull();
    await verifyMasterKey(store, old);
    expect(await store.getSealedSecret(MASTER_KEY_CHECK)).not.toBeNull();
  });
});
