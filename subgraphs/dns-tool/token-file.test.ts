import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeyVault } from '../../dns/dnssec';
import { openSqliteStore, type ZoneStore } from '../../dns/store';
import { GENERATED_TOKEN_FILE, GENERATED_TOKEN_SECRET, sharedGeneratedToken } from './token-file';

/** The generated tool token, shared by the replicas of one store (sealed there) and written to each DATA_DIR. */
describe('sharedGeneratedToken', () => {
  let root: string;
  let store: ZoneStore;
  const vault = KeyVault.of(randomBytes(32));
  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), 'tool-token-'));
    store = await openSqliteStore({ file: join(root, 'zones.sqlite') });
  });
  afterEach(async () => {
    await store.close();
    rmSync(root, { recursive: true, force: true });
  });

  test('the first replica makes it (shown once); a second data directory gets the same token, not new', async () => {
    const a = await sharedGeneratedToken(join(root, 'a'), { store, vault });
    expect(a).toMatchObject({ created: true, replacedFile: false });
    expect(a.token).toMatch(/^admin_[0-9a-f]{40}$/);
    const b = await sharedGeneratedToken(join(root, 'b'), { store, vault });
    expect(b).toMatchObject({ token: a.token, created: false, replacedFile: false });
    for (const dir of ['a', 'b']) {
      const file = join(root, dir, GENERATED_TOKEN_FILE);
      expect(readFileSync(file, 'utf8')).toBe(`${a.token}\n`);
      expect(statSync(file).mode & 0o777).toBe(0o600);
    }
    expect(await store.getSealedSecret(GENERATED_TOKEN_SECRET)).not.toContain(a.token);
  });

  test("an older start's token file is kept as the shared token; another replica's older file is replaced", async () => {
    const dirA = join(root, 'a');
    const dirB = join(root, 'b');
    for (const [dir, token] of [
      [dirA, 'admin_olda'],
      [dirB, 'admin_oldb'],
    ] as const) {
      mkdirSync(dir, { mode: 0o700 });
      writeFileSync(join(dir, GENERATED_TOKEN_FILE), `${token}\n`, { mode: 0o600 });
    }
    const a = await sharedGeneratedToken(dirA, { store, vault });
    expect(a).toMatchObject({ token: 'admin_olda', created: false, replacedFile: false });
    const b = await sharedGeneratedToken(dirB, { store, vault });
    expect(b).toMatchObject({ token: 'admin_olda', created: false, replacedFile: true });
    expect(readFileSync(join(dirB, GENERATED_TOKEN_FILE), 'utf8')).toBe('admin_olda\n');
  });
});
