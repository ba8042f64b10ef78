// @needs build
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../gateway/host/paths';
import { fileLogin, parseUsersFile } from '../../subgraphs/dns-tool/tool/users-file';

// `npm run dns-tool-user` as users run it: the built command, the password on standard input.
const COMMAND = join(PROJECT_ROOT, 'dist', 'scripts', 'dns-tool-user.js');

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the command with `input` on standard input (a pipe, not a terminal); bounded by a timeout. */
function run(args: string[], input = ''): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [COMMAND, ...args], { stdio: ['pipe', 'pipe', 'pipe'], timeout: 20_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(input);
  });
}

const tempDir = (): string => mkdtempSync(join(tmpdir(), 'dns-tool-user-'));

beforeAll(() => {
  if (!existsSync(COMMAND)) throw new Error(`${COMMAND} is missing: run npm run build (npm test does it)`);
});

test('add, passwd and remove: a file the login reads, mode 0600, the password never in it', async () => {
  const dir = tempDir();
  const file = join(dir, 'users');
  expect(await run(['add', file, 'alice', '--roles', 'editors,readers'], 'alice-pw\n')).toMatchObject({
    status: 0,
    stdout: `added alice to ${file}\n`,
  });
  expect(await run(['add', file, 'bob', '--disabled'], 'bob-pw-1234')).toMatchObject({ status: 0 });
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(readFileSync(file, 'utf8')).not.toContain('alice-pw');
  let users = parseUsersFile(readFileSync(file, 'utf8'));
  expect(users.get('alice')).toMatchObject({ enabled: true, roles: ['editors', 'readers'] });
  expect(users.get('bob')).toMatchObject({ enabled: false, roles: [] });
  await expect(fileLogin(users, 'alice', 'alice-pw')).resolves.toEqual({
    user: 'alice',
    fileRoles: ['editors', 'readers'],
  });
  await expect(fileLogin(users, 'bob', 'bob-pw-1234')).rejects.toThrow('This user is disabled');

  expect(await run(['passwd', file, 'alice'], 'new-pw-5678\r\n')).toMatchObject({ status: 0 });
  users = parseUsersFile(readFileSync(file, 'utf8'));
  await expect(fileLogin(users, 'alice', 'new-pw-5678')).resolves.toMatchObject({ user: 'alice' });
  await expect(fileLogin(users, 'alice', 'alice-pw')).rejects.toThrow("Invalid password for user 'alice'");
  expect(users.get('alice')?.roles).toEqual(['editors', 'readers']);

  expect(await run(['remove', file, 'bob'])).toMatchObject({ status: 0, stdout: `removed bob from ${file}\n` });
  expect([...parseUsersFile(readFileSync(file, 'utf8')).keys()]).toEqual(['alice']);
  expect(readdirSync(dir)).toEqual(['users']);
});

describe('refusals: exit 1, a message naming the problem, the file unchanged', () => {
  let file: string;
  let before: string;
  beforeAll(async () => {
    file = join(tempDir(), 'users');
    expect((await run(['add', file, 'alice'], 'alice-pw\n')).status).toBe(0);
    before = readFileSync(file, 'utf8');
  });

  test.each([
    ['a user already there', ['add', '{file}', 'alice'], 'pw\n', 'user alice is already in {file}'],
    ['a bad user name', ['add', '{file}', 'bad:name'], 'pw\n', 'bad user name "bad:name": 1 to 128 of'],
    ['a bad role name', ['add', '{file}', 'carol', '--roles', 'ok,no way'], 'pw\n', 'bad role name "no way"'],
    ['an empty password', ['add', '{file}', 'carol'], '\n', 'empty password refused'],
    ['no input at all', ['add', '{file}', 'carol'], '', 'empty password refused'],
    [
      'more than one line',
      ['add', '{file}', 'carol'],
      'pw\nsecond\n',
      'standard input must hold the password on one line and nothing else',
    ],
    ['passwd of an unknown user', ['passwd', '{file}', 'carol'], 'pw\n', 'user carol is not in {file}'],
    ['a short password', ['add', '{file}', 'carol'], 'pw\n', 'password must be 8 to 256 characters long (got 2)'],
    [
      'a common password',
      ['add', '{file}', 'carol'],
      'iloveyou\n',
      'password is one of the 49,233 most common passwords, which attackers try first; choose another',
    ],
    [
      'a password of too few characters',
      ['passwd', '{file}', 'alice'],
      'aaaaaaaaaa\n',
      'password must have at least 3 different characters',
    ],
    [
      'the user name as password',
      ['add', '{file}', 'carol.smith'],
      'Carol.Smith\n',
      'password must not be the username',
    ],
    ['passwd with an empty password', ['passwd', '{file}', 'alice'], '', 'empty password refused'],
    ['remove of an unknown user', ['remove', '{file}', 'carol'], '', 'user carol is not in {file}'],
    ['a missing file for passwd', ['passwd', '{file}.missing', 'alice'], 'pw\n', 'cannot read {file}.missing: ENOENT'],
    ['a missing file for remove', ['remove', '{file}.missing', 'alice'], '', 'cannot read {file}.missing: ENOENT'],
  ])('%s', async (_what, args, input, message) => {
    const result = await run(
      args.map((a) => a.replace('{file}', file)),
      input,
    );
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`dns-tool-user: ${message.replace('{file}', file)}`);
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  test('a users file that does not parse is never rewritten', async () => {
    const broken = join(tempDir(), 'users');
    writeFileSync(broken, 'alice:plain-password\n');
    const result = await run(['add', broken, 'carol'], 'pw\n');
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`${broken} line 1: the password must be an scrypt hash`);
    expect(readFileSync(broken, 'utf8')).toBe('alice:plain-password\n');
  });

  test('an unknown command or a missing argument: usage error', async () => {
    expect((await run(['rename', file, 'alice'])).status).not.toBe(0);
    const missing = await run(['add', file]);
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toContain("missing required argument 'username'");
  });
});
