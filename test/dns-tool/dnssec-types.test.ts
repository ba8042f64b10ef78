// @needs bind
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { promisify } from 'node:util';
import { nsec3SignedZone } from '../support/bind-nsec3';
import { startNamed, type Named } from '../support/dns-peers';
import { api, loginToken, ROOT, startToolSystem, type ToolSystem } from './tool-system';

/**
 * The DNS tool lists an NSEC3-signed zone of BIND 9 (dnssec-signzone -3, with CDS and CDNSKEY at the apex) through
 * `/api.php` list_records and GraphQL toolRecords: the content of every record — CDS, CDNSKEY, NSEC3 and NSEC3PARAM
 * among them — is what `dig +noall +answer AXFR` prints for it, byte for byte. (Our own server cannot hold these
 * types: its store takes only the types the DNS API edits.)
 */
const run = promisify(execFile);
const ZONES = ['n3.test', 'salted.test'];
const body = (zone: string): string => `$ORIGIN ${zone}.
$TTL 300
@ IN SOA ns1 hostmaster 1 3600 600 86400 300
  IN NS ns1
ns1 IN A 192.0.2.1
www IN A 192.0.2.2
x.ent IN TXT "below an empty non-terminal"
`;

let named: Named;
let t: ToolSystem;
let session: string;

beforeAll(async () => {
  const signed = [
    await nsec3SignedZone('n3.test', body('n3.test')),
    await nsec3SignedZone('salted.test', body('salted.test'), 'ABCDEF01'),
  ];
  named = await startNamed(
    ZONES.map((name, i) => ({ name, text: signed[i] ?? '', options: 'type primary; allow-transfer { any; };' })),
  );
  const server = `127.0.0.1 ${named.port}`;
  t = await startToolSystem({
    dnsTool: {
      tokens: [ROOT],
      usersRoles: { [ROOT]: ['root'] },
      zones: Object.fromEntries(ZONES.map((z) => [z, { updateServer: server, transferServer: server }])),
    },
  });
  session = await loginToken(t.url, ROOT);
}, 60_000);
afterAll(async () => {
  await t?.close();
  await named?.stop();
  if (named) rmSync(named.dir, { recursive: true, force: true });
});

/** dig's AXFR of `zone`: [owner, ttl, class, type, content] a line, the content exactly as dig prints it. */
async function digTransfer(zone: string): Promise<string[][]> {
  const { stdout } = await run('dig', ['-p', String(named.port), `@${named.host}`, zone, 'AXFR', '+noall', '+answer']);
  return stdout
    .split('\n')
    .filter((l) => l && !l.startsWith(';'))
    .map((l) => {
      const m = /^(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(.*)$/.exec(l);
      if (!m) throw new Error(`not a record line: ${l}`);
      // owners in lower case, as the tool gives them (BIND keeps NSEC3's hashed labels in upper case)
      return [(m[1] ?? '').toLowerCase(), ...m.slice(2)];
    });
}

const SHOWN = ['CDS', 'CDNSKEY', 'NSEC3', 'NSEC3PARAM'];

describe.each(ZONES)('%s', (zone) => {
  test('/api.php list_records: every row as dig prints it, the four types among them', async () => {
    const reply = await api(t.url, { action: 'list_records', zone }, { bearer: session });
    expect(reply.status).toBe(200);
    const rows = reply.body as string[][];
    expect(SHOWN.filter((type) => !rows.some((r) => r[3] === type))).toEqual([]);
    expect(rows).toEqual(await digTransfer(zone));
  });

  test('GraphQL toolRecords: the same content', async () => {
    const res = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${session}` },
      body: JSON.stringify({
        query: 'query ($zone: String) { toolRecords(zone: $zone) { name ttl class type value } }',
        variables: { zone },
      }),
    });
    const reply = (await res.json()) as {
      data?: { toolRecords: Array<{ name: string; ttl: number; class: string; type: string; value: string }> };
      errors?: unknown;
    };
    expect(reply.errors).toBeUndefined();
    const records = reply.data?.toolRecords ?? [];
    expect(SHOWN.filter((type) => !records.some((r) => r.type === type))).toEqual([]);
    expect(records.map((r) => [r.name, String(r.ttl), r.class, r.type, r.value])).toEqual(await digTransfer(zone));
  });
});
