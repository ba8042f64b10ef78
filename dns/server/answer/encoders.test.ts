import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as packet from 'dns-packet';
import type { DecodedPacket, Packet } from 'dns-packet';
import { DnsEngine } from '../../engine/engine';
import { openSqliteStore } from '../../store';
import type { ZoneStore } from '../../store/types';
import { importZoneFile } from '../../zonefile/zone-files';
import { decodeMessage } from '../../wire/message';
import { Answerer } from './answer';
import { AnswerCache } from './answer-cache';
import { PlainAnswerEncoder } from './answer-wire';
import { encodeResponse } from './encode';
import { PlainQueries, PlainQueryScan } from '../pipeline/plain-query';
import { resolve } from '../../zone/resolve';
import { CLASSIC_UDP_SIZE, FLAG_AA, FLAG_TC, MAX_MESSAGE, RCODE } from '../../wire/header';
import { ServerCookies } from '../pipeline/cookies';
import { DnsStats } from '../stats/dns-stats';

/**
 * The contract of the three encoders that must give identical bytes for the same answer: the general one
 * (encodeResponse, through dns-packet), the plain-query one (PlainAnswerEncoder, bytes put together in place) and
 * the answer cache (an earlier answer with this query's ID, RD and CD written in). Each case runs all three over the
 * same resolution and compares bytes: full answers, the truncated (TC) forms, names that would compress, and
 * answers too large for a DNS message.
 */
const COMPARE = readFileSync(join(__dirname, '..', '..', '..', 'test', 'dns', 'fixtures', 'compare.zone'), 'utf8');
const aRecords = (name: string, count: number): string =>
  Array.from({ length: count }, (_, i) => `${name} IN A 10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`).join('\n');
const BIG = `$ORIGIN big.test.
$TTL 300
@ IN SOA ns.big.test. hostmaster.big.test. ( 1 3600 600 86400 300 )
@ IN NS ns.big.test.
ns IN A 192.0.2.1
${aRecords('forty', 40)}
${aRecords('huge', 6000)}
alias IN CNAME forty.big.test.
a.very.long.name.that.shares.its.suffix IN CNAME b.very.long.name.that.shares.its.suffix.big.test.
b.very.long.name.that.shares.its.suffix IN A 192.0.2.2
`;
// the root: its name is one byte, and a record owned by it is written as that byte again, not as a pointer
const ROOT = `$ORIGIN .
$TTL 300
@ IN SOA a.root-servers.test. hostmaster.root-servers.test. ( 1 3600 600 86400 300 )
@ IN NS a.root-servers.test.
@ IN NS b.root-servers.test.
`;

let store: ZoneStore;
let engine: DnsEngine;

beforeAll(async () => {
  // RRset limit off: answers too large for a DNS message must be encoded all the same
  store = await openSqliteStore({ file: ':memory:', maxRecordsPerRrset: 0 });
  await importZoneFile(store, 'compare.test', COMPARE);
  await importZoneFile(store, 'big.test', BIG);
  await importZoneFile(store, '', ROOT);
  engine = await DnsEngine.start({ store, host: '127.0.0.1', port: 0, listen: false });
});
afterAll(async () => {
  await engine.close();
  await store.close();
});

function query(name: string, type: string, id: number, flags: number, edns?: { do: boolean }): Buffer {
  const p: Packet = { type: 'query', id, flags, questions: [{ name, type: type as 'A', class: 'IN' }] };
  if (edns)
    p.additionals = [
      {
        name: '.',
        type: 'OPT',
        udpPayloadSize: 1232,
        extendedRcode: 0,
        ednsVersion: 0,
        flags: edns.do ? packet.DNSSEC_OK : 0,
        flag_do: edns.do,
        options: [],
      },
    ];
  return packet.encode(p);
}

/** The three encoders' bytes for one query: general, plain (undefined when it declines), from the cache. */
function encodeAll(raw: Buffer, second: Buffer) {
  const scan = new PlainQueryScan();
  expect(scan.scan(raw)).toBe(true);
  const decoded = decodeMessage(raw) as unknown as DecodedPacket;
  const question = decoded.questions?.[0];
  if (question === undefined) throw new Error('no question');
  const result = resolve(engine.index, question.name, question.type);
  const rcode = RCODE[result.rcode];
  const flags = result.aa ? FLAG_AA : 0;
  const general = encodeResponse(decoded, result, rcode, flags);
  const generalTc = encodeResponse(decoded, {}, rcode, flags | FLAG_TC);

  const encoder = new PlainAnswerEncoder();
  const nameEnd = scan.questionEnd - 4;
  const qname = encoder.nameText(raw, nameEnd);
  const none = { answers: [], authorities: [], additionals: [] };
  const plain = encoder.encode(raw, nameEnd, scan.questionEnd, qname, result, rcode, flags, scan.edns);
  const plainTc = encoder.encode(raw, nameEnd, scan.questionEnd, qname, none, rcode, flags | FLAG_TC, scan.edns);

  const plainQueries = new PlainQueries(
    engine.index,
    new Answerer(engine.index, new PlainAnswerEncoder()),
    new AnswerCache({ maxEntries: 100, maxBytes: 1 << 24 }),
    new ServerCookies(),
    new DnsStats(),
  );
  const miss = Buffer.from(plainQueries.answerNow(raw, 'tcp') as Buffer);
  const hit = Buffer.from(plainQueries.answerNow(second, 'tcp') as Buffer);
  const hitUdp = Buffer.from(plainQueries.answerNow(second, 'udp') as Buffer);
  const secondDecoded = decodeMessage(second) as unknown as DecodedPacket;
  return { general, generalTc, plain, plainTc, miss, hit, hitUdp, secondDecoded, result, rcode, flags };
}

/**
 * `msg` has its names compressed where they repeat a suffix (shorter than dns-packet's encoding of what it decodes
 * to, which writes every name in full, when the answer has a record) and decodes to the same message.
 */
function compressedAsWritten(msg: Buffer): void {
  const decoded = packet.decode(msg);
  const inFull = packet.encode(decoded);
  expect(packet.decode(inFull)).toEqual(decoded);
  if ((decoded.answers?.length ?? 0) + (decoded.authorities?.length ?? 0) > 0)
    expect(msg.length).toBeLessThan(inFull.length);
  else expect(msg.length).toBe(inFull.length);
}

describe.each([
  ['www.compare.test', 'A'],
  // a question in other case than the zone's names: the answer gives the zone's case (as BIND), compressed to the
  // suffix the two share byte for byte
  ['WwW.compare.test', 'AAAA'],
  ['compare.test', 'ANY'],
  ['nope.compare.test', 'A'],
  ['chain1.compare.test', 'A'],
  ['host.sub.compare.test', 'A'],
  ['x.dname.compare.test', 'A'],
  ['big.compare.test', 'TXT'],
  ['forty.big.test', 'A'],
  ['alias.big.test', 'A'],
  ['a.very.long.name.that.shares.its.suffix.big.test', 'A'],
  ['.', 'NS'],
  ['.', 'SOA'],
  ['nothing.here', 'A'],
])('%s %s', (name, type) => {
  for (const edns of [undefined, { do: false }, { do: true }]) {
    test(`EDNS ${edns ? (edns.do ? 'with DO' : 'on') : 'off'}: the three encoders give the same bytes`, () => {
      const raw = query(name, type, 0x1234, packet.RECURSION_DESIRED, edns);
      const second = query(name, type, 0xbeef, packet.CHECKING_DISABLED, edns);
      const all = encodeAll(raw, second);
      expect(all.plain?.toString('hex')).toBe(all.general.toString('hex'));
      expect(all.miss.toString('hex')).toBe(all.general.toString('hex'));
      // the cache's copy carries the second query's ID, RD and CD, and is otherwise the general encoder's
      const expected = encodeResponse(all.secondDecoded, all.result, all.rcode, all.flags);
      expect(all.hit.toString('hex')).toBe(expected.toString('hex'));
      // names sharing suffixes are compressed by all three
      compressedAsWritten(all.general);
      // truncated form (TC, question and OPT only): the same from both encoders, and what UDP gets when too large
      expect(all.plainTc?.toString('hex')).toBe(all.generalTc.toString('hex'));
      const udpLimit = edns ? 1232 : CLASSIC_UDP_SIZE;
      if (all.general.length > udpLimit) {
        const tc = encodeResponse(all.secondDecoded, {}, all.rcode, all.flags | FLAG_TC);
        expect(all.hitUdp.toString('hex')).toBe(tc.toString('hex'));
        expect(all.hitUdp.readUInt16BE(2) & FLAG_TC).toBeTruthy();
      } else {
        expect(all.hitUdp.toString('hex')).toBe(expected.toString('hex'));
      }
    });
  }
});

test('the cases above include answers truncated over UDP without EDNS and names that repeat a suffix', () => {
  const forty = encodeAll(query('forty.big.test', 'A', 1, 0), query('forty.big.test', 'A', 2, 0));
  expect(forty.general.length).toBeGreaterThan(CLASSIC_UDP_SIZE);
  expect(forty.hitUdp.length).toBeLessThanOrEqual(CLASSIC_UDP_SIZE);
});

test('an answer too large for a DNS message: the plain encoder declines, the others cut it the same way', () => {
  for (const edns of [undefined, { do: false }]) {
    const all = encodeAll(query('huge.big.test', 'A', 7, 0, edns), query('huge.big.test', 'A', 8, 0, edns));
    expect(all.plain).toBeUndefined();
    expect(all.general.length).toBeLessThanOrEqual(MAX_MESSAGE);
    expect(all.general.readUInt16BE(2) & FLAG_TC).toBeTruthy();
    expect(all.miss.toString('hex')).toBe(all.general.toString('hex'));
    const expected = encodeResponse(all.secondDecoded, all.result, all.rcode, all.flags);
    expect(all.hit.toString('hex')).toBe(expected.toString('hex'));
    // with EDNS BIND's way: no answer records at all; without, as many as fit
    const answers = packet.decode(all.general).answers ?? [];
    if (edns) expect(answers).toHaveLength(0);
    else expect(answers.length).toBeGreaterThan(1000);
  }
});
