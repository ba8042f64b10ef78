// @needs ldap
import { ToolError } from '../../subgraphs/dns-tool/protocol';
import { ldapLogin, type LdapSettings } from '../../subgraphs/dns-tool/tool/ldap-login';
import { startSlapd, type TestSlapd } from '../support/slapd';

// Directory login against a real OpenLDAP slapd: binds, group checks and failures as the DNS tool reports them.

const BASE = 'dc=example,dc=test';
const PEOPLE = `ou=people,${BASE}`;
const GROUPS = `ou=groups,${BASE}`;
const ADMINS = `cn=dns-admins,${GROUPS}`;

const person = (uid: string, dnValue: string, password: string): string => `
dn: uid=${dnValue},${PEOPLE}
objectClass: inetOrgPerson
uid: ${uid}
cn: ${uid}
sn: ${uid}
userPassword: ${password}
`;

const LDIF = `dn: ${BASE}
objectClass: dcObject
objectClass: organization
o: example
dc: example

dn: ${PEOPLE}
objectClass: organizationalUnit
ou: people

dn: ${GROUPS}
objectClass: organizationalUnit
ou: groups

dn: cn=svc,${BASE}
objectClass: organizationalRole
objectClass: simpleSecurityObject
cn: svc
userPassword: svc-pw
${person('alice', 'alice', 'alice-pw')}${person('bob', 'bob', 'bob-pw')}${person('carol', 'carol', 'carol-pw')}${person('o,brien', 'o\\,brien', 'ob-pw')}
dn: ${ADMINS}
objectClass: groupOfNames
cn: dns-admins
member: uid=alice,${PEOPLE}
member: uid=o\\,brien,${PEOPLE}

dn: cn=dns-unique,${GROUPS}
objectClass: groupOfUniqueNames
cn: dns-unique
uniqueMember: uid=carol,${PEOPLE}

dn: cn=dns-posix,${GROUPS}
objectClass: posixGroup
cn: dns-posix
gidNumber: 5000
memberUid: carol
`;

let slapd: TestSlapd;
let direct: LdapSettings;
let search: LdapSettings;

beforeAll(async () => {
  slapd = await startSlapd(LDIF, BASE);
  direct = { url: slapd.url, userDn: `uid={user},${PEOPLE}`, groupDn: ADMINS, timeoutMs: 5000, startTls: false };
  search = {
    url: slapd.url,
    bindDn: `cn=svc,${BASE}`,
    bindPassword: 'svc-pw',
    searchBase: PEOPLE,
    searchFilter: '(uid={user})',
    groupDn: ADMINS,
    timeoutMs: 5000,
    startTls: false,
  };
}, 30_000);

afterAll(async () => {
  await slapd?.stop();
}, 15_000);

/** The login failure a call ends with (fails the test when it succeeds or fails otherwise). */
async function failure(settings: LdapSettings, user: string, password: string): Promise<ToolError> {
  const err: unknown = await ldapLogin(settings, user, password).then(
    () => new Error('login succeeded'),
    (e: unknown) => e,
  );
  if (!(err instanceof ToolError)) throw err;
  expect(err).toMatchObject({ error: 'Login failed', code: 2, loginFailure: true });
  return err;
}

describe.each([
  ['direct bind (userDn)', () => direct],
  ['search then bind', () => search],
])('%s', (_mode, settingsOf) => {
  test('a member logs in and gets the group', async () => {
    await expect(ldapLogin(settingsOf(), 'alice', 'alice-pw')).resolves.toEqual({ user: 'alice', groups: [ADMINS] });
  });

  test('a name with DN special characters logs in as itself', async () => {
    await expect(ldapLogin(settingsOf(), 'o,brien', 'ob-pw')).resolves.toEqual({ user: 'o,brien', groups: [ADMINS] });
  });

  test('the name as the directory spells it, whatever case was typed', async () => {
    await expect(ldapLogin(settingsOf(), 'ALICE', 'alice-pw')).resolves.toEqual({ user: 'alice', groups: [ADMINS] });
  });

  test('a wrong password', async () => {
    expect((await failure(settingsOf(), 'alice', 'wrong')).message).toBe('Invalid username or password');
  });

  test('an unknown user', async () => {
    expect((await failure(settingsOf(), 'mallory', 'alice-pw')).message).toBe('Invalid username or password');
  });

  test('an empty password (an anonymous bind the server would accept)', async () => {
    expect((await failure(settingsOf(), 'alice', '')).message).toBe('Empty password is not allowed');
  });

  test('a user with the right password but not in the group', async () => {
    expect((await failure(settingsOf(), 'bob', 'bob-pw')).message).toBe(
      'You are not a member of any group with access to this tool',
    );
  });

  test.each(['*)(uid=*', '*', 'alice)(|(uid=*', 'alice,ou=people', 'uid=alice', 'alice\\', 'EXTERNAL'])(
    'the injection attempt %j fails cleanly',
    async (name) => {
      expect((await failure(settingsOf(), name, 'alice-pw')).message).toBe('Invalid username or password');
    },
  );

  test('without a group every user who binds may log in', async () => {
    const { groupDn: _none, ...noGroup } = settingsOf();
    await expect(ldapLogin(noGroup, 'bob', 'bob-pw')).resolves.toEqual({ user: 'bob', groups: [] });
  });
});

test.each([
  ['uniqueMember', `cn=dns-unique,${GROUPS}`],
  ['memberUid', `cn=dns-posix,${GROUPS}`],
])('membership by %s', async (_attr, groupDn) => {
  await expect(ldapLogin({ ...direct, groupDn }, 'carol', 'carol-pw')).resolves.toEqual({
    user: 'carol',
    groups: [groupDn],
  });
  expect((await failure({ ...direct, groupDn }, 'alice', 'alice-pw')).message).toBe(
    'You are not a member of any group with access to this tool',
  );
});

test('memberUid is matched with the name as the directory spells it', async () => {
  const groupDn = `cn=dns-posix,${GROUPS}`;
  await expect(ldapLogin({ ...direct, groupDn }, 'Carol', 'carol-pw')).resolves.toEqual({
    user: 'carol',
    groups: [groupDn],
  });
});

test('a group that does not exist admits nobody', async () => {
  expect((await failure({ ...direct, groupDn: `cn=ghosts,${GROUPS}` }, 'alice', 'alice-pw')).message).toBe(
    'You are not a member of any group with access to this tool',
  );
});

test('a refused service account is an operator error, not the user’s', async () => {
  const err: unknown = await ldapLogin({ ...search, bindPassword: 'nope' }, 'alice', 'alice-pw').catch(
    (e: unknown) => e,
  );
  expect(err).not.toBeInstanceOf(ToolError);
  expect(String(err)).toContain('refused the service account');
});

test('StartTLS refused by a server without TLS: an operator error, before any password is sent', async () => {
  const err: unknown = await ldapLogin({ ...direct, startTls: true }, 'alice', 'alice-pw').catch((e: unknown) => e);
  expect(err).not.toBeInstanceOf(ToolError);
  expect(String(err)).toContain('the directory refused StartTLS');
});

test('a server that answers nothing: unreachable after the timeout', async () => {
  await slapd.pause();
  try {
    const started = Date.now();
    expect((await failure({ ...direct, timeoutMs: 300 }, 'alice', 'alice-pw')).message).toBe(
      'Unable to reach the directory server',
    );
    expect(Date.now() - started).toBeLessThan(5_000);
  } finally {
    slapd.resume();
  }
});

test('the server down: unreachable', async () => {
  await slapd.stop();
  expect((await failure(direct, 'alice', 'alice-pw')).message).toBe('Unable to reach the directory server');
});
