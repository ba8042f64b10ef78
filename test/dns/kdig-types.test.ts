// @needs bind
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { DnsEngine } from '../../dns/engine/engine';
import { RECORD_TYPES } from '../../dns/model/model';
import { openSqliteStore } from '../../dns/store';
import type { ZoneStore } from '../../dns/store/types';
import { importZoneFile } from '../../dns/zonefile/zone-files';
import { dig, requireTool, startNamed, type DigAnswer, type Named } from '../support/dns-peers';

/**
 * Every record type we support, in one master file served by BIND 9 `named` and by us, asked for with Knot's `kdig`
 * (JSON output, RFC 8427: the RDATA compared as hex, i.e. on the wire, and as kdig prints it) and with BIND's `dig`.
 * The SOA serial in BIND's copy of the file is set to the one our store gave the zone, so even the SOA is equal.
 */
const run = promisify(execFile);
const HEX64 = '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef';
const zoneText = (serial: number | string) => `$ORIGIN types.test.
$TTL 3600
@            IN SOA   ns1.types.test. hostmaster.types.test. ${serial} 7200 900 1209600 300
@            IN NS    ns1.types.test.
@            IN NS    ns2.example.net.
ns1          IN A     192.0.2.1
a            IN A     192.0.2.10
a            IN A     198.51.100.255
aaaa         IN AAAA  2001:db8::1
aaaa         IN AAAA  2001:db8:0:0:1:0:0:1
aaaa         IN AAAA  ::ffff:192.0.2.1
cname        IN CNAME a.types.test.
dname        IN DNAME target.example.net.
mx           IN MX    10 mail.types.test.
mx           IN MX    20 mail.example.net.
nullmx       IN MX    0 .
sub          IN NS    ns.sub.types.test.
ns.sub       IN A     192.0.2.53
sub          IN DS    12345 13 2 ${HEX64.toUpperCase()}
sub          IN DS    54321 8 1 0123456789ABCDEF0123456789ABCDEF01234567
sub          IN DS    7 14 4 ${HEX64}0123456789abcdef0123456789abcdef
ptr          IN PTR   host.example.net.
_sip._udp    IN SRV   0 5 5060 sip.types.test.
_sip._udp    IN SRV   10 0 5061 sip2.types.test.
_none._tcp   IN SRV   0 0 0 .
txt          IN TXT   "hello world" "second string"
txt          IN TXT   "quote \\" and backslash \\\\ and byte \\255"
txt          IN TXT   ""
spf          IN SPF   "v=spf1 ip4:192.0.2.0/24 -all"
caa          IN CAA   0 issue "letsencrypt.org"
caa          IN CAA   0 issuewild ";"
caa          IN CAA   128 iodef "mailto:security@types.test"
sshfp        IN SSHFP 1 1 0123456789abcdef0123456789abcdef01234567
sshfp        IN SSHFP 4 2 ${HEX64}
_443._tcp    IN TLSA  3 1 1 ${HEX64}
_443._tcp    IN TLSA  2 0 0 ${HEX64}${HEX64}
naptr        IN NAPTR 100 10 "U" "E2U+sip" "!^.*$!sip:info@types.test!" .
naptr        IN NAPTR 102 10 "S" "SIP+D2U" "" _sip._udp.types.test.
`;

/** One query per supported type; DS is asked at the delegation, where the parent zone answers it. */
const QUERIES: Record<(typeof RECORD_TYPES)[number], string> = {
  A: 'a.types.test',
  AAAA: 'aaaa.types.test',
  CNAME: 'cname.types.test',
  DNAME: 'dname.types.test',
  MX: 'mx.types.test',
  NS: 'types.test',
  PTR: 'ptr.types.test',
  SRV: '_sip._udp.types.test',
  TXT: 'txt.types.test',
  SPF: 'spf.types.test',
  CAA: 'caa.types.test',
  SSHFP: 'sshfp.types.test',
  TLSA: '_443._tcp.types.test',
  DS: 'sub.types.test',
  NAPTR: 'naptr.types.test',
  SOA: 'types.test',
};
/** More answers that use a type in a less common way. */
const EXTRA: Array<[string, string]> = [
  ['nullmx.types.test', 'MX'],
  ['_none._tcp.types.test', 'SRV'],
  ['cname.types.test', 'A'],
  ['x.dname.types.test', 'A'],
  ['a.types.test', 'TYPE65280'],
  ['a.types.test', 'HINFO'],
  ['x.sub.types.test', 'A'],
];

let store: ZoneStore;
let engine: DnsEngine;
let named: Named;
let ours: { host: string; port: number };

beforeAll(async () => {
  requireTool('kdig');
  requireTool('dig');
  store = await openSqliteStore({ file: ':memory:' });
  const zone = await importZoneFile(store, 'types.test', zoneText('0'));
  named = await startNamed([
    { name: 'types.test', text: zoneText(zone.serial), options: 'type primary; allow-transfer { 127.0.0.1; };' },
  ]);
  engine = await DnsEngine.start({ store, host: '127.0.0.1', port: 0 });
  ours = { host: '127.0.0.1', port: engine.server?.port as number };
}, 30_000);
afterAll(async () => {
  await engine?.close();
  await store?.close();
  await named?.stop();
});

interface KdigRR {
  NAME: string;
  TYPEname: string;
  CLASSname: string;
  TTL: number;
  RDATAHEX?: string;
  [k: string]: unknown;
}
interface KdigJson {
  RCODE: number;
  AA: number;
  TC: number;
  QR: number;
  Opcode: number;
  answerRRs?: KdigRR[];
  authorityRRs?: KdigRR[];
  additionalRRs?: KdigRR[];
}

/** `kdig +json` (RFC 8427) against one server: every message received (a transfer has several). */
async function kdigMessages(server: { host: string; port: number }, args: string[]): Promise<KdigJson[]> {
  const { stdout } = await run(
    'kdig',
    ['+json', '+norec', '+time=5', '+retry=1', `@${server.host}`, '-p', String(server.port), ...args],
    { timeout: 30_000 },
  );
  const parsed = JSON.parse(stdout) as KdigJson | KdigJson[];
  return Array.isArray(parsed) ? parsed : [parsed];
}

async function kdig(server: { host: string; port: number }, args: string[]): Promise<KdigJson> {
  const messages = await kdigMessages(server, args);
  const [message, ...more] = messages;
  if (message === undefined || more.length > 0) throw new Error(`kdig printed ${messages.length} messages, not 1`);
  return message;
}

/** kdig's records as lines: owner, TTL, class, type, kdig's presentation of the RDATA and the RDATA in hex. */
function kdigLines(rrs: KdigRR[] | undefined): string[] {
  return (rrs ?? [])
    .map((rr) => {
      if (typeof rr.RDATAHEX !== 'string') throw new Error(`kdig gave no RDATAHEX for ${JSON.stringify(rr)}`);
      const text = Object.entries(rr)
        .filter(([k]) => k.startsWith('rdata'))
        .map(([, v]) => String(v))
        .join(' ');
      return `${rr.NAME.toLowerCase()} ${rr.TTL} ${rr.CLASSname} ${rr.TYPEname} ${text} ${rr.RDATAHEX}`;
    })
    .sort();
}

function kdigComparable(k: KdigJson): object {
  return {
    header: { QR: k.QR, Opcode: k.Opcode, RCODE: k.RCODE, AA: k.AA, TC: k.TC },
    answer: kdigLines(k.answerRRs),
    authority: kdigLines(k.authorityRRs),
    additional: kdigLines(k.additionalRRs),
  };
}

function digComparable(a: DigAnswer): object {
  const norm = (lines: string[]) => lines.map((l) => l.toLowerCase()).sort();
  return {
    status: a.status,
    flags: [...a.flags].sort(),
    answer: norm(a.answer),
    authority: norm(a.authority),
    additional: norm(a.additional),
  };
}

test('the list covers every supported record type', () => {
  expect(Object.keys(QUERIES).sort()).toEqual([...RECORD_TYPES].sort());
});

describe.each(Object.entries(QUERIES))('%s', (type, name) => {
  test(`kdig ${name} ${type}: same answer (wire RDATA too) from us as from BIND`, async () => {
    const [theirs, mine] = await Promise.all([kdig(named, [name, type]), kdig(ours, [name, type])]);
    expect(theirs.RCODE).toBe(0);
    expect(theirs.answerRRs?.length ?? 0).toBeGreaterThan(0);
    expect(kdigComparable(mine)).toEqual(kdigComparable(theirs));
  });

  test(`dig ${name} ${type}: same answer from us as from BIND, over UDP and TCP`, async () => {
    for (const args of [
      [name, type],
      ['+tcp', name, type],
    ]) {
      const [theirs, mine] = await Promise.all([dig(named, args), dig(ours, args)]);
      expect(theirs.answer.length).toBeGreaterThan(0);
      expect(digComparable(mine)).toEqual(digComparable(theirs));
    }
  });
});

test.each(EXTRA)('%s %s: same answer from us as from BIND (kdig and dig)', async (name, type) => {
  const [kTheirs, kMine, dTheirs, dMine] = await Promise.all([
    kdig(named, [name, type]),
    kdig(ours, [name, type]),
    dig(named, [name, type]),
    dig(ours, [name, type]),
  ]);
  expect(kdigComparable(kMine)).toEqual(kdigComparable(kTheirs));
  expect(digComparable(dMine)).toEqual(digComparable(dTheirs));
});

test('kdig AXFR: every record of every type has the same RDATA on the wire as BIND transfers it', async () => {
  const [theirs, mine] = await Promise.all([
    kdigMessages(named, ['types.test', 'AXFR']),
    kdigMessages(ours, ['types.test', 'AXFR']),
  ]);
  for (const m of mine) expect({ QR: m.QR, RCODE: m.RCODE, AA: m.AA }).toEqual({ QR: 1, RCODE: 0, AA: 1 });
  const lines = (messages: KdigJson[]) => kdigLines(messages.flatMap((m) => m.answerRRs ?? []));
  expect(lines(mine).length).toBe((await store.listRecords('types.test')).length + 2);
  expect(new Set(lines(mine).map((l) => l.split(' ')[3]))).toEqual(new Set(RECORD_TYPES));
  expect(lines(mine)).toEqual(lines(theirs));
});
