// @needs bind
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { requireTool } from '../support/dns-peers';
import { startSystem, TEST_ADMIN_PASSWORD, type RunningSystem } from '../support/system';
import { call, login } from './api';

/**
 * A zone just created through the API, with nothing else in it, exports a file BIND's named-checkzone accepts: its
 * name servers named inside it (ns1.<zone> by default) come with their addresses — DNS_API_NAMESERVER_ADDRESSES, else
 * the DNS server's own (DNS_HOST) — and with neither, the create is refused, saying what to set.
 */
const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'new-zone-valid-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function withSystem(env: Record<string, string>, fn: (api: string, token: string) => Promise<void>) {
  const sys: RunningSystem = await startSystem({ SEED_DEMO: 'false', ...env });
  try {
    const api = `${sys.url}/api/v1`;
    await fn(api, await login(api, 'admin', TEST_ADMIN_PASSWORD));
  } finally {
    await sys.close();
  }
}

/** named-checkzone on the zone's export: its exit code and what it said. */
async function checkExport(
  api: string,
  token: string,
  zone: string,
): Promise<{ ok: boolean; said: string; text: string }> {
  const exported = await call(api, 'GET', `/zones/${zone}/export`, { token });
  expect(exported.status).toBe(200);
  const file = join(dir, `${zone}.db`);
  writeFileSync(file, exported.text);
  requireTool('named-checkzone');
  try {
    const { stdout, stderr } = await run('named-checkzone', [zone, file], { timeout: 10_000 });
    return { ok: true, said: stdout + stderr, text: exported.text };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    return { ok: false, said: `${e.stdout ?? ''}${e.stderr ?? ''}`, text: exported.text };
  }
}

test('defaults: ns1.<zone> comes with the DNS server address (DNS_HOST), and named-checkzone accepts the export', async () => {
  await withSystem({}, async (api, token) => {
    const zone = 'fresh-default.test';
    expect((await call(api, 'POST', '/zones', { token, body: { name: zone } })).status).toBe(201);
    const checked = await checkExport(api, token, zone);
    expect(checked).toMatchObject({ ok: true, said: expect.stringContaining('OK') });
    expect(checked.text).toMatch(/^ns1\s+IN\s+A\s+127\.0\.0\.1$/m);
  });
}, 60_000);

test('DNS_API_NAMESERVER_ADDRESSES: A and AAAA for the in-zone name server; a name server outside needs none', async () => {
  await withSystem({ DNS_API_NAMESERVER_ADDRESSES: '192.0.2.53,2001:DB8::0053' }, async (api, token) => {
    const zone = 'fresh-addresses.test';
    expect((await call(api, 'POST', '/zones', { token, body: { name: zone } })).status).toBe(201);
    const records = await call<{ records: Array<{ name: string; type: string; value: string }> }>(
      api,
      'GET',
      `/zones/${zone}/records`,
      { token },
    );
    expect(records.body.records.map((r) => `${r.name} ${r.type} ${r.value}`).sort()).toEqual([
      `fresh-addresses.test NS ns1.${zone}.`,
      `ns1.${zone} A 192.0.2.53`,
      `ns1.${zone} AAAA 2001:db8::53`,
    ]);
    expect(await checkExport(api, token, zone)).toMatchObject({ ok: true });
  });
  await withSystem(
    { DNS_API_NAMESERVERS: 'ns1.example.net,ns2.example.net', DNS_HOST: '0.0.0.0' },
    async (api, token) => {
      const zone = 'fresh-outside.test';
      expect((await call(api, 'POST', '/zones', { token, body: { name: zone } })).status).toBe(201);
      const checked = await checkExport(api, token, zone);
      expect(checked).toMatchObject({ ok: true });
      expect(checked.text).not.toMatch(/\sIN\s+AA?A?\s/);
    },
  );
}, 90_000);

test('an in-zone name server with no address to give (DNS_HOST 0.0.0.0, nothing configured): refused, saying what to set', async () => {
  await withSystem({ DNS_HOST: '0.0.0.0' }, async (api, token) => {
    const res = await call<{ error: string; message: string }>(api, 'POST', '/zones', {
      token,
      body: { name: 'fresh-refused.test' },
    });
    expect(res.status).toBe(409);
    expect(res.text).toContain('DNS_API_NAMESERVER_ADDRESSES');
    expect(res.text).toContain('DNS_API_NAMESERVERS');
    expect((await call(api, 'GET', '/zones/fresh-refused.test', { token })).status).toBe(404); // nothing written
  });
}, 60_000);
