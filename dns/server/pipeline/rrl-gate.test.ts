import * as packet from 'dns-packet';
import type { Answer } from 'dns-packet';
import { randomBytes } from 'node:crypto';
import { DnsEngine } from '../../engine/engine';
import { openSqliteStore } from '../../store';
import type { ZoneStore } from '../../store/types';
import { parseKeySpec } from '../../tsig/keyfile';
import { signMessage } from '../../tsig/tsig';
import { importZoneFile } from '../../zonefile/zone-files';
import { G } from '../stats/dns-stats';
import { ServerCookies } from './cookies';
import { collectReplies, Responder, type Remote } from './respond';
import { DEFAULT_RRL } from './rrl';

/**
 * RRL inside a responder, on both answer paths: the plain-query path (`answerNow`: null for a drop) and the general
 * path (`handle`: a query with an option the fast path leaves to it), with what is never limited.
 */
const ZONE_TEXT = `$ORIGIN gate.test.
$TTL 300
@ IN SOA ns1 hostmaster 1 3600 600 86400 300
  IN NS ns1
ns1 IN A 192.0.2.1
www IN A 192.0.2.80
`;
const KEY = parseKeySpec('hmac-sha256:g:c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MTI=');
const UDP: Remote = { address: '192.0.2.9', port: 5300, transport: 'udp' };
const RATE = 3;

let store: ZoneStore;
let engine: DnsEngine;
let clock = 0;
let responder: Responder;
const cookies = new ServerCookies(randomBytes(32), () => 1_795_000_000);

beforeAll(async () => {
  store = await openSqliteStore({ file: ':memory:' });
  await importZoneFile(store, 'gate.test', ZONE_TEXT);
  engine = await DnsEngine.start({ store, host: '127.0.0.1', port: 0, listen: false });
});
afterAll(async () => {
  await engine.close();
  await store.close();
});
beforeEach(() => {
  responder = new Responder(engine.index, {}, new Map([[KEY.name, KEY]]), undefined, {
    cookies,
    rrl: { ...DEFAULT_RRL, responsesPerSecond: RATE, slip: 2 },
    rrlNow: () => clock,
  });
});

/** A query for www.gate.test A with EDNS and these options (code 8, ECS, makes it take `handle`). */
function query(id: number, options: Array<{ code: number; data: Buffer }> = []): Buffer {
  return packet.encode({
    type: 'query',
    id,
    questions: [{ name: 'www.gate.test', type: 'A', class: 'IN' }],
    additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 1232, flags: 0, options } as unknown as Answer],
  });
}

const tc = (m: Buffer): boolean => (m.readUInt16BE(2) & 0x0200) !== 0;

test('plain path: the rate, then drop and slip by turns; over TCP never limited', () => {
  const out = Array.from({ length: RATE + 4 }, (_, i) => {
    const a = responder.answerNow(query(i), 'udp', UDP.address);
    return a === null ? 'drop' : a === undefined ? 'handle' : tc(a) ? 'slip' : 'answer';
  });
  expect(out).toEqual([...Array<string>(RATE).fill('answer'), 'drop', 'slip', 'drop', 'slip']);
  const g = responder.stats.counts;
  expect([g[G.rrlDropped], g[G.rrlSlipped]]).toEqual([2, 2]);
  for (let i = 0; i < 10; i++)
    expect(tc(responder.answerNow(query(100 + i), 'tcp', UDP.address) as Buffer)).toBe(false);
  // the slip echoes the question and has no records (the next limited one is a drop, the one after a slip)
  expect(responder.answerNow(query(200), 'udp', UDP.address)).toBeNull();
  const slip = packet.decode(responder.answerNow(query(201), 'udp', UDP.address) ?? Buffer.alloc(0));
  expect(slip.questions?.[0]?.name).toBe('www.gate.test');
  expect(slip.answers).toEqual([]);
});

test('plain path: a valid server cookie for this address is never limited; a client cookie alone is', () => {
  for (let i = 0; i < RATE; i++) responder.answerNow(query(i), 'udp', UDP.address);
  const client = Buffer.from('0102030405060708', 'hex');
  const full = cookies.answer(client, UDP.address);
  for (let i = 0; i < 5; i++) {
    const a = responder.answerNow(query(10 + i, [{ code: 10, data: full }]), 'udp', UDP.address);
    expect(a && !tc(a)).toBe(true);
  }
  const other = cookies.answer(client, '192.0.2.10'); // made for another address
  const limited = [0, 1].map((i) =>
    responder.answerNow(query(20 + i, [{ code: 10, data: other }]), 'udp', UDP.address),
  );
  expect(limited.some((a) => a === null)).toBe(true);
});

test('general path (handle): limited the same way; a TSIG-signed query never', async () => {
  const ecs = [{ code: 8, data: Buffer.from([0, 1, 24, 0, 192, 0, 2]) }];
  expect(responder.answerNow(query(1, ecs), 'udp', UDP.address)).toBeUndefined();
  const kinds: string[] = [];
  for (let i = 0; i < RATE + 4; i++) {
    const replies = await collectReplies(await responder.handle(query(i, ecs), UDP));
    kinds.push(replies.length === 0 ? 'drop' : tc(replies[0] as Buffer) ? 'slip' : 'answer');
  }
  expect(kinds).toEqual([...Array<string>(RATE).fill('answer'), 'drop', 'slip', 'drop', 'slip']);
  for (let i = 0; i < 5; i++) {
    const signed = signMessage(query(50 + i), KEY).message;
    const [reply] = await collectReplies(await responder.handle(signed, UDP));
    expect(reply && !tc(reply) && packet.decode(reply).answers?.length).toBe(1);
  }
  // two seconds later the balance (-4) is back above zero by the rate: answered again
  clock += 1000 * 2;
  const [again] = await collectReplies(await responder.handle(query(99, ecs), UDP));
  expect(again && !tc(again)).toBe(true);
});
