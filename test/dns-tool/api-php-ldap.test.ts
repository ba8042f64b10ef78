// @needs ldap
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSlapd, type TestSlapd } from '../support/slapd';
import { startSystem, type RunningSystem } from '../support/system';

/**
 * `login` through /api.php with directory login (dnsTool.ldap) against a real slapd: a member of the required group
 * who has a place in the roles map gets a session; the original's reasons for everyone else, as `Login failed`.
 */
const BASE = 'dc=example,dc=test';
const PEOPLE = `ou=people,${BASE}`;
const person = (uid: string, password: string): string =>
  `\ndn: uid=${uid},${PEOPLE}\nobjectClass: inetOrgPerson\nuid: ${uid}\ncn: ${uid}\nsn: ${uid}\nuserPassword: ${password}\n`;
const LDIF =
  `dn: ${BASE}\nobjectClass: dcObject\nobjectClass: organization\no: example\ndc: example\n\n` +
  `dn: ${PEOPLE}\nobjectClass: organizationalUnit\nou: people\n\n` +
  `dn: ou=groups,${BASE}\nobjectClass: organizationalUnit\nou: groups\n` +
  person('alice', 'alice-pw') +
  person('bob', 'bob-pw') +
  person('dave', 'dave-pw') +
  `\ndn: cn=dns,ou=groups,${BASE}\nobjectClass: groupOfNames\ncn: dns\nmember: uid=alice,${PEOPLE}\nmember: uid=dave,${PEOPLE}\n`;

let slapd: TestSlapd;
let sys: RunningSystem;

beforeAll(async () => {
  slapd = await startSlapd(LDIF);
  const file = join(mkdtempSync(join(tmpdir(), 'tool-ldap-')), 'config.json');
  writeFileSync(
    file,
    JSON.stringify({
      dnsTool: {
        tokens: ['unused_0123456789abcdef0123456789abcdef'],
        roles: { editors: { 'example.test': 'rw' } },
        // dave is in the group but has no place in the map (and there is no default role)
        usersRoles: { alice: ['editors'], bob: ['editors'] },
        ldap: { url: slapd.url, userDn: `uid={user},${PEOPLE}`, groupDn: `cn=dns,ou=groups,${BASE}` },
      },
    }),
  );
  sys = await startSystem({ CONFIG: file });
}, 60_000);
afterAll(async () => {
  await sys?.close();
  await slapd?.stop();
});

async function login(username: string, password: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${sys.url}/api.php`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ action: 'login', loginUsername: username, loginPassword: password }).toString(),
  });
  return { status: res.status, body: await res.json() };
}

const failure = (message: string) => ({ result: 'failure', error: 'Login failed', message, code: 2 });

test('a group member in the roles map logs in; the session shows the user and the role', async () => {
  const { status, body } = await login('alice', 'alice-pw');
  expect(status).toBe(200);
  const session = (body as { session_id: string }).session_id;
  expect(session).toMatch(/^[0-9a-f]{32}$/);
  const res = await fetch(`${sys.url}/api.php?action=is_logged`, { headers: { authorization: `Bearer ${session}` } });
  expect(await res.json()).toEqual({ is_logged: true, user: 'alice', role: 'editors' });
});

test.each([
  ['alice', 'wrong', 'Invalid username or password'],
  ['nobody', 'x-pw', 'Invalid username or password'],
  ['alice', '', 'Empty password is not allowed'],
  ['bob', 'bob-pw', 'You are not a member of any group with access to this tool'],
  ['dave', 'dave-pw', 'This user is not allowed to login to this tool (username not present in config.php)'],
])('%s / %j: Login failed, %s', async (user, password, message) => {
  expect(await login(user, password)).toEqual({ status: 400, body: failure(message) });
});
