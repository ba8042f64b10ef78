import { types } from 'node:util';
import { Client, ResultCodeError, SASL_MECHANISMS, type Entry } from 'ldapts';
import type { LdapSettings } from '../config-ldap';
import { ToolError, toolErrors } from '../protocol';

export type { LdapSettings } from '../config-ldap';

/** Longer user names are refused before anything is sent to the directory. */
export const MAX_USERNAME_LENGTH = 256;

export const UNREACHABLE = 'Unable to reach the directory server';
const INVALID = 'Invalid username or password';
const NOT_MEMBER = 'You are not a member of any group with access to this tool';

/** LDAP result codes that say the server cannot serve now (busy, unavailable): as good as unreachable. */
const SERVER_DOWN_CODES = new Set([51, 52]);
/** LDAP result code of a bind with a wrong password or an unknown DN. */
const INVALID_CREDENTIALS = 49;
const SIZE_LIMIT_EXCEEDED = 4;

const hex = (code: number): string => `\\${code.toString(16).padStart(2, '0')}`;

/** Escapes an attribute value for a DN (RFC 4514 §2.4), so a user name cannot add or change RDNs. */
export function escapeDnValue(value: string): string {
  const chars = [...value];
  return chars
    .map((ch, i) => {
      const code = ch.codePointAt(0) ?? 0;
      if (code < 0x20 || code === 0x7f) return hex(code);
      // `=` need not be escaped by the RFC, but escaping it costs nothing and some servers parse loosely.
      if ('"+,;<>\\='.includes(ch)) return `\\${ch}`;
      if (ch === ' ' && (i === 0 || i === chars.length - 1)) return '\\ ';
      if (ch === '#' && i === 0) return '\\#';
      return ch;
    })
    .join('');
}

/** Escapes an assertion value for a search filter (RFC 4515 §3), so a user name cannot add wildcards or clauses. */
export function escapeFilterValue(value: string): string {
  return [...value]
    .map((ch) => {
      const code = ch.codePointAt(0) ?? 0;
      return '*()\\'.includes(ch) || code < 0x20 || code === 0x7f ? hex(code) : ch;
    })
    .join('');
}

/** Puts an escaped value where `{user}` stands (split/join: no `$&` patterns as String.replace would read them). */
export const fillTemplate = (template: string, value: string): string => template.split('{user}').join(value);

/**
 * Directory login (docs/dns-tool.md, "Logins: users file and LDAP"): binds as the user with their password, then
 * checks membership of `groupDn` when one is set. Resolves to the user name as the directory spells it and the DNs
 * of their known groups (the entry's `memberOf` where the directory keeps it, and `groupDn`). Fails with the tool's `Login failed` errors; an
 * unreachable server is `Login failed` / `Unable to reach the directory server`. The password is never logged.
 */
export async function ldapLogin(
  settings: LdapSettings,
  username: string,
  password: string,
): Promise<{ user: string; groups: string[] }> {
  // An empty password would be an unauthenticated bind, which LDAP servers accept (RFC 4513 §5.1.2).
  if (password === '') throw toolErrors.loginFailed('Empty password is not allowed');
  if (username === '' || [...username].length > MAX_USERNAME_LENGTH) throw toolErrors.loginFailed(INVALID);
  const client = new Client({ url: settings.url, timeout: settings.timeoutMs, connectTimeout: settings.timeoutMs });
  try {
    if (settings.startTls) await startTls(client, settings.url);
    const userDn = await findUser(client, settings, username);
    await bindUser(client, userDn, password);
    // With a service account, group and entry reads go as that account: users often may not read groups.
    if (settings.bindDn !== undefined) await bindService(client, settings);
    const { name, groups } = await readEntry(client, userDn, username, nameAttribute(settings));
    if (settings.groupDn !== undefined) {
      if (!(await isMember(client, settings.groupDn, userDn, name))) throw toolErrors.loginFailed(NOT_MEMBER);
      if (!groups.some((g) => sameDn(g, settings.groupDn ?? ''))) groups.push(settings.groupDn);
    }
    return { user: name, groups };
  } catch (err) {
    throw translate(err);
  } finally {
    await client.unbind().catch(() => undefined);
  }
}

/** Upgrades the connection before any password goes out; a server that refuses is the operator's problem. */
async function startTls(client: Client, url: string): Promise<void> {
  try {
    await client.startTLS({ servername: new URL(url).hostname });
  } catch (err) {
    if (err instanceof ResultCodeError && !SERVER_DOWN_CODES.has(err.code))
      throw new Error(`dnsTool.ldap: the directory refused StartTLS (${err.message})`, { cause: err });
    throw err;
  }
}

/** The user's DN: the template filled in, or the one entry the service account's search finds. */
async function findUser(client: Client, settings: LdapSettings, username: string): Promise<string> {
  if (settings.userDn !== undefined) return fillTemplate(settings.userDn, escapeDnValue(username));
  const { searchBase, searchFilter } = settings;
  if (searchBase === undefined || searchFilter === undefined)
    throw new Error('dnsTool.ldap: userDn or bindDn, bindPassword, searchBase and searchFilter must be set');
  await bindService(client, settings);
  const found = await client
    .search(searchBase, {
      scope: 'sub',
      filter: fillTemplate(searchFilter, escapeFilterValue(username)),
      attributes: ['1.1'],
      sizeLimit: 2,
    })
    .catch((err: unknown) => {
      // More than the size limit: as ambiguous as two.
      if (err instanceof ResultCodeError && err.code === SIZE_LIMIT_EXCEEDED) return { searchEntries: [] };
      throw err;
    });
  // None or several: the name does not identify one user.
  const [only, ...others] = found.searchEntries;
  if (!only || others.length > 0) throw toolErrors.loginFailed(INVALID);
  return only.dn;
}

async function bindUser(client: Client, dn: string, password: string): Promise<void> {
  // ldapts reads a bind "DN" that names a SASL mechanism as a SASL bind: never from a user name.
  if ((SASL_MECHANISMS as readonly string[]).includes(dn)) throw toolErrors.loginFailed(INVALID);
  try {
    await client.bind(dn, password);
  } catch (err) {
    // Any refusal of the user's bind (wrong password; also a locked account, a DN the server will not parse) is a
    // failed login, never a server error; the cause stays for the operator's log.
    if (err instanceof ResultCodeError && !SERVER_DOWN_CODES.has(err.code)) {
      const failure = toolErrors.loginFailed(INVALID);
      failure.cause = err;
      throw failure;
    }
    throw err;
  }
}

async function bindService(client: Client, settings: LdapSettings): Promise<void> {
  const { bindDn, bindPassword } = settings;
  if (bindDn === undefined || bindPassword === undefined) throw new Error('dnsTool.ldap: bindDn needs bindPassword');
  try {
    await client.bind(bindDn, bindPassword);
  } catch (err) {
    // The operator's mistake, not the user's: say so, never as "invalid username or password".
    if (err instanceof ResultCodeError && err.code === INVALID_CREDENTIALS)
      throw new Error(`dnsTool.ldap: the directory refused the service account ${bindDn} (invalid credentials)`, {
        cause: err,
      });
    throw err;
  }
}

/** The attribute `{user}` stands for in the DN template (`uid={user},…`) or the filter (`(uid={user})`). */
export function nameAttribute(settings: LdapSettings): string | undefined {
  const match =
    settings.userDn !== undefined
      ? /^\s*([A-Za-z][\w-]*)\s*=\s*\{user\}\s*(?:,|$)/.exec(settings.userDn)
      : /\(([A-Za-z][\w-]*)=\{user\}\)/.exec(settings.searchFilter ?? '');
  return match?.[1];
}

const valuesOf = (value: Entry[string] | undefined): string[] =>
  value === undefined ? [] : (Array.isArray(value) ? value : [value]).map(String);

/**
 * The user's name as the directory spells it (`ALICE` logs in as `alice`: one name for roles and audit lines) and
 * the entry's `memberOf` groups. Directories without `memberOf`, or an entry the reader may not see: the name as
 * typed and no groups.
 */
async function readEntry(
  client: Client,
  userDn: string,
  typed: string,
  nameAttr: string | undefined,
): Promise<{ name: string; groups: string[] }> {
  try {
    const attributes = nameAttr === undefined ? ['memberOf'] : ['memberOf', nameAttr];
    const { searchEntries } = await client.search(userDn, { scope: 'base', attributes });
    const entry = searchEntries[0] ?? { dn: userDn };
    // Attribute names come back as the server spells them.
    const field = (name: string): string[] =>
      valuesOf(Object.entries(entry).find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1]);
    const spelled =
      nameAttr === undefined ? [] : field(nameAttr).filter((v) => v.toLowerCase() === typed.toLowerCase());
    return { name: spelled.length === 1 ? (spelled[0] ?? typed) : typed, groups: field('memberOf') };
  } catch (err) {
    if (err instanceof ResultCodeError && !SERVER_DOWN_CODES.has(err.code)) return { name: typed, groups: [] };
    throw err;
  }
}

/** Whether the group's `member`/`uniqueMember` (DNs) or `memberUid` (names) list the user; a missing group: no. */
async function isMember(client: Client, groupDn: string, userDn: string, name: string): Promise<boolean> {
  const dn = escapeFilterValue(userDn);
  const filter = `(|(member=${dn})(uniqueMember=${dn})(memberUid=${escapeFilterValue(name)}))`;
  try {
    const { searchEntries } = await client.search(groupDn, { scope: 'base', filter, attributes: ['1.1'] });
    return searchEntries.length > 0;
  } catch (err) {
    if (err instanceof ResultCodeError && !SERVER_DOWN_CODES.has(err.code)) return false;
    throw err;
  }
}

/** DNs compared loosely enough for the same group written twice (case, spaces after commas). */
const sameDn = (a: string, b: string): boolean =>
  a.replace(/,\s+/g, ',').toLowerCase() === b.replace(/,\s+/g, ',').toLowerCase();

/** Node's socket and TLS errors carry a string code; ldapts's own connection failures say so in the message. */
function isConnectionFailure(err: unknown): boolean {
  // isNativeError, not instanceof: socket errors may come from another realm (jest's sandbox, for one).
  if (!types.isNativeError(err)) return false;
  const code = (err as NodeJS.ErrnoException).code;
  if (typeof code === 'string') return true;
  return /^(Connection timeout|Socket error|Connection closed)|: Operation timed out$/.test(err.message);
}

/** The tool's errors as they are; a server that cannot be reached as `Unable to reach the directory server`. */
function translate(err: unknown): unknown {
  if (err instanceof ToolError) return err;
  const down = err instanceof ResultCodeError ? SERVER_DOWN_CODES.has(err.code) : isConnectionFailure(err);
  if (!down) return err;
  const failure = toolErrors.loginFailed(UNREACHABLE);
  // For the operator's log: why it could not be reached (socket errors hold no password).
  failure.cause = err;
  return failure;
}
