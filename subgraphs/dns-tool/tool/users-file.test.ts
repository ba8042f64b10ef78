import { hashPassword } from '../../../platform/passwords';
import { fileLogin, parseUsersFile, UsersFileError } from './users-file';

const FAST = { N: 1024, r: 8, p: 1 }; // tests only: the cost is the file's, not ours

describe('users file', () => {
  test('users with hashes, the enabled flag and roles; comments and blank lines skipped', async () => {
    const alice = await hashPassword('alice-pw', FAST);
    const bob = await hashPassword('bob-pw', FAST);
    const users = parseUsersFile(`# users of the DNS tool\nalice:${alice}::editors,readers\n\nbob:${bob}:0\n`);
    expect([...users.keys()]).toEqual(['alice', 'bob']);
    expect(users.get('alice')).toEqual({ hash: alice, enabled: true, roles: ['editors', 'readers'] });
    expect(users.get('bob')).toEqual({ hash: bob, enabled: false, roles: [] });
  });

  test.each([
    ['alice:secret', /line 1: the password must be an scrypt hash/],
    ['al ice:scrypt$1$1$1$a$b', /line 1: the user name must be/],
    ['alice:scrypt$1$1$1$a$b:yes', /line 1: enabled must be 1 or 0/],
    ['alice:scrypt$1$1$1$a$b:1:ed itors', /line 1: role "ed itors" is not a role name/],
    ['alice:scrypt$1$1$1$a$b:1:r:extra', /line 1: more than 4 fields/],
    ['alice:scrypt$1$1$1$a$b\nalice:scrypt$1$1$1$a$b', /line 2: user alice is listed twice/],
  ])('%p is refused naming the line and what is wrong', (text, message) => {
    expect(() => parseUsersFile(text)).toThrow(UsersFileError);
    expect(() => parseUsersFile(text)).toThrow(message);
  });
});

describe('file login', () => {
  let users: ReturnType<typeof parseUsersFile>;
  beforeAll(async () => {
    users = parseUsersFile(
      `alice:${await hashPassword('alice-pw', FAST)}:1:editors\ncarol:${await hashPassword('carol-pw', FAST)}:0\n`,
    );
  });

  test('the right password logs in with the file roles', async () => {
    expect(await fileLogin(users, 'alice', 'alice-pw')).toEqual({ user: 'alice', fileRoles: ['editors'] });
  });

  test.each([
    ['alice', 'wrong', "Invalid password for user 'alice'"],
    ['alice', '', 'Empty password is not allowed'],
    ['nobody', 'x', 'Invalid username or password'],
    ['carol', 'carol-pw', 'This user is disabled'],
  ])('%s with %p fails: %s', async (user, password, reason) => {
    await expect(fileLogin(users, user, password)).rejects.toMatchObject({
      error: 'Login failed',
      message: reason,
      code: 2,
      loginFailure: true,
    });
  });

  test("a disabled user's wrong password is still a wrong password (the password is checked first)", async () => {
    await expect(fileLogin(users, 'carol', 'nope')).rejects.toMatchObject({
      message: "Invalid password for user 'carol'",
    });
  });
});
