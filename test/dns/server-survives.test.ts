import * as packet from 'dns-packet';
import { DnsClient, rcodeName } from '../../dns/client';
import { DnsEngine } from '../../dns/engine/engine';
import type { Remote, Responder } from '../../dns/server/pipeline/respond';
import { DnsStats } from '../../dns/server/stats/dns-stats';
import { startDnsServer, type DnsServer } from '../../dns/server/transport/server';
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
  stats: new DnsStats(),
} as unknown as Responder;

let server: DnsServer;
const reported: unknown[] = [];

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
});
afterAll(async () => {
  await server.close();
});

/**
 * An A query over UDP or TCP; the client takes only an answer with the query's ID (another one is a timeout) and
 * does not retry a SERVFAIL.
 */
const client = () => new DnsClient({ server: { host: HOST, port: server.port }, timeoutMs: 3000 });
const overUdp = (name: string) => client().query(name, 'A');
const overTcp = (name: string) => client().query(name, 'A', { tcp: true });

test.each(Object.keys(FAULTS))(
  '%s: SERVFAIL over UDP and TCP, reported once each, nothing escapes, the server goes on',
  async (label) => {
    for (const send of [overUdp, overTcp]) {
      reported.length = 0;
      const answer = await send(`${label}.example.test`);
      expect(rcodeName(answer.rcode)).toBe('SERVFAIL');
      expect(answer.message.flag_tc).toBe(false); // over UDP: answered there, not retried over TCP
      expect(reported).toHaveLength(1);
      expect(escapes.escaped).toEqual([]);
      // and the next ordinary query is answered
      expect(rcodeName((await send('fine.example.test')).rcode)).toBe('NOERROR');
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
