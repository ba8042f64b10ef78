import { api, expectError, expectOk, loginToken, OPS, startEditorsSystem, type ToolSystem } from './tool-system';

/**
 * Cross-site requests (docs/dns-tool.md): the `dnsphpadmin` cookie alone must not carry a change from another
 * origin. A link on any page (a top-level GET: SameSite=Lax sent the cookie), a form POSTed from another port of the
 * same host (same-site, so the cookie went along) and a login form planting the attacker's session are refused;
 * scripts (no Origin, no Sec-Fetch-Site), Bearer and posted-token callers, and the tool's own origin keep working.
 */
let t: ToolSystem;

beforeAll(async () => {
  t = await startEditorsSystem();
}, 30_000);
afterAll(() => t?.close());

const REFUSED = 'Cross-site request refused';
const FROM_ELSEWHERE =
  "The session cookie alone does not carry a request from another origin: send the session id as Authorization: Bearer <session_id>, or POST from the tool's own origin";
const COOKIE_OVER_GET =
  "This call changes state: with only the session cookie it must be POSTed from the tool's own origin; or send the session id as Authorization: Bearer <session_id>";
const LOGIN_FROM_ELSEWHERE =
  "A login from another origin is refused (it would set the session cookie there): log in from the tool's own origin, or without a browser";

/** Headers a browser sends on a top-level navigation from another site (a link): no Origin on a GET. */
const LINK_FROM_ANOTHER_SITE = {
  'sec-fetch-site': 'cross-site',
  'sec-fetch-mode': 'navigate',
  'sec-fetch-dest': 'document',
};

/** The browser's headers for a form POSTed from another port of the same host: same-site, another origin. */
function formFromAnotherPort(): Record<string, string> {
  const other = new URL(t.url);
  other.port = String(Number(other.port) + 1);
  return { origin: other.origin, 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'navigate' };
}

/** The A records at a name, read with the ops token (never by cookie). */
async function aRecords(name: string): Promise<unknown> {
  return (await api(t.url, { action: 'get_record', record: name, type: 'A' }, { bearer: OPS })).body;
}

const create = (name: string, value = '192.0.2.66') => ({
  action: 'create_record',
  record: name,
  ttl: '300',
  type: 'A',
  value,
});

describe('attacks: the cookie alone from another origin changes nothing', () => {
  test('a link (GET create_record, delete_record, replace_record) with only the cookie is refused', async () => {
    const session = await loginToken(t.url, OPS);
    const link = { method: 'GET' as const, cookie: session, headers: LINK_FROM_ANOTHER_SITE };
    expectError(await api(t.url, create('link.example.test'), link), REFUSED, COOKIE_OVER_GET, 403);
    expect(await aRecords('link.example.test')).toEqual([]);

    expectOk(await api(t.url, create('kept.example.test', '192.0.2.67'), { bearer: OPS }), { result: 'success' });
    const remove = { action: 'delete_record', record: 'kept.example.test', type: 'A', value: '192.0.2.67' };
    expectError(await api(t.url, remove, link), REFUSED, COOKIE_OVER_GET, 403);
    const replace = { ...remove, action: 'replace_record', ttl: '300', new_value: '192.0.2.68' };
    expectError(await api(t.url, replace, link), REFUSED, COOKIE_OVER_GET, 403);
    expect(await aRecords('kept.example.test')).toEqual([['kept.example.test.', '300', 'IN', 'A', '192.0.2.67']]);
  });

  test('GET with only the cookie is refused for changes even without browser headers (an <img>, a prefetch)', async () => {
    const session = await loginToken(t.url, OPS);
    expectError(
      await api(t.url, create('img.example.test'), { method: 'GET', cookie: session }),
      REFUSED,
      COOKIE_OVER_GET,
      403,
    );
    expect(await aRecords('img.example.test')).toEqual([]);
    // logout over GET by cookie alone: a link must not end a session either.
    expectError(
      await api(t.url, { action: 'logout' }, { method: 'GET', cookie: session }),
      REFUSED,
      COOKIE_OVER_GET,
      403,
    );
    expectOk(await api(t.url, { action: 'is_logged' }, { bearer: session }), {
      is_logged: true,
      user: 'ops',
      role: 'editors',
    });
  });

  test('a form POSTed from another port of the same host (same-site, cross-origin) is refused', async () => {
    const session = await loginToken(t.url, OPS);
    const reply = await api(t.url, create('port.example.test'), { cookie: session, headers: formFromAnotherPort() });
    expectError(reply, REFUSED, FROM_ELSEWHERE, 403);
    expect(await aRecords('port.example.test')).toEqual([]);
  });

  test.each<[string, string, (own: URL) => Record<string, string>]>([
    ['a foreign Origin alone (a browser without Sec-Fetch-*)', 'foreign', () => ({ origin: 'http://evil.example' })],
    ['Origin: null (a sandboxed frame, a data: page)', 'null', () => ({ origin: 'null' })],
    ['the same host under another scheme', 'scheme', (own) => ({ origin: `https://${own.host}` })],
    ['Sec-Fetch-Site: cross-site alone', 'cross', () => ({ 'sec-fetch-site': 'cross-site' })],
    ['Sec-Fetch-Site: same-site alone', 'sibling', () => ({ 'sec-fetch-site': 'same-site' })],
    [
      'Sec-Fetch-Site: cross-site with our own Origin',
      'mixed',
      (own) => ({ origin: own.origin, 'sec-fetch-site': 'cross-site' }),
    ],
  ])('%s: refused for changes and reads', async (_label, label, headersOf) => {
    const headers = headersOf(new URL(t.url));
    const session = await loginToken(t.url, OPS);
    const name = `${label}.example.test`;
    expectError(await api(t.url, create(name), { cookie: session, headers }), REFUSED, FROM_ELSEWHERE, 403);
    expectError(await api(t.url, { action: 'list_zones' }, { cookie: session, headers }), REFUSED, FROM_ELSEWHERE, 403);
    expect(await aRecords(name)).toEqual([]);
  });

  test('login CSRF: a login form from another origin neither logs in nor sets the cookie', async () => {
    for (const headers of [
      { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' },
      { origin: 'http://evil.example' },
      { 'sec-fetch-site': 'cross-site' },
      formFromAnotherPort(),
    ]) {
      const reply = await api(t.url, { action: 'login_token', token: OPS }, { headers });
      expectError(reply, REFUSED, LOGIN_FROM_ELSEWHERE, 403);
      expect(reply.headers.get('set-cookie')).toBeNull();
    }
    const password = await api(
      t.url,
      { action: 'login', loginUsername: 'alice', loginPassword: 'alice-password-1' },
      { headers: { origin: 'null' } },
    );
    expectError(password, REFUSED, LOGIN_FROM_ELSEWHERE, 403);
    expect(password.headers.get('set-cookie')).toBeNull();
  });
});

describe('the session cookie', () => {
  test('SameSite=Strict, Path=/, HttpOnly; no Secure over plain http (curl -c/-b over http keeps it)', async () => {
    const reply = await api(t.url, { action: 'login_token', token: OPS });
    const id = (reply.body as { session_id: string }).session_id;
    expect(reply.headers.get('set-cookie')).toBe(`dnsphpadmin=${id}; Path=/; HttpOnly; SameSite=Strict`);
    const out = await api(t.url, { action: 'logout' }, { cookie: id });
    expect(out.headers.get('set-cookie')).toBe('dnsphpadmin=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0');
  });

  test('Secure when the request came over HTTPS to the proxy in front (X-Forwarded-Proto: https)', async () => {
    const reply = await api(
      t.url,
      { action: 'login_token', token: OPS },
      { headers: { 'x-forwarded-proto': 'https' } },
    );
    const id = (reply.body as { session_id: string }).session_id;
    expect(reply.headers.get('set-cookie')).toBe(`dnsphpadmin=${id}; Path=/; HttpOnly; SameSite=Strict; Secure`);
  });
});

describe('real clients keep working', () => {
  test('an Ansible-style script: form POSTs with the cookie and no browser headers create, replace, delete', async () => {
    const session = await loginToken(t.url, OPS);
    const jar = { cookie: session };
    expectOk(await api(t.url, create('ansible.example.test', '192.0.2.70'), jar), { result: 'success' });
    const replace = {
      action: 'replace_record',
      record: 'ansible.example.test',
      type: 'A',
      ttl: '300',
      value: '192.0.2.70',
      new_value: '192.0.2.71',
    };
    expectOk(await api(t.url, replace, jar), { result: 'success' });
    expect(await aRecords('ansible.example.test')).toEqual([['ansible.example.test.', '300', 'IN', 'A', '192.0.2.71']]);
    const remove = { action: 'delete_record', record: 'ansible.example.test', type: 'A', value: '192.0.2.71' };
    expectOk(await api(t.url, remove, jar), { result: 'success' });
    expect(await aRecords('ansible.example.test')).toEqual([]);
    expectOk(await api(t.url, { action: 'logout' }, jar), { result: 'success' });
  });

  test('curl -b over GET reads with the cookie (no browser headers)', async () => {
    const session = await loginToken(t.url, OPS);
    const zones = await api(t.url, { action: 'list_zones' }, { method: 'GET', cookie: session });
    expect(zones.status).toBe(200);
    expectOk(await api(t.url, { action: 'is_logged' }, { method: 'GET', cookie: session }), {
      is_logged: true,
      user: 'ops',
      role: 'editors',
    });
  });

  test("the tool's own origin: a browser POST with the cookie (Origin and Sec-Fetch-Site same-origin)", async () => {
    const login = await api(
      t.url,
      { action: 'login_token', token: OPS },
      { headers: { origin: new URL(t.url).origin, 'sec-fetch-site': 'same-origin' } },
    );
    const session = (login.body as { session_id: string }).session_id;
    const own = { origin: new URL(t.url).origin, 'sec-fetch-site': 'same-origin' };
    expectOk(await api(t.url, create('own.example.test'), { cookie: session, headers: own }), { result: 'success' });
    // A read the user opens by typing the URL (Sec-Fetch-Site: none) carries the cookie.
    const typed = { 'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate' };
    expect(
      (await api(t.url, { action: 'list_zones' }, { method: 'GET', cookie: session, headers: typed })).status,
    ).toBe(200);
  });

  test('behind an HTTPS proxy (X-Forwarded-Proto: https): https://<host> is the own origin, http://<host> is not', async () => {
    const session = await loginToken(t.url, OPS);
    const proxied = { 'x-forwarded-proto': 'https' };
    const own = { ...proxied, origin: `https://${new URL(t.url).host}`, 'sec-fetch-site': 'same-origin' };
    expectOk(await api(t.url, create('proxied.example.test'), { cookie: session, headers: own }), {
      result: 'success',
    });
    expectError(
      await api(t.url, create('plain.example.test'), { cookie: session, headers: { ...proxied, origin: t.url } }),
      REFUSED,
      FROM_ELSEWHERE,
      403,
    );
  });

  test('Bearer callers from anywhere, GET included: the cookie is not what carries them', async () => {
    const session = await loginToken(t.url, OPS);
    const foreign = { ...LINK_FROM_ANOTHER_SITE, origin: 'http://app.example' };
    expectOk(await api(t.url, create('bearer.example.test'), { method: 'GET', bearer: session, headers: foreign }), {
      result: 'success',
    });
    // Bearer wins over a cookie sent along.
    const other = await loginToken(t.url, OPS);
    expectOk(
      await api(t.url, create('both.example.test'), { bearer: session, cookie: other, headers: formFromAnotherPort() }),
      { result: 'success' },
    );
    expectOk(await api(t.url, { action: 'logout' }, { method: 'GET', bearer: session }), { result: 'success' });
  });

  test('a curl one-liner posting token= with any action, from anywhere', async () => {
    const foreign = { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' };
    expectOk(await api(t.url, { ...create('token.example.test'), token: OPS }, { headers: foreign }), {
      result: 'success',
    });
    expect(await aRecords('token.example.test')).toEqual([['token.example.test.', '300', 'IN', 'A', '192.0.2.66']]);
  });

  test('anonymous reads from other origins are untouched (no cookie: nothing to refuse)', async () => {
    const foreign = { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' };
    expectOk(await api(t.url, { action: 'get_zone_for_fqdn', fqdn: 'www.example.test' }, { headers: foreign }), {
      zone: 'example.test',
    });
  });
});
