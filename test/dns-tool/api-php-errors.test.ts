// @needs bind
import { dig } from '../support/dns-peers';
import {
  api,
  expectError,
  expectOk,
  loginToken,
  NOBODY,
  OPS,
  READER,
  ROOT,
  startEditorsSystem,
  USERS,
  WEB,
  type ToolSystem,
} from './tool-system';

/**
 * Every error row of docs/dns-tool.md's table ("Errors") through `/api.php` against the whole system: HTTP 400, the
 * body's bytes (`{"error", "message", "code"}` in that order, login failures with `"result": "failure"` first).
 */
let t: ToolSystem;
let root: string;
let ops: string;
let reader: string;
let nobody: string;

beforeAll(async () => {
  t = await startEditorsSystem();
  root = await loginToken(t.url, ROOT);
  ops = await loginToken(t.url, OPS);
  reader = await loginToken(t.url, READER);
  nobody = await loginToken(t.url, NOBODY);
}, 30_000);
afterAll(() => t?.close());

const NOT_AUTHENTICATED = ['Not authenticated', 'This call requires authentication, but you are not logged in', 403];
describe('the request itself', () => {
  test('an unknown action (POSTed or in the query string) — the exact bytes', async () => {
    for (const reply of [
      await api(t.url, { action: 'frobnicate' }),
      await api(t.url, { action: 'frobnicate' }, { method: 'GET' }),
      await api(t.url, { action: 'list_zones_please' }, { bearer: root }),
    ]) {
      expect(reply.status).toBe(400);
      expect(reply.text).toBe(
        '{\n    "error": "Unknown action",\n    "message": "This action is unknown. Please refer to help. Open api.php with no parameters to see help in HTML form.",\n    "code": -1\n}\n',
      );
    }
  });

  test('login and login_token by GET, or POSTed with the action in the query string, are POST only (code 403)', async () => {
    const postOnly = ['POST only', 'This call must be submitted via POST method', 403] as const;
    expectError(await api(t.url, { action: 'login', loginUsername: 'alice' }, { method: 'GET' }), ...postOnly);
    expectError(await api(t.url, { action: 'login_token' }, { method: 'GET' }), ...postOnly);
    // The action in the query string makes the request a GET, whatever the method and the body say.
    expectError(await api(t.url, { token: OPS }, { query: { action: 'login_token' } }), ...postOnly);
    expectError(
      await api(
        t.url,
        { action: 'login', loginUsername: USERS.alice.user, loginPassword: USERS.alice.password },
        { query: { action: 'login' } },
      ),
      ...postOnly,
    );
  });

  test('a newline in any value (body or query string, \\n or \\r)', async () => {
    const newline = ['Newline not allowed', 'Parameter values must not contain newlines for safety reasons'] as const;
    const create = { action: 'create_record', record: 'nl.example.test', ttl: '60', type: 'TXT' };
    expectError(await api(t.url, { ...create, value: 'one\ntwo' }, { bearer: root }), ...newline);
    expectError(await api(t.url, { ...create, value: 'one\rtwo' }, { bearer: root }), ...newline);
    expectError(
      await api(t.url, { action: 'get_zone_for_fqdn', fqdn: 'www.example.test\n' }, { method: 'GET' }),
      ...newline,
    );
    // Even in a parameter no action reads, and before the login check.
    expectError(await api(t.url, { action: 'list_zones', junk: 'a\nb' }), ...newline);
    const seen = await api(t.url, { action: 'get_record', record: 'nl.example.test', type: 'TXT' }, { bearer: root });
    expectOk(seen, []);
  });

  test('actions that need a login refuse anonymous callers (before looking at their parameters)', async () => {
    for (const action of [
      'list_zones',
      'list_records',
      'get_record',
      'create_record',
      'delete_record',
      'replace_record',
      'logout',
    ])
      expectError(await api(t.url, { action }), ...(NOT_AUTHENTICATED as [string, string, number]));
    expectError(
      await api(t.url, {
        action: 'create_record',
        record: 'x.example.test',
        ttl: '1e3',
        type: 'A',
        value: '192.0.2.1',
      }),
      ...(NOT_AUTHENTICATED as [string, string, number]),
    );
  });
});

describe('parameters', () => {
  test('missing or empty required parameters, named in the order the action lists them', async () => {
    const missing = (name: string) => [`Missing parameter: ${name}`, 'This parameter is required'] as const;
    expectError(await api(t.url, { action: 'create_record' }, { bearer: root }), ...missing('record'));
    expectError(
      await api(t.url, { action: 'create_record', record: 'm.example.test', ttl: '60', type: 'A' }, { bearer: root }),
      ...missing('value'),
    );
    expectError(
      await api(
        t.url,
        { action: 'create_record', record: 'm.example.test', ttl: '', type: 'A', value: '192.0.2.1' },
        { bearer: root },
      ),
      ...missing('ttl'),
    );
    expectError(
      await api(
        t.url,
        { action: 'create_record', record: '', ttl: '60', type: 'A', value: '192.0.2.1' },
        { bearer: root },
      ),
      ...missing('record'),
    );
    expectError(
      await api(t.url, { action: 'delete_record', record: 'm.example.test' }, { bearer: root }),
      ...missing('type'),
    );
    expectError(
      await api(t.url, { action: 'replace_record', record: 'm.example.test', type: 'A', ttl: '60' }, { bearer: root }),
      ...missing('new_value'),
    );
    expectError(await api(t.url, { action: 'get_record' }, { bearer: root }), ...missing('record'));
    // No login needed: the parameter is checked at once.
    expectError(await api(t.url, { action: 'get_zone_for_fqdn' }), ...missing('fqdn'));
    expectError(await api(t.url, { action: 'get_zone_for_fqdn', fqdn: '' }, { method: 'GET' }), ...missing('fqdn'));
  });

  test('list_records without a zone, or with an empty one', async () => {
    const noZone = ['No zone', 'You provided no zone name to list records for'] as const;
    expectError(await api(t.url, { action: 'list_records' }, { bearer: root }), ...noZone);
    expectError(await api(t.url, { action: 'list_records', zone: '' }, { bearer: root }), ...noZone);
  });

  test('types: only the editable ones, case-sensitive (create, delete, replace, get_record)', async () => {
    const create = { action: 'create_record', record: 't.example.test', ttl: '60', value: '192.0.2.1' };
    expectError(
      await api(t.url, { ...create, type: 'a' }, { bearer: root }),
      'Invalid type',
      'Type a is not a valid DNS record type',
    );
    expectError(
      await api(t.url, { ...create, type: 'CAA' }, { bearer: root }),
      'Invalid type',
      'Type CAA is not a valid DNS record type',
    );
    expectError(
      await api(t.url, { action: 'delete_record', record: 't.example.test', type: 'HINFO' }, { bearer: root }),
      'Invalid type',
      'Type HINFO is not a valid DNS record type',
    );
    expectError(
      await api(
        t.url,
        { action: 'replace_record', record: 't.example.test', type: 'A', new_type: 'LOC', ttl: '60', new_value: 'x' },
        { bearer: root },
      ),
      'Invalid type',
      'Type LOC is not a valid DNS record type',
    );
    for (const type of ['SOA', 'CAA', 'aaaa'])
      expectError(
        await api(t.url, { action: 'get_record', record: 'example.test', type }, { bearer: root }),
        'Invalid type',
        `Type ${type} is not a valid DNS record type`,
      );
  });

  test.each(['1e3', '60.5', '-5', '2147483648', ' ', 'sixty', '0x10'])(
    'ttl %j is not a TTL (create and replace)',
    async (ttl) => {
      const invalid = ['Invalid ttl', 'TTL must be a number'] as const;
      expectError(
        await api(
          t.url,
          { action: 'create_record', record: 'ttl.example.test', ttl, type: 'A', value: '192.0.2.1' },
          { bearer: root },
        ),
        ...invalid,
      );
      expectError(
        await api(
          t.url,
          { action: 'replace_record', record: 'ttl.example.test', ttl, type: 'A', new_value: '192.0.2.1' },
          { bearer: root },
        ),
        ...invalid,
      );
    },
  );

  test('the largest TTL is taken, and nothing of the refused ones reached the server', async () => {
    const ok = await api(
      t.url,
      { action: 'create_record', record: 'maxttl.example.test', ttl: '2147483647', type: 'A', value: '192.0.2.77' },
      { bearer: root },
    );
    expectOk(ok, { result: 'success' });
    expect((await dig(t.dns, ['maxttl.example.test', 'A'])).answer).toEqual([
      'maxttl.example.test. 2147483647 IN A 192.0.2.77',
    ]);
    expect((await dig(t.dns, ['ttl.example.test', 'A'])).status).toBe('NXDOMAIN');
  });

  test('hostnames: create, delete and replace say "containing invalid characters", get_record names the name', async () => {
    const chars = ['Invalid hostname', 'Hostname is containing invalid characters'] as const;
    for (const record of [
      'bad name.example.test',
      '-lead.example.test',
      '+plus.example.test',
      'semi;colon.example.test',
    ])
      expectError(
        await api(
          t.url,
          { action: 'create_record', record, ttl: '60', type: 'A', value: '192.0.2.1' },
          { bearer: root },
        ),
        ...chars,
      );
    expectError(
      await api(t.url, { action: 'delete_record', record: 'a$b.example.test', type: 'A' }, { bearer: root }),
      ...chars,
    );
    expectError(
      await api(
        t.url,
        { action: 'create_record', zone: 'example.test', record: 'a/b', ttl: '60', type: 'A', value: '192.0.2.1' },
        { bearer: root },
      ),
      ...chars,
    );
    // Our decision: replace_record checks its names as create does (the original did not).
    expectError(
      await api(
        t.url,
        {
          action: 'replace_record',
          record: 'www.example.test',
          type: 'A',
          ttl: '60',
          new_value: '192.0.2.1',
          new_record: 'bad!.example.test',
        },
        { bearer: root },
      ),
      ...chars,
    );
    expectError(
      await api(t.url, { action: 'get_record', record: '-x.example.test' }, { bearer: root }),
      'Invalid hostname',
      'Hostname -x.example.test is not a valid hostname',
    );
    expectError(
      await api(t.url, { action: 'get_record', record: 'a b', zone: 'example.test' }, { bearer: root }),
      'Invalid hostname',
      'Hostname a b is not a valid hostname',
    );
  });
  test('a value no DNS server takes is an ERROR: before anything is sent (never a 500)', async () => {
    const notSent = (why: string) => [`ERROR: update failed: ${why}`, `update failed: ${why}`] as const;
    expectError(
      await api(
        t.url,
        { action: 'create_record', record: 'val.example.test', ttl: '60', type: 'A', value: 'not-an-ip', ptr: 'true' },
        { bearer: ops },
      ),
      ...notSent(
        'A value must be an IPv4 address in dotted-quad form like 192.0.2.1, four numbers 0-255 without leading zeros (got "not-an-ip")',
      ),
    );
    for (const [type, value] of [
      ['AAAA', '192.0.2.1'],
      ['MX', 'mail.example.test.'],
      ['SRV', '1 2'],
      ['TXT', '"unterminated'],
      ['A', '\\# 3 abc'],
    ] as const) {
      const reply = await api(
        t.url,
        { action: 'create_record', record: 'val.example.test', ttl: '60', type, value },
        { bearer: ops },
      );
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({
        error: expect.stringMatching(/^ERROR: update failed: /),
        message: expect.any(String),
        code: -1,
      });
    }
    expectError(
      await api(
        t.url,
        { action: 'delete_record', record: 'www.example.test', type: 'A', value: 'bogus' },
        { bearer: ops },
      ),
      ...notSent(
        'A value must be an IPv4 address in dotted-quad form like 192.0.2.1, four numbers 0-255 without leading zeros (got "bogus")',
      ),
    );
    expect(
      (
        await api(
          t.url,
          { action: 'replace_record', record: 'www.example.test', type: 'A', ttl: '60', new_value: '300.1.1.1' },
          { bearer: ops },
        )
      ).status,
    ).toBe(400);
    expect((await dig(t.dns, ['val.example.test', 'ANY'])).status).toBe('NXDOMAIN');
    expect((await dig(t.dns, ['www.example.test', 'A'])).answer).toEqual(['www.example.test. 3600 IN A 192.0.2.10']);
  });
});

describe('zones and rights', () => {
  test('an unknown zone: named (No such zone: <z>), found from the name, listed', async () => {
    expectError(
      await api(
        t.url,
        { action: 'create_record', zone: 'nope.test', record: 'www', ttl: '60', type: 'A', value: '192.0.2.1' },
        { bearer: root },
      ),
      'No such zone',
      'No such zone: nope.test',
    );
    expectError(
      await api(t.url, { action: 'delete_record', zone: 'nope.test', record: 'www', type: 'A' }, { bearer: root }),
      'No such zone',
      'No such zone: nope.test',
    );
    expectError(
      await api(t.url, { action: 'get_record', zone: 'nope.test', record: 'www' }, { bearer: root }),
      'No such zone',
      'No such zone: nope.test',
    );
    expectError(
      await api(
        t.url,
        { action: 'create_record', record: 'www.nope.test', ttl: '60', type: 'A', value: '192.0.2.1' },
        { bearer: root },
      ),
      'No such zone',
      'Zone for given fqdn was not found',
    );
    expectError(
      await api(t.url, { action: 'get_record', record: 'www.nope.test' }, { bearer: root }),
      'No such zone',
      'Zone for given fqdn was not found',
    );
    expectError(
      await api(t.url, { action: 'get_zone_for_fqdn', fqdn: 'www.nope.test' }),
      'No such zone',
      'Zone for given fqdn was not found',
    );
    // A name that only ends like a zone is not in it.
    expectError(
      await api(t.url, { action: 'get_zone_for_fqdn', fqdn: 'notexample.test' }),
      'No such zone',
      'Zone for given fqdn was not found',
    );
    expectError(
      await api(t.url, { action: 'list_records', zone: 'nope.test' }, { bearer: root }),
      'No such zone',
      'This zone is not in configuration file',
    );
  });

  test('a read-only zone refuses every change, even to root', async () => {
    const readOnly = ['Unable to write: Read-only zone', 'Domain ro.test is not writeable'] as const;
    expectError(
      await api(
        t.url,
        { action: 'create_record', record: 'new.ro.test', ttl: '60', type: 'A', value: '192.0.2.1' },
        { bearer: root },
      ),
      ...readOnly,
    );
    expectError(
      await api(t.url, { action: 'delete_record', record: 'www.ro.test', type: 'A' }, { bearer: root }),
      ...readOnly,
    );
    expectError(
      await api(
        t.url,
        { action: 'replace_record', zone: 'ro.test', record: 'www', type: 'A', ttl: '60', new_value: '192.0.2.2' },
        { bearer: root },
      ),
      ...readOnly,
    );
    expect((await dig(t.dns, ['www.ro.test', 'A'])).answer).toEqual(['www.ro.test. 300 IN A 198.51.100.7']);
    // Reading it is fine.
    expectOk(await api(t.url, { action: 'get_record', record: 'www.ro.test' }, { bearer: root }), [
      ['www.ro.test.', '300', 'IN', 'A', '198.51.100.7'],
    ]);
  });

  test('without rw: "You are not authorized to edit <z>" (a role with only r, a zone outside the roles)', async () => {
    expectError(
      await api(
        t.url,
        { action: 'create_record', record: 'x.other.test', ttl: '60', type: 'A', value: '192.0.2.1' },
        { bearer: ops },
      ),
      'Permission denied',
      'You are not authorized to edit other.test',
    );
    expectError(
      await api(t.url, { action: 'delete_record', record: 'www.example.test', type: 'A' }, { bearer: reader }),
      'Permission denied',
      'You are not authorized to edit example.test',
    );
    expectError(
      await api(
        t.url,
        { action: 'replace_record', record: 'www.example.test', type: 'A', ttl: '60', new_value: '192.0.2.3' },
        { bearer: reader },
      ),
      'Permission denied',
      'You are not authorized to edit example.test',
    );
    expectError(
      await api(
        t.url,
        { action: 'create_record', record: 'x.refused.test', ttl: '60', type: 'A', value: '192.0.2.1' },
        { bearer: nobody },
      ),
      'Permission denied',
      'You are not authorized to edit refused.test',
    );
    expect((await dig(t.dns, ['www.example.test', 'A'])).answer).toEqual(['www.example.test. 3600 IN A 192.0.2.10']);
  });

  test('get_record and list_records without a read right: Permission denied (the original listed [])', async () => {
    const cannot = ['Permission denied', "You don't have access to read data from this zone"] as const;
    expectError(await api(t.url, { action: 'get_record', record: 'www.other.test' }, { bearer: reader }), ...cannot);
    expectError(await api(t.url, { action: 'get_record', record: 'www', zone: 'ro.test' }, { bearer: ops }), ...cannot);
    expectError(await api(t.url, { action: 'get_record', record: 'www.example.test' }, { bearer: nobody }), ...cannot);
    expectError(await api(t.url, { action: 'list_records', zone: 'ro.test' }, { bearer: ops }), ...cannot);
    expectError(await api(t.url, { action: 'list_records', zone: 'example.test' }, { bearer: nobody }), ...cannot);
    // An empty listing stays what it was for a zone the caller may read.
    expect((await api(t.url, { action: 'list_records', zone: 'ro.test' }, { bearer: root })).status).toBe(200);
    // Checks run name → type → zone → right: an invalid type is reported before the missing right.
    expectError(
      await api(t.url, { action: 'get_record', record: 'www.other.test', type: 'SOA' }, { bearer: reader }),
      'Invalid type',
      'Type SOA is not a valid DNS record type',
    );
  });
});

describe('logins and tokens', () => {
  const failed = (reason: string) => ['Login failed', reason, 2, true] as const;

  test('login_token: no token, a token in the URL only, a wrong token, a token that differs loosely', async () => {
    expectError(await api(t.url, { action: 'login_token' }), 'No token', 'You need to provide a token');
    expectError(await api(t.url, { action: 'login_token', token: '' }), 'No token', 'You need to provide a token');
    // Secrets are read from the form body only, never from the URL.
    expectError(
      await api(t.url, { action: 'login_token' }, { query: { token: OPS } }),
      'No token',
      'You need to provide a token',
    );
    expectError(
      await api(t.url, { action: 'login_token', token: 'ops_9f2c1e0b' }),
      ...failed('Invalid username or password'),
    );
    expectError(
      await api(t.url, { action: 'login_token', token: `${OPS} ` }),
      ...failed('Invalid username or password'),
    );
    expectError(
      await api(t.url, { action: 'login_token', token: OPS.toUpperCase() }),
      ...failed('Invalid username or password'),
    );
  });

  test('a wrong token posted with any other action is "Login failed" with code -1 (no result key)', async () => {
    for (const action of ['get_version', 'is_logged', 'list_zones', 'get_zone_for_fqdn'])
      expectError(
        await api(t.url, { action, token: 'wrong_token_1', fqdn: 'www.example.test' }),
        'Login failed',
        'Invalid username or password',
      );
    // The same credential as Bearer: a wrong token, not an anonymous caller.
    expectError(
      await api(t.url, { action: 'list_zones' }, { bearer: 'wrong_token_1' }),
      'Login failed',
      'Invalid username or password',
    );
    // A right token posted with an action logs in on the fly.
    expectOk(await api(t.url, { action: 'is_logged', token: OPS }), { is_logged: true, user: 'ops', role: 'editors' });
  });

  test('login: every reason, code 2, result failure first, no cookie', async () => {
    const login = (loginUsername: string | undefined, loginPassword: string | undefined) =>
      api(t.url, {
        action: 'login',
        ...(loginUsername === undefined ? {} : { loginUsername }),
        ...(loginPassword === undefined ? {} : { loginPassword }),
      });
    const noCredentials = failed('No credentials provided (loginUsername or loginPassword missing)');
    expectError(await login(undefined, undefined), ...noCredentials);
    expectError(await login('alice', undefined), ...noCredentials);
    expectError(await login(undefined, 'alice-password-1'), ...noCredentials);
    expectError(await login('', 'alice-password-1'), ...noCredentials);
    expectError(await login('alice', ''), ...failed('Empty password is not allowed'));
    expectError(await login('alice', 'not-her-password'), ...failed("Invalid password for user 'alice'"));
    expectError(await login('mallory', 'any-password-1'), ...failed('Invalid username or password'));
    const disabled = await login(USERS.bob.user, USERS.bob.password);
    expectError(disabled, ...failed('This user is disabled'));
    expect(disabled.headers.get('set-cookie')).toBeNull();
    // The credentials are read from the form body only.
    expectError(
      await api(t.url, { action: 'login' }, { query: { loginUsername: 'alice', loginPassword: USERS.alice.password } }),
      ...noCredentials,
    );
  });

  test('a session id that was never issued is anonymous: is_logged false, actions Not authenticated', async () => {
    const unknown = '0123456789abcdef0123456789abcdef';
    expectOk(await api(t.url, { action: 'is_logged' }, { bearer: unknown }), { is_logged: false });
    expectOk(await api(t.url, { action: 'is_logged' }, { cookie: unknown }), { is_logged: false });
    expectError(
      await api(t.url, { action: 'list_zones' }, { bearer: unknown }),
      ...(NOT_AUTHENTICATED as [string, string, number]),
    );
  });
});

describe('the DNS servers refusing', () => {
  test('a server that does not let the key update the zone: ERROR: update failed: REFUSED', async () => {
    expectError(
      await api(
        t.url,
        { action: 'create_record', record: 'x.refused.test', ttl: '60', type: 'A', value: '192.0.2.1' },
        { bearer: root },
      ),
      'ERROR: update failed: REFUSED',
      'update failed: REFUSED',
    );
    expect((await dig(t.dns, ['x.refused.test', 'A'])).status).toBe('NXDOMAIN');
  });

  test('a key the server does not know: ERROR: update failed: NOTAUTH (BADKEY)', async () => {
    expectError(
      await api(t.url, { action: 'delete_record', record: 'www.badkey.test', type: 'A' }, { bearer: root }),
      'ERROR: update failed: NOTAUTH (BADKEY)',
      'update failed: NOTAUTH (BADKEY)',
    );
    expectError(
      await api(t.url, { action: 'list_records', zone: 'badkey.test' }, { bearer: root }),
      'ERROR: Unable to retrieve SOA record for badkey.test: NOTAUTH (BADKEY)',
      'Unable to retrieve SOA record for badkey.test: NOTAUTH (BADKEY)',
    );
    expect((await dig(t.dns, ['www.badkey.test', 'A'])).answer).toEqual(['www.badkey.test. 300 IN A 198.51.100.7']);
  });

  test('nothing listening where updates and transfers go: ERROR: saying what happened', async () => {
    const create = await api(
      t.url,
      { action: 'create_record', record: 'x.dead.test', ttl: '60', type: 'A', value: '192.0.2.1' },
      { bearer: root },
    );
    expect(create.status).toBe(400);
    const body = create.body as { error: string; message: string; code: number };
    expect(Object.keys(body)).toEqual(['error', 'message', 'code']);
    expect(body.message).toMatch(/^update failed: 127\.0\.0\.1#\d+ \((UDP|TCP)\): (ECONNREFUSED|.*within 1000 ms.*)$/);
    expect(body).toEqual({ error: `ERROR: ${body.message}`, message: body.message, code: -1 });

    const list = (await api(t.url, { action: 'list_records', zone: 'dead.test' }, { bearer: root })).body as {
      error: string;
      message: string;
    };
    expect(list.message).toMatch(/^Unable to retrieve SOA record for dead\.test: 127\.0\.0\.1#\d+ \(TCP\): /);
    expect(list.error).toBe(`ERROR: ${list.message}`);
    const get = (await api(t.url, { action: 'get_record', record: 'www.dead.test' }, { bearer: root })).body as {
      error: string;
      message: string;
    };
    expect(get.message).toMatch(/^query failed: 127\.0\.0\.1#\d+ /);
  });

  test('a PTR step refused after the main change: ERROR: saying the change was applied, and it is served', async () => {
    const reply = await api(
      t.url,
      {
        action: 'create_record',
        record: 'ptrfail.example.test',
        ttl: '120',
        type: 'A',
        value: '192.0.2.44',
        ptr: 'true',
      },
      { bearer: ops },
    );
    const message = 'the record change was applied, but the PTR update failed: update failed: REFUSED';
    expectError(reply, `ERROR: ${message}`, message);
    expect((await dig(t.dns, ['ptrfail.example.test', 'A'])).answer).toEqual([
      'ptrfail.example.test. 120 IN A 192.0.2.44',
    ]);
    expect((await dig(t.dns, ['44.2.0.192.in-addr.arpa', 'PTR'])).status).toBe('NXDOMAIN');
  });

  test('a PTR zone the caller may not change is refused before anything is sent', async () => {
    const web = await loginToken(t.url, WEB);
    expectError(
      await api(
        t.url,
        { action: 'create_record', record: 'noptr.example.test', ttl: '120', type: 'A', value: '192.0.2.45', ptr: '1' },
        { bearer: web },
      ),
      'Permission denied',
      'You are not authorized to edit 2.0.192.in-addr.arpa',
    );
    expect((await dig(t.dns, ['noptr.example.test', 'A'])).status).toBe('NXDOMAIN');
    // Without ptr the same change goes through.
    expectOk(
      await api(
        t.url,
        { action: 'create_record', record: 'noptr.example.test', ttl: '120', type: 'A', value: '192.0.2.45' },
        { bearer: web },
      ),
      { result: 'success' },
    );
    expect((await dig(t.dns, ['noptr.example.test', 'A'])).answer).toEqual(['noptr.example.test. 120 IN A 192.0.2.45']);
  });
});
