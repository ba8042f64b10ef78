import { mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync, lstatSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseUsersFile, UsersFileError } from './users-file';
import {
  addUser,
  parseRoles,
  readUsersFile,
  removeUser,
  setPassword,
  writeUsersFileAtomically,
  type HashMaker,
} from './users-file-edit';

const H1 = 'scrypt$1024$8$1$c2FsdHNhbHQ=$a2V5a2V5a2V5a2V5a2V5a2V5';
const H2 = 'scrypt$1024$8$1$b3RoZXJzYWx0$b3RoZXJrZXlvdGhlcmtleQ==';
const hash =
  (h: string): HashMaker =>
  () =>
    Promise.resolve(h);
/** A hash maker that fails the test when called: the edit must refuse before asking for a password. */
const never: HashMaker = () => Promise.reject(new Error('asked for a password although the edit is refused'));

const FILE = `# DNS tool users\nalice:${H1}:1:editors\n\nbob:${H1}:0\n`;

describe('add', () => {
  test('appends a line the login reads, comments and blank lines kept', async () => {
    const text = await addUser(FILE, 'carol', { roles: ['editors', 'readers'], enabled: true }, hash(H2));
    expect(text).toBe(`${FILE}carol:${H2}:1:editors,readers\n`);
    expect(parseUsersFile(text).get('carol')).toEqual({ hash: H2, enabled: true, roles: ['editors', 'readers'] });
  });

  test('disabled and without roles; to an empty file', async () => {
    const text = await addUser('', 'dave', { roles: [], enabled: false }, hash(H2));
    expect(text).toBe(`dave:${H2}:0:\n`);
    expect(parseUsersFile(text).get('dave')).toEqual({ hash: H2, enabled: false, roles: [] });
  });

  test('a file without a final line break', async () => {
    expect(await addUser(`alice:${H1}`, 'carol', { roles: [], enabled: true }, hash(H2))).toBe(
      `alice:${H1}\ncarol:${H2}:1:\n`,
    );
  });

  test.each([
    ['a user already there', 'alice', [], /user alice is already in users file \(passwd changes a password\)/],
    ['a bad user name', 'al:ice', [], /bad user name "al:ice": 1 to 128 of/],
    ['an empty user name', '', [], /bad user name "": 1 to 128 of/],
    ['a user name over 128 characters', 'a'.repeat(129), [], /bad user name/],
    ['a bad role name', 'carol', ['ok', 'no way'], /bad role name "no way": 1 to 100 of/],
    ['a role with a colon', 'carol', ['a:b'], /bad role name "a:b"/],
  ])('refuses %s before asking for a password', async (_what, user, roles, message) => {
    const edit = addUser(FILE, user, { roles, enabled: true }, never);
    await expect(edit).rejects.toThrow(UsersFileError);
    await expect(addUser(FILE, user, { roles, enabled: true }, never)).rejects.toThrow(message);
  });

  test('refuses to build on a file that does not parse, naming its line', async () => {
    await expect(
      addUser('alice:plain-password\n', 'carol', { roles: [], enabled: true }, never, 'u.txt'),
    ).rejects.toThrow(/u\.txt line 1: the password must be an scrypt hash/);
  });

  test('a hash that is not an scrypt hash never reaches the file', async () => {
    await expect(addUser('', 'carol', { roles: [], enabled: true }, hash('plain'))).rejects.toThrow(
      /must be an scrypt hash/,
    );
  });
});

describe('passwd', () => {
  test('replaces the hash only; enabled flag, roles and the other lines stay', async () => {
    const text = await setPassword(FILE, 'bob', hash(H2));
    expect(text).toBe(`# DNS tool users\nalice:${H1}:1:editors\n\nbob:${H2}:0\n`);
  });

  test.each([
    ['an unknown user', 'carol', /user carol is not in users file/],
    ['a commented-out user', '#', /bad user name/],
    ['a bad user name', 'a b', /bad user name "a b"/],
  ])('refuses %s before asking for a password', async (_what, user, message) => {
    await expect(setPassword(FILE, user, never)).rejects.toThrow(message);
  });
});

describe('remove', () => {
  test('deletes the line, the rest kept', () => {
    expect(removeUser(FILE, 'alice')).toBe(`# DNS tool users\n\nbob:${H1}:0\n`);
  });

  test('the last user: an empty file', () => {
    expect(removeUser(`alice:${H1}\n`, 'alice')).toBe('');
  });

  test('refuses an unknown user and a bad name', () => {
    expect(() => removeUser(FILE, 'carol')).toThrow(/user carol is not in users file/);
    expect(() => removeUser(FILE, 'x y')).toThrow(/bad user name "x y"/);
  });

  test('a user only in a comment is not there', () => {
    expect(() => removeUser(`# carol:${H1}\n`, 'carol')).toThrow(/user carol is not in/);
  });
});

test('parseRoles splits, trims and checks', () => {
  expect(parseRoles('')).toEqual([]);
  expect(parseRoles('a, b.c ,d_e-f')).toEqual(['a', 'b.c', 'd_e-f']);
  expect(() => parseRoles('a,,b')).toThrow(/bad role name "": 1 to 100 of/);
  expect(() => parseRoles('a,b c')).toThrow(/bad role name "b c"/);
});

describe('files', () => {
  const dir = (): string => mkdtempSync(join(tmpdir(), 'users-edit-'));

  test('written whole with mode 0600, no temporary file left', () => {
    const d = dir();
    const path = join(d, 'users');
    writeFileSync(path, FILE, { mode: 0o644 });
    writeUsersFileAtomically(path, `carol:${H2}:1:\n`);
    expect(readFileSync(path, 'utf8')).toBe(`carol:${H2}:1:\n`);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(d)).toEqual(['users']);
  });

  test('text that does not parse is never written', () => {
    const path = join(dir(), 'users');
    writeFileSync(path, FILE);
    expect(() => writeUsersFileAtomically(path, 'alice:password\n')).toThrow(UsersFileError);
    expect(readFileSync(path, 'utf8')).toBe(FILE);
  });

  test('a symlinked users file keeps its link; the file it points to is replaced', () => {
    const d = dir();
    writeFileSync(join(d, 'real'), FILE);
    symlinkSync(join(d, 'real'), join(d, 'link'));
    writeUsersFileAtomically(join(d, 'link'), `carol:${H2}:1:\n`);
    expect(lstatSync(join(d, 'link')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(d, 'real'), 'utf8')).toBe(`carol:${H2}:1:\n`);
  });

  test('reading: a missing file is empty only where asked (add), else an error naming it', () => {
    const path = join(dir(), 'missing');
    expect(readUsersFile(path, true)).toBe('');
    expect(() => readUsersFile(path, false)).toThrow(new RegExp(`cannot read ${path}: ENOENT`));
  });
});
