import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { createServer, type Server } from 'node:net';
import { DnsClient } from './client';
import { frameMessage, splitFrames } from './transport';

/**
 * What a query puts on the wire (the EDNS option) and what it hands back (the raw answer), against a fake server on
 * 127.0.0.1 that keeps every request and answers with a header-only response, TC set when the request asks for it
 * (its name starts with "tc").
 */
const requests: Array<{ transport: 'udp' | 'tcp'; raw: Buffer }> = [];
const dropped = new Set<number>();
let udp: UdpSocket;
let tcp: Server;
let port: number;

/** The response to `raw`: its ID and question count 0, QR and AA set, TC too for a name starting with "tc". */
function answer(raw: Buffer, truncate: boolean): Buffer {
  const out = Buffer.alloc(12);
  raw.copy(out, 0, 0, 2);
  const tc = truncate && raw.subarray(13, 15).toString('latin1') === 'tc';
  out.writeUInt16BE(0x8400 | (tc ? 0x200 : 0), 2);
  return out;
}

beforeAll(async () => {
  tcp = createServer((socket) => {
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      const { messages, rest } = splitFrames(Buffer.concat([pending, chunk]));
      pending = Buffer.from(rest);
      for (const raw of messages) {
        requests.push({ transport: 'tcp', raw: Buffer.from(raw) });
        socket.write(frameMessage(answer(raw, false)));
      }
    });
  });
  port = await new Promise<number>((resolve) =>
    tcp.listen(0, '127.0.0.1', () => resolve((tcp.address() as { port: number }).port)),
  );
  udp = createSocket('udp4');
  udp.on('message', (raw, from) => {
    requests.push({ transport: 'udp', raw });
    // a name starting with "drop": the first datagram of each ID goes unanswered (lost, or dropped by rate limiting)
    const id = raw.readUInt16BE(0);
    if (raw.subarray(13, 17).toString('latin1') === 'drop' && !dropped.has(id)) return void dropped.add(id);
    udp.send(answer(raw, true), from.port, from.address);
  });
  await new Promise<void>((resolve) => udp.bind(port, '127.0.0.1', resolve));
});
afterAll(async () => {
  await new Promise<void>((resolve) => udp.close(() => resolve()));
  await new Promise<void>((resolve) => tcp.close(() => resolve()));
});
beforeEach(() => {
  requests.length = 0;
});

/** ARCOUNT of the request, and the UDP size its OPT record (right after the question) advertises. */
function ednsOf(raw: Buffer): { arcount: number; size?: number } {
  const arcount = raw.readUInt16BE(10);
  if (arcount === 0) return { arcount };
  let o = 12;
  while (raw[o] !== 0) o += 1 + (raw[o] ?? 0);
  o += 5; // the root label ending the name, QTYPE, QCLASS
  expect([raw[o], raw.readUInt16BE(o + 1)]).toEqual([0, 41]); // an OPT record at the root
  return { arcount, size: raw.readUInt16BE(o + 3) };
}

test('a query advertises a 1232-byte UDP buffer by default, the size asked for, or (edns: false) none', async () => {
  const client = new DnsClient({ server: { host: '127.0.0.1', port }, timeoutMs: 2000 });
  await client.query('www.example.test', 'A');
  await client.query('www.example.test', 'A', { edns: 4096 });
  await client.query('www.example.test', 'A', { edns: false });
  await client.query('www.example.test', 'A', { edns: false, tcp: true });
  expect(requests.map((r) => [r.transport, ednsOf(r.raw)])).toEqual([
    ['udp', { arcount: 1, size: 1232 }],
    ['udp', { arcount: 1, size: 4096 }],
    ['udp', { arcount: 0 }],
    ['tcp', { arcount: 0 }],
  ]);
});

test('the answer comes with its raw bytes; a truncated one over UDP is asked again over TCP, whose answer counts', async () => {
  const client = new DnsClient({ server: { host: '127.0.0.1', port }, timeoutMs: 2000 });
  const plain = await client.query('www.example.test', 'A');
  expect(plain.raw).toHaveLength(12);
  expect(plain.raw.readUInt16BE(0)).toBe(requests[0]?.raw.readUInt16BE(0));
  expect(plain.message.flag_aa).toBe(true);
  const retried = await client.query('tc.example.test', 'A', { edns: false });
  expect(requests.slice(1).map((r) => [r.transport, ednsOf(r.raw)])).toEqual([
    ['udp', { arcount: 0 }],
    ['tcp', { arcount: 0 }],
  ]);
  expect(retried.message.flag_tc).toBe(false);
  expect(retried.raw.readUInt16BE(2) & 0x200).toBe(0);
});

test('a query whose datagram goes unanswered is sent again within its timeout (same ID); an UPDATE is not', async () => {
  // sent again after timeoutMs / 3 (dig's three tries): the answer to the second comes well within the timeout
  const client = new DnsClient({ server: { host: '127.0.0.1', port }, timeoutMs: 3000 });
  const res = await client.query('drop.example.test', 'A');
  expect(res.message.flag_aa).toBe(true);
  expect(requests.map((r) => [r.transport, r.raw.readUInt16BE(0)])).toEqual([
    ['udp', res.raw.readUInt16BE(0)],
    ['udp', res.raw.readUInt16BE(0)],
  ]);
  requests.length = 0;
  // an UPDATE may not be idempotent: one datagram, then the timeout
  await expect(
    client.update('drop.example.test', [
      { op: 'add', name: 'a.drop.example.test', type: 'A', ttl: 60, value: '192.0.2.1' },
    ]),
  ).rejects.toThrow(/within 3000 ms \(UDP\)/);
  expect(requests).toHaveLength(1);
});

test('an UPDATE with a value that is no RDATA of its type fails as a DnsClientError saying why, and sends nothing', async () => {
  const sentBefore = requests.length;
  const client = new DnsClient({ server: { host: '127.0.0.1', port }, timeoutMs: 1000 });
  await expect(
    client.update('example.test', [{ op: 'add', name: 'x.example.test', type: 'A', ttl: 60, value: '300.1.2.3' }]),
  ).rejects.toMatchObject({
    name: 'DnsClientError',
    kind: 'value',
    message: expect.stringMatching(/^A value must be an IPv4 address.*"300\.1\.2\.3"/),
  });
  await expect(
    client.update('example.test', [{ op: 'deleteRecord', name: 'x.example.test', type: 'TXT', value: '"open' }]),
  ).rejects.toMatchObject({ kind: 'value', message: expect.stringContaining('unterminated quoted string') });
  expect(requests.length).toBe(sentBefore);
});

test.each([
  ['an empty label', 'a..example.test', /a\.\.example\.test is not a valid DNS name: it has an empty label/],
  ['a label over 63 octets', `${'l'.repeat(64)}.example.test`, /a label is longer than 63 octets \(64\)/],
  ['a name over 255 octets', `${'n.'.repeat(127)}example`, /at most 255 are allowed/],
])('a name with %s is refused before anything is sent (query, UPDATE, transfer)', async (_what, name, message) => {
  const sentBefore = requests.length;
  const client = new DnsClient({ server: { host: '127.0.0.1', port }, timeoutMs: 1000 });
  await expect(client.query(name, 'A')).rejects.toMatchObject({
    kind: 'value',
    message: expect.stringMatching(message),
  });
  await expect(client.update('example.test', [{ op: 'deleteRRset', name, type: 'A' }])).rejects.toMatchObject({
    kind: 'value',
    message: expect.stringMatching(message),
  });
  await expect(client.transfer(name)).rejects.toMatchObject({ kind: 'value' });
  expect(requests.length).toBe(sentBefore);
});
