/**
 * Guessing at /api.php is no longer free: `login` (file login), `login_token` and a token sent as the credential of
 * any action are throttled like the DNS API's login — per name or token USER part and address, per address — and
 * answered as the original answers a failed login, saying how long to wait. Other addresses are never locked out.
 */
import { api, loginToken, OPS, ROOT, startEditorsSystem, USERS, type ToolReply, type ToolSystem } from './tool-system';

let t: ToolSystem;
beforeAll(async () => {
  // 3 failures per name and address, 8 per address: small, so the tests stay short.
  t = await startEditorsSystem({}, { DNS_API_LOGIN_FAILURES_PER_USER: '3', DNS_API_LOGIN_FAILURES_PER_ADDRESS: '8' });
}, 60_000);
afterAll(() => t?.close());

const THROTTLED =
  /^Too many failed logins (for this username from this address|from this address); try again in \d+ seconds$/;

function expectThrottled(reply: ToolReply): void {
  expect(reply.status).toBe(400);
  const body = reply.body as { result?: string; error?: string; message?: string; code?: number };
  expect(body).toMatchObject({ result: 'failure', error: 'Login failed', code: 2 });
  expect(body.message).toMatch(THROTTLED);
}

const fileLogin = (password: string, from: string) =>
  api(t.url, { action: 'login', loginUsername: USERS.alice.user, loginPassword: password }, { from });

test('file login: after 3 wrong passwords from an address, the right one from there is refused; elsewhere it works', async () => {
  for (let i = 0; i < 3; i++) {
    const wrong = await fileLogin(`wrong-password-${i}`, '127.0.0.2');
    expect(wrong.body).toMatchObject({ result: 'failure', message: "Invalid password for user 'alice'" });
  }
  expectThrottled(await fileLogin(USERS.alice.password, '127.0.0.2'));
  const elsewhere = await fileLogin(USERS.alice.password, '127.0.0.3');
  expect(elsewhere.body).toMatchObject({ result: 'success' });
});

test('login_token: guesses of one token are refused after 3; the right token of another user still logs in from there', async () => {
  for (let i = 0; i < 3; i++) {
    const wrong = await api(t.url, { action: 'login_token', token: `weak_${1000 + i}` }, { from: '127.0.0.4' });
    expect(wrong.body).toMatchObject({ result: 'failure', message: 'Invalid username or password' });
  }
  expectThrottled(await api(t.url, { action: 'login_token', token: 'weak_1234' }, { from: '127.0.0.4' }));
  const right = await api(t.url, { action: 'login_token', token: OPS }, { from: '127.0.0.4' });
  expect(right.body).toMatchObject({ result: 'success' });
});

test('a token sent as the credential of any action is a guess too (Bearer or posted token)', async () => {
  for (let i = 0; i < 3; i++) {
    const wrong = await api(t.url, { action: 'is_logged' }, { bearer: `probe_${i}0000000`, from: '127.0.0.5' });
    expect(wrong.body).toMatchObject({ error: 'Login failed', message: 'Invalid username or password' });
  }
  expectThrottled(await api(t.url, { action: 'list_zones', token: 'probe_77777777' }, { from: '127.0.0.5' }));
  // A caller with the right token is not held up by somebody else's guesses.
  const rightful = await api(t.url, { action: 'is_logged' }, { bearer: ROOT, from: '127.0.0.6' });
  expect(rightful.body).toMatchObject({ is_logged: true });
});

test('8 failures from one address (any names): every login from it is refused; another address logs in', async () => {
  for (let i = 0; i < 8; i++) {
    const wrong = await api(t.url, { action: 'login_token', token: `spray${i}_12345678` }, { from: '127.0.0.7' });
    expect(wrong.body).toMatchObject({ result: 'failure' });
  }
  const refused = await api(t.url, { action: 'login_token', token: OPS }, { from: '127.0.0.7' });
  expectThrottled(refused);
  expect((refused.body as { message: string }).message).toMatch(/from this address/);
  expect(await loginToken(t.url, OPS)).toMatch(/^[0-9a-f]{32}$/);
});
