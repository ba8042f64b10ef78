import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { connect } from 'node:net';
import * as packet from 'dns-packet';
import { DnsEngine } from '../../dns/engine';
import type { Remote, Responder } from '../../dns/server/respond';
import { startDnsServer, type DnsServer } from '../../dns/server/server';
import { openSqliteStore } from '../../dns/store';
import { watchEscapes } from '../../dns/testing/escapes';

/**
 * Nothing escapes the DNS server: whatever the answering code throws, rejects or returns (an answer too long for a
 * DNS message), over UDP and TCP, the client gets SERVFAIL, the failure is reported once, and the process has no
 * uncaught exception or unhandled rejection. A responder that fails on purpose stands in for bugs to come.
 */
const HOST = '127.0.0.1';
const escapes = watchEscapes();
afterAll(() => escapes.stop());

/** What the responder does, by the first label of the question name. */
const FAULTS: Record<string, { now?: 'throw' | 'huge'; handle?: 'reject' | 'throw' | 'huge' }> = {
  'now-throws': { now: 'throw' },
  'now-huge': { now: 'huge' },
  'handle-rejects': { handle: 'reject' },
  'handle-throws': { handle: 'throw' },
  'handle-huge': { handle: 'huge' },
};

function labelOf(raw: Buffer): string {
  return raw.length > 13 ? raw.subarray(13, 13 + raw.readUInt8(12)).toString('latin1') : '';
}

/** A response to `raw` of `size` bytes: its header, QR set, padded with zeros. */
function huge(raw: Buffer, size: number): Buffer {
  const out = Buffer.alloc(size);
  raw.copy(out, 0, 0, 12);
  out[2] = out.readUInt8(2) | 0x80;
  return out;
}

const faulty = {
  answerNow(raw: Buffer): Buffer | undefined {
    const fault = FAULTS[labelOf(raw)]?.now;
    if (fault === 'throw') throw new Error('answerNow failed');
    if (fault === 'huge') return huge(raw, 70_000);
    return undefined;
  },
  handle(raw: Buffer, _remote: Remote): Promise<Buffer[]> {
    const fault = FAULTS[labelOf(raw)]?.handle;
    if (fault === 'throw') throw new Error('handle threw');
    if (fault === 'reject') return Promise.reject(new Error('handle rejected'));
    if (fault === 'huge') return Promise.resolve([huge(raw, 70_000)]);
    const ok = packet.decode(raw);
    return Promise.resolve([
      packet.encode({ type: 'response', id: ok.id, flags: 0, questions: ok.questions, answers: [] }),
    ]);
  },
  detach(): void {},
} as unknown as Responder;

let server: DnsServer;
const reported: unknown[] = [];
let udp: UdpSocket;
const udpInbox = new Map<number, Buffer>();

beforeAll(async () => {
  // the error callback itself throws: that must not escape either
  server = await startDnsServer({
    host: HOST,
    port: 0,
    responder: faulty,
    onError: (err) => {
      reported.push(err);
      throw new Error('logger broke');
    },
  });
  udp = createSocket('udp4');
  udp.on('message', (msg) => udpInbox.set(msg.readUInt16BE(0), msg));
  await new Promise<void>((r) => udp.bind(0, HOST, () => r()));
});
afterAll(async () => {
  await new Promise<void>((r) => udp.close(() => r()));
  await server.close();
});

let nextId = 100;
const query = (name: string): Buffer =>
  packet.encode({ type: 'query', id: ++nextId, questions: [{ name, type: 'A', class: 'IN' }] });

async function overUdp(message: Buffer): Promise<Buffer | undefined> {
  const id = message.readUInt16BE(0);
  udp.send(message, server.port, HOST);
  for (let i = 0; i < 200 && !udpInbox.has(id); i++) await new Promise((r) => setTimeout(r, 10));
  return udpInbox.get(id);
}

function overTcp(message: Buffer): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const socket = connect(server.port, HOST);
    let buffer = Buffer.alloc(0);
    const done = (answer: Buffer | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => done(undefined), 3000);
    socket.on('data', (d: Buffer) => {
      buffer = Buffer.concat([buffer, d]);
      if (buffer.length >= 2 && buffer.length >= 2 + buffer.readUInt16BE(0))
        done(buffer.subarray(2, 2 + buffer.readUInt16BE(0)));
    });
    socket.on('error', () => done(undefined));
    socket.write(Buffer.concat([Buffer.from([message.length >> 8, message.length & 0xff]), message]));
  });
}

const rcodeOf = (answer: Buffer | undefined) =>
  answer ? (packet.decode(answer) as { rcode?: string }).rcode : '(no answer)';

test.each(Object.keys(FAULTS))(
  '%s: SERVFAIL over UDP and TCP, reported once each, nothing escapes, the server goes on',
  async (label) => {
    for (const send of [overUdp, overTcp]) {
      reported.length = 0;
      const message = query(`${label}.example.test`);
      const answer = await send(message);
      expect(answer?.readUInt16BE(0)).toBe(message.readUInt16BE(0));
      expect(rcodeOf(answer)).toBe('SERVFAIL');
      expect(reported).toHaveLength(1);
      expect(escapes.escaped).toEqual([]);
      // and the next ordinary query is answered
      expect(rcodeOf(await send(query('fine.example.test')))).toBe('NOERROR');
    }
  },
);

test('a NOTIFY target that cannot be sent to (port out of range) is logged, not thrown', async () => {
  const store = await openSqliteStore({ file: ':memory:' });
  const warnings: string[] = [];
  const engine = await DnsEngine.start({
    store,
    host: HOST,
    port: 0,
    listen: false,
    notify: [{ host: HOST, port: 99_999 }],
    log: { info: () => undefined, warn: (_obj, msg) => void warnings.push(msg) },
  });
  try {
    await store.createZone('notify.test', {
      adminEmail: 'hostmaster@notify.test',
      primaryNs: 'ns1.notify.test',
      refresh: 3600,
      retry: 600,
      expire: 86400,
      minimum: 300,
      defaultTtl: 300,
    });
    for (let i = 0; i < 100 && !warnings.includes('NOTIFY could not be sent'); i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(warnings).toContain('NOTIFY could not be sent');
    expect(escapes.escaped).toEqual([]);
  } finally {
    await engine.close();
    await store.close();
  }
});
