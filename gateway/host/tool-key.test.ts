import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeyVault } from '../../dns/dnssec';
import { openSqliteStore, type ZoneStore } from '../../dns/store';
import { readKeyFile } from '../../dns/tsig';
import { createLogger } from '../../platform/log';
import { sharedToolKey, TOOL_KEY_SECRET } from './tool-key';

/** The DNS tool's TSIG key, shared by the replicas of one store and written to each DATA_DIR for nsupdate -k. */
describe('sharedToolKey', () => {
  let root: string;
  let store: ZoneStore;
  const vault = KeyVault.of(randomBytes(32));
  const log = createLogger('silent');
  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), 'tool-key-'));
    store = await openSqliteStore({ file: join(root, 'zones.sqlite') });
  });
  afterEach(async () => {
    await store.close();
    rmSync(root, { recursive: true, force: true });
  });

  test('made once, the same for a second data directory, each file 0600 in BIND format', async () => {
    const a = await sharedToolKey(join(root, 'a'), { store, vault }, log);
    const b = await sharedToolKey(join(root, 'b'), { store, vault }, log);
    expect(a).toMatchObject({ name: 'dns-tool', algorithm: 'hmac-sha256' });
    expect(a.secret).toHaveLength(32);
    expect(b).toEqual(a);
    for (const dir of ['a', 'b']) {
      const file = join(root, dir, 'dns-tool.key');
      expect(readKeyFile(file)).toEqual([a]);
      expect(statSync(file).mode & 0o777).toBe(0o600);
    }
    expect(await store.getSealedSecret(TOOL_KEY_SECRET)).not.toContain(a.secret.toString('base64'));
  });

  test("an older start's key file becomes the shared key; a file without the key is an error naming it", async () => {
    const dir = join(root, 'a');
    const old = `key "dns-tool" {\n\talgorithm hmac-sha256;\n\tsecret "${randomBytes(32).toString('base64')}";\n};\n`;
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(join(dir, 'dns-tool.key'), old, { mode: 0o600 });
    expect(await sharedToolKey(dir, { store, vault }, log)).toEqual(readKeyFile(join(dir, 'dns-tool.key'))[0]);
    expect(readFileSync(join(dir, 'dns-tool.key'), 'utf8')).toBe(old);
    const other = join(root, 'b');
    mkdirSync(other, { mode: 0o700 });
    writeFileSync(join(other, 'dns-tool.key'), 'key "someone" { algorithm hmac-sha256; secret "AAAA"; };\n');
    await expect(sharedToolKey(other, { store, vault }, log)).rejects.toThrow(/dns-tool\.key: no key "dns-tool" in it/);
  });
});
