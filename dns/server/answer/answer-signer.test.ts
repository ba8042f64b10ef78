import * as packet from 'dns-packet';
import type { Packet } from 'dns-packet';
import { DnsEngine } from '../../engine/engine';
import { openSqliteStore } from '../../store';
import type { ZoneStore } from '../../store/types';
import { importZoneFile } from '../../zonefile/zone-files';
import type { AnswerSigner } from './answer';
import { collectReplies, Responder, type Remote } from '../pipeline/respond';
import type { RR } from '../../zone/rr';

/** The signing hook: every answer, from either path, goes through it, told whether the query set DO. */
const ZONE = `$TTL 300
@ IN SOA ns.signed.test. hostmaster.signed.test. ( 1 3600 600 86400 300 )
@ IN NS ns.signed.test.
www IN A 192.0.2.1
`;
const TCP: Remote = { address: '127.0.0.1', port: 5300, transport: 'tcp' };

let store: ZoneStore;
let engine: DnsEngine;

beforeAll(async () => {
  store = await openSqliteStore({ file: ':memory:' });
  await importZoneFile(store, 'signed.test', ZONE);
  engine = await DnsEngine.start({ store, host: '127.0.0.1', port: 0, listen: false });
});
afterAll(async () => {
  await engine.close();
  await store.close();
});

/** A stand-in signer: one TXT record per answer when DO is set, naming the question (one object per name and type). */
function stampSigner(calls: Array<[string, string, boolean]>): AnswerSigner {
  const stamps = new Map<string, RR>();
  return {
    sign(resolution, qname, qtype, dnssecOk) {
      calls.push([qname, qtype, dnssecOk]);
      if (!dnssecOk) return resolution;
      const key = `${qname}/${qtype}`;
      let stamp = stamps.get(key);
      if (!stamp) stamps.set(key, (stamp = { name: qname, type: 'TXT', ttl: 300, class: 'IN', data: `signed ${key}` }));
      return { ...resolution, answers: [...resolution.answers, stamp] };
    },
  };
}

function query(id: number, dnssecOk: boolean): Buffer {
  const p: Packet = {
    type: 'query',
    id,
    questions: [{ name: 'www.signed.test', type: 'A', class: 'IN' }],
    additionals: [
      {
        name: '.',
        type: 'OPT',
        udpPayloadSize: 1232,
        extendedRcode: 0,
        ednsVersion: 0,
        flags: dnssecOk ? packet.DNSSEC_OK : 0,
        flag_do: dnssecOk,
        options: [],
      },
    ],
  };
  return packet.encode(p);
}

const txt = (msg: Buffer): string[] =>
  (packet.decode(msg).answers ?? []).filter((a) => a.type === 'TXT').map((a) => String(a.data));

test('the plain path and the general path both call the signer, with the DO bit, and agree', async () => {
  const calls: Array<[string, string, boolean]> = [];
  const responder = new Responder(engine.index, {}, new Map(), undefined, { signer: stampSigner(calls) });
  const plain = Buffer.from(responder.answerNow(query(1, true), 'tcp') as Buffer);
  expect(calls).toEqual([['www.signed.test', 'A', true]]);
  const [general] = await collectReplies(await responder.handle(query(1, true), TCP));
  expect(calls).toHaveLength(2);
  expect(calls[1]).toEqual(['www.signed.test', 'A', true]);
  expect(txt(plain)).toEqual(['signed www.signed.test/A']);
  expect(plain.toString('hex')).toBe(general?.toString('hex'));
});

test('without DO the signer adds nothing, and the cache keeps the two answers apart', () => {
  const calls: Array<[string, string, boolean]> = [];
  const responder = new Responder(engine.index, {}, new Map(), undefined, { signer: stampSigner(calls) });
  const unsigned = Buffer.from(responder.answerNow(query(2, false), 'tcp') as Buffer);
  const signed = Buffer.from(responder.answerNow(query(3, true), 'tcp') as Buffer);
  expect(txt(unsigned)).toEqual([]);
  expect(txt(signed)).toEqual(['signed www.signed.test/A']);
  // both now come from the cache: no new call, same contents
  expect(txt(Buffer.from(responder.answerNow(query(4, false), 'tcp') as Buffer))).toEqual([]);
  expect(txt(Buffer.from(responder.answerNow(query(5, true), 'tcp') as Buffer))).toEqual(['signed www.signed.test/A']);
  expect(calls.map((c) => c[2])).toEqual([false, true]);
});
