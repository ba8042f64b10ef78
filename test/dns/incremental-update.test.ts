// @needs postgres
/**
 * Dynamic updates over UDP, signed with TSIG, against the engine on SQLite and on PostgreSQL: the answer to an
 * UPDATE comes once the index shows the change (no stale answer, cached or not, after it), concurrent updates of
 * different names all land, and the patched index equals one built afresh from the store.
 */
import { randomBytes } from 'node:crypto';
import { createSocket, type Socket } from 'node:dgram';
import * as packet from 'dns-packet';
import type { Answer } from 'dns-packet';
import { DnsEngine } from '../../dns/engine';
import type { ZoneData } from '../../dns/server/zone-index';
import { openPostgresStore, openSqliteStore } from '../../dns/store';
import type { ZoneStore } from '../../dns/store/types';
import { answersOf, questionsFor, transferOf, zoneView } from '../../dns/testing/zone-compare';
import { parseKeySpec } from '../../dns/tsig/keyfile';
import { signMessage } from '../../dns/tsig/tsig';
import { buildZone } from '../../dns/zone-loader';
import { dropSchemas } from '../../dns/testing/postgres';

const url = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `iu_${process.pid}_${randomBytes(4).toString('hex')}`;
const ZONE = 'upd.test';
const KEY = parseKeySpec('hmac-sha256:upd:c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MTI=');

afterAll(async () => {
  await dropSchemas(url, [schema]);
});

/** One UDP socket; answers matched to questions by message ID. */
class Client {
  private readonly socket: Socket = createSocket('udp4');
  private readonly waiting = new Map<number, (msg: Buffer) => void>();
  private id = 0;

  constructor(private readonly port: number) {
    this.socket.on('message', (msg) => this.waiting.get(msg.readUInt16BE(0))?.(msg));
  }

  nextId(): number {
    this.id = (this.id % 65535) + 1;
    return this.id;
  }

  exchange(message: Buffer): Promise<packet.DecodedPacket> {
    return new Promise((resolve, reject) => {
      const id = message.readUInt16BE(0);
      const timer = setTimeout(() => reject(new Error(`no answer to message ${id}`)), 5000);
      this.waiting.set(id, (msg) => {
        clearTimeout(timer);
        this.waiting.delete(id);
        resolve(packet.decode(msg));
      });
      this.socket.send(message, this.port, '127.0.0.1');
    });
  }

  query(name: string, type: string): Promise<packet.DecodedPacket> {
    return this.exchange(
      packet.encode({
        type: 'query',
        id: this.nextId(),
        flags: 0,
        questions: [{ name, type: type as 'A', class: 'IN' }],
      }),
    );
  }

  /** A signed UPDATE of ZONE with these update records. */
  update(records: Answer[]): Promise<packet.DecodedPacket> {
    const msg = packet.encode({
      type: 'query',
      id: this.nextId(),
      flags: 5 << 11,
      questions: [{ name: ZONE, type: 'SOA', class: 'IN' }],
      authorities: records,
    });
    return this.exchange(signMessage(msg, KEY).message);
  }

  close(): void {
    this.socket.close();
  }
}

const addA = (label: string, ip: string): Answer => ({
  name: `${label}.${ZONE}`,
  type: 'A',
  class: 'IN',
  ttl: 300,
  data: ip,
});
/** Deletes every RRset at the name (class ANY, type ANY: RFC 2136 §2.5.3). */
const deleteName = (label: string): Answer =>
  ({ name: `${label}.${ZONE}`, type: 'ANY', class: 'ANY', ttl: 0, data: Buffer.alloc(0) }) as unknown as Answer;
const rcode = (m: packet.DecodedPacket): string | undefined => (m as { rcode?: string }).rcode;
const firstA = (m: packet.DecodedPacket): unknown =>
  (m.answers?.find((a) => a.type === 'A') as packet.StringAnswer | undefined)?.data;

describe.each([
  { kind: 'sqlite', open: () => openSqliteStore({ file: ':memory:' }) },
  { kind: 'postgres', open: () => openPostgresStore({ url, schema }) },
])('DNS UPDATE on $kind', ({ open }) => {
  let store: ZoneStore;
  let engine: DnsEngine;
  let client: Client;

  beforeAll(async () => {
    store = await open();
    await store.createZone(
      ZONE,
      {
        adminEmail: `hostmaster@${ZONE}`,
        primaryNs: `ns1.${ZONE}`,
        refresh: 3600,
        retry: 600,
        expire: 86400,
        minimum: 60,
        defaultTtl: 300,
      },
      [
        { name: ZONE, type: 'NS', ttl: 300, value: `ns1.${ZONE}.` },
        { name: `ns1.${ZONE}`, type: 'A', ttl: 300, value: '192.0.2.53' },
        { name: `www.${ZONE}`, type: 'A', ttl: 300, value: '192.0.2.1' },
      ],
    );
    engine = await DnsEngine.start({ store, host: '127.0.0.1', port: 0, keys: [KEY] });
    client = new Client(engine.server?.port as number);
  });
  afterAll(async () => {
    client.close();
    await engine.close();
    await store.close();
  });

  async function expectFresh(): Promise<void> {
    const current = engine.index.get(ZONE) as ZoneData;
    const fresh = (await buildZone(store, ZONE)) as ZoneData;
    expect(zoneView(current)).toEqual(zoneView(fresh));
    const questions = questionsFor([current, fresh], [`n0.${ZONE}`, `x.deep.${ZONE}`, `deep.${ZONE}`]);
    expect(answersOf(current, questions)).toEqual(answersOf(fresh, questions));
    expect(transferOf(current)).toEqual(transferOf(fresh));
  }

  test('an answer cached before an update is not served after it; the SOA shows the new serial at once', async () => {
    expect(rcode(await client.query(`n0.${ZONE}`, 'A'))).toBe('NXDOMAIN');
    expect(rcode(await client.query(`n0.${ZONE}`, 'A'))).toBe('NXDOMAIN'); // now from the answer cache
    expect(rcode(await client.query(`deep.${ZONE}`, 'A'))).toBe('NXDOMAIN');
    expect(rcode(await client.update([addA('n0', '192.0.2.10'), addA('x.deep', '192.0.2.11')]))).toBe('NOERROR');
    const answer = await client.query(`n0.${ZONE}`, 'A');
    expect(firstA(answer)).toBe('192.0.2.10');
    const ent = await client.query(`deep.${ZONE}`, 'A');
    expect([rcode(ent), ent.answers?.length]).toEqual(['NOERROR', 0]); // an empty non-terminal now
    const soa = (await client.query(ZONE, 'SOA')).answers?.[0] as packet.SoaAnswer;
    expect(soa.data.serial).toBe((await store.getZone(ZONE))?.serial);
    await expectFresh();

    expect(rcode(await client.update([deleteName('n0'), deleteName('x.deep')]))).toBe('NOERROR');
    expect(rcode(await client.query(`n0.${ZONE}`, 'A'))).toBe('NXDOMAIN');
    expect(rcode(await client.query(`deep.${ZONE}`, 'A'))).toBe('NXDOMAIN');
    await expectFresh();
  });

  test('concurrent updates of different names all land and answer at once', async () => {
    const labels = Array.from({ length: 12 }, (_, i) => `c${i}`);
    const replies = await Promise.all(labels.map((l, i) => client.update([addA(l, `192.0.2.${100 + i}`)])));
    expect(replies.map(rcode)).toEqual(labels.map(() => 'NOERROR'));
    const answers = await Promise.all(labels.map((l) => client.query(`${l}.${ZONE}`, 'A')));
    expect(answers.map(firstA)).toEqual(labels.map((_, i) => `192.0.2.${100 + i}`));
    await expectFresh();
    const removed = await Promise.all(labels.filter((_, i) => i % 2 === 0).map((l) => client.update([deleteName(l)])));
    expect(removed.map(rcode)).toEqual(labels.filter((_, i) => i % 2 === 0).map(() => 'NOERROR'));
    await expectFresh();
    expect(await store.listRecords(ZONE, { names: labels.map((l) => `${l}.${ZONE}`) })).toHaveLength(6);
  });
});
