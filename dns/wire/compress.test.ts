import * as fc from 'fast-check';
import * as packet from 'dns-packet';
import type { Answer, Packet } from 'dns-packet';
import { compressMessage } from './compress';

/** Labels from a small set (mixed case included), so generated names share suffixes often. */
const label = fc.constantFrom('www', 'WWW', 'a', 'mail', 'ns1', 'example', 'Example', 'test', 'x'.repeat(63), '_tcp');
const name = fc.array(label, { minLength: 0, maxLength: 5 }).map((ls) => (ls.length ? ls.join('.') : '.'));
const ttl = fc.integer({ min: 0, max: 86_400 });

const record: fc.Arbitrary<Answer> = fc.oneof(
  fc.record({ name, ttl, type: fc.constant('A' as const), data: fc.constant('192.0.2.1') }),
  fc.record({ name, ttl, type: fc.constantFrom('NS' as const, 'CNAME' as const, 'PTR' as const), data: name }),
  fc.record({ name, ttl, type: fc.constant('DNAME' as const), data: name }),
  fc.record({
    name,
    ttl,
    type: fc.constant('MX' as const),
    data: fc.record({ preference: fc.integer({ min: 0, max: 65_535 }), exchange: name }),
  }),
  fc.record({
    name,
    ttl,
    type: fc.constant('SRV' as const),
    data: fc.record({
      priority: fc.integer({ min: 0, max: 65_535 }),
      weight: fc.integer({ min: 0, max: 65_535 }),
      port: fc.integer({ min: 0, max: 65_535 }),
      target: name,
    }),
  }),
  fc.record({
    name,
    ttl,
    type: fc.constant('SOA' as const),
    data: fc.record({
      mname: name,
      rname: name,
      serial: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
      refresh: ttl,
      retry: ttl,
      expire: ttl,
      minimum: ttl,
    }),
  }),
  fc.record({
    name,
    ttl,
    type: fc.constant('TXT' as const),
    data: fc.array(
      fc.string({ minLength: 0, maxLength: 255 }).map((s) => Buffer.from(s, 'latin1')),
      {
        minLength: 1,
        maxLength: 3,
      },
    ),
  }),
);

const message: fc.Arbitrary<Packet> = fc.record({
  type: fc.constant('response' as const),
  id: fc.integer({ min: 0, max: 65_535 }),
  flags: fc.constant(0x8400),
  questions: fc.array(fc.record({ name, type: fc.constant('A' as const), class: fc.constant('IN' as const) }), {
    maxLength: 1,
  }),
  answers: fc.array(record, { maxLength: 30 }),
  authorities: fc.array(record, { maxLength: 5 }),
  additionals: fc.array(record, { maxLength: 5 }),
});

/**
 * Every name at a question or owner position of `msg`, read strictly: a pointer must go back to a label start of a
 * name written earlier (at such a position, or in the RDATA of NS, CNAME, PTR, MX, SOA, SRV, DNAME), below 0x4000;
 * SRV and DNAME names are never compressed.
 */
function checkPointers(msg: Buffer): void {
  const labelStarts = new Set<number>();
  let compressed = false;
  const readStrict = (at: number): number => {
    let o = at;
    compressed = false;
    for (;;) {
      const len = msg[o] ?? -1;
      if (len === 0) return o + 1;
      if ((len & 0xc0) === 0xc0) {
        compressed = true;
        const target = msg.readUInt16BE(o) & 0x3fff;
        if (target >= at || !labelStarts.has(target)) throw new Error(`bad pointer at ${o} to ${target}`);
        return o + 2;
      }
      labelStarts.add(o);
      o += len + 1;
    }
  };
  let o = 12;
  for (let i = 0; i < msg.readUInt16BE(4); i++) o = readStrict(o) + 4;
  const records = msg.readUInt16BE(6) + msg.readUInt16BE(8) + msg.readUInt16BE(10);
  for (let i = 0; i < records; i++) {
    o = readStrict(o);
    const type = msg.readUInt16BE(o);
    const rdStart = o + 10;
    o = rdStart + msg.readUInt16BE(o + 8);
    // the RDATA names compressed (NS, CNAME, PTR, MX, SOA): read, so pointers may go to them
    let end = o;
    if (type === 2 || type === 5 || type === 12) end = readStrict(rdStart);
    else if (type === 15) end = readStrict(rdStart + 2);
    else if (type === 6) end = readStrict(readStrict(rdStart)) + 20;
    // names written in full that later names may point to (SRV, DNAME), never compressed themselves
    else if (type === 33 || type === 39) {
      end = readStrict(rdStart + (type === 33 ? 6 : 0));
      if (compressed) throw new Error(`a compressed name in the RDATA of type ${type}`);
    }
    if (end !== o) throw new Error('RDATA names do not fill the RDATA');
  }
  expect(o).toBe(msg.length);
}

test('decoding a compressed message gives the records of the message written in full', () => {
  fc.assert(
    fc.property(message, (m) => {
      const full = packet.encode(m);
      const compressed = compressMessage(full);
      expect(compressed.length).toBeLessThanOrEqual(full.length);
      expect(packet.decode(compressed)).toEqual(packet.decode(full));
      checkPointers(compressed);
    }),
    { numRuns: 500 },
  );
});

test('names of SRV and DNAME RDATA are written in full (RFC 3597 §4), owner names and NS/MX/SOA names not', () => {
  const m: Packet = {
    type: 'response',
    id: 1,
    questions: [{ name: 'svc.example.test', type: 'SRV', class: 'IN' }],
    answers: [
      {
        name: 'svc.example.test',
        type: 'SRV',
        ttl: 1,
        data: { priority: 1, weight: 1, port: 1, target: 'svc.example.test' },
      },
      { name: 'd.example.test', type: 'DNAME', ttl: 1, data: 'svc.example.test' },
      { name: 'example.test', type: 'NS', ttl: 1, data: 'ns.example.test' },
      { name: 'example.test', type: 'MX', ttl: 1, data: { preference: 1, exchange: 'svc.example.test' } },
    ],
  };
  const full = packet.encode(m);
  const compressed = compressMessage(full);
  const inFull = Buffer.from('\x03svc\x07example\x04test\x00', 'latin1');
  // the question's name once, the SRV target and the DNAME target in full: three times; the rest by pointer
  let count = 0;
  for (let i = compressed.indexOf(inFull); i >= 0; i = compressed.indexOf(inFull, i + 1)) count++;
  expect(count).toBe(3);
  // by pointer: SRV owner (saves 16 bytes), DNAME owner's suffix (12), NS owner (12), NS name's suffix (12), MX
  // owner (12), MX exchange (16)
  expect(compressed.length).toBe(full.length - 80);
  expect(packet.decode(compressed)).toEqual(packet.decode(full));
});

test('no pointer reaches an offset past 0x3FFF: names written there are repeated in full', () => {
  const big = Buffer.alloc(200, 'x');
  const answers: Answer[] = [];
  for (let i = 0; i < 100; i++) answers.push({ name: `n${i}.example.test`, type: 'TXT', ttl: 1, data: [big] });
  answers.push({ name: 'late.example.test', type: 'A', ttl: 1, data: '192.0.2.1' });
  answers.push({ name: 'late.example.test', type: 'A', ttl: 1, data: '192.0.2.2' });
  const full = packet.encode({ type: 'response', id: 1, answers });
  const compressed = compressMessage(full);
  expect(compressed.length).toBeGreaterThan(0x4000);
  expect(packet.decode(compressed)).toEqual(packet.decode(full));
  checkPointers(compressed);
  // both late owners: 'late' label and a pointer to example.test (written early), never to each other
  const late = compressed.lastIndexOf(Buffer.from('\x04late', 'latin1'));
  expect(late).toBeGreaterThan(0x4000);
  expect(compressed.indexOf(Buffer.from('\x04late', 'latin1'))).toBeGreaterThan(0x4000);
  expect(compressed.indexOf(Buffer.from('\x04late', 'latin1'))).toBeLessThan(late);
});

test('a message it cannot walk (already compressed, trailing bytes) comes back unchanged', () => {
  const full = packet.encode({
    type: 'response',
    id: 1,
    questions: [{ name: 'a.example.test', type: 'A', class: 'IN' }],
    answers: [{ name: 'a.example.test', type: 'A', ttl: 1, data: '192.0.2.1' }],
  });
  const compressed = compressMessage(full);
  expect(compressMessage(compressed)).toBe(compressed);
  const trailing = Buffer.concat([full, Buffer.from([0])]);
  expect(compressMessage(trailing)).toBe(trailing);
  expect(compressMessage(full.subarray(0, full.length - 1)).length).toBe(full.length - 1);
});
