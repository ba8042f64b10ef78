// @needs bind
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { DnsClient, rcodeName } from '../../dns/client';
import { DnsEngine } from '../../dns/engine/engine';
import { openSqliteStore } from '../../dns/store';
import type { ZoneStore } from '../../dns/store/types';
import { parseKeyFile } from '../../dns/tsig/keyfile';
import { exportZoneFile, importZoneFile } from '../../dns/zonefile/zone-files';
import { requireTool, startNamed, type Named } from '../support/dns-peers';

/**
 * IXFR and AXFR policy of our server, with BIND's `dig` as the client and BIND 9 `named` (serving the same zone, same
 * serial, no journal) as the reference: IXFR from an older serial falls back to a full AXFR-style answer, IXFR from
 * the current (or a newer) serial is our SOA alone, transfers over UDP are refused, and with
 * `transferFromLoopback: false` only a key allowed for the zone gets it. The zone needs several messages, so TSIG
 * signing of a multi-message transfer is checked by dig as well.
 */
const run = promisify(execFile);
const SECRET = 'aXhmci10ZXN0LXNlY3JldC1peGZyLXRlc3Qtc2VjcmV0';
const KEYS = parseKeyFile(`key "xfr-key" { algorithm hmac-sha256; secret "${SECRET}"; };
key "other-key" { algorithm hmac-sha256; secret "${SECRET}"; };`);
const HOSTS = 250; // > 2 × 100 records per message: three messages
const ZONE_TEXT = `$ORIGIN ixfr.test.
$TTL 3600
@ IN SOA ns1.ixfr.test. hostmaster.ixfr.test. 1 7200 900 1209600 300
@ IN NS ns1.ixfr.test.
ns1 IN A 192.0.2.1
${Array.from({ length: HOSTS }, (_, i) => `h${i} IN A 10.0.${i >> 8}.${i & 255}`).join('\n')}
`;

let store: ZoneStore;
let open: DnsEngine; // unsigned transfers from loopback allowed (the default)
let closed: DnsEngine; // transferFromLoopback: false
let named: Named;
let oldSerial: number;
let serial: number;
const at = (engine: DnsEngine) => ({ host: '127.0.0.1', port: engine.server?.port as number });

beforeAll(async () => {
  requireTool('dig');
  store = await openSqliteStore({ file: ':memory:' });
  oldSerial = (await importZoneFile(store, 'ixfr.test', ZONE_TEXT)).serial;
  serial = (
    await store.change('ixfr.test', [
      { op: 'add', record: { name: 'added.ixfr.test', type: 'TXT', ttl: 60, value: '"after the old serial"' } },
      { op: 'deleteMatching', name: 'h7.ixfr.test' },
    ])
  ).zone.serial;
  const access = { transferKeys: { 'ixfr.test': ['xfr-key'] } };
  open = await DnsEngine.start({ store, host: '127.0.0.1', port: 0, keys: KEYS, access });
  closed = await DnsEngine.start({
    store,
    host: '127.0.0.1',
    port: 0,
    keys: KEYS,
    access: { ...access, transferFromLoopback: false },
  });
  // BIND serves the zone as it is now, with our serial, and has no journal: it cannot answer incrementally either
  named = await startNamed([
    {
      name: 'ixfr.test',
      text: await exportZoneFile(store, 'ixfr.test'),
      options: 'type primary; allow-transfer { 127.0.0.1; };',
    },
  ]);
}, 30_000);
afterAll(async () => {
  await open?.close();
  await closed?.close();
  await store?.close();
  await named?.stop();
});

interface Xfr {
  lines: string[];
  messages: number;
  failed: boolean;
  out: string;
}

/** A transfer with dig: the records (normalised lines), how many messages, whether dig saw it fail. */
async function xfr(server: { host: string; port: number }, args: string[]): Promise<Xfr> {
  let out: string;
  try {
    out = (
      await run(
        'dig',
        [
          '+norec',
          '+time=3',
          '+tries=1',
          '+nocmd',
          '+noquestion',
          '+stats',
          `@${server.host}`,
          '-p',
          String(server.port),
          ...args,
        ],
        { timeout: 15_000 },
      )
    ).stdout;
  } catch (err) {
    out = `${(err as { stdout?: string }).stdout ?? ''}${(err as { stderr?: string }).stderr ?? ''} FAILED`;
  }
  const lines = out
    .split('\n')
    .map((l) => l.replace(/\s+/g, ' ').trim())
    .filter((l) => l && !l.startsWith(';') && !/ TSIG /.test(l));
  const messages = Number(/XFR size: \d+ records \(messages (\d+)/.exec(out)?.[1] ?? 0);
  const comments = out
    .split('\n')
    .filter((l) => l.startsWith(';') || l.includes('FAILED'))
    .join('\n');
  return {
    lines,
    messages,
    failed: /Transfer failed|FAILED|tsig|couldn't|refused|timed out|error/i.test(comments),
    out,
  };
}

const soaLine = (s: number) =>
  new RegExp(`^ixfr\\.test\\. 3600 IN SOA ns1\\.ixfr\\.test\\. hostmaster\\.ixfr\\.test\\. ${s} 7200 900 1209600 300$`);

test(`dig ixfr=<old serial> gets the whole zone AXFR-style: SOA, every record once, SOA — like BIND without a journal`, async () => {
  const [mine, theirs, axfr] = await Promise.all([
    xfr(at(open), ['ixfr.test', `IXFR=${oldSerial}`]),
    xfr(named, ['ixfr.test', `IXFR=${oldSerial}`]),
    xfr(at(open), ['ixfr.test', 'AXFR']),
  ]);
  expect(mine.failed).toBe(false);
  expect(mine.lines[0]).toMatch(soaLine(serial));
  expect(mine.lines.at(-1)).toBe(mine.lines[0]);
  expect(mine.lines.filter((l) => / SOA /.test(l))).toHaveLength(2); // AXFR-style, not a sequence of differences
  expect(mine.lines).toHaveLength((await store.listRecords('ixfr.test')).length + 2);
  expect(mine.lines).toContain('added.ixfr.test. 60 IN TXT "after the old serial"');
  expect(mine.lines.some((l) => l.startsWith('h7.ixfr.test.'))).toBe(false);
  expect(mine.messages).toBeGreaterThanOrEqual(3);
  expect([...mine.lines].sort()).toEqual([...axfr.lines].sort());
  expect(theirs.lines[0]).toBe(mine.lines[0]);
  expect([...mine.lines].sort()).toEqual([...theirs.lines].sort());
});

test.each([
  ['the current serial', 0],
  ['a newer serial', 5],
  ['the newest serial RFC 1982 allows (ours + 2^31 − 1)', 0x7fffffff],
])('dig ixfr=<%s> gets our SOA alone, as from BIND', async (_label, delta) => {
  const asked = (serial + delta) % 2 ** 32;
  const [mine, theirs] = await Promise.all([
    xfr(at(open), ['ixfr.test', `IXFR=${asked}`]),
    xfr(named, ['ixfr.test', `IXFR=${asked}`]),
  ]);
  expect(mine.lines).toHaveLength(1);
  expect(mine.lines[0]).toMatch(soaLine(serial));
  expect(mine.lines).toEqual(theirs.lines);
});

test.each([
  ['one below ours', -1],
  ['numerically above ours but older in RFC 1982 arithmetic (ours + 2^31 + 1)', 0x80000001],
])('dig ixfr=<a serial %s> still gets the whole zone, as from BIND', async (_label, delta) => {
  const asked = (serial + delta) % 2 ** 32;
  const [mine, theirs] = await Promise.all([
    xfr(at(open), ['ixfr.test', `IXFR=${asked}`]),
    xfr(named, ['ixfr.test', `IXFR=${asked}`]),
  ]);
  expect(mine.lines).toHaveLength((await store.listRecords('ixfr.test')).length + 2);
  expect([...mine.lines].sort()).toEqual([...theirs.lines].sort());
});

test('AXFR over UDP is FORMERR with no records (RFC 5936 §4.2: TCP only), as BIND answers it', async () => {
  const client = new DnsClient({ server: at(open), timeoutMs: 2000 });
  const res = await client.query('ixfr.test', 'AXFR'); // over UDP (the client retries over TCP only on TC)
  expect(res.message.type).toBe('response');
  expect(res.message.flag_tc).toBe(false);
  expect(rcodeName(res.rcode)).toBe('FORMERR');
  expect(res.answers).toEqual([]);
  // a normal query on the same path is answered: the refusal is about the transfer, not the transport
  const soa = await client.query('ixfr.test', 'SOA');
  expect(rcodeName(soa.rcode)).toBe('NOERROR');
  expect(soa.answers[0]?.type).toBe('SOA');
  expect(soa.answers[0]?.value.split(' ')[2]).toBe(String(serial)); // mname rname serial …
});

test('a transfer of a zone we do not serve, or of a name below the apex, is NOTAUTH, like BIND', async () => {
  for (const zone of ['other.test', 'h1.ixfr.test']) {
    const [mine, theirs] = await Promise.all([
      xfr(at(open), ['+comments', zone, 'AXFR']),
      xfr(named, ['+comments', zone, 'AXFR']),
    ]);
    expect(theirs.out).toMatch(/status: NOTAUTH/);
    expect(mine.out).toMatch(/status: NOTAUTH/);
    expect(mine.lines).toEqual([]);
  }
});

describe('transferFromLoopback: false', () => {
  test.each(['AXFR', 'IXFR=1'])('an unsigned %s from loopback is REFUSED', async (type) => {
    const res = await xfr(at(closed), ['+comments', 'ixfr.test', type]);
    expect(res.out).toMatch(/status: REFUSED/);
    expect(res.lines).toEqual([]);
  });

  test('a valid key not allowed for the zone is REFUSED', async () => {
    const res = await xfr(at(closed), ['+comments', '-y', `hmac-sha256:other-key:${SECRET}`, 'ixfr.test', 'AXFR']);
    expect(res.out).toMatch(/status: REFUSED/);
    expect(res.lines).toEqual([]);
  });

  test('a wrong secret for the allowed key gets nothing', async () => {
    const res = await xfr(at(closed), [
      '-y',
      `hmac-sha256:xfr-key:${Buffer.from('a wrong secret, a wrong one').toString('base64')}`,
      'ixfr.test',
      'AXFR',
    ]);
    expect(res.lines).toEqual([]);
  });

  test('the allowed key gets the whole zone, every message signed and verified by dig', async () => {
    for (const type of ['AXFR', `IXFR=${oldSerial}`]) {
      const res = await xfr(at(closed), ['-y', `hmac-sha256:xfr-key:${SECRET}`, 'ixfr.test', type]);
      expect({ type, failed: res.failed }).toEqual({ type, failed: false });
      expect(res.out).not.toMatch(/could not be validated|failure|expected a TSIG/i);
      expect(res.messages).toBeGreaterThanOrEqual(3);
      expect(res.lines).toHaveLength((await store.listRecords('ixfr.test')).length + 2);
    }
  });
});

describe('respond.ts edge cases found by the interop work', () => {
  test('IXFR over UDP gets the SOA alone (RFC 1995 §2), like BIND', async () => {
    const { execFile } = await import('node:child_process');
    const { promisify } = await import('node:util');
    const run = promisify(execFile);
    const args = (port: number) => [
      '+notcp',
      '+norec',
      '+noall',
      '+answer',
      '+comments',
      '@127.0.0.1',
      '-p',
      String(port),
      'ixfr.test',
      'IXFR=1',
    ];
    const ours = (await run('dig', args(open.server?.port as number))).stdout;
    expect(ours).toMatch(/status: NOERROR/);
    const answers = ours.split('\n').filter((l) => /\tIN\t/.test(l));
    expect(answers).toHaveLength(1);
    expect(answers[0]).toMatch(/\tSOA\t/);
  });

  test('an error answer over UDP to many questions stays under 512 bytes', async () => {
    const dnsPacket = await import('dns-packet');
    const { createSocket } = await import('node:dgram');
    const questions = Array.from({ length: 30 }, (_, i) => ({
      name: `${'x'.repeat(60)}${i}.ixfr.test`,
      type: 'A' as const,
      class: 'IN' as const,
    }));
    const query = dnsPacket.encode({ type: 'query', id: 4242, questions });
    expect(query.length).toBeGreaterThan(1500);
    const socket = createSocket('udp4');
    try {
      const reply = await new Promise<Buffer>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error('no answer')), 2000);
        socket.once('message', (m) => {
          clearTimeout(t);
          resolve(m);
        });
        socket.send(query, open.server?.port as number, '127.0.0.1');
      });
      expect(reply.length).toBeLessThanOrEqual(512);
      const decoded = dnsPacket.decode(reply);
      expect(decoded).toMatchObject({ id: 4242, rcode: 'FORMERR' });
    } finally {
      socket.close();
    }
  });
});
