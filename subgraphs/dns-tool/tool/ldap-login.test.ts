import { parse as parseYaml } from 'yaml';
import { ConfigError, parseSettings } from '../../../platform/settings';
import { DnsToolConfigSchema } from '../config';
import { ToolError } from '../protocol';
import {
  escapeDnValue,
  escapeFilterValue,
  fillTemplate,
  ldapLogin,
  nameAttribute,
  type LdapSettings,
} from './ldap-login';

describe('escapeDnValue (RFC 4514)', () => {
  test.each([
    ['alice', 'alice'],
    ['a,b', 'a\\,b'],
    ['x+cn=admin', 'x\\+cn\\=admin'],
    ['"q";<t>\\', '\\"q\\"\\;\\<t\\>\\\\'],
    [' lead', '\\ lead'],
    ['trail ', 'trail\\ '],
    ['in side', 'in side'],
    ['#hash', '\\#hash'],
    ['mid#hash', 'mid#hash'],
    ['nul\u0000cr\r', 'nul\\00cr\\0d'],
    ['*)(uid=*', '*)(uid\\=*'],
    ['jürgen', 'jürgen'],
  ])('%j → %j', (input, escaped) => {
    expect(escapeDnValue(input)).toBe(escaped);
  });

  test('a user name cannot add an RDN to the template', () => {
    const dn = fillTemplate('uid={user},ou=people,dc=example,dc=test', escapeDnValue('x,ou=admins'));
    expect(dn).toBe('uid=x\\,ou\\=admins,ou=people,dc=example,dc=test');
  });
});

describe('escapeFilterValue (RFC 4515)', () => {
  test.each([
    ['alice', 'alice'],
    ['*', '\\2a'],
    ['*)(uid=*', '\\2a\\29\\28uid=\\2a'],
    ['a\\b', 'a\\5cb'],
    ['nul\u0000', 'nul\\00'],
    ['x)(|(objectClass=*)', 'x\\29\\28|\\28objectClass=\\2a\\29'],
  ])('%j → %j', (input, escaped) => {
    expect(escapeFilterValue(input)).toBe(escaped);
  });

  test('the filled filter stays one equality clause', () => {
    expect(fillTemplate('(uid={user})', escapeFilterValue('*)(uid=*'))).toBe('(uid=\\2a\\29\\28uid=\\2a)');
  });
});

test('fillTemplate puts the value in every {user} and reads no $ patterns', () => {
  expect(fillTemplate('(|(uid={user})(mail={user}))', 'a$&b')).toBe('(|(uid=a$&b)(mail=a$&b))');
  expect(fillTemplate('uid={user},dc=t', "$'$`")).toBe("uid=$'$`,dc=t");
});

test.each([
  [{ userDn: 'uid={user},ou=people,dc=t' }, 'uid'],
  [{ userDn: ' sAMAccountName = {user} ,dc=t' }, 'sAMAccountName'],
  [{ userDn: '{user}@example.test' }, undefined],
  [{ userDn: 'cn=x,uid={user},dc=t' }, undefined],
  [{ searchFilter: '(uid={user})' }, 'uid'],
  [{ searchFilter: '(&(objectClass=person)(mail={user}))' }, 'mail'],
  [{ searchFilter: '(uid=x{user})' }, undefined],
])('the name attribute of %j is %j', (keys, attr) => {
  expect(nameAttribute({ url: 'ldap://d', timeoutMs: 5000, startTls: false, ...keys })).toBe(attr);
});

describe('checks before any connection', () => {
  // Nothing listens there: a check that let the call through would fail with the unreachable error instead.
  const settings: LdapSettings = {
    url: 'ldap://127.0.0.1:1',
    userDn: 'uid={user},dc=t',
    timeoutMs: 500,
    startTls: false,
  };

  test('an empty password is refused', async () => {
    await expect(ldapLogin(settings, 'alice', '')).rejects.toMatchObject({
      error: 'Login failed',
      message: 'Empty password is not allowed',
      code: 2,
      loginFailure: true,
    });
  });

  test.each([
    ['an empty user name', ''],
    ['a user name over 256 characters', 'a'.repeat(257)],
  ])('%s is refused as invalid credentials', async (_what, user) => {
    await expect(ldapLogin(settings, user, 'pw')).rejects.toMatchObject({
      error: 'Login failed',
      message: 'Invalid username or password',
    });
  });

  test('a user name of 256 characters reaches the server (here: none, so unreachable)', async () => {
    const err: unknown = await ldapLogin(settings, 'a'.repeat(256), 'pw').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolError);
    expect(err).toMatchObject({ error: 'Login failed', message: 'Unable to reach the directory server', code: 2 });
  });
});

describe('dnsTool.ldap settings', () => {
  /** The section as a configuration file holds it, validated the way the gateway validates it. */
  function load(ldap: string) {
    return parseSettings(DnsToolConfigSchema, parseYaml(`dnsTool:\n  ldap: ${ldap}\n`));
  }

  test('direct bind: defaults filled in', () => {
    const { dnsTool } = load('{ url: "ldap://127.0.0.1:389", userDn: "uid={user},ou=people,dc=example,dc=test" }');
    expect(dnsTool.ldap).toEqual({
      url: 'ldap://127.0.0.1:389',
      userDn: 'uid={user},ou=people,dc=example,dc=test',
      timeoutMs: 5000,
      startTls: false,
    });
  });

  test('search then bind, with a group and StartTLS', () => {
    const { dnsTool } = load(
      '{ url: "ldap://dir.example.test", bindDn: "cn=svc,dc=t", bindPassword: "pw", searchBase: "dc=t", ' +
        'searchFilter: "(uid={user})", groupDn: "cn=dns,dc=t", timeoutMs: 2000, startTls: true }',
    );
    expect(dnsTool.ldap).toMatchObject({ searchFilter: '(uid={user})', groupDn: 'cn=dns,dc=t', startTls: true });
  });

  test('without an ldap section there is no directory login', () => {
    expect(parseSettings(DnsToolConfigSchema, {}).dnsTool.ldap).toBeUndefined();
  });

  test.each([
    ['{ userDn: "uid={user},dc=t" }', /dnsTool\.ldap\.url/],
    ['{ url: "http://dir", userDn: "uid={user},dc=t" }', /dnsTool\.ldap\.url: must be ldap:\/\/host/],
    ['{ url: "ldap://dir/dc=t?uid", userDn: "uid={user},dc=t" }', /dnsTool\.ldap\.url: must be ldap:\/\/host/],
    ['{ url: "ldap://dir" }', /dnsTool\.ldap\.userDn: required, or bindDn, bindPassword, searchBase, searchFilter/],
    ['{ url: "ldap://dir", userDn: "uid=alice,dc=t" }', /dnsTool\.ldap\.userDn: userDn must contain \{user\}/],
    [
      '{ url: "ldap://dir", userDn: "uid={user},dc=t", bindDn: "cn=svc,dc=t" }',
      /dnsTool\.ldap\.userDn: set userDn \(direct bind\) or .* not both/,
    ],
    ['{ url: "ldap://dir", bindDn: "cn=svc,dc=t" }', /dnsTool\.ldap\.bindPassword: required with bindDn/],
    [
      '{ url: "ldap://dir", bindDn: "cn=svc,dc=t", bindPassword: "pw", searchBase: "dc=t" }',
      /dnsTool\.ldap\.searchFilter: required with bindDn, bindPassword, searchBase/,
    ],
    [
      '{ url: "ldap://dir", bindDn: "c", bindPassword: "p", searchBase: "dc=t", searchFilter: "uid={user}" }',
      /dnsTool\.ldap\.searchFilter: searchFilter must be in parentheses/,
    ],
    [
      '{ url: "ldap://dir", bindDn: "c", bindPassword: "p", searchBase: "dc=t", searchFilter: "(uid=x)" }',
      /dnsTool\.ldap\.searchFilter: searchFilter must contain \{user\}/,
    ],
    ['{ url: "ldaps://dir", userDn: "uid={user}", startTls: true }', /dnsTool\.ldap\.startTls: ldaps:\/\/ is TLS/],
    ['{ url: "ldap://dir", userDn: "uid={user}", timeoutMs: 10 }', /dnsTool\.ldap\.timeoutMs/],
    ['{ url: "ldap://dir", userDn: "uid={user}", startTLS: true }', /dnsTool\.ldap: unknown key\(s\) startTLS/],
  ])('ldap: %s is refused naming the key', (ldap, message) => {
    expect(() => load(ldap)).toThrow(ConfigError);
    expect(() => load(ldap)).toThrow(message);
  });
});
