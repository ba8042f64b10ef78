import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeyVault } from '../../dns/dnssec';
import { openSqliteStore, type ZoneStore } from '../../dns/store';
import { ConfigError } from './config/load';
import { checkMasterKey, configuredMasterKey, openVault } from './master-key';

/** The master key from MASTER_KEY / MASTER_KEY_FILE, and the start-up refusal that names them. */
describe('master key at start', () => {
  let dir: string;
  let store: ZoneStore | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'host-master-key-'));
  });
  afterEach(async () => {
    await store?.close();
    store = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  test('MASTER_KEY_FILE is read; MASTER_KEY and the older DNSSEC_MASTER_KEY are taken; none: undefined', () => {
    const key = randomBytes(32);
    writeFileSync(join(dir, 'mk'), `${key.toString('base64')}\n`);
    expect(configuredMasterKey({ dataDir: dir, masterKeyFile: join(dir, 'mk') })).toEqual(key);
    expect(configuredMasterKey({ dataDir: dir, masterKey: key.toString('hex') })).toEqual(key);
    expect(configuredMasterKey({ dataDir: dir, dnssecMasterKey: key.toString('base64') })).toEqual(key);
    expect(configuredMasterKey({ dataDir: dir })).toBeUndefined();
  });

  test.each([
    ['missing', undefined, /^MASTER_KEY_FILE \(masterKeyFile\): \S+\/mk cannot be read: ENOENT/],
    ['empty', '', /^MASTER_KEY_FILE \(masterKeyFile\): \S+\/mk is empty/],
    ['short', randomBytes(24).toString('base64'), /^MASTER_KEY_FILE \(masterKeyFile\): \S+\/mk is 24 bytes of base64/],
    ['not a key', 'hunter2 hunter2', /^MASTER_KEY_FILE \(masterKeyFile\): \S+\/mk is neither base64 nor hex/],
  ])('MASTER_KEY_FILE %s: a ConfigError naming the setting and the file', (_, text, message) => {
    if (text !== undefined) writeFileSync(join(dir, 'mk'), text);
    const read = () => configuredMasterKey({ dataDir: dir, masterKeyFile: join(dir, 'mk') });
    expect(read).toThrow(ConfigError);
    expect(read).toThrow(message);
    if (text) expect(read).not.toThrow(text.slice(0, 6));
  });

  test('a master key that does not open the store: one line naming MASTER_KEY / MASTER_KEY_FILE and what to do', async () => {
    store = await openSqliteStore({ file: join(dir, 'zones.sqlite') });
    const first = randomBytes(32);
    await checkMasterKey(store, KeyVault.of(first), { dataDir: dir, masterKey: first.toString('base64') });
    await checkMasterKey(store, KeyVault.of(first), { dataDir: dir, masterKey: first.toString('base64') });
    const other = randomBytes(32).toString('base64');
    const refused = checkMasterKey(store, KeyVault.of(Buffer.from(other, 'base64')), {
      dataDir: dir,
      masterKey: other,
    });
    await expect(refused).rejects.toThrow(ConfigError);
    await expect(
      checkMasterKey(store, KeyVault.of(Buffer.from(other, 'base64')), { dataDir: dir, masterKey: other }),
    ).rejects.toThrow(
      /^MASTER_KEY \/ MASTER_KEY_FILE: the key in MASTER_KEY does not open the secret master-key-check the store holds \(sealed under another master key\): start every replica on this database with the same MASTER_KEY or MASTER_KEY_FILE as the first; nothing was served$/,
    );
    // without a configured key: the message says this replica made its own
    const own = openVault(join(dir, 'own'), undefined);
    await expect(checkMasterKey(store, own, { dataDir: join(dir, 'own') })).rejects.toThrow(
      /no MASTER_KEY was given, so this replica made its own in \S+own\/dnssec-master\.key, which does not open/,
    );
  });
});
