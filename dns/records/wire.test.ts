import fc from 'fast-check';
import * as packet from 'dns-packet';
import type { Answer } from 'dns-packet';
import { MAX_TTL, RECORD_TYPES, type RecordData } from '../model/model';
import {
  RecordValueError,
  TYPE_CODES,
  fromPacketAnswer,
  parseValue,
  toPacketAnswer,
  validateRecord,
  type PacketAnswerLike,
} from './index';
import { recordOfTypeArb, zoneArb } from './testing/arbitraries';

const ZONE = 'example.com';

function wire(answers: Answer[]): Buffer {
  return packet.encode({ type: 'response', id: 1, answers });
}

function roundTrip(records: RecordData[]): RecordData[] {
  const decoded = packet.decode(wire(records.map(toPacketAnswer)));
  return (decoded.answers ?? []).map((a) => fromPacketAnswer(a as PacketAnswerLike));
}

/** The RDATA of the single answer in `buf` (after the question-less header and the owner name). */
function rdataOf(buf: Buffer, ownerLength: number): Buffer {
  const at = 12 + ownerLength + 10; // header, owner, type class ttl rdlength
  return buf.subarray(at, at + buf.readUInt16BE(at - 2));
}

const rec = (type: string, value: string, name = 'x', ttl = 300): RecordData =>
  validateRecord({ name, type, ttl, value }, ZONE);

function valueError(f: () => unknown): RecordValueError {
  try {
    f();
  } catch (e) {
    if (e instanceof RecordValueError) return e;
    throw new Error(`expected a RecordValueError, got ${String(e)}`, { cause: e });
  }
  throw new Error('expected a RecordValueError, nothing was thrown');
}

describe('wire round trip: fromPacketAnswer(decode(encode(toPacketAnswer(r)))) = r', () => {
  test.each(RECORD_TYPES.map((t) => [t]))('%s (property)', (type) => {
    fc.assert(
      fc.property(
        zoneArb.chain((zone) => fc.array(recordOfTypeArb(type, zone), { minLength: 1, maxLength: 3 })),
        (records) => {
          // Several records in one message: names are compressed across them.
          expect(roundTrip(records)).toEqual(records);
        },
      ),
      { numRuns: 40 },
    );
  });

  test('examples of every type', () => {
    const records = [
      rec('A', '192.0.2.1'),
      rec('AAAA', '2001:db8::1'),
      rec('CNAME', 'www'),
      rec('DNAME', 'example.net.'),
      rec('MX', '10 mail'),
      rec('MX', '0 .'),
      rec('NS', 'ns1'),
      rec('PTR', 'host'),
      rec('SRV', '0 5 5060 sip'),
      rec('TXT', '"a" "b c" "caf\\195\\169" "\\000"'),
      rec('SPF', 'v=spf1 -all'),
      rec('CAA', '128 issue "ca.example; account=1"'),
      rec('CAA', '0 contactemail "x@example.com"'),
      rec('SSHFP', `4 2 ${'ab'.repeat(32)}`),
      rec('TLSA', `3 1 1 ${'cd'.repeat(32)}`),
      rec('DS', `60485 5 1 2BB183AF5F22588179A53B0A98631FAD1A292118`),
      rec('NAPTR', '100 10 "U" "E2U+sip" "!^.*$!sip:info@example.com!" .'),
      rec('NAPTR', '100 10 "S" "SIP+D2U" "" _sip._udp'),
      rec('SOA', 'ns1 john\\.doe 2024010101 10800 3600 604800 3600', '@'),
      { name: '', type: 'NS', ttl: 0, value: 'a.root-servers.net.' } satisfies RecordData,
    ];
    expect(roundTrip(records)).toEqual(records);
  });
});

describe('wire encodings', () => {
  test('A, MX and TXT RDATA bytes', () => {
    expect(rdataOf(wire([toPacketAnswer(rec('A', '192.0.2.1', 'x'))]), 15)).toEqual(Buffer.from([192, 0, 2, 1]));
    const mx = rdataOf(wire([toPacketAnswer({ name: 'x', type: 'MX', ttl: 1, value: '10 mx.' })]), 3);
    expect(mx).toEqual(Buffer.from([0, 10, 2, 0x6d, 0x78, 0]));
    const txt = rdataOf(wire([toPacketAnswer({ name: 'x', type: 'TXT', ttl: 1, value: '"ab" ""' })]), 3);
    expect(txt).toEqual(Buffer.from([2, 0x61, 0x62, 0]));
  });

  test('SPF goes out as type 99 with exactly the RDATA of the same TXT', () => {
    const value = `"v=spf1 ${'include:x.example '.repeat(10)}-all" "second"`;
    const spf = wire([toPacketAnswer({ name: 'x', type: 'SPF', ttl: 1, value })]);
    const txt = wire([toPacketAnswer({ name: 'x', type: 'TXT', ttl: 1, value })]);
    expect(spf.readUInt16BE(12 + 3)).toBe(99);
    expect(txt.readUInt16BE(12 + 3)).toBe(16);
    expect(rdataOf(spf, 3)).toEqual(rdataOf(txt, 3));
    const decoded = packet.decode(spf).answers?.[0] as PacketAnswerLike;
    expect(decoded.type).toBe('SPF');
    expect(Buffer.isBuffer(decoded.data)).toBe(true);
    expect(fromPacketAnswer(decoded).value).toBe(parseValue('SPF', value));
  });

  test('SOA mailbox with an escaped dot is one label on the wire', () => {
    const buf = wire([toPacketAnswer(rec('SOA', 'ns. a\\.b.c. 1 2 3 4 5', '@'))]);
    const rdata = rdataOf(buf, 13);
    // mname "ns." = 02 n s 00, then rname = 03 a . b 01 c 00
    expect(rdata.subarray(0, 4 + 7)).toEqual(Buffer.from([2, 0x6e, 0x73, 0, 3, 0x61, 0x2e, 0x62, 1, 0x63, 0]));
  });

  test('CAA flags other than 0/128 survive', () => {
    const r = rec('CAA', '129 tbs "x"');
    expect(roundTrip([r])).toEqual([r]);
  });
});

describe('fromPacketAnswer inputs', () => {
  const mxRdata = Buffer.from([
    0,
    10,
    4,
    0x6d,
    0x61,
    0x69,
    0x6c,
    7,
    ...Buffer.from('example'),
    3,
    ...Buffer.from('com'),
    0,
  ]);
  const expected: RecordData = { name: 'example.com', type: 'MX', ttl: 60, value: '10 mail.example.com.' };

  test.each([['MX'], ['TYPE15'], ['UNKNOWN_15'], [15], ['mx']])('raw RDATA with type %p', (type) => {
    expect(fromPacketAnswer({ name: 'example.com', type, ttl: 60, class: 'IN', data: mxRdata })).toEqual(expected);
  });

  test('raw SPF RDATA from an unknown type number', () => {
    expect(
      fromPacketAnswer({ name: 'x.example.com', type: 'TYPE99', ttl: 1, data: Buffer.from([2, 0x68, 0x69]) }),
    ).toEqual({
      name: 'x.example.com',
      type: 'SPF',
      ttl: 1,
      value: '"hi"',
    });
  });

  test('TXT data as a string, a Buffer (one string) or a list', () => {
    expect(fromPacketAnswer({ name: 'x', type: 'TXT', ttl: 1, data: 'hello' }).value).toBe('"hello"');
    expect(fromPacketAnswer({ name: 'x', type: 'TXT', ttl: 1, data: Buffer.from('a b') }).value).toBe('"a b"');
    expect(fromPacketAnswer({ name: 'x', type: 'TXT', ttl: 1, data: ['a', Buffer.from('b')] }).value).toBe('"a" "b"');
  });

  test('names from the wire are normalised (case, root)', () => {
    expect(fromPacketAnswer({ name: 'WWW.Example.COM', type: 'CNAME', ttl: 1, data: 'Target.Example.NET' })).toEqual({
      name: 'www.example.com',
      type: 'CNAME',
      ttl: 1,
      value: 'target.example.net.',
    });
    expect(fromPacketAnswer({ name: '.', type: 'NS', ttl: 1, data: 'a.root-servers.net' }).name).toBe('');
  });

  test('a TTL with the top bit set counts as 0 (RFC 2181 §8)', () => {
    expect(fromPacketAnswer({ name: 'x', type: 'A', ttl: MAX_TTL + 1, data: '192.0.2.1' }).ttl).toBe(0);
    expect(fromPacketAnswer({ name: 'x', type: 'A', ttl: MAX_TTL, data: '192.0.2.1' }).ttl).toBe(MAX_TTL);
  });

  test('AAAA from the wire comes out canonical', () => {
    expect(fromPacketAnswer({ name: 'x', type: 'AAAA', ttl: 1, data: '2001:DB8:0:0:0:0:0:1' }).value).toBe(
      '2001:db8::1',
    );
  });

  test.each([
    [{ name: 'x', type: 'HINFO', ttl: 1, data: { cpu: 'a', os: 'b' } }, /Unsupported record type "HINFO"/, 'type'],
    [{ name: 'x', type: 'TYPE65000', ttl: 1, data: Buffer.alloc(0) }, /Unsupported record type "TYPE65000"/, 'type'],
    [{ name: 'a b', type: 'A', ttl: 1, data: '192.0.2.1' }, /Invalid name "a b\."/, 'name'],
    [
      { name: 'x', type: 'A', ttl: -1, data: '192.0.2.1' },
      /TTL from the wire must be a 32-bit unsigned integer/,
      'ttl',
    ],
    [{ name: 'x', type: 'A', ttl: 1, data: '300.0.0.1' }, /A data from the wire is not an IPv4 address/, 'value'],
    [
      { name: 'x', type: 'MX', ttl: 1, data: { preference: 70000, exchange: 'mx' } },
      /MX preference from the wire must be an integer from 0 to 65535/,
      'value',
    ],
    [{ name: 'x', type: 'MX', ttl: 1, data: 'mx' }, /MX data from the wire is not an object/, 'value'],
    [
      { name: 'x', type: 'CNAME', ttl: 1, data: 'a b.example' },
      /CNAME target from the wire is not a valid name/,
      'value',
    ],
    [
      { name: 'x', type: 'SSHFP', ttl: 1, data: { algorithm: 1, hash: 3, fingerprint: 'AB' } },
      /SSHFP fingerprint type must be 1 \(SHA-1\) or 2/,
      'value',
    ],
    [
      {
        name: 'x',
        type: 'NAPTR',
        ttl: 1,
        data: { order: 1, preference: 1, flags: 'U', services: 'x', regexp: '!a!b!', replacement: 'h.example' },
      },
      /exclude each other/,
      'value',
    ],
    [{ name: 'x', type: 'TXT', ttl: 1, data: [] }, /TXT value must be/, 'value'],
    [{ name: 'x', type: 'SPF', ttl: 1, data: Buffer.from([5, 0x61]) }, /SPF RDATA from the wire is truncated/, 'value'],
    [
      { name: 'x', type: 'MX', ttl: 1, data: Buffer.from([0, 1, 0xc0, 0x0c]) },
      /MX RDATA does not decode losslessly/,
      'value',
    ],
    [
      { name: 'x', type: 'MX', ttl: 1, data: Buffer.from([0, 1, 0, 7]) },
      /MX RDATA does not decode losslessly/,
      'value',
    ],
    [
      { name: 'x', type: 'A', ttl: 1, data: Buffer.from([1, 2, 3]) },
      /A data from the wire is not an IPv4 address/,
      'value',
    ],
    [
      {
        name: 'x',
        type: 'SOA',
        ttl: 1,
        data: { mname: 'ns', rname: 'a\\.b\\.c.d\\.e', serial: 1, refresh: 1, retry: 1, expire: 1, minimum: 1 },
      },
      /SOA rname from the wire is not a valid mailbox name/,
      'value',
    ],
  ])('refused: %j', (answer, message, field) => {
    const e = valueError(() => fromPacketAnswer(answer));
    expect(e.message).toMatch(message);
    expect(e.field).toBe(field);
  });

  test('arbitrary RDATA of any type throws nothing but RecordValueError', () => {
    fc.assert(
      fc.property(fc.constantFrom(...RECORD_TYPES), fc.uint8Array({ maxLength: 80 }), fc.nat(), (type, bytes, ttl) => {
        try {
          const r = fromPacketAnswer({ name: 'x.example', type: TYPE_CODES[type], ttl, data: Buffer.from(bytes) });
          // Whatever was accepted is a normalised record: the wire round trip holds.
          expect(roundTrip([r])).toEqual([r]);
        } catch (e) {
          expect(e).toBeInstanceOf(RecordValueError);
        }
      }),
      { numRuns: 600 },
    );
  });

  test('arbitrary answer-shaped objects throw nothing but RecordValueError', () => {
    fc.assert(
      fc.property(
        fc.record({
          name: fc.oneof(fc.string(), fc.anything()),
          type: fc.oneof(fc.constantFrom<unknown>(...RECORD_TYPES), fc.anything()),
          ttl: fc.anything(),
          data: fc.anything(),
        }),
        (answer) => {
          try {
            fromPacketAnswer(answer as unknown as PacketAnswerLike);
          } catch (e) {
            expect(e).toBeInstanceOf(RecordValueError);
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe('parseValue never throws anything but RecordValueError', () => {
  test.each(RECORD_TYPES.map((t) => [t]))('%s on arbitrary text', (type) => {
    const junk = fc.oneof(
      fc.string({ maxLength: 80 }),
      fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF .:@\\"();*-_\t\n'.split('')), maxLength: 60 }),
    );
    fc.assert(
      fc.property(junk, fc.constantFrom<'api' | 'master'>('api', 'master'), (text, syntax) => {
        try {
          const out = parseValue(type, text, ZONE, { syntax });
          expect(parseValue(type, out, ZONE, { syntax })).toBe(out);
        } catch (e) {
          expect(e).toBeInstanceOf(RecordValueError);
        }
      }),
      { numRuns: 300 },
    );
  });
});
