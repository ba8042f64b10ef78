/**
 * The data directory holds secrets (the SQLite file with users and sealed keys, the master key, the DNS tool's key
 * and token): only the user the server runs as may read it. Directories are made 0700 and files 0600; ones an older
 * version (or a umask) left looser are tightened at start, so a local user cannot read a key and forge a token.
 */
import {
  chmodSync,
  closeSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  type Stats,
} from 'node:fs';
import { dirname, join } from 'node:path';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** What `securePrivateDir` changed: paths whose permissions were tightened, to log once. */
export interface Tightened {
  path: string;
  from: string;
  to: string;
}

const octal = (mode: number): string => `0${(mode & 0o777).toString(8)}`;
const ownedByUs = (s: Stats): boolean => typeof process.getuid !== 'function' || s.uid === process.getuid();

/** Sets `mode` on `path` when group or others have any right to it and we own it (a shared directory is left as is). */
function tighten(path: string, s: Stats, mode: number, out: Tightened[]): void {
  if ((s.mode & 0o077) === 0 || !ownedByUs(s)) return;
  // A sticky world-writable directory (/tmp) is shared by design: never ours to close.
  if (s.isDirectory() && (s.mode & 0o1000) !== 0) return;
  chmodSync(path, mode);
  out.push({ path, from: octal(s.mode), to: octal(mode) });
}

/**
 * Makes `dir` (and missing parents) with mode 0700, tightens it when it exists looser, and tightens every regular
 * file directly in it to 0600. Returns what it tightened. Errors say which directory and why.
 */
export function securePrivateDir(dir: string): Tightened[] {
  const tightened: Tightened[] = [];
  try {
    mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  } catch (err) {
    throw new Error(`cannot create the data directory ${dir}: ${(err as Error).message}`, { cause: err });
  }
  tighten(dir, statSync(dir), PRIVATE_DIR_MODE, tightened);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(dir, entry.name);
    tighten(path, statSync(path), PRIVATE_FILE_MODE, tightened);
  }
  return tightened;
}

/**
 * Creates `file` empty with mode 0600 when missing, or tightens it to 0600. SQLite gives the journal, WAL and
 * shared-memory files it creates the database file's mode, so calling this before opening a database covers those.
 */
export function ensurePrivateFile(file: string): void {
  try {
    closeSync(openSync(file, 'a', PRIVATE_FILE_MODE));
  } catch (err) {
    throw new Error(`cannot create ${file}: ${(err as Error).message}`, { cause: err });
  }
  tightenIfPresent(file);
}

/** Tightens `file` to 0600 when it exists with rights for group or others (and is ours). */
export function tightenIfPresent(file: string): void {
  let s: Stats;
  try {
    s = statSync(file);
  } catch {
    return;
  }
  if ((s.mode & 0o077) !== 0 && ownedByUs(s)) chmodSync(file, PRIVATE_FILE_MODE);
}

/**
 * A SQLite database file (not `:memory:`) ready to open privately: the file 0600, and its journal, WAL and
 * shared-memory files 0600 when an earlier run left them looser (new ones take the database file's mode).
 */
export function ensurePrivateDatabaseFile(file: string): void {
  if (file === ':memory:' || file === '') return;
  ensurePrivateFile(file);
  for (const suffix of ['-wal', '-shm', '-journal']) tightenIfPresent(`${file}${suffix}`);
}

/**
 * Writes `text` to `file` whole or not at all (a temporary file, mode 0600, renamed over it): a reader never sees a
 * half-written secret, and the directory is made private first.
 */
export function writePrivateFile(file: string, text: string): void {
  securePrivateDir(dirname(file));
  const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    writeFileSync(temporary, text, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
    chmodSync(temporary, PRIVATE_FILE_MODE);
    renameSync(temporary, file);
  } catch (err) {
    rmSync(temporary, { force: true });
    throw err;
  }
}
