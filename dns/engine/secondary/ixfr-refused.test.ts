import * as packet from 'dns-packet';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { createServer, type Server } from 'node:net';
import { DnsClient, frameMessage, splitFrames } from '../../client';
import { sendNotify } from '../../server';
import { openSqliteStore, type ZoneStore } from '../../store';
import { DnsEngine } from '../engine';

/**
 * A primary that refuses IXFR (an error RCODE, as a server without IXFR may answer) but gives AXFR: the secondary
 * transfers the zone whole instead (docs/dns-server.md, "Secondary zones"). The fake answers SOA over UDP and
 * transfers over TCP from a serial the test raises.
 */
const ZONE = 'fallback.test';
let serial = 1;
const asked: string[] = [];
let udp: UdpSocket;
let tcp: Server;
let port: number;
let store: ZoneStore;
let secondary: DnsEngine;

const soa = (): packet.Answer => ({
  name: ZONE,
  type: 'SOA',
  ttl: 300,
  data: {
    mname: `ns1.${ZONE}`,
    rname: `hostmaster.${ZONE}`,
    serial,
    refresh: 3600,
    retry: 600,
    expire: 86400,
    minimum: 60,
  },
});

function respond(raw: Buffer): Buffer[] {
  const query = packet.decode(raw);
  const question = query.questions?.[0];
  const base = {
    type: 'response' as const,
    id: query.id,
    flags: packet.AUTHORITATIVE_ANSWER,
    questions: query.questions,
  };
  asked.push(question?.type ?? '?');
  if (question?.type === 'IXFR') return [packet.encode({ ...base, flags: base.flags | 5 })]; // REFUSED
  if (question?.type === 'AXFR') {
    const www: packet.Answer = { name: `www.${ZONE}`, type: 'A', ttl: 300, data: `192.0.2.${serial}` };
    return [packet.encode({ ...base, answers: [soa(), www] }), packet.encode({ ...base, answers: [soa()] })];
  }
  return [packet.encode({ ...base, answers: question?.type === 'SOA' ? [soa()] : [] })];
}

beforeAll(async () => {
  tcp = createServer((socket) => {
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      const { messages, rest } = splitFrames(Buffer.concat([pending, chunk]));
      pending = Buffer.from(rest);
      for (const raw of messages) for (const reply of respond(raw)) socket.write(frameMessage(reply));
    });
  });
  port = await new Promise<number>((resolve) =>
    tcp.listen(0, '127.0.0.1', () => resolve((tcp.address() as { port: number }).port)),
  );
  udp = createSocket('udp4');
  udp.on('message', (raw, from) => {
    for (const reply of respond(raw)) udp.send(reply, from.port, from.address);
  });
  await new Promise<void>((resolve) => udp.bind(port, '127.0.0.1', () => resolve()));
  store = await openSqliteStore({ file: ':memory:' });
  secondary = await DnsEngine.start({
    store,
    host: '127.0.0.1',
    port: 0,
    answerThread: false,
    secondary: { zones: [{ zone: ZONE, primary: { host: '127.0.0.1', port } }], timeoutMs: 1000 },
  });
});

afterAll(async () => {
  await secondary?.close();
  await store?.close();
  udp?.close();
  tcp?.close();
});

async function served(): Promise<string[]> {
  const client = new DnsClient({ server: { host: '127.0.0.1', port: secondary.server!.port } });
  const deadline = Date.now() + 5000;
  for (;;) {
    const answer = await client.query(`www.${ZONE}`, 'A');
    const values = answer.answers.map((r) => r.value);
    if (values.includes(`192.0.2.${serial}`) || Date.now() > deadline) return values;
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('IXFR refused by the primary: the zone is transferred whole by AXFR', async () => {
  expect(await served()).toEqual(['192.0.2.1']);
  expect(asked).toEqual(['SOA', 'AXFR']); // nothing held yet: AXFR at once
  asked.length = 0;
  serial = 2;
  expect(await sendNotify(ZONE, { host: '127.0.0.1', port: secondary.server!.port }, { tries: 1 })).toBe(true);
  expect(await served()).toEqual(['192.0.2.2']);
  expect(asked).toEqual(['SOA', 'IXFR', 'AXFR']);
});
