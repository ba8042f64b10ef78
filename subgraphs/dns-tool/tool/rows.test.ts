// @needs bind
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DnsClient } from '../../../dns/client';
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

let named: Named;
beforeAll(async () => {
  named = await startNamed([{ name: ZONE, text: TEXT, options: 'type primary; allow-transfer { any; };' }]);
}, 30_000);
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
