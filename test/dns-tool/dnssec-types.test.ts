// @needs bind
import { rmSync } from 'node:fs';
import { digAxfrRows, nsec3SignedZone, nsec3TestBody } from '../support/bind-nsec3';
import { startNamed, type Named } from '../support/dns-peers';
import { api, loginToken, ROOT, startToolSystem, type ToolSystem } from './tool-system';

/**
 * The DNS tool lists an NSEC3-signed zone of BIND 9 (dnssec-signzone -3, with CDS and CDNSKEY at the apex) through
 * `/api.php` list_records and GraphQL toolRecords: the content of every record — CDS, CDNSKEY, NSEC3 and NSEC3PARAM
 * among them — is what `dig +noall +answer AXFR` prints for it, byte for byte. (Our own server cannot hold these
 * types: its store takes only the types the DNS API edits.)
 */
const ZONES = ['n3.test', 'salted.test'];
let named: Named;
let t: ToolSystem;
let session: string;

beforeAll(async () => {
  const signed = [
    await nsec3SignedZone('n3.test', nsec3TestBody('n3.test')),
    await nsec3SignedZone('salted.test', nsec3TestBody('salted.test'), 'ABCDEF01'),
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

const SHOWN = ['CDS', 'CDNSKEY', 'NSEC3', 'NSEC3PARAM'];

describe.each(ZONES)('%s', (zone) => {
  test('/api.php list_records: every row as dig prints it, the four types among them', async () => {
    const reply = await api(t.url, { action: 'list_records', zone }, { bearer: session });
    expect(reply.status).toBe(200);
    const rows = reply.body as string[][];
    expect(SHOWN.filter((type) => !rows.some((r) => r[3] === type))).toEqual([]);
    expect(rows).toEqual(await digAxfrRows(named, zone, true));
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
    expect(records.map((r) => [r.name, String(r.ttl), r.class, r.type, r.value])).toEqual(
      await digAxfrRows(named, zone, true),
    );
  });
});
