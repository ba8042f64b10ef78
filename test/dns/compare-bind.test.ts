// @needs bind
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DnsEngine } from '../../dns/engine';
import { openSqliteStore } from '../../dns/store';
import type { ZoneStore } from '../../dns/store/types';
import { importZoneFile } from '../../dns/zone-files';
import { dig, startNamed, type DigAnswer, type Named } from '../helpers/dns-peers';

/**
 * The same master file served by BIND 9 `named` and by our server; every answer case is asked of both with `dig`
 * (and a few with `kdig`) and the flags, rcode and sections must agree. BIND runs with `minimal-responses yes`,
 * as our server answers minimally.
 */
const ZONE_TEXT = readFileSync(join(__dirname, 'fixtures', 'compare.zone'), 'utf8');

let store: ZoneStore;
let engine: DnsEngine;
let named: Named;
let ours: { host: string; port: number };

beforeAll(async () => {
  named = await startNamed([{ name: 'compare.test', text: ZONE_TEXT }]);
  store = await openSqliteStore({ file: ':memory:' });
  await importZoneFile(store, 'compare.test', ZONE_TEXT);
  engine = await DnsEngine.start({ store, host: '127.0.0.1', port: 0 });
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
];

test.each(CASES)('%s: same answer as BIND 9', async (_label, args) => {
  const [theirs, mine] = await Promise.all([dig(named, args), dig(ours, args)]);
  expect(comparable(mine)).toEqual(comparable(theirs));
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
