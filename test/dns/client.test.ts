// @needs bind
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { createServer, Socket, type Server } from 'node:net';
import { DnsClient, DnsClientError, frameMessage, splitFrames, type ServerAddress } from '../../dns/client';
import { DnsEngine } from '../../dns/engine/engine';
import { openSqliteStore } from '../../dns/store';
import type { ZoneStore } from '../../dns/store/types';
import { parseKeyFile } from '../../dns/tsig/keyfile';
import { startNamed, type Named } from '../support/dns-peers';

/**
 * The DNS client (dns/client) against two real primaries with the same zone and TSIG key: our embedded server and
 * BIND 9's named. The same expectations hold for both; BIND also serves a type we have no codec for (RFC 3597).
 */
const SECRET = 'dG9vbC1rZXktc2VjcmV0LWZvci10aGUtY2xpZW50LXRlc3Q=';
const [KEY] = parseKeyFile(`key "tool-key" { algorithm hmac-sha256; secret "${SECRET}"; };`);
const [WRONG] = parseKeyFile(
  'key "tool-key" { algorithm hmac-sha256; secret "d3Jvbmctc2VjcmV0LXdyb25nLXNlY3JldC13cm9uZzE="; };',
);
const [UNKNOWN] = parseKeyFile(`key "nobody" { algorithm hmac-sha256; secret "${SECRET}"; };`);
if (!KEY || !WRONG || !UNKNOWN) throw new Error('test keys did not parse');

const ZONE = 'client.test';
const BULK = 400; // enough TXT records for a transfer of several messages
const bulk = Array.from({ length: BULK }, (_, i) => ({
  name: `bulk${i}.${ZONE}`,
  type: 'TXT' as const,
  ttl: 300,
  value: `"${'x'.repeat(100)} ${i}"`,
}));
const ZONE_TEXT = `$ORIGIN ${ZONE}.
$TTL 300
@ IN SOA ns1 hostmaster 2026010101 3600 600 86400 300
@ IN NS ns1
ns1 IN A 192.0.2.53
www IN A 192.0.2.1
${bulk.map((r) => `${r.name}. 300 IN TXT ${r.value}`).join('\n')}
`;

let store: ZoneStore;
let engine: DnsEngine;
let named: Named;
const peers: Array<[string, () => ServerAddress]> = [
  ['our server', () => ({ host: '127.0.0.1', port: engine.server?.port as number })],
  ['BIND 9', () => ({ host: named.host, port: named.port })],
];

beforeAll(async () => {
  store = await openSqliteStore({ file: ':memory:' });
  const { importZoneFile } = await import('../../dns/zonefile/zone-files');
  await importZoneFile(store, ZONE, ZONE_TEXT);
  engine = await DnsEngine.start({
    store,
    host: '127.0.0.1',
    port: 0,
    keys: [KEY],
    access: { updateKeys: { [ZONE]: ['tool-key'] }, transferKeys: { [ZONE]: ['tool-key'] } },
  });
  named = await startNamed(
    [
      {
        name: ZONE,
        text: `${ZONE_TEXT}generic IN TYPE65280 \\# 4 c0000201\n`,
        options: 'type primary; allow-update { key tool-key; }; allow-transfer { key tool-key; };',
      },
    ],
    `key "tool-key" { algorithm hmac-sha256; secret "${SECRET}"; };`,
  );
}, 60_000);

afterAll(async () => {
  await named?.stop();
  await engine?.close();
  await store?.close();
});

describe.each(peers)('against %s', (_peer, address) => {
  const client = () => new DnsClient({ server: address(), key: KEY, timeoutMs: 3000 });
  const values = async (name: string, type: string) =>
    (await client().query(name, type)).answers
      .filter((r) => r.type === type)
      .map((r) => r.value)
      .sort();

  test('a signed query gets a verified answer; a missing name is NXDOMAIN, not an error', async () => {
    const answer = await client().query(`www.${ZONE}`, 'A');
    expect(answer.rcode).toBe(0);
    expect(answer.answers).toEqual([{ name: `www.${ZONE}`, type: 'A', ttl: 300, value: '192.0.2.1' }]);
    expect((await client().query(`nothing.${ZONE}`, 'A')).rcode).toBe(3);
  });

  test('UPDATE: add, replace in one message, delete one record, delete a name', async () => {
    const c = client();
    await c.update(ZONE, [
      { op: 'add', name: `app.${ZONE}`, type: 'A', ttl: 60, value: '192.0.2.10' },
      { op: 'add', name: `app.${ZONE}`, type: 'A', ttl: 60, value: '192.0.2.11' },
      { op: 'add', name: `app.${ZONE}`, type: 'MX', ttl: 60, value: `10 mail.example.net.` },
    ]);
    expect(await values(`app.${ZONE}`, 'A')).toEqual(['192.0.2.10', '192.0.2.11']);
    await c.update(ZONE, [
      { op: 'deleteRRset', name: `app.${ZONE}`, type: 'A' },
      { op: 'add', name: `app.${ZONE}`, type: 'A', ttl: 60, value: '192.0.2.20' },
    ]);
    expect(await values(`app.${ZONE}`, 'A')).toEqual(['192.0.2.20']);
    await c.update(ZONE, [{ op: 'deleteRecord', name: `app.${ZONE}`, type: 'MX', value: `10 mail.example.net.` }]);
    expect(await values(`app.${ZONE}`, 'MX')).toEqual([]);
    await c.update(ZONE, [{ op: 'deleteName', name: `app.${ZONE}` }]);
    expect((await c.query(`app.${ZONE}`, 'A')).rcode).toBe(3);
  });

  test('a failed prerequisite is the RCODE RFC 2136 names, and nothing of the UPDATE is applied', async () => {
    const err = await client()
      .update(
        ZONE,
        [{ op: 'add', name: `pre.${ZONE}`, type: 'A', ttl: 60, value: '192.0.2.30' }],
        [{ kind: 'nameInUse', name: `absent.${ZONE}` }],
      )
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DnsClientError);
    expect(err).toMatchObject({ kind: 'rcode', rcode: 'NXDOMAIN' });
    const exists = await client()
      .update(
        ZONE,
        [{ op: 'add', name: `pre.${ZONE}`, type: 'A', ttl: 60, value: '192.0.2.30' }],
        [{ kind: 'rrsetNotExists', name: `www.${ZONE}`, type: 'A' }],
      )
      .catch((e: unknown) => e);
    expect(exists).toMatchObject({ kind: 'rcode', rcode: 'YXRRSET' });
    expect(await values(`pre.${ZONE}`, 'A')).toEqual([]);
  });

  test('AXFR: every record, every message verified, in order from the SOA', async () => {
    const transfer = await client().transfer(ZONE);
    expect(transfer.soa).toMatchObject({ name: ZONE, type: 'SOA' });
    const txt = transfer.records.filter((r) => r.name.startsWith('bulk'));
    expect(txt).toHaveLength(BULK);
    expect(new Set(txt.map((r) => r.value))).toEqual(new Set(bulk.map((r) => r.value)));
    expect(transfer.records).toContainEqual({ name: `www.${ZONE}`, type: 'A', ttl: 300, value: '192.0.2.1' });
    expect(transfer.records.some((r) => r.type === 'SOA')).toBe(false);
    // the same records handed over one by one, in the same order
    const visited: Array<{ name: string; type: string }> = [];
    const each = await client().transferEach(ZONE, (r) => visited.push(r));
    expect(each.soa).toEqual(transfer.soa);
    expect(visited).toEqual(transfer.records);
  });

  test.each([
    ['a wrong secret', WRONG, 'BADSIG'],
    ['an unknown key', UNKNOWN, 'BADKEY'],
  ])('with %s the server answers NOTAUTH and the error says why', async (_what, key, tsigError) => {
    const c = new DnsClient({ server: address(), key, timeoutMs: 3000 });
    const err = await c
      .update(ZONE, [{ op: 'add', name: `bad.${ZONE}`, type: 'A', ttl: 60, value: '192.0.2.99' }])
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'rcode', rcode: 'NOTAUTH', tsigError });
    expect((err as Error).message).toMatch(new RegExp(`NOTAUTH \\(${tsigError}\\).*tool-key|nobody`));
    expect(await values(`bad.${ZONE}`, 'A')).toEqual([]);
  });

  test('an unsigned UPDATE is REFUSED', async () => {
    const c = new DnsClient({ server: address(), timeoutMs: 3000 });
    await expect(
      c.update(ZONE, [{ op: 'add', name: `unsigned.${ZONE}`, type: 'A', ttl: 60, value: '192.0.2.98' }]),
    ).rejects.toMatchObject({ kind: 'rcode', rcode: 'REFUSED' });
  });
});

test('BIND: a type we have no codec for passes through in RFC 3597 generic form', async () => {
  const c = new DnsClient({ server: { host: named.host, port: named.port }, key: KEY });
  const transfer = await c.transfer(ZONE);
  expect(transfer.records).toContainEqual({
    name: `generic.${ZONE}`,
    type: 'TYPE65280',
    ttl: 300,
    value: '\\# 4 c0000201',
  });
  await c.update(ZONE, [{ op: 'add', name: `generic2.${ZONE}`, type: 'TYPE65281', ttl: 60, value: '\\# 2 abcd' }]);
  expect((await c.query(`generic2.${ZONE}`, 'TYPE65281')).answers).toEqual([
    { name: `generic2.${ZONE}`, type: 'TYPE65281', ttl: 60, value: '\\# 2 abcd' },
  ]);
});

describe('failures of the way there', () => {
  let silent: UdpSocket;
  let closedPort: number;
  beforeAll(async () => {
    silent = createSocket('udp4');
    await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
    const probe: Server = createServer();
    closedPort = await new Promise<number>((resolve) =>
      probe.listen(0, '127.0.0.1', () => resolve((probe.address() as { port: number }).port)),
    );
    await new Promise<void>((resolve) => probe.close(() => resolve()));
  });
  afterAll(() => silent.close());

  test('a server that does not answer is a timeout after timeoutMs', async () => {
    const port = silent.address().port;
    const started = Date.now();
    await expect(
      new DnsClient({ server: `127.0.0.1 ${port}`, timeoutMs: 300 }).query(ZONE, 'SOA'),
    ).rejects.toMatchObject({
      kind: 'timeout',
      message: expect.stringContaining(`127.0.0.1#${port}`),
    });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  test('a closed TCP port is a connection error naming the server', async () => {
    await expect(
      new DnsClient({ server: `127.0.0.1:${closedPort}`, timeoutMs: 1000 }).transfer(ZONE),
    ).rejects.toMatchObject({
      kind: 'connection',
      message: expect.stringMatching(/127\.0\.0\.1#\d+.*ECONNREFUSED/),
    });
  });

  test('a transfer whose later message was tampered with fails the TSIG check', async () => {
    // A proxy in front of our server flips one byte of the MAC of the third message of the transfer.
    let frames = 0;
    const proxy = createServer((inbound) => {
      const upstream = new Socket();
      upstream.connect(engine.server?.port as number, '127.0.0.1');
      inbound.pipe(upstream);
      let pending: Buffer = Buffer.alloc(0);
      upstream.on('data', (chunk: Buffer) => {
        const { messages, rest } = splitFrames(Buffer.concat([pending, chunk]));
        pending = rest;
        for (const message of messages) {
          const copy = Buffer.from(message);
          // inside the MAC of the third message (the TSIG record ends the message)
          if (++frames === 3) copy.writeUInt8(copy.readUInt8(copy.length - 20) ^ 0xff, copy.length - 20);
          inbound.write(frameMessage(copy));
        }
      });
      const end = () => {
        inbound.destroy();
        upstream.destroy();
      };
      upstream.on('close', end);
      inbound.on('close', end);
      upstream.on('error', end);
      inbound.on('error', end);
    });
    const port = await new Promise<number>((resolve) =>
      proxy.listen(0, '127.0.0.1', () => resolve((proxy.address() as { port: number }).port)),
    );
    try {
      await expect(new DnsClient({ server: `127.0.0.1 ${port}`, key: KEY }).transfer(ZONE)).rejects.toMatchObject({
        kind: 'tsig',
        message: expect.stringContaining('BADSIG'),
      });
      expect(frames).toBeGreaterThanOrEqual(3);
    } finally {
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    }
  });

  test.each([['example.com'], ['127.0.0.1 0'], ['127.0.0.1 70000'], ['1.2.3.4:x']])(
    'a server written as %p is refused with what is allowed',
    (server) => {
      expect(() => new DnsClient({ server })).toThrow(/must be an IPv4 or IPv6 address|port must be from 1 to 65535/);
    },
  );
});
