// @needs redis
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSystem, type RunningSystem } from '../support/system';

/**
 * Sessions in Redis (REDIS_URL): two gateway replicas share them — a session opened on one works on the other,
 * and a logout on either ends it for both. Without Redis each replica keeps its own (the memory store).
 */
const TOKEN = `ops_${randomBytes(16).toString('hex')}`;
const PREFIX = `test-tool-${randomBytes(4).toString('hex')}:`;

function configFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'tool-cfg-')), 'config.json');
  writeFileSync(file, JSON.stringify({ dnsTool: { tokens: [TOKEN], usersRoles: { [TOKEN]: ['root'] } } }));
  return file;
}

async function action(
  sys: RunningSystem,
  form: Record<string, string>,
  session?: string,
): Promise<Record<string, unknown>> {
  const res = await fetch(`${sys.url}/api.php`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(session ? { authorization: `Bearer ${session}` } : {}),
    },
    body: new URLSearchParams(form).toString(),
  });
  return (await res.json()) as Record<string, unknown>;
}

describe.each([
  ['in Redis', { REDIS_URL: 'redis://127.0.0.1:6379', REDIS_PREFIX: PREFIX }, true],
  ['in memory', {}, false],
])('DNS tool sessions %s', (_label, env: Record<string, string>, shared: boolean) => {
  let a: RunningSystem;
  let b: RunningSystem;
  beforeAll(async () => {
    const CONFIG = configFile();
    a = await startSystem({ ...env, CONFIG });
    b = await startSystem({ ...env, CONFIG });
  }, 60_000);
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  test(shared ? 'a session opened on one replica works on the other' : 'each replica knows only its own', async () => {
    const login = await action(a, { action: 'login_token', token: TOKEN });
    const session = login.session_id as string;
    expect(session).toMatch(/^[0-9a-f]{32}$/);
    expect(await action(a, { action: 'is_logged' }, session)).toEqual({ is_logged: true, user: 'ops', role: 'root' });
    expect(await action(b, { action: 'is_logged' }, session)).toEqual(
      shared ? { is_logged: true, user: 'ops', role: 'root' } : { is_logged: false },
    );
  });

  if (shared)
    test('a logout on one replica ends the session on both', async () => {
      const session = (await action(a, { action: 'login_token', token: TOKEN })).session_id as string;
      expect(await action(b, { action: 'logout' }, session)).toEqual({ result: 'success' });
      expect(await action(a, { action: 'is_logged' }, session)).toEqual({ is_logged: false });
      expect(await action(b, { action: 'list_zones' }, session)).toEqual({
        error: 'Not authenticated',
        message: 'This call requires authentication, but you are not logged in',
        code: 403,
      });
    });
});
