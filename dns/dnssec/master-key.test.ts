import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MasterKeyError, parseMasterKey, readMasterKeyFile } from './master-key';

/** MASTER_KEY's text: 32 bytes as base64 or hex; every other shape refused with a message that shows none of it. */
describe('parseMasterKey', () => {
  const key = randomBytes(32);

  test.each([
    ['base64', key.toString('base64')],
    ['base64 without padding', key.toString('base64').replace(/=+$/, '')],
    ['base64url', key.toString('base64url')],
    ['hex, lower case', key.toString('hex')],
    ['hex, upper case', key.toString('hex').toUpperCase()],
    ['with a trailing newline and spaces (a file)', `  ${key.toString('base64')}\n`],
  ])('%s: the 32 bytes', (_, text) => {
    expect(parseMasterKey(text)).toEqual(key);
  });

  const cases: [string, string, RegExp][] = [
    ['empty', '', /is empty/],
    ['blank', ' \n', /is empty/],
    ['16 bytes of base64', randomBytes(16).toString('base64'), /is 16 bytes of base64, not 32/],
    ['33 bytes of base64', randomBytes(33).toString('base64'), /is 33 bytes of base64, not 32/],
    ['62 hex digits', randomBytes(31).toString('hex'), /is 62 hex digits, not 64/],
    ['65 hex digits', `${key.toString('hex')}a`, /is 65 hex digits, not 64/],
    [
      'a character of neither',
      `${key.toString('base64').slice(0, 40)}!!!=`,
      /neither base64 nor hex \(44 characters\)/,
    ],
    ['padding inside', `${key.toString('base64').slice(0, 20)}=${key.toString('base64').slice(21)}`, /neither base64/],
    ['spaces inside', `${key.toString('hex').slice(0, 32)} ${key.toString('hex').slice(32)}`, /neither base64/],
    ['mixed alphabets', `${key.toString('base64').slice(0, 10)}+-${key.toString('base64').slice(12)}`, /neither/],
    ['a pass phrase', 'correct horse battery staple', /neither base64 nor hex/],
    ['a last character with bits left over', `${key.toString('base64').slice(0, 42)}9=`, /not canonical base64/],
  ];
  test.each(cases)('%s: refused, saying how a key is made, showing none of the text', (_, text, message) => {
    let caught: unknown;
    try {
      parseMasterKey(text);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(MasterKeyError);
    const shown = (caught as Error).message;
    expect(shown).toMatch(message);
    expect(shown).toMatch(/openssl rand -base64 32.*openssl rand -hex 32/);
    if (text.trim().length >= 8) expect(shown).not.toContain(text.trim().slice(0, 8));
  });
});

describe('readMasterKeyFile', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'master-key-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test('a file with the key on one line (as a mounted secret has it)', () => {
    const key = randomBytes(32);
    writeFileSync(join(dir, 'key'), `${key.toString('hex')}\n`);
    expect(readMasterKeyFile(join(dir, 'key'))).toEqual(key);
  });

  test('a missing file and a file that is not a key are MasterKeyErrors', () => {
    expect(() => readMasterKeyFile(join(dir, 'none'))).toThrow(/cannot be read: ENOENT/);
    writeFileSync(join(dir, 'short'), randomBytes(8).toString('base64'));
    expect(() => readMasterKeyFile(join(dir, 'short'))).toThrow(MasterKeyError);
  });
});
