// @needs bind build
/**
 * Response rate limiting over real UDP (the built answer thread, and an answer worker process): a "victim" socket on
 * 127.0.0.2 asks one question many times at once; the answers, slips (TC) and drops must follow the configured rate
 * and slip, while a client on 127.0.1.5 (another /24) gets every answer. From the limited address a TCP query, a
 * TSIG-signed query and a query with a valid server cookie are answered; dig follows a slip over TCP. log-only
 * answers everything and counts.
 */
import { createSocket, type Socket } from 'node:dgram';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import * as packet from 'dns-packet';
import type { Answer } from 'dns-packet';
import { frameMessage, splitFrames } from '../../dns/client';
import { queryMessage } from '../../dns/client/messages';
import { DnsEngine } from '../../dns/engine/engine';
import { DEFAULT_RRL, G, type RrlOptions } from '../../dns/server';
import { udpBatchAddon } from '../../dns/server/transport/udp-batch';
import { openZoneStore } from '../../dns/store';
import type { ZoneStore } from '../../dns/store/types';
import { parseKeySpec } from '../../dns/tsig/keyfile';
import { signMessage } from '../../dns/tsig/tsig';
import { importZoneFile } from '../../dns/zonefile/zone-files';
import { requireTool } from '../support/dns-peers';
import { waitFor } from '../support/sse';

jest.setTimeout(60_000);

const run = promisify(execFile);
const ZONE = 'rrl.test';
const KEY = parseKeySpec('hmac-sha256:rrl:c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MTI=');
const ZONE_TEXT = `$ORIGIN ${ZONE}.
$TTL 300
@ IN SOA ns1 hostmaster 2026112901 3600 600 86400 300
  IN NS ns1
ns1 IN A 192.0.2.1
www IN A 192.0.2.80
other IN A 192.0.2.81
`;
/** A rate small enough that the flood's own duration adds little credit; a window long enough not to end in the test. */
const RATE = 5;
const FLOOD = 100;

/** A UDP socket bound to `address`, collecting what it receives. */
async function client(address: string): Promise<{ socket: Socket; received: Buffer[] }> {
  const socket = createSocket('udp4');
  const received: Buffer[] = [];
  socket.on('message', (m) => received.push(m));
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(0, address, resolve);
  });
  return { socket, received };
}

const id = (m: Buffer): number => m.readUInt16BE(0);
const tc = (m: Buffer): boolean => (m.readUInt16BE(2) & 0x0200) !== 0;
function query(name: string, messageId: number, opt?: Buffer): Buffer {
  return packet.encode({
    type: 'query',
    id: messageId,
    flags: 0,
    questions: [{ name, type: 'A', class: 'IN' }],
    additionals: opt
      ? [
          {
            type: 'OPT',
            name: '.',
            udpPayloadSize: 1232,
            flags: 0,
            options: [{ code: 10, data: opt }],
          } as unknown as Answer,
        ]
      : [],
  });
}

/**
 * Sends FLOOD questions for www from `victim` at once, then one for `other` (its own account, always answered): once
 * that answer is in, everything before it was answered or not. Returns the answers to the flood.
 */
async function flood(victim: { socket: Socket; received: Buffer[] }, port: number, first: number): Promise<Buffer[]> {
  for (let i = 0; i < FLOOD; i++) victim.socket.send(query(`www.${ZONE}`, first + i), port, '127.0.0.1');
  const marker = first + FLOOD;
  // sent after a turn, so it does not overtake the flood in the socket's queue
  await new Promise((r) => setImmediate(r));
  victim.socket.send(query(`other.${ZONE}`, marker), port, '127.0.0.1');
  await waitFor(() => victim.received.some((m) => id(m) === marker), 20_000, 'the answer to the marker question');
  return victim.received.filter((m) => id(m) >= first && id(m) < marker);
}

/** One exchange over TCP from `local` (a query is never limited there). */
function tcpQuery(port: number, local: string, message: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let data = Buffer.alloc(0);
    const socket = connect({ host: '127.0.0.1', port, localAddress: local }, () => socket.write(frameMessage(message)));
    socket.on('data', (chunk) => {
      data = Buffer.concat([data, chunk]);
      const [first] = splitFrames(data).messages;
      if (first) {
        socket.destroy();
        resolve(Buffer.from(first));
      }
    });
    socket.on('error', reject);
  });
}

/** One UDP exchange from `c` (its answer found by id). */
async function udpAsk(c: { socket: Socket; received: Buffer[] }, port: number, message: Buffer): Promise<Buffer> {
  c.socket.send(message, port, '127.0.0.1');
  const want = id(message);
  await waitFor(() => c.received.some((m) => id(m) === want), 20_000, `the answer to message ${want}`);
  return c.received.find((m) => id(m) === want) as Buffer;
}

describe.each([0, 1])('response rate limiting over UDP, %i answer workers', (workers) => {
  let dir: string;
  let store: ZoneStore;
  const engines: DnsEngine[] = [];

  beforeAll(async () => {
    if (workers > 0 && !udpBatchAddon()) throw new Error('the udp-batch addon is not built (npm run build)');
    dir = mkdtempSync(join(tmpdir(), 'dns-rrl-'));
    store = await openZoneStore({ dataDir: dir });
    await importZoneFile(store, ZONE, ZONE_TEXT);
  });
  afterAll(async () => {
    for (const e of engines) await e.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const start = async (rrl: Partial<RrlOptions>): Promise<DnsEngine> => {
    const engine = await DnsEngine.start({
      store,
      host: '127.0.0.1',
      port: 0,
      keys: [KEY],
      rrl: { ...DEFAULT_RRL, responsesPerSecond: RATE, ...rrl },
      workers: { count: workers, store: { dataDir: dir } },
    });
    engines.push(engine);
    return engine;
  };

  const counted = async (engine: DnsEngine): Promise<{ dropped: number; slipped: number }> => {
    const g = (await engine.stats())?.answering.global;
    return { dropped: g?.[G.rrlDropped] ?? 0, slipped: g?.[G.rrlSlipped] ?? 0 };
  };

  test('one network flooding gets the rate, every 2nd limited answer as a slip; another network gets all', async () => {
    const engine = await start({ slip: 2 });
    const port = engine.server!.port;
    const victim = await client('127.0.0.2');
    const bystander = await client('127.0.1.5');
    try {
      const started = performance.now();
      const sent = flood(victim, port, 1000);
      // meanwhile another /24 asks the same question as often as the rate allows: every one answered
      const theirs = await Promise.all(
        Array.from({ length: RATE }, (_, i) => udpAsk(bystander, port, query(`www.${ZONE}`, 5000 + i))),
      );
      const answers = await sent;
      const seconds = (performance.now() - started) / 1000;
      const full = answers.filter((m) => !tc(m));
      const slips = answers.filter(tc);
      // the rate at once, and at most the rate per second the flood took on top
      expect(full.length).toBeGreaterThanOrEqual(RATE);
      expect(full.length).toBeLessThanOrEqual(RATE + Math.ceil(RATE * seconds));
      const limited = FLOOD - full.length;
      expect(slips).toHaveLength(Math.floor(limited / 2));
      for (const s of slips) {
        const d = packet.decode(s);
        expect(d.answers).toEqual([]);
        expect(d.questions?.[0]?.name).toBe(`www.${ZONE}`);
      }
      expect(theirs.every((m) => !tc(m) && packet.decode(m).answers?.length === 1)).toBe(true);
      // the counters: every limited answer is a slip or a drop
      const n = await counted(engine);
      expect(n.slipped).toBe(slips.length);
      expect(n.dropped).toBe(limited - slips.length);

      // from the limited address still: TCP, a TSIG-signed query, and a valid server cookie are answered
      const overTcp = packet.decode(await tcpQuery(port, '127.0.0.2', query(`www.${ZONE}`, 7000)));
      expect(overTcp.answers?.map((a) => (a as { data?: unknown }).data)).toEqual(['192.0.2.80']);
      const signed = signMessage(queryMessage(`www.${ZONE}`, 'A'), KEY).message;
      const signedAnswer = await udpAsk(victim, port, signed);
      expect(tc(signedAnswer)).toBe(false);
      expect(packet.decode(signedAnswer).answers?.map((a) => (a as { data?: unknown }).data)).toEqual(['192.0.2.80']);
      const clientCookie = Buffer.from('0011223344556677', 'hex');
      const withServerCookie = (
        packet
          .decode(await tcpQuery(port, '127.0.0.2', query(`www.${ZONE}`, 7001, clientCookie)))
          .additionals?.find((a) => a.type === 'OPT') as { options?: Array<{ code: number; data: Buffer }> } | undefined
      )?.options?.find((o) => o.code === 10)?.data;
      expect(withServerCookie).toHaveLength(24);
      for (let i = 0; i < 4; i++) {
        const cookieAnswer = await udpAsk(victim, port, query(`www.${ZONE}`, 7100 + i, withServerCookie));
        expect(tc(cookieAnswer)).toBe(false);
        expect(packet.decode(cookieAnswer).answers).toHaveLength(1);
      }
    } finally {
      victim.socket.close();
      bystander.socket.close();
    }
  });

  test('dig from the limited network gets its answer: a slip sends it over TCP', async () => {
    requireTool('dig');
    const engine = await start({ slip: 1 });
    const port = engine.server!.port;
    // from several source ports: the kernel gives each to one answering process, each with accounts of its own, so
    // that every process (dig's too, whichever it is) has the network limited
    for (let s = 0; s < (workers > 0 ? 12 : 1); s++) {
      const victim = await client('127.0.0.2');
      try {
        await flood(victim, port, 1000);
      } finally {
        victim.socket.close();
      }
    }
    const { stdout } = await run(
      'dig',
      ['+norec', '+time=3', '+tries=3', '-b', '127.0.0.2', '@127.0.0.1', '-p', String(port), `www.${ZONE}`, 'A'],
      { timeout: 30_000 },
    );
    expect(stdout).toContain('Truncated, retrying in TCP mode');
    expect(stdout).toMatch(/status: NOERROR/);
    expect(stdout).toMatch(/www\.rrl\.test\.\s+300\s+IN\s+A\s+192\.0\.2\.80/);
  });

  test('log-only answers everything, and counts what it would have dropped and slipped', async () => {
    const engine = await start({ mode: 'log-only', slip: 2 });
    const port = engine.server!.port;
    const victim = await client('127.0.0.2');
    try {
      const answers = await flood(victim, port, 1000);
      expect(answers).toHaveLength(FLOOD);
      expect(answers.every((m) => !tc(m))).toBe(true);
      const n = await counted(engine);
      expect(n.dropped + n.slipped).toBeGreaterThan(0);
      expect(n.dropped + n.slipped).toBeLessThanOrEqual(FLOOD - RATE);
      expect(n.slipped).toBe(Math.floor((n.dropped + n.slipped) / 2));
    } finally {
      victim.socket.close();
    }
  });
});
