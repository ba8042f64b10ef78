import {
  api,
  expectError,
  expectOk,
  loginToken,
  loginUser,
  OPS,
  READER,
  ROOT,
  startEditorsSystem,
  startToolSystem,
  USERS,
  type ToolSystem,
} from './tool-system';

/**
 * Sessions, tokens and roles of `/api.php` (docs/dns-tool.md, "Sessions, tokens, roles"): logins, the session
 * id as Bearer or cookie, is_logged, logout, idle expiry; and the systems where login is not configured or the API
 * is off.
 */
let t: ToolSystem;

beforeAll(async () => {
  t = await startEditorsSystem({
    sessionIdleS: 60,
    defaultRole: 'readers',
    usersRoles: {
      [OPS]: ['editors'],
      [READER]: ['readers'],
      [ROOT]: ['root'],
      alice: ['editors', 'readers'],
      carol: ['editors'],
    },
  });
}, 30_000);
afterAll(() => t?.close());

const SESSION_ID = /^[0-9a-f]{32}$/;
const NOT_AUTHENTICATED = [
  'Not authenticated',
  'This call requires authentication, but you are not logged in',
  403,
] as const;

describe('logins', () => {
  test('login: result and session id, and the cookie (Path=/, HttpOnly, SameSite=Strict); a new id each time', async () => {
    const a = await api(t.url, { action: 'login', loginUsername: 'alice', loginPassword: USERS.alice.password });
    expect(a.status).toBe(200);
    expect(a.headers.get('content-type')).toMatch(/^application\/json/);
    const id = (a.body as { session_id: string }).session_id;
    expect(id).toMatch(SESSION_ID);
    expect(a.text).toBe(`{\n    "result": "success",\n    "session_id": "${id}"\n}\n`);
    expect(a.headers.get('set-cookie')).toBe(`dnsphpadmin=${id}; Path=/; HttpOnly; SameSite=Strict`);
    const again = await loginUser(t.url, 'alice', USERS.alice.password);
    expect(again).not.toBe(id);
    // Both sessions work.
    for (const s of [id, again])
      expect((await api(t.url, { action: 'is_logged' }, { bearer: s })).body).toMatchObject({ is_logged: true });
  });

  test('login_token: the same body and cookie', async () => {
    const r = await api(t.url, { action: 'login_token', token: OPS });
    const id = (r.body as { session_id: string }).session_id;
    expect(id).toMatch(SESSION_ID);
    expectOk(r, { result: 'success', session_id: id });
    expect(r.headers.get('set-cookie')).toBe(`dnsphpadmin=${id}; Path=/; HttpOnly; SameSite=Strict`);
  });

  test('a login while logged in succeeds with a warning (never a 500)', async () => {
    const first = await loginToken(t.url, OPS);
    const r = await api(t.url, { action: 'login_token', token: READER }, { bearer: first });
    const id = (r.body as { session_id: string }).session_id;
    expectOk(r, {
      result: 'success',
      session_id: id,
      warnings: ['You were already logged in as ops: that login was replaced by this one'],
    });
    expectOk(await api(t.url, { action: 'is_logged' }, { bearer: id }), {
      is_logged: true,
      user: 'reader',
      role: 'readers',
    });
    const byCookie = await api(
      t.url,
      { action: 'login', loginUsername: 'dave', loginPassword: USERS.dave.password },
      { cookie: id },
    );
    expect(byCookie.body).toMatchObject({
      warnings: ['You were already logged in as reader: that login was replaced by this one'],
    });
  });
});

describe('carrying the session', () => {
  test('the cookie alone is enough', async () => {
    const id = await loginToken(t.url, OPS);
    const zones = await api(t.url, { action: 'list_zones' }, { cookie: id, method: 'GET' });
    expect(zones.status).toBe(200);
    expect(Object.keys(zones.body as object)).toEqual(['example.test', 'other.test', '2.0.192.in-addr.arpa']);
  });

  test('the cookie among others; a cookie value that is not our session id is no credential', async () => {
    const id = await loginToken(t.url, OPS);
    expectOk(
      await api(t.url, { action: 'is_logged' }, { headers: { cookie: `lang=en; dnsphpadmin=${id}; theme=dark` } }),
      {
        is_logged: true,
        user: 'ops',
        role: 'editors',
      },
    );
    // A PHP session id the original tool left in the browser: anonymous, not a wrong token.
    const stale = 'k3j4h5g6f7d8s9a0q1w2e3r4t5';
    expectOk(await api(t.url, { action: 'is_logged' }, { cookie: stale }), { is_logged: false });
    expectOk(await api(t.url, { action: 'get_zone_for_fqdn', fqdn: 'www.example.test' }, { cookie: stale }), {
      zone: 'example.test',
    });
    expectError(await api(t.url, { action: 'list_zones' }, { cookie: stale }), ...NOT_AUTHENTICATED);
    // Nor is an API token put into the cookie.
    expectOk(await api(t.url, { action: 'is_logged' }, { cookie: OPS }), { is_logged: false });
  });

  test('Bearer wins over the cookie (even a Bearer that is no session)', async () => {
    const ops = await loginToken(t.url, OPS);
    const root = await loginToken(t.url, ROOT);
    expectOk(await api(t.url, { action: 'is_logged' }, { bearer: ops, cookie: root }), {
      is_logged: true,
      user: 'ops',
      role: 'editors',
    });
    expectOk(await api(t.url, { action: 'is_logged' }, { bearer: root, cookie: ops }), {
      is_logged: true,
      user: 'root',
      role: 'root',
    });
    expectOk(await api(t.url, { action: 'is_logged' }, { bearer: 'ffffffffffffffffffffffffffffffff', cookie: root }), {
      is_logged: false,
    });
  });

  test('the Authorization header and its scheme in any case', async () => {
    const id = await loginToken(t.url, OPS);
    for (const [name, scheme] of [
      ['Authorization', 'Bearer'],
      ['AUTHORIZATION', 'BEARER'],
      ['authorization', 'bearer'],
      ['aUtHoRiZaTiOn', 'bEaReR'],
    ])
      expectOk(await api(t.url, { action: 'is_logged' }, { headers: { [name as string]: `${scheme} ${id}` } }), {
        is_logged: true,
        user: 'ops',
        role: 'editors',
      });
    // Another scheme is no credential at all.
    expectOk(await api(t.url, { action: 'is_logged' }, { headers: { authorization: `Basic ${id}` } }), {
      is_logged: false,
    });
  });

  test('an API token itself as Bearer works without a session', async () => {
    expectOk(await api(t.url, { action: 'is_logged' }, { bearer: OPS }), {
      is_logged: true,
      user: 'ops',
      role: 'editors',
    });
    const zones = await api(t.url, { action: 'list_zones' }, { bearer: READER });
    expect(Object.keys(zones.body as object)).toEqual(['example.test']);
  });
});

describe('is_logged', () => {
  test('anonymous: only is_logged false', async () => {
    expectOk(await api(t.url, { action: 'is_logged' }), { is_logged: false });
    expectOk(await api(t.url, { action: 'is_logged' }, { method: 'GET' }), { is_logged: false });
  });

  test('user, and role only when it comes from the map or the users file (joined with ,)', async () => {
    const is = async (id: string) => (await api(t.url, { action: 'is_logged' }, { bearer: id })).text;
    const text = (v: unknown) => `${JSON.stringify(v, null, 4)}\n`;
    // The map, two roles.
    expect(await is(await loginUser(t.url, 'alice', USERS.alice.password))).toBe(
      text({ is_logged: true, user: 'alice', role: 'editors,readers' }),
    );
    // The file's roles win over the map's for that user.
    expect(await is(await loginUser(t.url, 'carol', USERS.carol.password))).toBe(
      text({ is_logged: true, user: 'carol', role: 'readers' }),
    );
    // Only the default role: no role key.
    expect(await is(await loginUser(t.url, 'dave', USERS.dave.password))).toBe(text({ is_logged: true, user: 'dave' }));
    // A token USER_SECRET shows USER (cut at the last _), never the secret.
    expect(await is(await loginToken(t.url, ROOT))).toBe(text({ is_logged: true, user: 'root', role: 'root' }));
  });

  test('roles decide what a session sees: the default role reads example.test only', async () => {
    const dave = await loginUser(t.url, 'dave', USERS.dave.password);
    expect(Object.keys((await api(t.url, { action: 'list_zones' }, { bearer: dave })).body as object)).toEqual([
      'example.test',
    ]);
    expectError(
      await api(t.url, { action: 'delete_record', record: 'www.example.test', type: 'A' }, { bearer: dave }),
      'Permission denied',
      'You are not authorized to edit example.test',
    );
  });
});

describe('list_zones of configured zones', () => {
  test('every key in the original order, PHP escaping (\\/ and \\u00fc), unset keys left out', async () => {
    const server = `127.0.0.1 ${t.dns.port}`;
    const reply = await api(t.url, { action: 'list_zones' }, { bearer: OPS });
    expectOk(reply, {
      'example.test': {
        domain: 'example.test',
        update_server: server,
        transfer_server: server,
        in_transfer: false,
        note: 'The main zone / ünïcode',
        maintenance_note: 'Moving on Friday',
        read_only: false,
      },
      'other.test': { domain: 'other.test', update_server: server, transfer_server: server, read_only: false },
      '2.0.192.in-addr.arpa': {
        domain: '2.0.192.in-addr.arpa',
        update_server: server,
        transfer_server: server,
        read_only: false,
      },
    });
    expect(reply.text).toContain('        "note": "The main zone \\/ \\u00fcn\\u00efcode",\n');
    const root = await api(t.url, { action: 'list_zones' }, { bearer: ROOT });
    expect((root.body as Record<string, unknown>)['ro.test']).toEqual({
      domain: 'ro.test',
      update_server: server,
      transfer_server: server,
      read_only: true,
    });
    expect(Object.keys(root.body as object)).toEqual([
      'example.test',
      'other.test',
      'ro.test',
      'refused.test',
      'badkey.test',
      'dead.test',
      '2.0.192.in-addr.arpa',
    ]);
  });
});

describe('logout', () => {
  test('ends the session: the id no longer works, by Bearer or cookie', async () => {
    const id = await loginToken(t.url, OPS);
    const out = await api(t.url, { action: 'logout' }, { bearer: id, method: 'GET' });
    expectOk(out, { result: 'success' });
    expect(out.headers.get('set-cookie')).toBe('dnsphpadmin=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0');
    expectOk(await api(t.url, { action: 'is_logged' }, { bearer: id }), { is_logged: false });
    expectOk(await api(t.url, { action: 'is_logged' }, { cookie: id }), { is_logged: false });
    expectError(await api(t.url, { action: 'list_zones' }, { bearer: id }), ...NOT_AUTHENTICATED);
    expectError(await api(t.url, { action: 'logout' }, { bearer: id }), ...NOT_AUTHENTICATED);
  });

  test('a caller by API token has no session to end: logout succeeds, the token keeps working', async () => {
    expectOk(await api(t.url, { action: 'logout' }, { bearer: READER }), { result: 'success' });
    expectOk(await api(t.url, { action: 'is_logged' }, { bearer: READER }), {
      is_logged: true,
      user: 'reader',
      role: 'readers',
    });
  });

  test('ends only that session', async () => {
    const a = await loginToken(t.url, OPS);
    const b = await loginToken(t.url, OPS);
    expectOk(await api(t.url, { action: 'logout' }, { cookie: a }), { result: 'success' });
    expectOk(await api(t.url, { action: 'is_logged' }, { bearer: b }), {
      is_logged: true,
      user: 'ops',
      role: 'editors',
    });
  });
});

describe('idle expiry (dnsTool.sessionIdleS: 60)', () => {
  afterEach(() => jest.restoreAllMocks());

  test('a session slides with each request and ends 60 s after the last one', async () => {
    const id = await loginToken(t.url, OPS);
    const start = Date.now();
    const at = (seconds: number) => jest.spyOn(Date, 'now').mockReturnValue(start + seconds * 1000);
    at(50);
    expectOk(await api(t.url, { action: 'is_logged' }, { bearer: id }), {
      is_logged: true,
      user: 'ops',
      role: 'editors',
    });
    at(100); // 100 s after login, 50 s after the last request
    expect((await api(t.url, { action: 'list_zones' }, { bearer: id })).status).toBe(200);
    at(161); // 61 s after the last request
    expectOk(await api(t.url, { action: 'is_logged' }, { bearer: id }), { is_logged: false });
    at(162);
    expectError(await api(t.url, { action: 'list_zones' }, { cookie: id }), ...NOT_AUTHENTICATED);
  });
});

describe('without password login', () => {
  let plain: ToolSystem;
  beforeAll(async () => {
    plain = await startToolSystem({ dnsTool: { tokens: [ROOT], usersRoles: { [ROOT]: ['root'] } } });
  }, 30_000);
  afterAll(() => plain?.close());

  test('login is "Unsupported authentication mechanism"; tokens still work', async () => {
    expectError(
      await api(plain.url, { action: 'login', loginUsername: 'alice', loginPassword: USERS.alice.password }),
      'Login failed',
      'Unsupported authentication mechanism',
      2,
      true,
    );
    const id = await loginToken(plain.url, ROOT);
    // The tool follows the embedded server's zones: the demo zone.
    expect(Object.keys((await api(plain.url, { action: 'list_zones' }, { bearer: id })).body as object)).toEqual([
      'example.test',
    ]);
  });
});

describe('the API turned off (dnsTool.apiEnabled: false)', () => {
  let off: ToolSystem;
  beforeAll(async () => {
    off = await startToolSystem({ dnsTool: { apiEnabled: false, tokens: [ROOT] } });
  }, 30_000);
  afterAll(() => off?.close());

  test('every request answers the disabled text, 200 text/html', async () => {
    const disabled =
      'API subsystem is disabled, change $g_api_enabled to true in your config.php file to enable this\n';
    for (const reply of [
      await api(off.url, { action: 'get_version' }, { method: 'GET' }),
      await api(off.url, { action: 'login_token', token: ROOT }),
      await api(off.url, {}, { method: 'GET' }),
    ]) {
      expect(reply.status).toBe(200);
      expect(reply.headers.get('content-type')).toMatch(/^text\/html/);
      expect(reply.text).toBe(disabled);
      expect(reply.headers.get('set-cookie')).toBeNull();
    }
  });
});

describe('requests around the actions', () => {
  test('any method runs the action (PHP does), but only POST counts as POST', async () => {
    const put = await fetch(`${t.url}/api.php?action=get_version`, { method: 'PUT' });
    expect(put.status).toBe(200);
    expect(await put.json()).toEqual({ version: expect.any(String) });
    const login = await fetch(`${t.url}/api.php`, {
      method: 'PUT',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'action=login_token&token=x',
    });
    expect(login.status).toBe(400);
    expect(await login.json()).toEqual({
      error: 'POST only',
      message: 'This call must be submitted via POST method',
      code: 403,
    });
  });

  test('a body over the size limit is a 400 in the tool shape, like every other failure', async () => {
    const res = await fetch(`${t.url}/api.php`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `action=get_version&pad=${'x'.repeat(2 * 1024 * 1024)}`,
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: 'Payload Too Large',
      message: expect.stringMatching(/request body exceeds the limit of \d+ bytes \(maxBodyBytes\)/),
      code: -1,
    });
  });

  test('a JWT the tool cannot take (not the DNS API issuer) is anonymous: Not authenticated, not Login failed', async () => {
    const header = Buffer.from('{"alg":"EdDSA","typ":"JWT"}').toString('base64url');
    const claims = Buffer.from('{"name":"mallory","role":"admin","iss":"elsewhere"}').toString('base64url');
    const forged = `${header}.${claims}.${Buffer.from('not a signature').toString('base64url')}`;
    expectError(
      await api(t.url, { action: 'list_zones' }, { bearer: forged }),
      'Not authenticated',
      'This call requires authentication, but you are not logged in',
      403,
    );
    expect((await api(t.url, { action: 'is_logged' }, { bearer: forged })).body).toEqual({ is_logged: false });
  });
});
