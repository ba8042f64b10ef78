import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as packet from 'dns-packet';
import type { Packet } from 'dns-packet';
import { DnsEngine } from '../../engine/engine';
import { openSqliteStore } from '../../store';
import type { ZoneStore } from '../../store/types';
import { parseKeySpec } from '../../tsig/keyfile';
import { signMessage } from '../../tsig/tsig';
import { importZoneFile } from '../../zonefile/zone-files';
import { collectReplies, Responder, type Remote } from '../pipeline/respond';
import { AnswerCache, type CachedAnswer, questionHash } from './answer-cache';
import { ServerCookies } from '../pipeline/cookies';

/**
 * The answer path for plain queries (`answerNow`: parsed in place, answered from the cache of encoded answers) must
 * give exactly the bytes `handle` gives (decode, resolve, encode), for every query, on a miss and on a hit.
 */
const fixture = (file: string) =>
  readFileSync(join(__dirname, '..', '..', '..', 'test', 'dns', 'fixtures', file), 'utf8');
const ZONE_TEXT = fixture('compare.zone');
/** Names in mixed case: answers give them as the master file wrote them. */
const CASE_TEXT = fixture('case.zone');
const KEY = parseKeySpec('hmac-sha256:k:c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MTI=');
const UDP: Remote = { address: '127.0.0.1', port: 5300, transport: 'udp' };
const TCP: Remote = { ...UDP, transport: 'tcp' };

let store: ZoneStore;
let engine: DnsEngine;
let responder: Responder;

beforeAll(async () => {
  store = await openSqliteStore({ file: ':memory:' });
  await importZoneFile(store, 'compare.test', ZONE_TEXT);
  await importZoneFile(store, 'case.test', CASE_TEXT);
  engine = await DnsEngine.start({ store, host: '127.0.0.1', port: 0, listen: false });
  // server cookies at a fixed time: the fast path's and the full path's answers are compared byte for byte
  responder = new Responder(engine.index, {}, new Map([[KEY.name, KEY]]), undefined, {
    cookies: new ServerCookies(randomBytes(32), () => 1_795_000_000),
  });
});
afterAll(async () => {
  await engine.close();
  await store.close();
});

const QUESTIONS: Array<[string, string]> = [
  ['www.compare.test', 'A'],
  ['WwW.CoMpArE.TeSt', 'A'],
  ['www.compare.test', 'AAAA'],
  ['compare.test', 'NS'],
  ['compare.test', 'SOA'],
  ['compare.test', 'ANY'],
  ['nope.compare.test', 'A'],
  ['www.compare.test', 'MX'],
  ['b.c.compare.test', 'A'],
  ['alias.compare.test', 'A'],
  ['ALIAS.compare.test', 'CNAME'],
  ['chain1.compare.test', 'A'],
  ['dangling.compare.test', 'A'],
  ['outside.compare.test', 'A'],
  ['anything.wild.compare.test', 'TXT'],
  ['X.Y.wild.compare.test', 'A'],
  ['*.wild.compare.test', 'TXT'],
  ['x.DNAME.compare.test', 'A'],
  ['host.sub.compare.test', 'A'],
  ['sub.compare.test', 'NS'],
  ['sub.compare.test', 'DS'],
  ['example.org', 'A'],
  ['big.compare.test', 'TXT'],
  ['_sip._tcp.compare.test', 'SRV'],
  ['compare.test', 'TYPE999'],
  ['www.case.test', 'A'],
  ['wWw.CASE.test', 'A'],
  ['alias.case.test', 'A'],
  ['case.test', 'MX'],
  ['_sip._tcp.case.test', 'SRV'],
  ['nap.case.test', 'NAPTR'],
  ['x.sub.case.test', 'A'],
];

type Variant = { id: number; flags: number; edns?: { size: number; do?: boolean; option?: number } };
const VARIANTS: Variant[] = [
  { id: 1, flags: 0 },
  { id: 2, flags: packet.RECURSION_DESIRED },
  { id: 3, flags: packet.CHECKING_DISABLED | packet.AUTHENTIC_DATA, edns: { size: 1232 } },
  { id: 4, flags: 0, edns: { size: 4096, do: true } },
  { id: 5, flags: packet.RECURSION_DESIRED, edns: { size: 600, option: 65001 } }, // an option nobody interprets
  { id: 6, flags: 0, edns: { size: 100 } }, // below 512: 512 counts
  { id: 7, flags: 0, edns: { size: 513 } },
  // DNS cookies (a client cookie: 8 bytes): the cached answer with the client's and a server cookie appended
  { id: 8, flags: packet.RECURSION_DESIRED, edns: { size: 1232, option: 10 } },
  { id: 9, flags: 0, edns: { size: 513, option: 10 } }, // the cookie's 28 bytes may tip an answer over the limit
];

function query(name: string, type: string, v: Variant): Buffer {
  const p: Packet = { type: 'query', id: v.id, flags: v.flags, questions: [{ name, type: type as 'A', class: 'IN' }] };
  if (v.edns) {
    p.additionals = [
      {
        name: '.',
        type: 'OPT',
        udpPayloadSize: v.edns.size,
        flags: v.edns.do ? packet.DNSSEC_OK : 0,
        options: v.edns.option ? [{ code: v.edns.option, data: Buffer.from('0123456789abcdef', 'hex') }] : [],
      } as never,
    ];
  }
  return packet.encode(p);
}

const rcodeOf = (msg: Buffer): string | undefined => (packet.decode(msg) as { rcode?: string }).rcode;
const firstData = (msg: Buffer): unknown => (packet.decode(msg).answers?.[0] as { data?: unknown } | undefined)?.data;

async function reference(raw: Buffer, remote: Remote): Promise<Buffer> {
  const replies = await collectReplies(await responder.handle(raw, remote));
  const [reply, ...more] = replies;
  if (reply === undefined || more.length > 0) throw new Error(`handle() gave ${replies.length} replies, not 1`);
  return reply;
}

/** Over UDP a small EDNS buffer gets a minimal answer, which the full path gives (dispatch.ts, minimalFor). */
function leftToFullPath(v: Variant, remote: Remote): boolean {
  return remote.transport === 'udp' && v.edns !== undefined && v.edns.size <= 512;
}

function now(raw: Buffer, remote: Remote): Buffer | undefined {
  const out = responder.answerNow(raw, remote.transport, remote.address);
  return out ? Buffer.from(out) : undefined; // the cache's own buffer is valid until the next call
}

test.each(QUESTIONS)(
  '%s %s: the same bytes as the full path, on a miss and on hits, UDP and TCP',
  async (name, type) => {
    for (const remote of [UDP, TCP]) {
      for (const v of VARIANTS) {
        for (const id of [v.id, v.id + 0x1200, 0xffff - v.id]) {
          const raw = query(name, type, { ...v, id });
          if (leftToFullPath(v, remote)) expect(now(raw, remote)).toBeUndefined();
          else expect(now(raw, remote)?.toString('hex')).toBe((await reference(raw, remote)).toString('hex'));
        }
      }
    }
  },
);

test('a query with a COOKIE option: the client cookie and a server cookie for that client in the answer', async () => {
  const raw = query('www.compare.test', 'A', { id: 9, flags: 0, edns: { size: 1232, option: 10 } });
  // without the client's address no server cookie can be made: the full path answers
  expect(responder.answerNow(raw, 'udp')).toBeUndefined();
  const fast = now(raw, UDP) as Buffer;
  expect(fast.equals(await reference(raw, UDP))).toBe(true);
  const opt = packet.decode(fast).additionals?.find((r) => r.type === 'OPT') as {
    options?: Array<{ code: number; data: Buffer }>;
  };
  expect(opt.options?.[0]?.code).toBe(10);
  expect(opt.options?.[0]?.data.subarray(0, 8).toString('hex')).toBe('0123456789abcdef');
  expect(opt.options?.[0]?.data.length).toBe(24);
  // another client address gets another server cookie for the same question (the cached answer is shared)
  const other = responder.answerNow(raw, 'udp', '198.51.100.7') as Buffer;
  expect(other.subarray(0, other.length - 8).equals(fast.subarray(0, fast.length - 8))).toBe(true);
  expect(other.subarray(other.length - 8).equals(fast.subarray(fast.length - 8))).toBe(false);
});

/** A query built byte by byte: any label bytes, any type and class. */
function rawQuery(labels: Buffer[], type: number, klass = 1, id = 0x4242, edns = false): Buffer {
  const header = Buffer.from([id >> 8, id & 255, 1, 0, 0, 1, 0, 0, 0, 0, 0, edns ? 1 : 0]);
  const name = Buffer.concat([...labels.flatMap((l) => [Buffer.from([l.length]), l]), Buffer.from([0])]);
  const opt = edns ? Buffer.from([0, 0, 41, 4, 0, 0, 0, 0x80, 0, 0, 0]) : Buffer.alloc(0);
  return Buffer.concat([header, name, Buffer.from([type >> 8, type & 255, klass >> 8, klass & 255]), opt]);
}

test('random questions (names of the zone and around it, any case, many types): the same bytes, miss and hit', async () => {
  let seed = 12345;
  const rnd = (n: number): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return (seed >>> 8) % n;
  };
  const pick = <T>(items: readonly T[]): T => {
    const item = items[rnd(items.length)];
    if (item === undefined) throw new Error('nothing to pick from');
    return item;
  };
  const owners = [
    '',
    'www',
    'ns1',
    'ns2',
    'mail',
    'alias',
    'chain1',
    'chain2',
    'dangling',
    'outside',
    'x.wild',
    'a.b.wild',
    'deep.a.b.c',
    'a.b.c',
    'b.c',
    '_sip._tcp',
    'caa',
    'ptr',
    'naptr',
    'sshfp',
    'tlsa',
    'dname',
    'x.dname',
    'y.x.dname',
    'x.target',
    'big',
    'sub',
    'ns.sub',
    'deeper.ns.sub',
    'nope',
    '*.wild',
    'wild',
  ];
  const types = [
    'A',
    'AAAA',
    'MX',
    'TXT',
    'NS',
    'SOA',
    'CNAME',
    'DNAME',
    'ANY',
    'SRV',
    'DS',
    'PTR',
    'CAA',
    'NAPTR',
    'SSHFP',
    'TLSA',
    'UNKNOWN_65280',
  ];
  const mixCase = (s: string): string => [...s].map((c) => (rnd(2) ? c.toUpperCase() : c)).join('');
  for (let i = 0; i < 600; i++) {
    const owner = pick(owners);
    const zone = rnd(10) === 0 ? 'example.org' : 'compare.test';
    const name = mixCase(owner ? `${owner}.${zone}` : zone);
    const v = pick(VARIANTS);
    const remote = rnd(4) === 0 ? TCP : UDP;
    const type = pick(types);
    for (const id of [rnd(65536), rnd(65536)]) {
      const raw = query(name, type, { ...v, id });
      if (leftToFullPath(v, remote)) expect(now(raw, remote)).toBeUndefined();
      else expect(now(raw, remote)?.toString('hex')).toBe((await reference(raw, remote)).toString('hex'));
    }
  }
});

test('names dns-packet does not give back unchanged, other classes: what the server sends is the same', async () => {
  const label = (s: string | number[]): Buffer => (typeof s === 'string' ? Buffer.from(s, 'latin1') : Buffer.from(s));
  const zone = [label('compare'), label('test')];
  const cases: Buffer[] = [
    rawQuery([label([0xc3, 0xa9]), ...zone], 1), // UTF-8 é
    rawQuery([label([0xe9]), ...zone], 1), // not UTF-8
    rawQuery([label('a.b'), ...zone], 1), // a dot inside a label
    rawQuery([label('a\nb'), ...zone], 16),
    rawQuery([label([0x61, 0x0a, 0x2e]), ...zone], 16), // newline and dot
    rawQuery([label(' '), ...zone], 1),
    rawQuery([label('www'), ...zone], 1, 3), // class CH
    rawQuery([label('www'), ...zone], 1, 255), // class ANY
    rawQuery([label('www'), ...zone], 1, 254, 0x1111, true), // class NONE, EDNS with DO
    rawQuery([], 2), // the root
    rawQuery([label('WWW'), ...zone], 0), // type 0
    rawQuery([label('wild'), ...zone], 255, 1, 0x2222, true),
  ];
  for (const raw of cases) {
    for (const remote of [UDP, TCP]) {
      for (let i = 0; i < 2; i++) {
        // what the server sends: answerNow's answer, or handle()'s when answerNow leaves the message to it
        const served = now(raw, remote) ?? (await reference(raw, remote));
        expect(served.toString('hex')).toBe((await reference(raw, remote)).toString('hex'));
      }
    }
  }
});

test('a large answer over UDP is truncated within the client limit, from the cache as well', async () => {
  for (const v of VARIANTS) {
    for (let i = 0; i < 2; i++) {
      const raw = query('big.compare.test', 'TXT', v);
      const out = now(raw, UDP) ?? (await reference(raw, UDP));
      const limit = v.edns ? Math.max(512, Math.min(v.edns.size, 1232)) : 512;
      expect(out.length).toBeLessThanOrEqual(limit);
      expect(Boolean(packet.decode(out).flag_tc)).toBe(out.length < (now(raw, TCP) as Buffer).length);
    }
  }
});

test('messages other than plain queries are left to handle()', () => {
  const plain = query('www.compare.test', 'A', { id: 9, flags: 0 });
  const signed = signMessage(plain, KEY).message;
  const response = Buffer.from(plain);
  response[2] = response.readUInt8(2) | 0x80;
  const update = Buffer.from(plain);
  update[2] = update.readUInt8(2) | (5 << 3);
  const badVersion = query('www.compare.test', 'A', { id: 9, flags: 0, edns: { size: 1232 } });
  badVersion[badVersion.length - 5] = 1; // EDNS version 1
  const ecs = packet.encode({
    type: 'query',
    id: 9,
    flags: 0,
    questions: [{ name: 'www.compare.test', type: 'A', class: 'IN' }],
    additionals: [
      {
        name: '.',
        type: 'OPT',
        udpPayloadSize: 1232,
        flags: 0,
        options: [{ code: 8, family: 1, sourcePrefixLength: 24, scopePrefixLength: 0, ip: '192.0.2.0' }],
      } as never,
    ],
  });
  const compressed = Buffer.concat([
    plain.subarray(0, 12),
    Buffer.from([3, 0x77, 0x77, 0x77, 0xc0, 0x0c]),
    plain.subarray(plain.length - 4),
  ]);
  const axfr = query('compare.test', 'AXFR', { id: 9, flags: 0 });
  const trailing = Buffer.concat([plain, Buffer.from([0])]);
  for (const raw of [signed, response, update, badVersion, ecs, compressed, axfr, trailing, plain.subarray(0, 11)]) {
    expect(responder.answerNow(raw, 'udp')).toBeUndefined();
  }
  expect(responder.answerNow(plain, 'udp')).toBeDefined();
});

test('answers follow zone changes: a reload retires the cached answers of that zone', async () => {
  const raw = query('fresh.compare.test', 'A', { id: 7, flags: 0 });
  expect(rcodeOf(now(raw, UDP) as Buffer)).toBe('NXDOMAIN');
  expect(rcodeOf(now(raw, UDP) as Buffer)).toBe('NXDOMAIN'); // cached
  await store.change('compare.test', [
    { op: 'add', record: { name: 'fresh.compare.test', type: 'A', ttl: 60, value: '192.0.2.200' } },
  ]);
  await engine.reload('compare.test');
  const after = now(raw, UDP) as Buffer;
  expect(firstData(after)).toBe('192.0.2.200');
  expect(after.equals(await reference(raw, UDP))).toBe(true);
});

test('a zone added below a cached name takes over its answers', async () => {
  const raw = query('www.child.compare.test', 'A', { id: 8, flags: 0 });
  expect(rcodeOf(now(raw, UDP) as Buffer)).toBe('NXDOMAIN');
  await store.createZone(
    'child.compare.test',
    {
      adminEmail: 'hostmaster@child.compare.test',
      primaryNs: 'ns1.compare.test',
      refresh: 3600,
      retry: 600,
      expire: 86400,
      minimum: 60,
      defaultTtl: 300,
    },
    [{ name: 'www.child.compare.test', type: 'A', ttl: 60, value: '192.0.2.201' }],
  );
  await engine.reload('child.compare.test');
  const after = now(raw, UDP) as Buffer;
  expect(firstData(after)).toBe('192.0.2.201');
  await store.deleteZone('child.compare.test');
  await engine.reload('child.compare.test');
  expect(rcodeOf(now(raw, UDP) as Buffer)).toBe('NXDOMAIN');
});

test('detach(): a buffer still held by the transport is not written again', () => {
  const first = query('www.compare.test', 'AAAA', { id: 0x0101, flags: 0 });
  responder.answerNow(first, 'udp');
  const held = responder.answerNow(first, 'udp') as Buffer;
  responder.detach();
  const copy = Buffer.from(held);
  const second = responder.answerNow(
    query('www.compare.test', 'AAAA', { id: 0x0202, flags: packet.RECURSION_DESIRED }),
    'udp',
  ) as Buffer;
  expect(held.equals(copy)).toBe(true);
  expect(second.readUInt16BE(0)).toBe(0x0202);
});

test('a cache at its limits starts over, and answers stay the same', async () => {
  for (const [limits, rounds] of [
    [{ maxEntries: 3, maxBytes: 1 << 20 }, 3],
    [{ maxEntries: 1000, maxBytes: 700 }, 3],
  ] as const) {
    const small = new Responder(engine.index, {}, new Map(), undefined, { answerCache: limits });
    for (let round = 0; round < rounds; round++) {
      for (const [name, type] of QUESTIONS) {
        const raw = query(name, type, { id: 100 + round, flags: 0, edns: { size: 1232 } });
        const out = small.answerNow(raw, 'tcp');
        expect(out && Buffer.from(out).equals(await reference(raw, TCP))).toBe(true);
      }
    }
  }
});

test('with the cache off every answer is computed, and still the same', async () => {
  const uncached = new Responder(engine.index, {}, new Map(), undefined, { answerCache: { maxEntries: 0 } });
  for (const [name, type] of QUESTIONS.slice(0, 5)) {
    const raw = query(name, type, { id: 77, flags: 0 });
    const first = uncached.answerNow(raw, 'udp');
    expect(first?.equals(await reference(raw, UDP))).toBe(true);
    // nothing cached: the next answer is a new buffer, and the one lent out is never written again
    const again = uncached.answerNow(raw, 'udp');
    expect(again).not.toBe(first);
    expect(again?.equals(first as Buffer)).toBe(true);
  }
});

describe('AnswerCache when full', () => {
  /** An entry for question `i` (its bytes in `question`), with an answer of `size` bytes. */
  const entryFor = (i: number, size = 100): { entry: CachedAnswer; raw: Buffer; hash: number } => {
    const raw = Buffer.alloc(12 + 8);
    raw.writeUInt32BE(i, 12);
    const entry: CachedAnswer = {
      question: raw.subarray(12),
      length: 8,
      edns: 0,
      full: Buffer.alloc(size),
      layout: 0,
      statBase: 0,
      bytes: 0,
      next: undefined,
    };
    return { entry, raw, hash: questionHash(raw, raw.length, 0) };
  };
  const found = (cache: AnswerCache, i: number): boolean => {
    const { raw, hash } = entryFor(i);
    return cache.find(raw, raw.length, 0, hash) !== undefined;
  };

  test('past maxEntries it evicts a slice, not everything: most answers stay', () => {
    const cache = new AnswerCache({ maxEntries: 2_000, maxBytes: 1 << 30 });
    for (let i = 0; i < 5_000; i++) {
      const { entry, hash } = entryFor(i);
      cache.insert(entry, hash, 100);
      expect(cache.entries).toBeLessThanOrEqual(2_000);
    }
    // a slice is about 1/16 of the entries: at least 3/4 of the cache is always full once it has filled
    expect(cache.entries).toBeGreaterThan(1_500);
    expect(found(cache, 4_999)).toBe(true);
    // the entries counted are the entries held
    let held = 0;
    for (let i = 0; i < 5_000; i++) if (found(cache, i)) held++;
    expect(held).toBe(cache.entries);
    expect(cache.heldBytes).toBe(held * 100);
  });

  test('past maxBytes it evicts until the new answer fits', () => {
    const cache = new AnswerCache({ maxEntries: 100_000, maxBytes: 100_000 });
    for (let i = 0; i < 3_000; i++) {
      const { entry, hash } = entryFor(i, 200);
      cache.insert(entry, hash, 200);
      expect(cache.heldBytes).toBeLessThanOrEqual(100_000);
    }
    expect(cache.entries).toBeGreaterThan(300);
    expect(found(cache, 2_999)).toBe(true);
  });

  test('an answer larger than maxBytes alone empties the cache and is kept', () => {
    const cache = new AnswerCache({ maxEntries: 100, maxBytes: 1_000 });
    for (let i = 0; i < 5; i++) {
      const { entry, hash } = entryFor(i);
      cache.insert(entry, hash, 100);
    }
    const { entry, hash } = entryFor(99, 5_000);
    cache.insert(entry, hash, 5_000);
    expect(cache.entries).toBe(1);
    expect(found(cache, 99)).toBe(true);
  });

  test('a recomputed answer counts its new size', () => {
    const cache = new AnswerCache({ maxEntries: 100, maxBytes: 10_000 });
    const { entry, hash } = entryFor(1);
    cache.insert(entry, hash, 100);
    cache.resize(entry, 300);
    expect(cache.heldBytes).toBe(300);
  });
});
