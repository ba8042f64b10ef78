// @needs bind
import * as packet from 'dns-packet';
import { execFile } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DnsEngine } from '../../dns/engine/engine';
import { openSqliteStore } from '../../dns/store';
import type { ZoneStore } from '../../dns/store/types';
import { importZoneFile } from '../../dns/zonefile/zone-files';
import { dig, digMany, startNamed, type DigAnswer, type Named } from '../support/dns-peers';

/**
 * The same master file served by BIND 9 `named` and by our server; every answer case is asked of both with `dig`
 * (and a few with `kdig`) and the flags, rcode and sections must agree. BIND runs with `minimal-responses no-auth`:
 * no NS RRset in the authority section of positive answers, but the addresses of in-zone targets of MX, SRV and NS
 * answers in the additional section, as our server answers. answers.test and its child child.answers.test (both
 * served) hold the harder cases: DNAME overflow, DS at a cut, CNAME and DNAME loops.
 */
const run = promisify(execFile);
const fixture = (file: string) => readFileSync(join(__dirname, 'fixtures', file), 'utf8');
const ZONES = [
  { name: 'compare.test', text: fixture('compare.zone') },
  { name: 'answers.test', text: fixture('answers.zone') },
  { name: 'child.answers.test', text: fixture('child.answers.zone') },
  { name: 'case.test', text: fixture('case.zone'), options: 'type primary; allow-transfer { any; };' },
];

/** Three labels of 59 octets: under long.answers.test the DNAME's target makes the name longer than 255 octets. */
const LONG = Array.from({ length: 3 }, () => 'a'.repeat(59)).join('.');

let store: ZoneStore;
let engine: DnsEngine;
let named: Named;
let ours: { host: string; port: number };

beforeAll(async () => {
  named = await startNamed(ZONES, '', 'minimal-responses no-auth;');
  store = await openSqliteStore({ file: ':memory:' });
  for (const zone of ZONES) await importZoneFile(store, zone.name, zone.text);
  // BIND here limits no response rate, and neither do we: one dig run asks hundreds of questions a second, and
  // RRL (tested in test/dns/rrl.test and dns/server/pipeline) would drop some of them (a 5 s wait each) or truncate them
  engine = await DnsEngine.start({ store, host: '127.0.0.1', port: 0, rrl: false });
  ours = { host: '127.0.0.1', port: engine.server?.port as number };
}, 30_000);
afterAll(async () => {
  await engine?.close();
  await store?.close();
  await named?.stop();
});

/** Comparable form: case-insensitive, records sorted within a section, the SOA serial masked (ours is YYYYMMDDnn). */
function comparable(a: DigAnswer): object {
  const norm = (lines: string[]) => lines.map((l) => l.toLowerCase().replace(/( soa \S+ \S+ )\d+/, '$1SERIAL')).sort();
  return {
    status: a.status,
    flags: a.flags.filter((f) => f !== 'ra').sort(),
    answer: norm(a.answer),
    authority: norm(a.authority),
    additional: norm(a.additional),
  };
}

const CASES: Array<[string, string[]]> = [
  ['positive A (two records)', ['www.compare.test', 'A']],
  ['positive AAAA', ['www.compare.test', 'AAAA']],
  ['apex NS', ['compare.test', 'NS']],
  ['apex MX', ['compare.test', 'MX']],
  ['apex SOA', ['compare.test', 'SOA']],
  ['apex TXT', ['compare.test', 'TXT']],
  ['NXDOMAIN', ['nope.compare.test', 'A']],
  ['NODATA', ['www.compare.test', 'MX']],
  ['empty non-terminal is NODATA', ['b.c.compare.test', 'A']],
  ['CNAME', ['alias.compare.test', 'A']],
  ['CNAME asked for itself', ['alias.compare.test', 'CNAME']],
  ['CNAME chain', ['chain1.compare.test', 'A']],
  ['CNAME to a missing name', ['dangling.compare.test', 'A']],
  ['CNAME leaving the zone', ['outside.compare.test', 'A']],
  ['wildcard TXT', ['anything.wild.compare.test', 'TXT']],
  ['wildcard A', ['x.y.wild.compare.test', 'A']],
  ['wildcard NODATA', ['anything.wild.compare.test', 'MX']],
  ['wildcard owner asked directly', ['*.wild.compare.test', 'TXT']],
  ['SRV', ['_sip._tcp.compare.test', 'SRV']],
  ['CAA', ['caa.compare.test', 'CAA']],
  ['PTR', ['ptr.compare.test', 'PTR']],
  ['NAPTR', ['naptr.compare.test', 'NAPTR']],
  ['SSHFP', ['sshfp.compare.test', 'SSHFP']],
  ['TLSA', ['tlsa.compare.test', 'TLSA']],
  ['DNAME substitution', ['x.dname.compare.test', 'A']],
  ['delegation with glue', ['host.sub.compare.test', 'A']],
  ['delegation point NS', ['sub.compare.test', 'NS']],
  ['mixed case question', ['WwW.CoMpArE.TeSt', 'A']],
  ['outside our zones is REFUSED', ['example.org', 'A']],
  ['EDNS query', ['+edns=0', 'www.compare.test', 'A']],
  ['large answer over TCP', ['+tcp', 'big.compare.test', 'TXT']],
  [
    'large answer over UDP, EDNS 512 and a cookie: TC',
    ['+bufsize=512', '+cookie', '+ignore', 'big.compare.test', 'TXT'],
  ],
  // answers.zone: DNAME overflow, DS at a cut we also serve, loops
  // additional data (minimal-responses no-auth)
  ['MX: addresses of in-zone exchanges in the additional section', ['answers.test', 'MX']],
  ['SRV: addresses of in-zone targets in the additional section', ['_sip._tcp.answers.test', 'SRV']],
  ['NS: addresses of the name servers', ['answers.test', 'NS']],
  ['CNAME then MX', ['alias.answers.test', 'MX']],
  ['MX to a CNAME: no additional data', ['mx-cname.answers.test', 'MX']],
  ['MX to a wildcard name: the synthesized address', ['mx-wild.answers.test', 'MX']],
  ['MX to a name below a cut: no additional data', ['mx-cut.answers.test', 'MX']],
  ['NAPTR "S": the SRV records and their targets\' addresses', ['naptr-s.answers.test', 'NAPTR']],
  ['NAPTR "A": the addresses', ['naptr-a.answers.test', 'NAPTR']],
  ['MX over UDP with EDNS size 512: no additional data', ['+bufsize=512', 'answers.test', 'MX']],
  ['NS over UDP with EDNS size 100: no additional data', ['+bufsize=100', 'answers.test', 'NS']],
  ['MX over UDP with EDNS size 513: additional data', ['+bufsize=513', 'answers.test', 'MX']],
  ['MX over TCP with EDNS size 512: additional data', ['+tcp', '+bufsize=512', 'answers.test', 'MX']],
  ['referral over UDP with EDNS size 512: glue', ['+bufsize=512', 'host.sub.compare.test', 'A']],
  ['MX over UDP without EDNS: additional data', ['+noedns', 'answers.test', 'MX']],
  ['child apex NS comes from the child', ['child.answers.test', 'NS']],
  [
    'DNAME substitution longer than 255 octets is YXDOMAIN with the DNAME',
    ['+noidnin', `${LONG}.long.answers.test`, 'A'],
  ],
  ['DS at a cut whose child we also serve comes from the parent', ['child.answers.test', 'DS']],
  ['CNAME loop: SERVFAIL, each record once', ['loop1.answers.test', 'A']],
  ['CNAME to itself', ['self.answers.test', 'A']],
  ['CNAME loop asked for the CNAME', ['loop1.answers.test', 'CNAME']],
  ['DNAME into its own subtree: SERVFAIL after a bounded chain', ['a.deep.answers.test', 'A']],
  ['synthesized CNAME asked for CNAME', ['x.d.answers.test', 'CNAME']],
  ['synthesized CNAME asked for ANY', ['x.d.answers.test', 'ANY']],
  ['DNAME asked for itself', ['d.answers.test', 'DNAME']],
  ['RRSIG at a CNAME owner is NODATA', ['alias.answers.test', 'RRSIG']],
  ['NSEC at a CNAME owner is NODATA', ['alias.answers.test', 'NSEC']],
  ['NXDOMAIN for an SOA question: the SOA with TTL 0', ['nope.answers.test', 'SOA']],
  ['NODATA for an SOA question: the SOA with its TTL', ['www.answers.test', 'SOA']],
  ['a dot inside a label is a binary label: NXDOMAIN', ['a\\.b.answers.test', 'A']],
  ['a non-UTF-8 byte inside a label: NXDOMAIN', ['x\\200y.answers.test', 'A']],
  ['a binary label under a wildcard', ['a\\.b.wild.answers.test', 'A']],
  ['a non-UTF-8 label under a wildcard', ['\\255\\254.wild.answers.test', 'A']],
  ['a binary label in the middle of a name', ['www.a\\.b.answers.test', 'A']],
  ['a binary label below a DNAME', ['a\\.b.d.answers.test', 'A']],
  ['a binary label below a DNAME, asked for CNAME', ['x\\.y\\200.d.answers.test', 'CNAME']],
  ['a binary label below a delegation', ['a\\.b.sub.compare.test', 'A']],
  ['a binary label below the zones: REFUSED', ['a\\.b.example.org', 'A']],
  ['a binary label with EDNS', ['+edns=0', 'a\\.b.wild.answers.test', 'A']],
];

/** dig's arguments as a question of digMany: the name and type first, then the options of this question. */
const question = (args: string[]): string[] => [
  ...args.filter((a) => !a.startsWith('+')),
  ...args.filter((a) => a.startsWith('+')),
];

/**
 * The answers of both servers to every case of a table, asked once in one dig run per server (a dig start per
 * question was most of this file's time): `[theirs, mine]` of the case whose arguments are `args`.
 */
function askedOfBoth(cases: Array<[string, string[]]>): (args: string[]) => Promise<[DigAnswer, DigAnswer]> {
  let asked: Promise<[DigAnswer[], DigAnswer[]]> | undefined;
  return async (args) => {
    const questions = cases.map(([, a]) => question(a));
    asked ??= Promise.all([digMany(named, questions), digMany(ours, questions)]);
    const [theirs, mine] = await asked;
    const i = cases.findIndex(([, a]) => a === args);
    return [theirs[i] as DigAnswer, mine[i] as DigAnswer];
  };
}

const answerOf = askedOfBoth(CASES);

test.each(CASES)('%s: same answer as BIND 9', async (_label, args) => {
  const [theirs, mine] = await answerOf(args);
  expect(comparable(mine)).toEqual(comparable(theirs));
});

/** Like `comparable`, but letter case counts: owner names and names in values as BIND gives them. */
function caseComparable(a: DigAnswer): object {
  const norm = (lines: string[]) => lines.map((l) => l.replace(/( SOA \S+ \S+ )\d+/, '$1SERIAL')).sort();
  return { ...comparable(a), answer: norm(a.answer), authority: norm(a.authority), additional: norm(a.additional) };
}

/** case.zone: names in mixed case; BIND answers with the case of the master file, whatever the question's case. */
const CASE_CASES: Array<[string, string[]]> = [
  ['an owner name in the case it was first written', ['www.case.test', 'A']],
  ['a question in other case: the same answer', ['WWW.CASE.TEST', 'A']],
  ['MX: the exchange as written, its address under its own case', ['case.test', 'MX']],
  ['NS: the name server as written', ['case.test', 'NS']],
  ['CNAME then the target in its own case', ['alias.case.test', 'A']],
  ['CNAME asked for itself', ['lower.case.test', 'CNAME']],
  ['a CNAME chain through names of other case', ['self-ish.case.test', 'A']],
  ['SRV and its target address', ['_sip._tcp.case.test', 'SRV']],
  ['PTR', ['ptr.case.test', 'PTR']],
  ['NAPTR and what it leads to', ['nap.case.test', 'NAPTR']],
  ['TXT', ['txt.case.test', 'TXT']],
  ['another RRset at a name keeps its own case', ['mail.case.test', 'TXT']],
  ['a referral: the cut and its glue in the case of their $ORIGIN', ['x.sub.case.test', 'A']],
  ['NXDOMAIN', ['nope.case.test', 'A']],
  ['NODATA', ['Mail.Case.Test', 'MX']],
];

const caseAnswerOf = askedOfBoth(CASE_CASES);

test.each(CASE_CASES)('letter case, %s: same answer as BIND 9, case included', async (_label, args) => {
  const [theirs, mine] = await caseAnswerOf(args);
  expect(caseComparable(mine)).toEqual(caseComparable(theirs));
});

test('letter case: the question is echoed as asked, the answer owner as written, like BIND (raw UDP)', async () => {
  const query = () => rawQuery('wWw.CaSe.test', 'A');
  const [theirs, mine] = await Promise.all([udpExchange(named, query()), udpExchange(ours, query())]);
  const names = (m: Buffer | undefined) => {
    const d = packet.decode(m as Buffer);
    return { questions: d.questions?.map((q) => q.name), answers: d.answers?.map((a) => a.name) };
  };
  expect(names(mine)).toEqual(names(theirs));
  expect(names(mine)).toEqual({ questions: ['wWw.CaSe.test'], answers: ['WwW.case.test', 'WwW.case.test'] });
});

test('letter case: a zone transfer gives every name as BIND transfers it', async () => {
  const axfr = async (server: { host: string; port: number }) => {
    const { stdout } = await run(
      'dig',
      ['+norec', '+onesoa', '+noall', '+answer', `@${server.host}`, '-p', String(server.port), 'case.test', 'AXFR'],
      { timeout: 15_000 },
    );
    return stdout
      .split('\n')
      .filter((l) => l)
      .map((l) => l.replace(/\s+/g, ' ').replace(/( SOA \S+ \S+ )\d+/, '$1SERIAL'))
      .sort();
  };
  const [theirs, mine] = await Promise.all([axfr(named), axfr(ours)]);
  expect(theirs.length).toBeGreaterThan(15);
  expect(mine).toEqual(theirs);
});

test('a large answer over UDP without EDNS is truncated (TC) and complete over TCP, like BIND', async () => {
  const [theirs, mine] = await Promise.all([
    dig(named, ['+noedns', '+ignore', 'big.compare.test', 'TXT']),
    dig(ours, ['+noedns', '+ignore', 'big.compare.test', 'TXT']),
  ]);
  expect(mine.flags).toContain('tc');
  expect(theirs.flags).toContain('tc');
  const full = await dig(ours, ['+noedns', 'big.compare.test', 'TXT']); // dig retries over TCP
  expect(full.answer).toHaveLength(1);
  expect(full.flags).not.toContain('tc');
});

test('ANY gets a minimal answer (RFC 8482): one RRset that exists at the name', async () => {
  const res = await dig(ours, ['compare.test', 'ANY']);
  expect(res.status).toBe('NOERROR');
  const types = new Set(res.answer.map((l) => l.split(' ')[3]));
  expect(types.size).toBe(1);
});

/** Sends `query` over UDP and waits for one answer (none: undefined). */
function udpExchange(server: { host: string; port: number }, query: Buffer): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const socket = createSocket('udp4');
    const timer = setTimeout(() => {
      socket.close();
      resolve(undefined);
    }, 3_000);
    socket.once('message', (m) => {
      clearTimeout(timer);
      socket.close();
      resolve(m);
    });
    socket.send(query, server.port, server.host);
  });
}

/** What must agree in a raw answer: header (but the ID), question, and each section's owner names and types. */
function rawComparable(m: Buffer | undefined): object {
  if (m === undefined) return { answer: 'none' };
  const flags = m.readUInt16BE(2);
  const decoded = packet.decode(m);
  const records = (list: packet.Answer[] | undefined) =>
    (list ?? []).map((r) => `${r.name.toLowerCase()} ${r.type}`).sort();
  const opt = decoded.additionals?.find((r): r is packet.OptAnswer => r.type === 'OPT');
  return {
    opcode: (flags >> 11) & 0xf,
    rcode: (flags & 0xf) | ((opt?.extendedRcode ?? 0) << 4),
    flags: { qr: !!(flags & 0x8000), aa: !!(flags & 0x400), tc: !!(flags & 0x200), rd: !!(flags & 0x100) },
    cd: !!(flags & 0x10),
    counts: [4, 6, 8, 10].map((at) => m.readUInt16BE(at)),
    questions: decoded.questions,
    answers: records(decoded.answers),
    authorities: records(decoded.authorities),
    additionals: records(decoded.additionals),
    // the server cookie is each server's own: its length, version and reserved bytes must agree
    cookie: cookieIn(m)?.subarray(0, 12).toString('hex'),
    cookieLength: cookieIn(m)?.length,
  };
}

/** The data of the COOKIE option of a message, if it has one. */
function cookieIn(m: Buffer): Buffer | undefined {
  const opt = packet.decode(m).additionals?.find((r): r is packet.OptAnswer => r.type === 'OPT');
  const options = opt?.options as Array<{ code: number; data?: Buffer }> | undefined;
  return options?.find((o) => o.code === 10)?.data;
}

/** A query with the given opcode, flags and sections, then `patch` applied to its bytes. */
function rawQuery(
  name: string,
  type: string,
  options: { opcode?: number; flags?: number; additionals?: packet.Answer[]; authorities?: packet.Answer[] } = {},
  patch?: (b: Buffer) => void,
): Buffer {
  const b = packet.encode({
    type: 'query',
    id: 4242,
    flags: options.flags ?? 0,
    questions: [{ name, type: type as packet.RecordType, class: 'IN' }],
    authorities: options.authorities ?? [],
    additionals: options.additionals ?? [],
  });
  if (options.opcode !== undefined) b.writeUInt16BE((b.readUInt16BE(2) & ~0x7800) | (options.opcode << 11), 2);
  patch?.(b);
  return b;
}

const OPT = (options: Array<{ code: number; data: Buffer }> = []): packet.Answer =>
  ({ type: 'OPT', name: '.', udpPayloadSize: 1232, flags: 0, options }) as packet.Answer;
/** The QTYPE of a one-question query made by `rawQuery` (after the name: type, class). */
const setQtype = (n: number) => (b: Buffer) => b.writeUInt16BE(n, b.length - 4 - (b.readUInt16BE(10) ? 11 : 0));
const RD_CD = packet.RECURSION_DESIRED | packet.CHECKING_DISABLED;
const CLIENT_COOKIE = Buffer.from('0102030405060708', 'hex');
const COOKIE = (data: Buffer) => OPT([{ code: 10, data }]);
/** A server cookie neither server made: right length and version, wrong hash. */
const FORGED = Buffer.concat([CLIENT_COOKIE, Buffer.from('0100000000000000', 'hex'), Buffer.alloc(8, 0x11)]);
const SOA_RECORD = {
  name: 'compare.test',
  type: 'SOA',
  class: 'IN',
  ttl: 0,
  data: { mname: 'a', rname: 'b', serial: 1, refresh: 1, retry: 1, expire: 1, minimum: 1 },
} as packet.Answer;

/** A message with two questions (and `opcode`, `flags`, `additionals`). */
function twoQuestions(opcode: number, flags: number, additionals: packet.Answer[]): Buffer {
  const questions = ['a', 'b'].map((l) => ({ name: `${l}.compare.test`, type: 'A' as const, class: 'IN' as const }));
  const b = packet.encode({ type: 'query', id: 7, flags, questions, additionals });
  b.writeUInt16BE((b.readUInt16BE(2) & ~0x7800) | (opcode << 11), 2);
  return b;
}

const RAW_CASES: Array<[string, () => Buffer]> = [
  [
    'two OPT records: FORMERR, no OPT in the answer',
    () => rawQuery('www.compare.test', 'A', { additionals: [OPT(), OPT()] }),
  ],
  ['two questions: FORMERR, the header alone', () => twoQuestions(0, RD_CD, [OPT()])],
  ['two questions without EDNS', () => twoQuestions(0, packet.RECURSION_DESIRED, [])],
  ['two questions, unknown opcode: FORMERR, RD cleared', () => twoQuestions(2, RD_CD, [OPT()])],
  ['two questions in a NOTIFY: FORMERR', () => twoQuestions(4, 0, [OPT()])],
  [
    'unknown opcode: NOTIMP, header only, RD and CD cleared',
    () => rawQuery('www.compare.test', 'A', { opcode: 2, flags: RD_CD }),
  ],
  [
    'unknown opcode with EDNS: NOTIMP with OPT',
    () => rawQuery('www.compare.test', 'A', { opcode: 6, flags: RD_CD, additionals: [OPT()] }),
  ],
  ['QTYPE OPT: FORMERR', () => rawQuery('www.compare.test', 'A', {}, setQtype(41))],
  ['QTYPE OPT with EDNS: FORMERR', () => rawQuery('www.compare.test', 'A', { additionals: [OPT()] }, setQtype(41))],
  ['QTYPE TSIG: FORMERR', () => rawQuery('www.compare.test', 'A', {}, setQtype(250))],
  ['QTYPE TKEY: FORMERR', () => rawQuery('www.compare.test', 'A', {}, setQtype(249))],
  ['QTYPE MAILA: NOTIMP', () => rawQuery('www.compare.test', 'A', {}, setQtype(254))],
  ['QTYPE MAILB: NOTIMP', () => rawQuery('www.compare.test', 'A', {}, setQtype(253))],
  ['AXFR over UDP: FORMERR', () => rawQuery('compare.test', 'AXFR')],
  ['AXFR over UDP with EDNS: FORMERR', () => rawQuery('compare.test', 'AXFR', { additionals: [OPT()] })],
  ['AXFR over UDP of a zone we do not serve: NOTAUTH', () => rawQuery('example.org', 'AXFR')],
  ['IXFR over UDP without an SOA: FORMERR', () => rawQuery('compare.test', 'IXFR')],
  [
    'IXFR over UDP: the SOA alone, not authoritative',
    () => rawQuery('compare.test', 'IXFR', { authorities: [SOA_RECORD] }),
  ],
  [
    'NOTIFY for a zone we are primary for',
    () => rawQuery('compare.test', 'SOA', { opcode: 4, flags: packet.AUTHORITATIVE_ANSWER }),
  ],
  [
    'NOTIFY with RD, CD and EDNS',
    () =>
      rawQuery('compare.test', 'SOA', { opcode: 4, flags: packet.AUTHORITATIVE_ANSWER | RD_CD, additionals: [OPT()] }),
  ],
  ['NOTIFY for a name inside a zone: NOTAUTH', () => rawQuery('www.compare.test', 'SOA', { opcode: 4 })],
  ['NOTIFY for a zone we do not serve: NOTAUTH', () => rawQuery('example.org', 'SOA', { opcode: 4 })],
  ['NOTIFY of another type than SOA: FORMERR', () => rawQuery('compare.test', 'A', { opcode: 4 })],
  [
    'client cookie: echoed with a server cookie',
    () => rawQuery('www.compare.test', 'A', { additionals: [COOKIE(CLIENT_COOKIE)] }),
  ],
  [
    'a server cookie not ours: answered, with a new one',
    () => rawQuery('www.compare.test', 'A', { additionals: [COOKIE(FORGED)] }),
  ],
  [
    'cookie of 4 bytes: FORMERR',
    () => rawQuery('www.compare.test', 'A', { additionals: [COOKIE(Buffer.alloc(4, 1))] }),
  ],
  [
    'cookie of 12 bytes: FORMERR',
    () => rawQuery('www.compare.test', 'A', { additionals: [COOKIE(Buffer.alloc(12, 1))] }),
  ],
  [
    'cookie of 41 bytes: FORMERR',
    () => rawQuery('www.compare.test', 'A', { additionals: [COOKIE(Buffer.alloc(41, 1))] }),
  ],
  [
    'cookie of 40 bytes: answered',
    () => rawQuery('www.compare.test', 'A', { additionals: [COOKIE(Buffer.alloc(40, 1))] }),
  ],
  [
    'two cookie options: the first counts',
    () =>
      rawQuery('www.compare.test', 'A', {
        additionals: [
          OPT([
            { code: 10, data: CLIENT_COOKIE },
            { code: 10, data: Buffer.alloc(8, 9) },
          ]),
        ],
      }),
  ],
  [
    'cookie and no question: the server cookie alone (RFC 7873 §5.4)',
    () => packet.encode({ type: 'query', id: 7, flags: 0, questions: [], additionals: [COOKIE(CLIENT_COOKIE)] }),
  ],
  ['cookie in a REFUSED answer', () => rawQuery('example.org', 'A', { additionals: [COOKIE(CLIENT_COOKIE)] })],
  [
    'cookie in a NOTIMP answer',
    () => rawQuery('www.compare.test', 'A', { opcode: 2, additionals: [COOKIE(CLIENT_COOKIE)] }),
  ],
  ['cookie in a NXDOMAIN answer', () => rawQuery('nope.compare.test', 'A', { additionals: [COOKIE(CLIENT_COOKIE)] })],
  [
    'no cookie in a BADVERS answer',
    () =>
      rawQuery('www.compare.test', 'A', {
        additionals: [{ ...COOKIE(CLIENT_COOKIE), ednsVersion: 1 } as packet.Answer],
      }),
  ],
];

test.each(RAW_CASES)('%s: same answer as BIND 9 (raw UDP)', async (_label, make) => {
  const [theirs, mine] = await Promise.all([udpExchange(named, make()), udpExchange(ours, make())]);
  expect(rawComparable(mine)).toEqual(rawComparable(theirs));
});

test('a server cookie we gave is accepted: the same answer, with a fresh server cookie (as BIND)', async () => {
  for (const server of [named, ours]) {
    const first = await udpExchange(
      server,
      rawQuery('www.compare.test', 'A', { additionals: [COOKIE(CLIENT_COOKIE)] }),
    );
    const given = first && cookieIn(first);
    expect(given).toHaveLength(24);
    expect(given?.subarray(0, 8)).toEqual(CLIENT_COOKIE);
    expect(given?.[8]).toBe(1); // RFC 9018 version 1, then 3 reserved bytes and the time
    expect(Math.abs((given as Buffer).readUInt32BE(12) - Date.now() / 1000)).toBeLessThan(60);
    await new Promise((r) => setTimeout(r, 1_100)); // a second on: a new cookie would carry a new time
    const again = await udpExchange(
      server,
      rawQuery('www.compare.test', 'A', { additionals: [COOKIE(given as Buffer)] }),
    );
    const renewed = again && cookieIn(again);
    expect(renewed?.subarray(0, 12)).toEqual(given?.subarray(0, 12));
    expect(renewed?.readUInt32BE(12)).toBeGreaterThan((given as Buffer).readUInt32BE(12));
    expect(rawComparable(again)).toEqual(rawComparable(first));
  }
});

test('server cookies depend on the client cookie, and a new server (a new secret) gives other ones', async () => {
  const ask = async (server: { host: string; port: number }, client: Buffer) =>
    cookieIn(
      (await udpExchange(server, rawQuery('www.compare.test', 'A', { additionals: [COOKIE(client)] }))) as Buffer,
    );
  const a = await ask(ours, CLIENT_COOKIE);
  const b = await ask(ours, Buffer.alloc(8, 7));
  expect(a?.subarray(16)).not.toEqual(b?.subarray(16));
  const other = await DnsEngine.start({ store, host: '127.0.0.1', port: 0 });
  try {
    const c = await ask({ host: '127.0.0.1', port: other.server?.port as number }, CLIENT_COOKIE);
    expect(c?.subarray(16)).not.toEqual(a?.subarray(16));
  } finally {
    await other.close();
  }
});

/** Names and types the exhaustive comparison combines: every case above and its neighbours. */
const NAMES = [
  'compare.test',
  'www.compare.test',
  'alias.compare.test',
  'chain1.compare.test',
  'dangling.compare.test',
  'nope.compare.test',
  'b.c.compare.test',
  'anything.wild.compare.test',
  'x.dname.compare.test',
  'dname.compare.test',
  'host.sub.compare.test',
  'sub.compare.test',
  '_sip._tcp.compare.test',
  'mail.compare.test',
  'answers.test',
  'www.answers.test',
  'alias.answers.test',
  'loop1.answers.test',
  'loop2.answers.test',
  'self.answers.test',
  'a.deep.answers.test',
  'deep.answers.test',
  'x.d.answers.test',
  'd.answers.test',
  'y.d.answers.test',
  `${LONG}.long.answers.test`,
  'a.long.answers.test',
  'child.answers.test',
  'www.child.answers.test',
  'ns.child.answers.test',
  '_sip._tcp.answers.test',
  'nowhere.answers.test',
  'mx-cname.answers.test',
  'mx-wild.answers.test',
  'mx-cut.answers.test',
  'naptr-s.answers.test',
  'naptr-a.answers.test',
  'naptr-u.answers.test',
  'a\\.b.answers.test',
  'x\\200y.wild.answers.test',
  'q\\.\\255.d.answers.test',
  'www.a\\.b.child.answers.test',
];
const TYPES = ['A', 'AAAA', 'MX', 'NS', 'SRV', 'TXT', 'CNAME', 'DNAME', 'DS', 'SOA', 'ANY', 'RRSIG', 'NSEC', 'NAPTR'];

test('every name of the zones asked for every type, with and without EDNS, gets the answer BIND gives', async () => {
  // all of them (once a sample of 150 drawn by fast-check): asked in one dig run per server, they cost less
  const asked = NAMES.filter((n) => !n.includes('\\')).flatMap((name) =>
    TYPES.flatMap((type) =>
      [true, false].map((edns) => {
        const args = [edns ? '+edns=0' : '+noedns', '+noidnin', name, type];
        if (edns && name.length % 3 === 0) args.unshift('+bufsize=512'); // BIND answers such clients minimally
        return { type, args };
      }),
    ),
  );
  const questions = asked.map(({ args }) => question(args));
  const [all, allMine] = await Promise.all([digMany(named, questions), digMany(ours, questions)]);
  asked.forEach(({ type, args }, i) => {
    const [theirs, mine] = [all[i] as DigAnswer, allMine[i] as DigAnswer];
    if (type !== 'ANY') {
      expect({ args, ...comparable(mine) }).toEqual({ args, ...comparable(theirs) });
      return;
    }
    // ANY: BIND gives every RRset at the name, we one of them (RFC 8482); the rest agrees
    const a = comparable(mine) as Record<string, string[]>;
    const b = comparable(theirs) as Record<string, string[]>;
    expect({ args, status: a.status, flags: a.flags }).toEqual({ args, status: b.status, flags: b.flags });
    expect(b.answer).toEqual(expect.arrayContaining(a.answer ?? []));
  });
}, 120_000);
