// @needs bind
import { execFile } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { connect } from 'node:net';
import { promisify } from 'node:util';
import * as packet from 'dns-packet';
import { frameMessage, splitFrames } from '../../dns/client';
import { DnsEngine } from '../../dns/engine/engine';
import { openSqliteStore } from '../../dns/store';
import type { ZoneStore } from '../../dns/store/types';
import { importZoneFile } from '../../dns/zonefile/zone-files';
import { requireTool, startNamed, type Named } from '../support/dns-peers';

/**
 * Name compression (RFC 1035 §4.1.4): our answers are as large as BIND 9's on the same zone, byte for byte, and
 * `dig` and `kdig` read each of them. Before compression every name went in full (the issue's case: 12 A records at
 * a long name took 715 bytes, BIND's 259), so answers were truncated over UDP that need not be.
 */
const run = promisify(execFile);
const LONG = 'a-rather-long-host-name.in-a-deep.sub-domain.sizes.test';
const ZONE = `$ORIGIN sizes.test.
$TTL 3600
@ IN SOA ns1.sizes.test. hostmaster.sizes.test. ( 1 10800 3600 604800 300 )
@ IN NS ns1.sizes.test.
@ IN NS ns2.sizes.test.
@ IN NS ns3.sizes.test.
@ IN MX 10 mail1.sizes.test.
@ IN MX 20 mail2.sizes.test.
ns1 IN A 192.0.2.1
ns2 IN A 192.0.2.2
ns3 IN A 192.0.2.3
${Array.from({ length: 12 }, (_, i) => `${LONG}. IN A 192.0.2.${10 + i}`).join('\n')}
alias IN CNAME ${LONG}.
_sip._tcp IN SRV 10 60 5060 sip.sizes.test.
_sip._tcp IN SRV 20 60 5060 sip2.sizes.test.
ptr IN PTR ${LONG}.
sub IN NS ns.sub.sizes.test.
sub IN NS ns.elsewhere.example.
ns.sub IN A 192.0.2.99
dname IN DNAME target.sizes.test.
x.target IN A 192.0.2.88
`;

let store: ZoneStore;
let engine: DnsEngine;
let named: Named;
let ours: { host: string; port: number };

beforeAll(async () => {
  requireTool('dig');
  requireTool('kdig');
  named = await startNamed([{ name: 'sizes.test', text: ZONE }]);
  store = await openSqliteStore({ file: ':memory:' });
  await importZoneFile(store, 'sizes.test', ZONE);
  engine = await DnsEngine.start({ store, host: '127.0.0.1', port: 0 });
  ours = { host: '127.0.0.1', port: engine.server?.port as number };
}, 30_000);
afterAll(async () => {
  await engine?.close();
  await store?.close();
  await named?.stop();
});

/** One query's answer, raw: over UDP (or TCP when `args` has +tcp), with EDNS (1232) unless `args` has +noedns. */
async function rawAnswer(server: { host: string; port: number }, args: string[]): Promise<Buffer> {
  const [name, type] = args.filter((a) => !a.startsWith('+'));
  const query: packet.Packet = {
    type: 'query',
    id: 4242,
    flags: 0,
    questions: [{ name: name as string, type: type as 'A', class: 'IN' }],
  };
  if (!args.includes('+noedns'))
    query.additionals = [
      {
        name: '.',
        type: 'OPT',
        udpPayloadSize: 1232,
        extendedRcode: 0,
        ednsVersion: 0,
        flags: 0,
        flag_do: false,
        options: [],
      },
    ];
  const wire = packet.encode(query);
  if (args.includes('+tcp')) {
    return new Promise((resolve, reject) => {
      const socket = connect(server.port, server.host, () => socket.write(frameMessage(wire)));
      let got = Buffer.alloc(0);
      socket.on('data', (d: Buffer) => {
        got = Buffer.concat([got, d]);
        const { messages } = splitFrames(got);
        if (messages[0]) {
          socket.destroy();
          resolve(messages[0]);
        }
      });
      socket.on('error', reject);
      setTimeout(() => reject(new Error(`no answer over TCP from port ${server.port}`)), 5000).unref();
    });
  }
  const udp = createSocket('udp4');
  try {
    return await new Promise<Buffer>((resolve, reject) => {
      udp.once('message', resolve);
      udp.once('error', reject);
      setTimeout(() => reject(new Error(`no answer over UDP from port ${server.port}`)), 5000).unref();
      udp.send(wire, server.port, server.host);
    });
  } finally {
    udp.close();
  }
}

/** dig and kdig read the answer (kdig warns of nothing); its size, and its bytes with every name in full. */
async function sizeOf(
  server: { host: string; port: number },
  args: string[],
): Promise<{ size: number; inFull: number }> {
  const { stdout } = await run(
    'dig',
    ['+norec', '+nocookie', '+time=5', '+tries=1', `@${server.host}`, '-p', String(server.port), ...args],
    { timeout: 15_000 },
  );
  const size = Number(/MSG SIZE\s+rcvd: (\d+)/.exec(stdout)?.[1]);
  expect(stdout).toMatch(/status: NOERROR|status: NXDOMAIN/);
  const kdig = await run(
    'kdig',
    ['+norec', '+nocookie', '+time=5', '+retry=0', `@${server.host}`, '-p', String(server.port), ...args],
    { timeout: 15_000 },
  );
  expect(kdig.stdout + kdig.stderr).not.toMatch(/WARNING|malformed|failed/i);
  const raw = await rawAnswer(server, args);
  expect(raw.length).toBe(size);
  return { size, inFull: packet.encode(packet.decode(raw)).length };
}

/**
 * Each case: label, dig's arguments, and whether ours may be smaller than BIND's (BIND 9.18 does not compress the
 * long name's suffix `sizes.test` against the question when it lies three labels deep: our CNAME and PTR targets
 * take 10 bytes less).
 */
const CASES: Array<[string, string[], boolean]> = [
  ["the issue's case: 12 A records at a long name", [LONG, 'A'], false],
  ['apex NS (three names sharing the zone suffix)', ['sizes.test', 'NS'], false],
  ['apex MX', ['sizes.test', 'MX'], false],
  ['apex SOA', ['sizes.test', 'SOA'], false],
  ['CNAME to the long name, then its 12 A records', ['alias.sizes.test', 'A'], true],
  ['PTR to the long name', ['ptr.sizes.test', 'PTR'], true],
  ['SRV (targets never compressed: RFC 3597 §4)', ['_sip._tcp.sizes.test', 'SRV'], false],
  ['delegation with glue', ['host.sub.sizes.test', 'A'], false],
  ['NXDOMAIN (SOA in the authority section)', ['nope.sizes.test', 'A'], false],
  ['DNAME substitution', ['x.dname.sizes.test', 'A'], false],
  ['without EDNS', ['+noedns', LONG, 'A'], false],
  ['over TCP', ['+tcp', LONG, 'A'], false],
];

const figures: string[] = [];
afterAll(() => {
  if (figures.length) console.log(`answer sizes (ours before → ours now, BIND):\n${figures.join('\n')}`);
});

test.each(CASES)('%s: as large as BIND 9 answer, byte for byte', async (label, args, smaller) => {
  const [mine, theirs] = await Promise.all([sizeOf(ours, args), sizeOf(named, args)]);
  figures.push(`  ${label}: ${mine.inFull} → ${mine.size}, BIND ${theirs.size}`);
  if (smaller) expect(mine.size).toBeLessThanOrEqual(theirs.size);
  else expect(mine.size).toBe(theirs.size);
  expect(mine.inFull).toBeGreaterThan(mine.size);
});

test("the issue's case fits 512 bytes without EDNS: no TC, no TCP retry", async () => {
  const { stdout } = await run(
    'dig',
    ['+norec', '+noedns', '+ignore', `@${ours.host}`, '-p', String(ours.port), LONG, 'A'],
    { timeout: 15_000 },
  );
  expect(/;; flags: ([a-z ]*);/.exec(stdout)?.[1]?.split(' ')).not.toContain('tc');
  expect(stdout.split('\n').filter((l) => l.startsWith(`${LONG}.`))).toHaveLength(12);
});

test('a zone transfer (AXFR) is compressed too, as BIND compresses its own: about as many bytes', async () => {
  const bytes = async (server: { host: string; port: number }): Promise<number> => {
    const { stdout } = await run(
      'dig',
      ['+noall', '+answer', '+stats', `@${server.host}`, '-p', String(server.port), 'sizes.test', 'AXFR'],
      { timeout: 15_000 },
    );
    expect(stdout.split('\n').filter((l) => /\sIN\s/.test(l)).length).toBeGreaterThan(20);
    return Number(/XFR size: .*bytes (\d+)/.exec(stdout)?.[1]);
  };
  const [mine, theirs] = await Promise.all([bytes(ours), bytes(named)]);
  figures.push(`  AXFR of the zone (bytes): ours ${mine}, BIND ${theirs}`);
  expect(mine).toBeGreaterThan(0);
  expect(mine).toBeLessThanOrEqual(Math.ceil(theirs * 1.1));
});
