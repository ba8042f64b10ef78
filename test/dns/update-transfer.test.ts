// @needs bind
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { DnsEngine } from '../../dns/engine/engine';
import { openSqliteStore } from '../../dns/store';
import type { ZoneStore } from '../../dns/store/types';
import { parseKeyFile } from '../../dns/tsig/keyfile';
import { dig, requireTool, startNamed } from '../support/dns-peers';

/** Dynamic update with nsupdate and zone transfer with dig, against our server: real peers from BIND 9. */
const run = promisify(execFile);
const SECRET = 'c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MTI=';
const KEYS = parseKeyFile(`key "update-key" { algorithm hmac-sha256; secret "${SECRET}"; };
key "other-key" { algorithm hmac-sha512; secret "${SECRET}"; };`);

let store: ZoneStore;
let engine: DnsEngine;
let server: { host: string; port: number };

beforeAll(async () => {
  requireTool('nsupdate');
  store = await openSqliteStore({ file: ':memory:' });
  await store.createZone(
    'example.test',
    {
      adminEmail: 'hostmaster@example.test',
      primaryNs: 'ns1.example.test',
      refresh: 10800,
      retry: 3600,
      expire: 604800,
      minimum: 300,
      defaultTtl: 3600,
    },
    [
      { name: 'example.test', type: 'NS', ttl: 3600, value: 'ns1.example.test.' },
      { name: 'ns1.example.test', type: 'A', ttl: 3600, value: '192.0.2.53' },
      { name: 'www.example.test', type: 'A', ttl: 300, value: '192.0.2.1' },
      { name: 'old.example.test', type: 'A', ttl: 300, value: '192.0.2.7' },
    ],
  );
  engine = await DnsEngine.start({
    store,
    host: '127.0.0.1',
    port: 0,
    keys: KEYS,
    access: { updateKeys: { 'example.test': ['update-key'] } },
  });
  server = { host: '127.0.0.1', port: engine.server?.port as number };
});
afterAll(async () => {
  await engine.close();
  await store.close();
});

async function nsupdate(
  script: string,
  key = `hmac-sha256:update-key:${SECRET}`,
  to: { host: string; port: number } = server,
): Promise<{ code: number; out: string }> {
  const input = `server ${to.host} ${to.port}\nzone example.test\n${script}\nsend\n`;
  try {
    const child = run('nsupdate', ['-y', key, '-t', '20'], { timeout: 45_000 });
    child.child.stdin?.end(input);
    const { stdout, stderr } = await child;
    return { code: 0, out: stdout + stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

const a = (name: string) => dig(server, [name, 'A']);

test('add, delete and replace in one update; answered at once; serial raised', async () => {
  const before = (await store.getZone('example.test'))?.serial as number;
  const res = await nsupdate(
    [
      'update add new.example.test 600 A 192.0.2.10',
      'update add new.example.test 600 TXT "hello world"',
      'update delete old.example.test A',
      'update delete www.example.test A 192.0.2.1',
      'update add www.example.test 300 A 192.0.2.2',
    ].join('\n'),
  );
  expect(res).toEqual({ code: 0, out: '' });
  expect((await a('new.example.test')).answer).toEqual(['new.example.test. 600 IN A 192.0.2.10']);
  expect((await dig(server, ['new.example.test', 'TXT'])).answer).toEqual([
    'new.example.test. 600 IN TXT "hello world"',
  ]);
  expect((await a('old.example.test')).status).toBe('NXDOMAIN');
  expect((await a('www.example.test')).answer).toEqual(['www.example.test. 300 IN A 192.0.2.2']);
  expect((await store.getZone('example.test'))?.serial).toBeGreaterThan(before);
  const soa = await dig(server, ['example.test', 'SOA']);
  expect(soa.answer[0]).toContain(String((await store.getZone('example.test'))?.serial));
});

test('prerequisites that hold apply the update; ones that fail refuse it with the RFC 2136 rcode and change nothing', async () => {
  expect((await nsupdate('prereq yxdomain www.example.test\nupdate add pre.example.test 60 A 192.0.2.20')).code).toBe(
    0,
  );
  expect((await a('pre.example.test')).answer).toHaveLength(1);
  const serial = (await store.getZone('example.test'))?.serial;
  const cases: Array<[string, RegExp]> = [
    ['prereq nxdomain www.example.test', /YXDOMAIN/],
    ['prereq yxdomain missing.example.test', /NXDOMAIN/],
    ['prereq yxrrset www.example.test MX', /NXRRSET/],
    ['prereq nxrrset www.example.test A', /YXRRSET/],
    ['prereq yxrrset www.example.test A 192.0.2.99', /NXRRSET/],
  ];
  for (const [prereq, rcode] of cases) {
    const res = await nsupdate(`${prereq}\nupdate add never.example.test 60 A 192.0.2.30`);
    expect({ prereq, code: res.code }).toEqual({ prereq, code: 2 });
    expect(res.out).toMatch(rcode);
  }
  expect((await a('never.example.test')).status).toBe('NXDOMAIN');
  expect((await store.getZone('example.test'))?.serial).toBe(serial);
});

test('a wrong secret, an unknown key and a key not allowed for the zone are refused', async () => {
  const badSecret = await nsupdate(
    'update add x.example.test 60 A 192.0.2.40',
    `hmac-sha256:update-key:${Buffer.from('wrong-secret-wrong-secret').toString('base64')}`,
  );
  expect(badSecret.code).not.toBe(0);
  expect(badSecret.out).toMatch(/BADSIG|NOTAUTH|tsig/i);
  const unknown = await nsupdate('update add x.example.test 60 A 192.0.2.40', `hmac-sha256:nobody:${SECRET}`);
  expect(unknown.code).not.toBe(0);
  expect(unknown.out).toMatch(/BADKEY|NOTAUTH|tsig/i);
  const notAllowed = await nsupdate('update add x.example.test 60 A 192.0.2.40', `hmac-sha512:other-key:${SECRET}`);
  expect(notAllowed.code).not.toBe(0);
  expect(notAllowed.out).toMatch(/REFUSED/);
  expect((await a('x.example.test')).status).toBe('NXDOMAIN');
});

test('an update outside the zone is NOTZONE, and an update for a zone we do not serve is NOTAUTH', async () => {
  const outside = await nsupdate('update add host.elsewhere.test 60 A 192.0.2.50');
  expect(outside.out).toMatch(/NOTZONE/);
  const input = `server ${server.host} ${server.port}\nzone other.test\nupdate add a.other.test 60 A 192.0.2.1\nsend\n`;
  const child = run('nsupdate', ['-y', `hmac-sha256:update-key:${SECRET}`, '-t', '5']);
  child.child.stdin?.end(input);
  await expect(child).rejects.toMatchObject({ stderr: expect.stringMatching(/NOTAUTH/) });
});

test('dig axfr transfers the zone from loopback, signed with TSIG too: SOA first and last, every record once', async () => {
  requireTool('dig');
  const { stdout } = await run('dig', [
    '+noall',
    '+answer',
    `@${server.host}`,
    '-p',
    String(server.port),
    'example.test',
    'AXFR',
  ]);
  const lines = stdout
    .trim()
    .split('\n')
    .map((l) => l.replace(/\s+/g, ' '));
  expect(lines[0]).toMatch(/^example\.test\. 3600 IN SOA ns1\.example\.test\. hostmaster\.example\.test\. \d+ /);
  expect(lines.at(-1)).toBe(lines[0]);
  const records = await store.listRecords('example.test');
  expect(lines.length).toBe(records.length + 2);
  expect(lines).toContain('www.example.test. 300 IN A 192.0.2.2');
  const signed = await run('dig', [
    '+noall',
    '+answer',
    '-y',
    `hmac-sha256:update-key:${SECRET}`,
    `@${server.host}`,
    '-p',
    String(server.port),
    'example.test',
    'AXFR',
  ]);
  expect(signed.stdout).not.toMatch(/could not be validated|failed/i);
  expect(
    signed.stdout
      .trim()
      .split('\n')
      .filter((l) => !/TSIG/.test(l)),
  ).toHaveLength(records.length + 2);
});

test('an added owner name takes the case the UPDATE gave it, for its whole RRset, as in BIND', async () => {
  const named = await startNamed(
    [
      {
        name: 'example.test',
        options: 'type primary; allow-update { key update-key; };',
        text: `$ORIGIN example.test.
$TTL 3600
@ IN SOA ns1.example.test. hostmaster.example.test. ( 1 10800 3600 604800 300 )
@ IN NS ns1.example.test.
ns1 IN A 192.0.2.53
`,
      },
    ],
    `key "update-key" { algorithm hmac-sha256; secret "${SECRET}"; };`,
  );
  try {
    const script = [
      'update add MiXed.Example.Test 300 A 192.0.2.30',
      'send',
      'update add MIXED.example.test 300 A 192.0.2.31',
      'update add mixed.example.test 300 TXT "same name, other case"',
    ].join('\n');
    for (const to of [named, server]) expect(await nsupdate(script, undefined, to)).toEqual({ code: 0, out: '' });
    for (const type of ['A', 'TXT']) {
      const [theirs, mine] = await Promise.all([
        dig(named, ['mixed.example.test', type]),
        dig(server, ['mixed.example.test', type]),
      ]);
      expect(mine.answer.sort()).toEqual(theirs.answer.sort());
    }
    // BIND keeps an owner name's case per RRset, and an UPDATE that adds to one gives it its own case
    expect((await dig(server, ['mixed.example.test', 'A'])).answer[0]).toMatch(/^MIXED\.example\.test\. /);
    expect((await dig(server, ['mixed.example.test', 'TXT'])).answer[0]).toMatch(/^mixed\.example\.test\. /);
  } finally {
    await named.stop();
  }
});
