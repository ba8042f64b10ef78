import { connect, type Socket } from 'node:net';
import * as packet from 'dns-packet';
import { DnsClient, frameMessage, splitFrames, type DecodedResponse } from '../../dns/client';
import { DnsEngine } from '../../dns/engine/engine';
import { Responder } from '../../dns/server/pipeline/respond';
import { startDnsServer, type DnsServer } from '../../dns/server/transport/server';
import type { TcpLimits } from '../../dns/server/transport/tcp';
import { openSqliteStore } from '../../dns/store';
import type { ZoneStore } from '../../dns/store/types';
import { importZoneFile } from '../../dns/zonefile/zone-files';

/**
 * DNS over TCP is bounded (RFC 7766 §6.2): a cap on connections, an idle deadline between messages, a deadline for
 * each message once its first byte came (bytes trickled in do not extend it), and no more reading while answers
 * pile up unread. UDP keeps answering whatever TCP clients do. Everything over real sockets on 127.0.0.1; deadlines
 * of a second or two, and assertions with wide margins (a loaded machine is slow, never fast).
 * The tests that mostly wait for a deadline, each on a server of its own, run concurrently (jest runs them as one
 * group, before the serial tests): ~6 s instead of ~17 s; the 20 000-query pipelining test runs alone after them.
 */
const HOST = '127.0.0.1';
let store: ZoneStore;
let engine: DnsEngine;

beforeAll(async () => {
  store = await openSqliteStore({ file: ':memory:' });
  await importZoneFile(
    store,
    'limits.test',
    `$TTL 300
@ IN SOA ns1.limits.test. hostmaster.limits.test. 1 3600 600 86400 60
@ IN NS ns1.limits.test.
ns1 IN A 192.0.2.1
www IN A 192.0.2.2
big IN TXT "${'a'.repeat(250)}" "${'b'.repeat(250)}" "${'c'.repeat(250)}" "${'d'.repeat(250)}"
`,
  );
  engine = await DnsEngine.start({ store, host: HOST, port: 0, listen: false });
});
afterAll(async () => {
  await engine.close();
  await store.close();
});

/** A server on the engine's index with these TCP limits; `served` counts the messages it answered. */
async function serve(tcp: Partial<TcpLimits>): Promise<{ server: DnsServer; served: () => number; errors: unknown[] }> {
  const responder = new Responder(engine.index);
  let served = 0;
  const answerNow = responder.answerNow.bind(responder);
  responder.answerNow = (raw, transport) => {
    served++;
    return answerNow(raw, transport);
  };
  const errors: unknown[] = [];
  const server = await startDnsServer({ host: HOST, port: 0, responder, tcp, onError: (err) => errors.push(err) });
  return { server, served: () => served, errors };
}

let nextId = 1;
const query = (name: string, type: packet.RecordType = 'A'): Buffer =>
  packet.encode({ type: 'query', id: (nextId = (nextId % 65535) + 1), questions: [{ name, type, class: 'IN' }] });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Client {
  socket: Socket;
  /** Whole answers received so far. */
  answers: packet.DecodedPacket[];
  /** Resolves with the time the connection closed. */
  closed: Promise<number>;
}

function open(port: number): Promise<Client> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, HOST);
    const client: Client = {
      socket,
      answers: [],
      closed: new Promise((r) => socket.once('close', () => r(Date.now()))),
    };
    let buffer: Buffer = Buffer.alloc(0);
    socket.on('data', (d: Buffer) => {
      const { messages, rest } = splitFrames(Buffer.concat([buffer, d]));
      for (const message of messages) client.answers.push(packet.decode(message));
      buffer = rest;
    });
    socket.on('error', () => undefined); // a reset by the server shows as 'close'
    socket.once('connect', () => resolve(client));
    socket.once('error', reject);
  });
}

async function until(what: string, ok: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await sleep(10);
  }
}

/** An ordinary client of the server: one query over UDP, or (tcp) over a TCP connection of its own. */
const dnsClient = (port: number) => new DnsClient({ server: { host: HOST, port }, timeoutMs: 3000 });
const values = (answer: DecodedResponse) => answer.answers.map((a) => a.value);
const addresses = (answer: packet.DecodedPacket | undefined) =>
  answer?.answers?.map((a) => (a as { data?: unknown }).data);

test.concurrent(
  'a client trickling one byte a second is cut once its message is not whole after the message deadline',
  async () => {
    // idle 3 s would never fire (a byte comes every second); the 2 s message deadline must
    const { server } = await serve({ idleMs: 3000, messageMs: 2000 });
    try {
      const client = await open(server.port);
      const bytes = frameMessage(query('www.limits.test'));
      const start = Date.now();
      let sent = 0;
      const drip = setInterval(() => {
        if (sent < bytes.length && !client.socket.destroyed) client.socket.write(bytes.subarray(sent, ++sent));
      }, 1000);
      client.socket.write(bytes.subarray(0, ++sent));
      const closedAt = await Promise.race([client.closed, sleep(15_000).then(() => 0)]);
      clearInterval(drip);
      expect(closedAt).toBeGreaterThan(0);
      expect(closedAt - start).toBeGreaterThanOrEqual(1900);
      expect(closedAt - start).toBeLessThan(8000);
      expect(sent).toBeLessThan(bytes.length); // it was cut before the message could complete
      expect(client.answers).toEqual([]);
    } finally {
      await server.close();
    }
  },
  30_000,
);

test.concurrent(
  'several whole messages trickled one after another: each gets its own deadline, the connection stays',
  async () => {
    const { server } = await serve({ idleMs: 3000, messageMs: 2500 });
    try {
      const client = await open(server.port);
      // five queries, each sent in two halves 600 ms apart: each is whole well within 2.5 s, all of them take longer
      for (let i = 0; i < 5; i++) {
        const bytes = frameMessage(query('www.limits.test'));
        client.socket.write(bytes.subarray(0, 10));
        await sleep(600);
        client.socket.write(bytes.subarray(10));
        await until('the answer', () => client.answers.length === i + 1);
        await sleep(600);
      }
      expect(client.socket.destroyed).toBe(false);
      expect(client.answers.map(addresses)).toEqual(Array.from({ length: 5 }, () => ['192.0.2.2']));
      client.socket.destroy();
    } finally {
      await server.close();
    }
  },
  30_000,
);

test.concurrent(
  'with the cap full of idle connections: one more is closed at once, UDP answers, and TCP answers again once idle ones expire',
  async () => {
    const { server } = await serve({ maxConnections: 3, idleMs: 4000, messageMs: 4000 });
    try {
      const idle = await Promise.all([open(server.port), open(server.port), open(server.port)]);
      await sleep(100); // the server has accepted them
      const extra = await open(server.port);
      const extraClosed = await Promise.race([extra.closed, sleep(3000).then(() => 0)]);
      expect(extraClosed).toBeGreaterThan(0);
      expect(extra.answers).toEqual([]);
      // the held connections work, UDP works
      const [held] = idle;
      if (!held) throw new Error('no connection held');
      held.socket.write(frameMessage(query('www.limits.test')));
      await until('an answer on a held connection', () => held.answers.length === 1);
      expect(values(await dnsClient(server.port).query('www.limits.test', 'A'))).toEqual(['192.0.2.2']);
      // the idle ones expire (idle 4 s), then a new connection is served
      await Promise.all(idle.map((c) => Promise.race([c.closed, sleep(15_000)])));
      expect(idle.every((c) => c.socket.destroyed)).toBe(true);
      expect(values(await dnsClient(server.port).query('www.limits.test', 'A', { tcp: true }))).toEqual(['192.0.2.2']);
    } finally {
      await server.close();
    }
  },
  30_000,
);

test('pipelined queries whose answers are not read: the server stops reading, then answers them all once the client reads', async () => {
  // 20 000 queries for a 1 KiB answer: 20 MiB of answers, far beyond the kernel's socket buffers
  const COUNT = 20_000;
  const { server, served } = await serve({ maxBufferedBytes: 64 * 1024, idleMs: 20_000, messageMs: 20_000 });
  try {
    const client = await open(server.port);
    client.socket.pause(); // not reading
    const bytes = Buffer.concat(Array.from({ length: COUNT }, () => frameMessage(query('big.limits.test', 'TXT'))));
    client.socket.write(bytes);
    // it settles: the server answered some, then stopped reading
    let last = -1;
    for (let i = 0; i < 100 && served() !== last; i++) {
      last = served();
      await sleep(300);
    }
    expect(served()).toBeGreaterThan(0);
    expect(served()).toBeLessThan(COUNT / 2);
    // the client reads: every answer comes
    client.socket.resume();
    await until('every answer', () => client.answers.length === COUNT, 30_000);
    expect(client.answers.every((a) => a.answers?.[0]?.type === 'TXT')).toBe(true);
    client.socket.destroy();
  } finally {
    await server.close();
  }
}, 60_000);

test.concurrent(
  'a client that stops reading its answers is cut once they stop going out (idle deadline), UDP answering all along',
  async () => {
    const { server } = await serve({ maxBufferedBytes: 64 * 1024, idleMs: 1500, messageMs: 1500 });
    try {
      const client = await open(server.port);
      client.socket.pause();
      client.socket.write(
        Buffer.concat(Array.from({ length: 20_000 }, () => frameMessage(query('big.limits.test', 'TXT')))),
      );
      expect(values(await dnsClient(server.port).query('www.limits.test', 'A'))).toEqual(['192.0.2.2']);
      // a paused client does not see the close until it reads: it reads after the deadline, gets what was sent, and the end
      await sleep(4000);
      client.socket.resume();
      const closedAt = await Promise.race([client.closed, sleep(15_000).then(() => 0)]);
      expect(closedAt).toBeGreaterThan(0);
      expect(client.answers.length).toBeLessThan(20_000);
    } finally {
      await server.close();
    }
  },
  30_000,
);

test('a client that sends its queries and shuts its side of the connection still gets every answer', async () => {
  const { server } = await serve({});
  try {
    const client = await open(server.port);
    client.socket.end(Buffer.concat([frameMessage(query('www.limits.test')), frameMessage(query('ns1.limits.test'))]));
    await client.closed;
    expect(client.answers.map(addresses)).toEqual([['192.0.2.2'], ['192.0.2.1']]);
  } finally {
    await server.close();
  }
});

test('pipelined queries of every kind written at once (RFC 7766 §6.2.1.1): each gets its answer, matched by ID', async () => {
  const { server, errors } = await serve({});
  try {
    const client = await open(server.port);
    const id = (n: number) => 0x7000 + n;
    const queries: Array<[number, Buffer]> = [
      // answered at once (plain-query path)
      [id(1), packet.encode({ type: 'query', id: id(1), questions: [{ name: 'www.limits.test', type: 'A' }] })],
      [id(2), packet.encode({ type: 'query', id: id(2), questions: [{ name: 'big.limits.test', type: 'TXT' }] })],
      [id(3), packet.encode({ type: 'query', id: id(3), questions: [{ name: 'nope.limits.test', type: 'A' }] })],
      // the general path: two questions (FORMERR), class CH (REFUSED), an EDNS option it interprets (ECS)
      [
        id(4),
        packet.encode({
          type: 'query',
          id: id(4),
          questions: [
            { name: 'www.limits.test', type: 'A' },
            { name: 'ns1.limits.test', type: 'A' },
          ],
        }),
      ],
      [
        id(5),
        packet.encode({ type: 'query', id: id(5), questions: [{ name: 'www.limits.test', type: 'A', class: 'CH' }] }),
      ],
      [
        id(6),
        packet.encode({
          type: 'query',
          id: id(6),
          questions: [{ name: 'ns1.limits.test', type: 'A' }],
          additionals: [
            {
              name: '.',
              type: 'OPT',
              udpPayloadSize: 1232,
              extendedRcode: 0,
              ednsVersion: 0,
              flags: 0,
              flag_do: false,
              options: [{ code: 8, family: 1, sourcePrefixLength: 24, scopePrefixLength: 0, ip: '192.0.2.0' }],
            },
          ],
        }),
      ],
      // a zone transfer (no handler here: REFUSED) and the same plain query again (the answer cache)
      [id(7), packet.encode({ type: 'query', id: id(7), questions: [{ name: 'limits.test', type: 'AXFR' }] })],
      [id(8), packet.encode({ type: 'query', id: id(8), questions: [{ name: 'www.limits.test', type: 'A' }] })],
    ];
    client.socket.write(Buffer.concat(queries.map(([, q]) => frameMessage(q))));
    await until('every answer', () => client.answers.length === queries.length);
    const byId = new Map(client.answers.map((a) => [a.id, a]));
    expect([...byId.keys()].sort()).toEqual(queries.map(([n]) => n).sort());
    const rcodeOf = (n: number) => (byId.get(n) as { rcode?: string } | undefined)?.rcode;
    expect(addresses(byId.get(id(1)))).toEqual(['192.0.2.2']);
    expect(byId.get(id(2))?.answers?.[0]?.type).toBe('TXT');
    expect(rcodeOf(id(3))).toBe('NXDOMAIN');
    expect(rcodeOf(id(4))).toBe('FORMERR');
    expect(rcodeOf(id(5))).toBe('REFUSED');
    expect(addresses(byId.get(id(6)))).toEqual(['192.0.2.1']);
    expect(rcodeOf(id(7))).toBe('REFUSED');
    expect(addresses(byId.get(id(8)))).toEqual(['192.0.2.2']);
    expect(errors).toEqual([]);
    client.socket.destroy();
  } finally {
    await server.close();
  }
});
