// @needs bind
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { DnsClient, rcodeName } from '../../dns/client';
import { DnsEngine } from '../../dns/engine/engine';
import { openSqliteStore } from '../../dns/store';
import type { ZoneStore } from '../../dns/store/types';
import { parseKeySpec } from '../../dns/tsig/keyfile';
import { importZoneFile } from '../../dns/zonefile/zone-files';
import { dig, requireTool, startNamed, type Named } from '../support/dns-peers';

/**
 * Answers larger than any DNS message (6 000 A records at one name take 96 000 bytes even with names compressed;
 * 2 000 take 32 000 compressed, 66 000 in full as this server wrote them before it compressed) are cut to what fits
 * with TC set, as BIND 9 cuts its own, never thrown out of the server; zone
 * transfers of such zones still work, in many messages. Compared with BIND 9 `named` on the same zone.
 */
const run = promisify(execFile);
const SECRET = 'c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MTI=';
const KEY = parseKeySpec(`hmac-sha256:k:${SECRET}`);
const KEYS = [KEY];

/** `count` A records at `owner`: 10.x.y.z, distinct. */
const aRecords = (owner: string, count: number): string =>
  Array.from({ length: count }, (_, i) => `${owner} IN A 10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`).join('\n');

const ZONE = `$TTL 300
@ IN SOA ns1.example.test. hostmaster.example.test. 1 3600 600 86400 60
@ IN NS ns1.example.test.
ns1 IN A 192.0.2.1
www IN A 192.0.2.2
alias IN CNAME huge.example.test.
${aRecords('many', 2000)}
${aRecords('huge', 6000)}
`;

let store: ZoneStore;
let engine: DnsEngine;
let ours: { host: string; port: number };
let named: Named;
const serverErrors: unknown[] = [];

beforeAll(async () => {
  requireTool('dig');
  // records stored before the RRset limit existed (or with it off): the server must still serve them safely
  store = await openSqliteStore({ file: ':memory:', maxRecordsPerRrset: 0 });
  await importZoneFile(store, 'example.test', ZONE);
  engine = await DnsEngine.start({
    store,
    host: '127.0.0.1',
    port: 0,
    keys: KEYS,
    log: {
      info: () => undefined,
      warn: (obj, msg) => {
        if (msg === 'dns server error') serverErrors.push(obj);
      },
    },
  });
  ours = { host: '127.0.0.1', port: engine.server!.port };
  named = await startNamed([{ name: 'example.test', text: ZONE, options: 'type primary; max-records-per-type 0;' }]);
}, 60_000);
afterAll(async () => {
  await named?.stop();
  await engine?.close();
  await store?.close();
});

afterEach(() => {
  expect(serverErrors).toEqual([]);
});

const view = (a: Awaited<ReturnType<typeof dig>>) => ({
  status: a.status,
  flags: a.flags.filter((f) => f !== 'ad').sort(),
  answer: a.answer,
  authority: a.authority,
  additional: a.additional,
});

test.each([
  ['huge.example.test', 'A'],
  ['alias.example.test', 'A'],
])('over TCP with EDNS, %s %s: TC and nothing but the question and OPT, as from BIND 9', async (name, type) => {
  const [mine, theirs] = await Promise.all([
    dig(ours, ['+tcp', '+nocookie', name, type]),
    dig(named, ['+tcp', '+nocookie', name, type]),
  ]);
  expect(view(mine)).toEqual(view(theirs));
  expect(mine.flags).toContain('tc');
  expect(mine.answer).toEqual([]);
});

test('over TCP with EDNS, 2 000 A records at one name: they fit (names compressed), as from BIND 9', async () => {
  const [mine, theirs] = await Promise.all([
    dig(ours, ['+tcp', '+nocookie', 'many.example.test', 'A']),
    dig(named, ['+tcp', '+nocookie', 'many.example.test', 'A']),
  ]);
  const sorted = (a: Awaited<ReturnType<typeof dig>>) => ({ ...view(a), answer: [...a.answer].sort() });
  expect(sorted(mine)).toEqual(sorted(theirs));
  expect(mine.flags).not.toContain('tc');
  expect(mine.answer).toHaveLength(2000);
});

/** dig's plain output (its YAML leaves the header out of a truncated answer without EDNS): status, flags, answers. */
async function plainDig(
  server: { host: string; port: number },
  args: string[],
): Promise<{ status: string; flags: string[]; answer: string[] }> {
  const { stdout } = await run(
    'dig',
    ['+norec', '+time=10', '+tries=2', `@${server.host}`, '-p', String(server.port), ...args],
    { timeout: 60_000, maxBuffer: 16 * 1024 * 1024 },
  );
  return {
    status: /status: (\w+)/.exec(stdout)?.[1] ?? '(none)',
    flags: (/;; flags: ([a-z ]*);/.exec(stdout)?.[1] ?? '').split(' ').filter(Boolean),
    answer: stdout
      .split('\n')
      .filter((l) => l && !l.startsWith(';'))
      .map((l) => l.replace(/\s+/g, ' ').trim()),
  };
}

test.each([
  ['huge.example.test', 'A', 'huge.example.test. 300 IN A'],
  ['alias.example.test', 'A', 'alias.example.test. 300 IN CNAME huge.example.test.'],
])(
  'over TCP without EDNS, %s %s: TC and the records that fit, as many as from BIND 9 (names compressed)',
  async (name, type, first) => {
    const [mine, theirs] = await Promise.all([
      plainDig(ours, ['+tcp', '+noedns', name, type]),
      plainDig(named, ['+tcp', '+noedns', name, type]),
    ]);
    for (const answer of [mine, theirs]) {
      expect({ status: answer.status, flags: answer.flags.filter((f) => f !== 'ad').sort() }).toEqual({
        status: 'NOERROR',
        flags: ['aa', 'qr', 'tc'],
      });
      expect(answer.answer[0]).toMatch(new RegExp(`^${first}`));
      expect(answer.answer.length).toBeGreaterThan(1000);
      expect(answer.answer.length).toBeLessThan(6000);
    }
    expect(mine.answer.length).toBe(theirs.answer.length);
    // every record sent is one of the zone's
    const all = new Set(
      ZONE.split('\n')
        .filter((l) => l.startsWith('huge '))
        .map((l) => `huge.example.test. 300 IN A ${l.split(' ').pop()}`),
    );
    expect(mine.answer.slice(name === 'alias.example.test' ? 1 : 0).every((l) => all.has(l))).toBe(true);
  },
);

test("the issue's case: 6 000 A records at one name over TCP and UDP, then the server still answers", async () => {
  // the full answer is ~96 000 bytes compressed: before, framing it threw a RangeError out of the server
  const tcp = await dig(ours, ['+tcp', 'huge.example.test', 'A']);
  expect({
    status: tcp.status,
    tc: tcp.flags.includes('tc'),
    aa: tcp.flags.includes('aa'),
    answers: tcp.answer.length,
  }).toEqual({
    status: 'NOERROR',
    tc: true,
    aa: true,
    answers: 0,
  });
  const udp = await dig(ours, ['+ignore', '+bufsize=1232', 'huge.example.test', 'A']);
  expect({ status: udp.status, tc: udp.flags.includes('tc'), answers: udp.answer.length }).toEqual({
    status: 'NOERROR',
    tc: true,
    answers: 0,
  });
  // the same again (from the answer cache) and a normal query, over both transports
  expect((await dig(ours, ['+tcp', 'huge.example.test', 'A'])).flags).toContain('tc');
  expect((await dig(ours, ['+tcp', 'www.example.test', 'A'])).answer).toEqual(['www.example.test. 300 IN A 192.0.2.2']);
  expect((await dig(ours, ['www.example.test', 'A'])).answer).toEqual(['www.example.test. 300 IN A 192.0.2.2']);
});

test('a TSIG-signed query of a too-large RRset: cut with room for the signature, which verifies', async () => {
  // over TCP and without EDNS (dig would retry or hide the details): the records that fit, TC, and the TSIG. The
  // client resolves only when the answer carries a TSIG that verifies against the query's MAC.
  const client = new DnsClient({ server: ours, key: KEY });
  const response = await client.query('huge.example.test', 'A', { tcp: true, edns: false });
  expect(response.raw.length).toBeLessThanOrEqual(65_535);
  expect(response.message.flag_tc).toBe(true);
  expect(rcodeName(response.rcode)).toBe('NOERROR');
  // 2 000 records fit compressed, with the signature
  const many = await client.query('many.example.test', 'A', { tcp: true, edns: false });
  expect(many.message.flag_tc).toBe(false);
  expect(many.answers).toHaveLength(2000);
});

test('AXFR of the zone still works: every record, in many messages, as from BIND', async () => {
  const axfr = async (server: { host: string; port: number }) => {
    const { stdout } = await run(
      'dig',
      ['+nocmd', '+nostats', '+onesoa', `@${server.host}`, '-p', String(server.port), 'example.test', 'AXFR'],
      { timeout: 30_000, maxBuffer: 64 * 1024 * 1024 },
    );
    return stdout
      .split('\n')
      .filter((l) => l && !l.startsWith(';'))
      .map((l) => l.replace(/\s+/g, ' ').trim())
      .sort();
  };
  const [mine, theirs] = await Promise.all([axfr(ours), axfr(named)]);
  expect(mine.length).toBe(2000 + 6000 + 5);
  // the same records; the SOA serial is the store's own (YYYYMMDDnn), not the master file's
  const notSoa = (lines: string[]) => lines.filter((l) => !l.includes(' SOA '));
  expect(notSoa(mine)).toEqual(notSoa(theirs));
  const { stdout } = await run(
    'dig',
    ['+noall', '+stats', `@${ours.host}`, '-p', String(ours.port), 'example.test', 'AXFR'],
    { timeout: 30_000, maxBuffer: 64 * 1024 * 1024 },
  );
  const messages = Number(/XFR size: \d+ records \(messages (\d+)/.exec(stdout)?.[1]);
  expect(messages).toBeGreaterThan(1);
});
