import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { connect, type Socket as TcpSocket } from 'node:net';
import * as packet from 'dns-packet';
import fc from 'fast-check';
import { DnsClient, frameMessage, rcodeName, splitFrames } from '../../dns/client';
import { DnsEngine } from '../../dns/engine/engine';
import { toPacketAnswer } from '../../dns/records';
import { recordArb } from '../../dns/records/testing/arbitraries';
import { openSqliteStore } from '../../dns/store';
import type { ZoneStore } from '../../dns/store/types';
import { parseKeySpec } from '../../dns/tsig/keyfile';
import { signMessage } from '../../dns/tsig/tsig';
import { u16, u32 } from '../../dns/wire/integers';
import { decodeMessage } from '../../dns/wire/message';
import { encodeAnswer, encodeName } from '../../dns/wire/packet';
import { importZoneFile } from '../../dns/zonefile/zone-files';
import { watchEscapes } from '../../dns/testing/escapes';

/**
 * Robustness: random bytes, mutated queries, random (and validly signed) UPDATE and NOTIFY messages, and TCP streams
 * with bogus length prefixes and cut-off messages, thrown at a running engine on 127.0.0.1 (and nowhere else).
 * After every batch: the server reported no internal error, still answers a normal query correctly, and every
 * answer it sent was well-formed — decodable, QR set, the request's ID and opcode, within the UDP size limit — and
 * came for a request that deserved one (at least 12 bytes, QR clear), exactly one per request over UDP. And nothing
 * escaped to the process: no uncaught exception, no unhandled rejection (listeners on the real process). The zone
 * holds an RRset too large for any DNS message (stored with the RRset limit off), which the fuzzer asks about too.
 */
const HOST = '127.0.0.1';
/** A name, and a record, as dns-packet writes them (through the server's adapter); the test's inputs are sound. */
function nameWire(name: string): Buffer {
  const wire = encodeName(name);
  if (!wire) throw new Error(`dns-packet cannot encode the name ${name}`);
  return wire;
}
function answerWire(answer: packet.Answer): Buffer {
  const wire = encodeAnswer(answer);
  if (!wire) throw new Error(`dns-packet cannot encode a ${answer.type} record`);
  return wire;
}
const rcodeOf = (p: packet.DecodedPacket): string | undefined => (p as { rcode?: string }).rcode;
const SECRET = 'ZnV6ei1rZXktc2VjcmV0LWZ1enota2V5LXNlY3JldA==';
const FUZZ_KEY = parseKeySpec(`hmac-sha256:fuzz-key:${SECRET}`);
const KEYS = [FUZZ_KEY, parseKeySpec(`hmac-sha256:other-key:${SECRET}`)];
const WRONG_KEY = { ...FUZZ_KEY, secret: Buffer.from('wrong secret, wrong secret') };
/** Fixed, so a run is repeatable; DNS_FUZZ_SEED picks another and DNS_FUZZ_SCALE multiplies the runs (exploring). */
const SEED = Number(process.env.DNS_FUZZ_SEED ?? 20261122);
const SCALE = Number(process.env.DNS_FUZZ_SCALE ?? 1);

let store: ZoneStore;
let engine: DnsEngine;
let port: number;
let udp: UdpSocket;
const serverErrors: string[] = [];
const udpInbox = new Map<number, Buffer[]>();
const escapes = watchEscapes();
/** 2 500 A records at one name: 75 000 bytes uncompressed, more than a DNS message holds. */
const MANY = Array.from({ length: 2500 }, (_, i) => `many IN A 10.0.${i >> 8}.${i & 255}`).join('\n');

beforeAll(async () => {
  store = await openSqliteStore({ file: ':memory:', maxRecordsPerRrset: 0 });
  await importZoneFile(
    store,
    'fuzz.test',
    `$TTL 300
@ IN SOA ns1.fuzz.test. hostmaster.fuzz.test. 1 3600 600 86400 60
@ IN NS ns1.fuzz.test.
ns1 IN A 192.0.2.1
www IN A 192.0.2.2
www IN AAAA 2001:db8::2
mail IN MX 10 www.fuzz.test.
alias IN CNAME www.fuzz.test.
*.wild IN TXT "wild"
big IN TXT "${'x'.repeat(250)}" "${'y'.repeat(250)}" "${'z'.repeat(250)}"
sub IN NS ns.sub.fuzz.test.
ns.sub IN A 192.0.2.3
${MANY}
`,
  );
  // the zone the health check asks: updates signed with fuzz-key are not allowed to touch it
  await importZoneFile(
    store,
    'check.test',
    `$TTL 300
@ IN SOA ns1.check.test. hostmaster.check.test. 1 3600 600 86400 60
@ IN NS ns1.check.test.
ns1 IN A 192.0.2.81
www IN A 192.0.2.80
`,
  );
  engine = await DnsEngine.start({
    store,
    host: HOST,
    port: 0,
    keys: KEYS,
    access: { updateKeys: { 'fuzz.test': ['fuzz-key'], 'check.test': ['other-key'] } },
    // hundreds of questions a second from one address, each of which must be answered: response rate limiting
    // (on by default) would rightly drop or slip most of them (test/dns/rrl.test.ts covers it)
    rrl: false,
    log: {
      info: () => undefined,
      warn: (obj, msg) => {
        if (msg === 'dns server error' || /reload failed/.test(msg))
          serverErrors.push(`${msg}: ${String((obj as { err?: unknown }).err)}`);
      },
    },
  });
  port = engine.server?.port as number;
  udp = createSocket('udp4');
  udp.on('message', (msg) => {
    if (msg.length < 2) return;
    const id = msg.readUInt16BE(0);
    udpInbox.set(id, [...(udpInbox.get(id) ?? []), msg]);
  });
  await new Promise<void>((r) => udp.bind(0, HOST, () => r()));
});
afterAll(async () => {
  await new Promise<void>((r) => udp?.close(() => r()));
  await engine?.close();
  await store?.close();
  escapes.stop();
});

// ---------------------------------------------------------------------------------------------------------------
// Packets. Each is built for an ID the test picks, so every answer can be matched to its request.

type Build = (id: number) => Buffer;

const withId =
  (bytes: Uint8Array): Build =>
  (id) => {
    const b = Buffer.from(bytes);
    if (b.length >= 2) b.writeUInt16BE(id, 0);
    return b;
  };

const NAMES = [
  'fuzz.test',
  'www.fuzz.test',
  'many.fuzz.test',
  'alias.fuzz.test',
  'x.wild.fuzz.test',
  'big.fuzz.test',
  'host.sub.fuzz.test',
  'nope.fuzz.test',
  'WwW.FuZz.TeSt',
  'check.test',
  'www.check.test',
  'example.org',
  '.',
  'a.b.c.d.e.f.fuzz.test',
];
const nameArb = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NAMES) },
  {
    weight: 1,
    arbitrary: fc
      .array(fc.stringMatching(/^[a-z0-9_*-]{1,63}$/), { minLength: 1, maxLength: 5 })
      .map((l) => `${l.join('.')}.fuzz.test`),
  },
);
const QTYPES = [
  'A',
  'AAAA',
  'NS',
  'SOA',
  'MX',
  'TXT',
  'CNAME',
  'DNAME',
  'SRV',
  'CAA',
  'DS',
  'ANY',
  'AXFR',
  'IXFR',
  'SPF',
  'NAPTR',
  'TLSA',
  'SSHFP',
  'PTR',
  'OPT',
  'TSIG',
];
const qtypeArb = fc.oneof(
  fc.constantFrom(...QTYPES),
  fc.integer({ min: 0, max: 65535 }).map((n) => `TYPE${n}`),
);

const optArb = fc.option(
  fc.record({
    udpPayloadSize: fc.constantFrom(0, 512, 1232, 4096, 65535),
    flags: fc.constantFrom(0, packet.DNSSEC_OK),
    version: fc.constantFrom(0, 0, 1),
    options: fc.array(
      fc.record({ code: fc.constantFrom(3, 8, 10, 11, 12, 14, 65001), data: fc.uint8Array({ maxLength: 20 }) }),
      { maxLength: 2 },
    ),
  }),
  { nil: undefined },
);

interface QuerySpec {
  name: string;
  type: string;
  klass: string;
  flags: number;
  opt?: { udpPayloadSize: number; flags: number; version: number; options: Array<{ code: number; data: Uint8Array }> };
}

function encodeQuery(q: QuerySpec, id: number): Buffer {
  const additionals = q.opt
    ? [
        {
          type: 'OPT',
          name: '.',
          udpPayloadSize: q.opt.udpPayloadSize,
          flags: q.opt.flags,
          ednsVersion: q.opt.version,
          extendedRcode: 0,
          options: q.opt.options.map((o) => ({ code: o.code, data: Buffer.from(o.data) })),
        } as unknown as packet.Answer,
      ]
    : [];
  try {
    return packet.encode({
      type: 'query',
      id,
      flags: q.flags,
      questions: [{ name: q.name, type: q.type as packet.RecordType, class: q.klass as 'IN' }],
      additionals,
    });
  } catch {
    // an EDNS option dns-packet cannot encode from random data: the same query without options
    return packet.encode({
      type: 'query',
      id,
      flags: q.flags,
      questions: [{ name: q.name, type: q.type as packet.RecordType, class: q.klass as 'IN' }],
    });
  }
}

const querySpecArb: fc.Arbitrary<QuerySpec> = fc.record({
  name: nameArb,
  type: qtypeArb,
  klass: fc.constantFrom('IN', 'IN', 'IN', 'CH', 'ANY', 'NONE'),
  flags: fc.oneof(
    fc.constantFrom(0, packet.RECURSION_DESIRED, packet.CHECKING_DISABLED),
    fc.integer({ min: 0, max: 0x7fff }),
  ),
  opt: optArb,
});

type Mutation =
  | { kind: 'flip'; at: number; bit: number }
  | { kind: 'set'; at: number; value: number }
  | { kind: 'insert'; at: number; bytes: Uint8Array }
  | { kind: 'delete'; at: number; count: number }
  | { kind: 'truncate'; at: number };
const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }),
  fc.record({
    kind: fc.constant('set' as const),
    at: fc.nat(),
    value: fc.constantFrom(0, 1, 0x3f, 0x40, 0x7f, 0xc0, 0xc0 | 12, 0xff),
  }),
  fc.record({
    kind: fc.constant('insert' as const),
    at: fc.nat(),
    bytes: fc.uint8Array({ minLength: 1, maxLength: 8 }),
  }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), count: fc.integer({ min: 1, max: 8 }) }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
);

function mutate(input: Buffer, mutations: Mutation[]): Buffer {
  let b = Buffer.from(input);
  for (const m of mutations) {
    // the header's ID bytes are the test's; mutations start at byte 2
    const at = b.length > 2 ? 2 + (m.at % (b.length - 2)) : b.length;
    if (m.kind === 'flip' && at < b.length) b[at] = b.readUInt8(at) ^ (1 << m.bit);
    else if (m.kind === 'set' && at < b.length) b[at] = m.value;
    else if (m.kind === 'insert') b = Buffer.concat([b.subarray(0, at), Buffer.from(m.bytes), b.subarray(at)]);
    else if (m.kind === 'delete') b = Buffer.concat([b.subarray(0, at), b.subarray(at + m.count)]);
    else if (m.kind === 'truncate') b = b.subarray(0, at);
  }
  return b;
}

/** (a) random bytes, 0–600 of them. */
const randomBytesArb: fc.Arbitrary<Build> = fc.uint8Array({ minLength: 0, maxLength: 600 }).map(withId);
/** (b) a valid query (maybe with EDNS), mutated. */
const mutatedQueryArb: fc.Arbitrary<Build> = fc
  .tuple(querySpecArb, fc.array(mutationArb, { minLength: 1, maxLength: 4 }))
  .map(
    ([q, ms]) =>
      (id: number) =>
        withId(mutate(encodeQuery(q, id), ms))(id),
  );
/** A valid query, unmutated. */
const queryArb: fc.Arbitrary<Build> = querySpecArb.map((q) => (id: number) => encodeQuery(q, id));

/** One resource record on the wire, with any class, TTL and RDATA (valid, random or empty). */
function rawRecord(name: string, type: number, klass: number, ttl: number, rdata: Buffer): Buffer {
  return Buffer.concat([nameWire(name), u16(type), u16(klass), u32(ttl), u16(rdata.length), rdata]);
}

/** A record valid for the zone (from the record-value generators) as dns-packet encodes it: [name, type, rdata]. */
const validRecordArb = recordArb('fuzz.test').map((r) => {
  const wire = answerWire(toPacketAnswer(r));
  const nameLength = nameWire(r.name || '.').length;
  return {
    name: r.name || '.',
    type: wire.readUInt16BE(nameLength),
    rdata: Buffer.from(wire.subarray(nameLength + 10)),
  };
});

const CLASS = { IN: 1, CH: 3, NONE: 254, ANY: 255 } as const;
const EXISTING = [
  'fuzz.test',
  'www.fuzz.test',
  'many.fuzz.test',
  'alias.fuzz.test',
  'mail.fuzz.test',
  'ns1.fuzz.test',
  'sub.fuzz.test',
  '*.wild.fuzz.test',
];
/** The owner: the generated one, or (often) a name the zone has, so deletions and prerequisites find something. */
const ownerOf = fc.option(fc.constantFrom(...EXISTING), { nil: undefined, freq: 2 });

/**
 * Update section records (RFC 2136 §2.5): mostly well-formed — add (IN), delete an RRset (ANY, empty), delete a
 * name (ANY ANY), delete one RR (NONE) — and some with any name, type, class, TTL and RDATA.
 */
const updateRecordArb: fc.Arbitrary<Buffer> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(validRecordArb, ownerOf, fc.constantFrom(0, 60, 300, 86400))
      .map(([r, n, ttl]) => rawRecord(n ?? r.name, r.type, CLASS.IN, ttl, r.rdata)),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(validRecordArb, ownerOf)
      .map(([r, n]) => rawRecord(n ?? r.name, r.type, CLASS.ANY, 0, Buffer.alloc(0))),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(validRecordArb, ownerOf)
      .map(([r, n]) => rawRecord(n ?? r.name, 255, CLASS.ANY, 0, Buffer.alloc(0))),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(validRecordArb, ownerOf)
      .map(([r, n]) => rawRecord(n ?? r.name, r.type, CLASS.NONE, 0, r.rdata)),
  },
  {
    weight: 1,
    arbitrary: fc
      .record({
        base: validRecordArb,
        name: fc.option(
          fc.constantFrom('fuzz.test', 'www.fuzz.test', 'check.test', 'other.example', 'sub.fuzz.test', '*.fuzz.test'),
          { nil: undefined },
        ),
        type: fc.option(fc.constantFrom(1, 2, 5, 6, 16, 39, 41, 99, 250, 251, 252, 255, 65280), { nil: undefined }),
        klass: fc.constantFrom(CLASS.IN, CLASS.ANY, CLASS.NONE, CLASS.CH),
        ttl: fc.oneof(fc.constantFrom(0, 300), fc.integer({ min: 0, max: 0xffffffff })),
        rdata: fc.oneof(fc.constant<'valid'>('valid'), fc.constant<'empty'>('empty'), fc.uint8Array({ maxLength: 40 })),
      })
      .map((r) =>
        rawRecord(
          r.name ?? r.base.name,
          r.type ?? r.base.type,
          r.klass,
          r.ttl,
          r.rdata === 'valid' ? r.base.rdata : r.rdata === 'empty' ? Buffer.alloc(0) : Buffer.from(r.rdata),
        ),
      ),
  },
);

/** Prerequisites (RFC 2136 §2.4): name in use / not in use, RRset exists / does not, RRset exists with a value. */
const prereqArb: fc.Arbitrary<Buffer> = fc.oneof(
  fc
    .tuple(validRecordArb, ownerOf, fc.constantFrom(255, 0))
    .map(([r, n, t]) => rawRecord(n ?? r.name, t === 255 ? 255 : r.type, CLASS.ANY, 0, Buffer.alloc(0))),
  fc
    .tuple(validRecordArb, ownerOf, fc.constantFrom(255, 0))
    .map(([r, n, t]) => rawRecord(n ?? r.name, t === 255 ? 255 : r.type, CLASS.NONE, 0, Buffer.alloc(0))),
  fc.tuple(validRecordArb, ownerOf).map(([r, n]) => rawRecord(n ?? r.name, r.type, CLASS.IN, 0, r.rdata)),
  updateRecordArb,
);

interface UpdateSpec {
  opcode: number;
  zone: string;
  ztype: number;
  zcount: number;
  prereqs: Buffer[];
  updates: Buffer[];
  sign: 'none' | 'good' | 'wrong';
}

function encodeUpdate(u: UpdateSpec, id: number): Buffer {
  const header = Buffer.concat([
    u16(id),
    u16(u.opcode << 11),
    u16(u.zcount),
    u16(u.prereqs.length),
    u16(u.updates.length),
    u16(0),
  ]);
  const zone = Buffer.concat([nameWire(u.zone), u16(u.ztype), u16(1)]);
  const message = Buffer.concat([header, ...Array.from({ length: u.zcount }, () => zone), ...u.prereqs, ...u.updates]);
  if (u.sign === 'none') return message;
  return signMessage(message, u.sign === 'good' ? FUZZ_KEY : WRONG_KEY).message;
}

/** An UPDATE of fuzz.test the server carries out (or refuses by RFC 2136's rules): signed with the allowed key. */
const wellFormedUpdateArb: fc.Arbitrary<UpdateSpec> = fc.record({
  opcode: fc.constant(5),
  zone: fc.constantFrom('fuzz.test', 'FUZZ.test'),
  ztype: fc.constant(6),
  zcount: fc.constant(1),
  prereqs: fc.oneof(
    { weight: 3, arbitrary: fc.constant<Buffer[]>([]) },
    { weight: 1, arbitrary: fc.array(prereqArb, { maxLength: 2 }) },
  ),
  updates: fc.array(updateRecordArb, { minLength: 1, maxLength: 5 }),
  sign: fc.constant<'good'>('good'),
});

/** Any opcode (NOTIFY and UPDATE mostly), any zone section, unsigned, signed or signed with a wrong secret. */
const anyUpdateArb: fc.Arbitrary<UpdateSpec> = fc.record({
  opcode: fc.constantFrom(5, 5, 4, 4, 1, 2, 3, 6, 15),
  zone: fc.constantFrom('fuzz.test', 'check.test', 'www.fuzz.test', 'other.example', '.'),
  ztype: fc.constantFrom(6, 6, 1, 255),
  zcount: fc.constantFrom(1, 1, 0, 2),
  prereqs: fc.array(prereqArb, { maxLength: 3 }),
  updates: fc.array(updateRecordArb, { maxLength: 5 }),
  sign: fc.constantFrom<'none' | 'good' | 'wrong'>('good', 'none', 'wrong'),
});

/** (c) UPDATE (opcode 5), NOTIFY (opcode 4) and other opcodes with random sections. */
const updateOrNotifyArb: fc.Arbitrary<Build> = fc
  .oneof({ weight: 2, arbitrary: wellFormedUpdateArb }, { weight: 1, arbitrary: anyUpdateArb })
  .map((u) => (id: number) => encodeUpdate(u, id));

// ---------------------------------------------------------------------------------------------------------------
// Checks

let nextId = 1;
/** IDs unique within a batch (a batch is far smaller than 65536). */
function takeId(): number {
  nextId = (nextId % 65535) + 1;
  return nextId;
}

/** Does the request deserve an answer: a header's worth of bytes with QR clear. */
const answerable = (req: Buffer): boolean => req.length >= 12 && (req.readUInt16BE(2) & 0x8000) === 0;

/** The largest UDP answer the request allows: 512, or its EDNS size up to our 1232 when it decodes with an OPT. */
function udpLimitOf(req: Buffer): number {
  try {
    const opt = decodeMessage(req).additionals.find((r) => r.type === 'OPT') as { udpPayloadSize?: number } | undefined;
    return opt ? Math.max(512, Math.min(opt.udpPayloadSize || 512, 1232)) : 512;
  } catch {
    return 512;
  }
}

/** The first `count` questions of a message as uncompressed wire bytes (exact case); undefined if they do not parse. */
function questionBytes(buf: Buffer, count: number): Buffer | undefined {
  const out: Buffer[] = [];
  let o = 12;
  for (let q = 0; q < count; q++) {
    let p = o;
    let jumped = false;
    for (let hops = 0; ; hops++) {
      const len = buf[p];
      if (hops > 128 || len === undefined) return undefined;
      if ((len & 0xc0) === 0xc0) {
        if (p + 2 > buf.length) return undefined;
        if (!jumped) o = p + 2;
        jumped = true;
        p = buf.readUInt16BE(p) & 0x3fff;
        continue;
      }
      if (len & 0xc0 || p + 1 + len > buf.length) return undefined;
      out.push(buf.subarray(p, p + 1 + len));
      p += 1 + len;
      if (len === 0) break;
    }
    if (!jumped) o = p;
    if (o + 4 > buf.length) return undefined;
    out.push(buf.subarray(o, o + 4));
    o += 4;
  }
  return Buffer.concat(out);
}

/** Problems with one answer to `req` (empty when it is well-formed). */
function problemsOf(req: Buffer, res: Buffer, transport: 'udp' | 'tcp'): string[] {
  const problems: string[] = [];
  let decoded: packet.DecodedPacket | undefined;
  try {
    decoded = packet.decode(res);
  } catch (err) {
    problems.push(`not decodable: ${(err as Error).message}`);
  }
  if (res.length < 12) return [...problems, 'shorter than a header'];
  if (!(res.readUInt16BE(2) & 0x8000)) problems.push('QR not set');
  if (res.readUInt16BE(0) !== req.readUInt16BE(0)) problems.push('ID differs from the request');
  if (((res.readUInt16BE(2) >> 11) & 0xf) !== ((req.readUInt16BE(2) >> 11) & 0xf))
    problems.push('opcode differs from the request');
  if (transport === 'udp' && res.length > udpLimitOf(req))
    problems.push(`UDP answer of ${res.length} bytes exceeds the request's limit ${udpLimitOf(req)}`);
  if (decoded && decoded.type !== 'response') problems.push('decoded as a query');
  // a question in the answer is the request's, byte for byte (clients drop answers to a question they did not ask)
  const qd = res.readUInt16BE(4);
  if (qd > 0) {
    const echoed = questionBytes(res, qd);
    const asked = qd <= req.readUInt16BE(4) ? questionBytes(req, qd) : undefined;
    if (!echoed || !asked || !echoed.equals(asked))
      problems.push(
        `question section differs from the request's (${asked?.toString('hex')} → ${echoed?.toString('hex')})`,
      );
  }
  return problems;
}

function describe1(req: Buffer, res: Buffer | undefined, problems: string[]): string {
  return `${problems.join('; ')}\n  request  ${req.toString('hex')}\n  response ${res?.toString('hex') ?? '(none)'}`;
}

/** The health check: nothing escaped to the process, and a normal query over UDP is answered correctly within 2 s. */
async function healthy(): Promise<void> {
  expect(escapes.escaped.splice(0).slice(0, 3)).toEqual([]);
  const res = await new DnsClient({ server: { host: HOST, port }, timeoutMs: 2000 }).query('www.check.test', 'A');
  expect({
    rcode: rcodeName(res.rcode),
    tc: res.message.flag_tc,
    answers: res.answers,
    classes: res.message.answers.map((a) => a.class),
  }).toEqual({
    rcode: 'NOERROR',
    tc: false, // answered over UDP, not retried over TCP
    answers: [{ name: 'www.check.test', type: 'A', ttl: 300, value: '192.0.2.80' }],
    classes: ['IN'],
  });
}

/** Sends a batch over UDP; waits until every answerable request has its answer (or 3 s); checks all answers. */
async function udpBatch(builds: Build[]): Promise<void> {
  const requests = new Map<number, Buffer>();
  const idless: Buffer[] = []; // 0 or 1 bytes: no ID to answer with, and no answer may come
  for (const build of builds) {
    const id = takeId();
    const req = build(id);
    if (req.length >= 2) requests.set(req.readUInt16BE(0), req);
    else idless.push(req);
    udpInbox.delete(id);
  }
  for (const req of [...idless, ...requests.values()]) udp.send(req, port, HOST);
  const expected = [...requests.entries()].filter(([, req]) => answerable(req)).map(([id]) => id);
  const deadline = Date.now() + 3000;
  while (expected.some((id) => !udpInbox.has(id)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  await new Promise((r) => setTimeout(r, 20)); // stragglers: duplicate or unexpected answers
  const failures: string[] = [];
  for (const [id, req] of requests) {
    const answers = udpInbox.get(id) ?? [];
    udpInbox.delete(id);
    if (!answerable(req)) {
      if (answers.length)
        failures.push(describe1(req, answers[0], ['answered a request that must be dropped (short or QR set)']));
      continue;
    }
    if (answers.length !== 1) failures.push(describe1(req, answers[0], [`${answers.length} answers over UDP`]));
    for (const res of answers) {
      const problems = problemsOf(req, res, 'udp');
      if (problems.length) failures.push(describe1(req, res, problems));
    }
  }
  for (const [id, answers] of udpInbox)
    failures.push(`${answers.length} answer(s) with ID ${id}, which no request had: ${answers[0]?.toString('hex')}`);
  udpInbox.clear();
  if (serverErrors.length) failures.unshift(...(await culprits([...requests.values()])));
  expect(failures.slice(0, 5)).toEqual([]);
  await healthy();
}

/** After a server error: the requests that cause one when sent alone (over UDP), with the error. */
async function culprits(requests: Buffer[]): Promise<string[]> {
  const errors = serverErrors.splice(0);
  const found: string[] = [];
  for (const req of requests.filter(answerable)) {
    if (found.length >= 3) break;
    udp.send(req, port, HOST);
    const deadline = Date.now() + 300;
    while (!udpInbox.has(req.readUInt16BE(0)) && serverErrors.length === 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 2));
    await new Promise((r) => setTimeout(r, 10));
    udpInbox.delete(req.readUInt16BE(0));
    if (serverErrors.length)
      found.push(`server error ${serverErrors.splice(0).join(', ')}\n  request  ${req.toString('hex')}`);
  }
  return found.length ? found : errors.map((e) => `server error (no single request repeats it): ${e}`);
}

interface TcpCase {
  chunks: Buffer[];
  ids: Map<number, Buffer>;
}

/** What the server sees on a connection: the messages its 2-byte length framing cuts from the bytes sent. */
const framedMessages = (stream: Buffer): Buffer[] => splitFrames(stream).messages;

/** One TCP connection: writes the chunks, waits for `expectAnswers` answers (up to 5 s), closes; returns the bytes received. */
function tcpExchange(chunks: Buffer[], expectAnswers: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket: TcpSocket = connect(port, HOST);
    let received = Buffer.alloc(0);
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(received);
    };
    // Generous: the wait ends as soon as the answers are in, and a loaded machine must not fail the run.
    const timer = setTimeout(finish, expectAnswers > 0 ? 5_000 : 1500);
    socket.on('data', (d: Buffer) => {
      received = Buffer.concat([received, d]);
      if (expectAnswers > 0 && framedMessages(received).length >= expectAnswers) setTimeout(finish, 20);
    });
    socket.on('error', (err) => (done ? undefined : reject(err)));
    socket.on('close', finish);
    socket.on('connect', () => {
      for (const c of chunks) socket.write(c);
      // Nothing expected: a short grace for an answer that must not come.
      if (expectAnswers === 0) setTimeout(finish, 100);
    });
  });
}

/** (d) A TCP stream: well-framed messages, bogus length prefixes, partial messages, split writes. */
const tcpCaseArb: fc.Arbitrary<(nextId: () => number) => TcpCase> = fc
  .array(
    fc.oneof(
      fc.record({
        kind: fc.constant('message' as const),
        build: fc.oneof(queryArb, mutatedQueryArb, updateOrNotifyArb, randomBytesArb),
      }),
      fc.record({
        kind: fc.constant('bogus-prefix' as const),
        build: fc.oneof(queryArb, randomBytesArb),
        delta: fc.integer({ min: -20, max: 300 }),
      }),
      fc.record({ kind: fc.constant('raw' as const), bytes: fc.uint8Array({ maxLength: 40 }) }),
      fc.record({
        kind: fc.constant('huge-prefix' as const),
        len: fc.integer({ min: 1000, max: 65535 }),
        bytes: fc.uint8Array({ maxLength: 100 }),
      }),
    ),
    { minLength: 1, maxLength: 6 },
  )
  .chain((parts) =>
    fc.array(fc.nat(), { maxLength: 4 }).map((cuts) => (nextIdFn: () => number): TcpCase => {
      const ids = new Map<number, Buffer>();
      const pieces: Buffer[] = [];
      for (const p of parts) {
        if (p.kind === 'raw') pieces.push(Buffer.from(p.bytes));
        else if (p.kind === 'huge-prefix') pieces.push(u16(p.len), Buffer.from(p.bytes));
        else {
          const id = nextIdFn();
          const msg = p.build(id);
          const len = p.kind === 'message' ? msg.length : Math.max(0, Math.min(65535, msg.length + p.delta));
          pieces.push(u16(len), msg);
        }
      }
      const stream = Buffer.concat(pieces);
      // what the server will take as messages, and so which answers may come back
      for (const m of framedMessages(stream)) if (m.length >= 2) ids.set(m.readUInt16BE(0), m);
      const offsets = [...new Set(cuts.map((c) => c % (stream.length + 1)))].sort((a, b) => a - b);
      const chunks: Buffer[] = [];
      let from = 0;
      for (const o of [...offsets, stream.length]) {
        if (o > from) chunks.push(stream.subarray(from, o));
        from = o;
      }
      return { chunks, ids };
    }),
  );

async function tcpBatch(cases: Array<(nextId: () => number) => TcpCase>): Promise<void> {
  const failures: string[] = [];
  await Promise.all(
    cases.map(async (make) => {
      const { chunks, ids } = make(takeId);
      // framed messages whose IDs clash (a random message may carry any ID) cannot be told apart: the last one counts
      const expected = [...ids.values()].filter(answerable);
      const received = await tcpExchange(chunks, expected.length);
      const { messages: answers, rest } = splitFrames(received);
      if (rest.length) failures.push(`TCP: ${rest.length} bytes after the last whole message`);
      const answered = new Set<number>();
      for (const res of answers) {
        const id = res.length >= 2 ? res.readUInt16BE(0) : -1;
        const req = ids.get(id);
        if (!req) {
          failures.push(`TCP: an answer with ID ${id} that no request on the connection had: ${res.toString('hex')}`);
          continue;
        }
        answered.add(id);
        if (!answerable(req)) failures.push(describe1(req, res, ['TCP: answered a request that must be dropped']));
        const problems = problemsOf(req, res, 'tcp');
        if (problems.length)
          failures.push(
            describe1(
              req,
              res,
              problems.map((p) => `TCP: ${p}`),
            ),
          );
      }
      for (const req of expected)
        if (!answered.has(req.readUInt16BE(0))) failures.push(describe1(req, undefined, ['TCP: no answer']));
    }),
  );
  if (serverErrors.length) {
    const sent = cases.map((make) => make(takeId)).flatMap((c) => [...c.ids.values()]);
    failures.unshift(...(await culprits(sent)));
  }
  expect(failures.slice(0, 5)).toEqual([]);
  await healthy();
}

// ---------------------------------------------------------------------------------------------------------------
// The properties: each run is one batch; fast-check shrinks a failing batch towards the packet that breaks it.

const BATCH = 100;
const settings = (numRuns: number, offset: number) => ({
  numRuns: Math.ceil(numRuns * SCALE),
  seed: SEED + offset,
  endOnFailure: true,
});

test(
  '(a) random byte strings over UDP',
  async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(randomBytesArb, { minLength: BATCH, maxLength: BATCH }), (b) => udpBatch(b)),
      settings(10, 1),
    );
  },
  20_000 * SCALE,
);

test(
  '(b) mutated queries (flipped, set, inserted, deleted bytes, truncated) over UDP',
  async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(mutatedQueryArb, queryArb), { minLength: BATCH, maxLength: BATCH }), (b) =>
        udpBatch(b),
      ),
      settings(12, 2),
    );
  },
  20_000 * SCALE,
);

test(
  '(c) random UPDATE and NOTIFY messages, unsigned, validly signed and wrongly signed, over UDP',
  async () => {
    const before = (await store.getZone('check.test'))?.serial;
    await fc.assert(
      fc.asyncProperty(fc.array(updateOrNotifyArb, { minLength: 50, maxLength: 50 }), (b) => udpBatch(b)),
      settings(8, 3),
    );
    // fuzz-key may not touch check.test; and what the updates did to fuzz.test is what the server answers
    expect((await store.getZone('check.test'))?.serial).toBe(before);
    await engine.reload('fuzz.test');
    const soa = (await store.getZone('fuzz.test'))?.serial;
    const transfer = await new DnsClient({ server: { host: HOST, port }, timeoutMs: 10_000 }).transfer('fuzz.test');
    // every record once between the two SOAs (the client leaves the closing one out)
    expect(transfer.records.length).toBe((await store.listRecords('fuzz.test')).length);
    expect(transfer.soa.value.split(' ')[2]).toBe(String(soa)); // mname rname serial …
  },
  20_000 * SCALE,
);

test(
  '(c) the same UPDATE and NOTIFY messages over TCP',
  async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          updateOrNotifyArb.map((build) => (nextIdFn: () => number): TcpCase => {
            const id = nextIdFn();
            const msg = build(id);
            return { chunks: [frameMessage(msg)], ids: new Map([[id, msg]]) };
          }),
          { minLength: 20, maxLength: 20 },
        ),
        (b) => tcpBatch(b),
      ),
      settings(5, 4),
    );
  },
  20_000 * SCALE,
);

test(
  '(d) TCP streams with bogus length prefixes, partial messages and split writes',
  async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(tcpCaseArb, { minLength: 20, maxLength: 20 }), (b) => tcpBatch(b)),
      settings(8, 5),
    );
  },
  30_000 * SCALE,
);

test('fixed cases: the RRset too large for any message, asked over UDP and TCP, with and without EDNS and TSIG', async () => {
  const specs: QuerySpec[] = ['A', 'ANY'].flatMap((type) => [
    { name: 'many.fuzz.test', type, klass: 'IN', flags: 0 },
    { name: 'MANY.fuzz.test', type, klass: 'IN', flags: packet.RECURSION_DESIRED },
    {
      name: 'many.fuzz.test',
      type,
      klass: 'IN',
      flags: 0,
      opt: { udpPayloadSize: 65535, flags: packet.DNSSEC_OK, version: 0, options: [] },
    },
    {
      name: 'many.fuzz.test',
      type,
      klass: 'IN',
      flags: 0,
      opt: { udpPayloadSize: 1232, flags: 0, version: 0, options: [{ code: 10, data: new Uint8Array(8) }] },
    },
  ]);
  const builds: Build[] = [
    ...specs.map((q) => (id: number) => encodeQuery(q, id)),
    ...specs.map((q) => (id: number) => signMessage(encodeQuery(q, id), FUZZ_KEY).message),
  ];
  await udpBatch(builds);
  // each on a connection of its own, then all of them pipelined on one
  await tcpBatch(
    builds.map((build) => (nextIdFn: () => number): TcpCase => {
      const id = nextIdFn();
      const msg = build(id);
      return { chunks: [frameMessage(msg)], ids: new Map([[id, msg]]) };
    }),
  );
  await tcpBatch([
    (nextIdFn) => {
      const ids = new Map<number, Buffer>();
      const chunks = builds.map((build) => {
        const id = nextIdFn();
        const msg = build(id);
        ids.set(id, msg);
        return frameMessage(msg);
      });
      return { chunks, ids };
    },
  ]);
});

test('a TSIG record whose RDATA is shorter than its fields is a FORMERR, not a server error', async () => {
  const query = (id: number) =>
    packet.encode({ type: 'query', id, questions: [{ name: 'www.fuzz.test', type: 'A', class: 'IN' }] });
  const alg = nameWire('hmac-sha256');
  const rdatas = [
    Buffer.alloc(0), // nothing at all
    alg, // the algorithm name only
    Buffer.concat([alg, Buffer.alloc(6), u16(300), u16(32), Buffer.alloc(8)]), // a MAC longer than what follows
    Buffer.concat([alg, Buffer.alloc(6), u16(300), u16(0), u16(1), u16(0), u16(40)]), // other data longer than what follows
    Buffer.concat([alg.subarray(0, 5)]), // the name cut off
  ];
  const builds = rdatas.flatMap((rdata): Build[] =>
    [0, 5].map((trailing) => (id: number) => {
      const msg = query(id);
      msg.writeUInt16BE(1, 10);
      return Buffer.concat([msg, rawRecord('fuzz-key', 250, CLASS.ANY, 0, rdata), Buffer.alloc(trailing)]);
    }),
  );
  await udpBatch(builds); // one well-formed answer each, no server error
  // and the answers are FORMERR
  const again = builds.map((build) => build(takeId()));
  for (const req of again) udp.send(req, port, HOST);
  const deadline = Date.now() + 2000;
  while (again.some((r) => !udpInbox.has(r.readUInt16BE(0))) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 5));
  expect(again.map((r) => rcodeOf(packet.decode(udpInbox.get(r.readUInt16BE(0))?.[0] ?? Buffer.alloc(12))))).toEqual(
    again.map(() => 'FORMERR'),
  );
  for (const r of again) udpInbox.delete(r.readUInt16BE(0));
});

test.each([
  // labels are any octets (RFC 2181 §11): looked up like any name
  [
    'a name with a "." inside a label',
    '0c2d5f31725f5f345f2a2a382e0466757a7a047465737400' + '00010001',
    'NOERROR|NXDOMAIN',
  ],
  ['a name with a byte that is not UTF-8', '03ff41420466757a7a047465737400' + '00010001', 'NOERROR|NXDOMAIN'],
  ['a name in UTF-8 (not punycode)', '03e282ac0466757a7a047465737400' + '00010001', 'NOERROR|NXDOMAIN'],
  ['class NONE (254)', '037777770466757a7a047465737400' + '000100fe', 'FORMERR'],
  ['class 127', '037777770466757a7a047465737400' + '0001007f', 'FORMERR'],
  ['class CH', '037777770466757a7a047465737400' + '00010003', 'REFUSED'],
  ['type 65280', '037777770466757a7a047465737400' + 'ff000001', 'NOERROR|NXDOMAIN'],
])('a question with %s gets a well-formed answer echoing it (or a FORMERR)', async (_label, question, rcode) => {
  const build = (id: number) => {
    const header = Buffer.concat([u16(id), u16(0), u16(1), Buffer.alloc(6)]); // one question, nothing else
    return Buffer.concat([header, Buffer.from(question, 'hex')]);
  };
  await udpBatch([build, build]); // well-formed answers (the second may come from the answer cache)
  const req = build(takeId());
  udp.send(req, port, HOST);
  const deadline = Date.now() + 2000;
  while (!udpInbox.has(req.readUInt16BE(0)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  const res = udpInbox.get(req.readUInt16BE(0))?.[0];
  udpInbox.delete(req.readUInt16BE(0));
  expect(res && rcodeOf(packet.decode(res))).toMatch(new RegExp(`^(${rcode})$`));
  // the question comes back byte for byte
  if (res && rcode !== 'FORMERR') expect(res.subarray(12, 12 + question.length / 2).toString('hex')).toBe(question);
});

test('the checks can fail: a short read of answers or a wrong answer is caught', () => {
  const req = encodeQuery({ name: 'www.fuzz.test', type: 'A', klass: 'IN', flags: 0 }, 7);
  const good = packet.encode({
    type: 'response',
    id: 7,
    flags: 0,
    questions: [{ name: 'www.fuzz.test', type: 'A', class: 'IN' }],
  });
  expect(problemsOf(req, good, 'udp')).toEqual([]);
  expect(problemsOf(req, Buffer.from(good).fill(0, 0, 2), 'udp')).toContain('ID differs from the request');
  const noQr = Buffer.from(good);
  noQr[2] = noQr.readUInt8(2) & 0x7f;
  expect(problemsOf(req, noQr, 'udp')).toContain('QR not set');
  expect(problemsOf(req, good.subarray(0, 20), 'udp').join()).toMatch(/not decodable/);
  expect(problemsOf(req, Buffer.concat([good, Buffer.alloc(600)]), 'udp').join()).toMatch(/exceeds/);
  const otherQuestion = packet.encode({
    type: 'response',
    id: 7,
    flags: 0,
    questions: [{ name: 'WWW.fuzz.test', type: 'A', class: 'IN' }],
  });
  expect(problemsOf(req, otherQuestion, 'udp').join()).toMatch(/question section differs/);
});
