import {
  closeSync,
  existsSync,
  fsyncSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { parseUsersFile, ROLE_NAME, UsersFileError, USER_NAME } from './users-file';

/**
 * Edits of a users file (users-file.ts) as text, one user line at a time: comments, blank lines and the order of the
 * other lines stay as they were. Every result is parsed again before anyone writes it.
 */

export interface NewUser {
  roles: readonly string[];
  enabled: boolean;
}

export function checkUserName(user: string): void {
  if (!USER_NAME.test(user))
    throw new UsersFileError(`bad user name ${JSON.stringify(user)}: 1 to 128 of A-Z a-z 0-9 . _ @ -`);
}

export function checkRoleName(role: string): void {
  if (!ROLE_NAME.test(role))
    throw new UsersFileError(`bad role name ${JSON.stringify(role)}: 1 to 100 of A-Z a-z 0-9 . _ -`);
}

/** `a,b` → [a, b] (spaces around names ignored, empty: none); a bad name is an error naming it. */
export function parseRoles(list: string): string[] {
  const roles = list.split(',').map((r) => r.trim());
  if (roles.length === 1 && roles[0] === '') return [];
  roles.forEach(checkRoleName);
  return roles;
}

/** Index of the line that holds `user`, or -1 (the file must parse: callers check first). */
function lineOf(lines: readonly string[], user: string): number {
  return lines.findIndex((raw) => {
    const line = raw.trim();
    return line !== '' && !line.startsWith('#') && line.split(':')[0] === user;
  });
}

/** Splits the file into lines, after checking it parses (an edit never builds on a broken file). */
function linesOf(text: string, source: string): string[] {
  parseUsersFile(text, source);
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Joins lines and checks the result parses as the login will read it. */
function finish(lines: readonly string[], source: string): string {
  const text = lines.length === 0 ? '' : `${lines.join('\n')}\n`;
  parseUsersFile(text, source);
  return text;
}

/** Makes the new hash: called only once every check passed (so nobody is asked for a password in vain). */
export type HashMaker = () => Promise<string>;

export async function addUser(
  text: string,
  user: string,
  options: NewUser,
  makeHash: HashMaker,
  source = 'users file',
): Promise<string> {
  checkUserName(user);
  options.roles.forEach(checkRoleName);
  const lines = linesOf(text, source);
  if (lineOf(lines, user) >= 0)
    throw new UsersFileError(`user ${user} is already in ${source} (passwd changes a password)`);
  lines.push([user, await makeHash(), options.enabled ? '1' : '0', options.roles.join(',')].join(':'));
  return finish(lines, source);
}

/** Replaces the user's hash; the enabled flag and roles stay. */
export async function setPassword(
  text: string,
  user: string,
  makeHash: HashMaker,
  source = 'users file',
): Promise<string> {
  checkUserName(user);
  const lines = linesOf(text, source);
  const at = lineOf(lines, user);
  if (at < 0) throw new UsersFileError(`user ${user} is not in ${source}`);
  const fields = (lines[at] ?? '').trim().split(':');
  fields[1] = await makeHash();
  lines[at] = fields.join(':');
  return finish(lines, source);
}

export function removeUser(text: string, user: string, source = 'users file'): string {
  checkUserName(user);
  const lines = linesOf(text, source);
  const at = lineOf(lines, user);
  if (at < 0) throw new UsersFileError(`user ${user} is not in ${source}`);
  lines.splice(at, 1);
  return finish(lines, source);
}

/** The file's text; a file that does not exist yet reads as empty when `missingIsEmpty`. */
export function readUsersFile(path: string, missingIsEmpty: boolean): string {
  if (missingIsEmpty && !existsSync(path)) return '';
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsersFileError(`cannot read ${path}: ${(err as Error).message}`);
  }
}

/**
 * Writes `text` to `path` all at once: a temporary file beside it (mode 0600: it holds password hashes), flushed,
 * then renamed over the old one, so a reader (the tool re-reading its users) sees the old or the new file, never
 * half of one. A symlinked path keeps its link: the file it points to is replaced.
 */
export function writeUsersFileAtomically(path: string, text: string): void {
  parseUsersFile(text, path);
  const target = existsSync(path) ? realpathSync(path) : path;
  const temp = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw err;
  }
  closeSync(fd);
  try {
    renameSync(temp, target);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
}
