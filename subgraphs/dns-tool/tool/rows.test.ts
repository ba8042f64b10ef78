// @needs bind
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DnsClient } from '../../../dns/client';
import { digAxfrRows, nsec3SignedZone, nsec3TestBody } from '../../../test/support/bind-nsec3';
import { startNamed, type Named } from '../../../test/support/dns-peers';
import { toolRow } from './rows';

/**
 * `list_records` rows are what `dig` prints (docs/dns-tool.md): the same zone transferred by our client and by
 * BIND's dig from BIND's named, row for row. The zone holds every type we edit and show, TXT with non-ASCII bytes
 * and a type no codec of ours knows.
 */
const run = promisify(execFile);
const ZONE = 'compare.test';
const TEXT = `${readFileSync(join(__dirname, '../../../test/dns/fixtures/compare.zone'), 'utf8')}
utf8 IN TXT "caf\\195\\169 \\"quoted\\" back\\\\slash" "tab\\009"
spf IN SPF "v=spf1 -all"
ds IN DS 12345 8 2 49FD46E6C4B45C55D4AC69CBD3CD34AC1AFE51DE3B0D0F4DCBAB0C5AB2B0C1F7
generic IN TYPE65280 \\# 4 c0000201
generic2 IN TYPE65281 \\# 40 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
`;

/** NSEC3-signed zones (no salt; a salt) with CDS and CDNSKEY at the apex and an empty non-terminal (ent). */
const NSEC3_ZONES = ['n3.test', 'salted.test'];
let named: Named;
beforeAll(async () => {
  const signed = [
    await nsec3SignedZone('n3.test', nsec3TestBody('n3.test')),
    await nsec3SignedZone('salted.test', nsec3TestBody('salted.test'), 'ABCDEF01'),
  ];
  named = await startNamed([
    { name: ZONE, text: TEXT, options: 'type primary; allow-transfer { any; };' },
    ...NSEC3_ZONES.map((name, i) => ({
      name,
      text: signed[i] ?? '',
      options: 'type primary; allow-transfer { any; };',
    })),
  ]);
}, 60_000);
afterAll(async () => named?.stop());

test('rows of a transfer equal dig +noall +answer AXFR, field by field and in order', async () => {
  const { stdout } = await run('dig', ['-p', String(named.port), `@${named.host}`, ZONE, 'AXFR', '+noall', '+answer']);
  const theirs = stdout
    .split('\n')
    .filter((l) => l && !l.startsWith(';'))
    .map((l) => {
      const [name = '', ttl = '', klass = '', type = '', ...rdata] = l.split(/\s+/);
      return [name, ttl, klass, type, rdata.join(' ')];
    });
  const transfer = await new DnsClient({ server: named }).transfer(ZONE);
  const ours = [transfer.soa, ...transfer.records, transfer.soa].map(toolRow);
  expect(theirs.length).toBeGreaterThan(35);
  expect(ours).toEqual(theirs);
});

test.each(NSEC3_ZONES)(
  "an NSEC3-signed zone (%s): the RDATA of CDS, CDNSKEY, NSEC3 and NSEC3PARAM rows is dig's, byte for byte",
  async (zone) => {
    const theirs = await digAxfrRows(named, zone, true);
    const transfer = await new DnsClient({ server: named }).transfer(zone);
    const ours = [transfer.soa, ...transfer.records, transfer.soa].map(toolRow);
    const types = new Set(ours.map((r) => r[3]));
    for (const type of ['CDS', 'CDNSKEY', 'NSEC3', 'NSEC3PARAM', 'DNSKEY', 'RRSIG']) expect(types).toContain(type);
    // the empty non-terminal's NSEC3 has no type after the next hashed owner
    expect(ours.some((r) => r[3] === 'NSEC3' && r[4].split(' ').length === 5)).toBe(true);
    expect(ours).toEqual(theirs); // owners in lower case (the client's are), the rest as dig prints it
  },
);
