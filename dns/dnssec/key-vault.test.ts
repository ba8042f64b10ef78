import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeyVault, MASTER_KEY_FILE } from './key-vault';

/** Private keys at rest: sealed under the master key, opened only by it; the master key file made once, 0600. */
describe('KeyVault', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vault-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test('seals and opens; the sealed text holds nothing of the plain key', () => {
    const vault = KeyVault.of(randomBytes(32));
    const plain = randomBytes(100);
    const sealed = vault.seal(plain);
    expect(sealed).toMatch(/^v1:/);
    expect(sealed).not.toContain(plain.toString('base64'));
    expect(vault.open(sealed)).toEqual(plain);
    expect(vault.seal(plain)).not.toBe(sealed); // a fresh IV each time
  });

  test('another master key, or a changed byte, does not open: an error, never a wrong key', () => {
    const sealed = KeyVault.of(randomBytes(32)).seal(Buffer.from('secret key'));
    expect(() => KeyVault.of(randomBytes(32)).open(sealed)).toThrow(/does not open with this master key/);
    const vault = KeyVault.of(randomBytes(32));
    const mine = vault.seal(Buffer.from('secret key'));
    const parts = mine.split(':');
    const body = Buffer.from(parts[3] ?? '', 'base64');
    body[0] = (body[0] ?? 0) ^ 1;
    expect(() => vault.open([parts[0], parts[1], parts[2], body.toString('base64')].join(':'))).toThrow(
      /does not open/,
    );
    expect(() => vault.open('not sealed')).toThrow(/a DNSSEC private key is not sealed/);
  });

  test('a key sealed for one context opens only for that context (a row copied to another key does not open)', () => {
    const vault = KeyVault.of(randomBytes(32));
    const sealed = vault.seal(Buffer.from('jwk'), 'signing-key:a');
    expect(vault.open(sealed, 'signing-key:a')).toEqual(Buffer.from('jwk'));
    expect(() => vault.open(sealed, 'signing-key:b', 'the signing key')).toThrow(
      /the signing key does not open with this master key/,
    );
    expect(() => vault.open(sealed)).toThrow(/does not open/);
    expect(KeyVault.isSealed(sealed)).toBe(true);
    expect(KeyVault.isSealed('{"kty":"OKP"}')).toBe(false);
  });

  test('a master key of the wrong size is refused', () => {
    expect(() => KeyVault.of(randomBytes(16))).toThrow(/must be 32 bytes, not 16/);
    expect(() => KeyVault.open({ dataDir: dir, key: randomBytes(8) })).toThrow(/32 bytes/);
  });

  test('without a configured key: one is made in the data directory (mode 0600) and used again', () => {
    const first = KeyVault.open({ dataDir: dir });
    const file = join(dir, MASTER_KEY_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const sealed = first.seal(Buffer.from('k'));
    expect(KeyVault.open({ dataDir: dir }).open(sealed)).toEqual(Buffer.from('k'));
    expect(readFileSync(file, 'utf8').trim()).toBe(first.secret.toString('base64'));
  });

  test('a master key file that is not a key: an error naming the file, showing none of its text', () => {
    writeFileSync(join(dir, MASTER_KEY_FILE), 'c2hvcnQ=\n');
    expect(() => KeyVault.open({ dataDir: dir })).toThrow(/dnssec-master\.key: the master key in it is 5 bytes/);
    expect(() => KeyVault.open({ dataDir: dir })).not.toThrow(/c2hvcnQ/);
  });

  test('a configured key wins over the file', () => {
    writeFileSync(join(dir, MASTER_KEY_FILE), randomBytes(32).toString('base64'));
    const configured = randomBytes(32);
    expect(KeyVault.open({ dataDir: dir, key: configured }).secret).toEqual(configured);
  });
});
