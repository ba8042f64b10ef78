import { DnsClient } from '../../../dns/client';
import { DnsEngine } from '../../../dns/engine/engine';
import { openSqliteStore } from '../../../dns/store';
import type { ZoneStore } from '../../../dns/store/types';
import { parseKeyFile } from '../../../dns/tsig/keyfile';
import { importZoneFile } from '../../../dns/zonefile/zone-files';
import type { RoleSettings } from './access';
import { ToolService, type ToolCaller, type ToolZone } from './service';

/**
 * The tool's actions against the embedded DNS server over the wire (UPDATE, AXFR and queries with TSIG): what each
 * action sends, what the server then serves, and each refusal with the tool's own error.
 */
const SECRET = 'dG9vbC1zZXJ2aWNlLXRlc3Qta2V5LXNlY3JldC0xMjM0NTY=';
const [KEY] = parseKeyFile(`key "tool" { algorithm hmac-sha256; secret "${SECRET}"; };`);
const [WRONG] = parseKeyFile('key "tool" { algorithm hmac-sha256; secret "d3Jvbmctd3Jvbmctd3Jvbmctd3Jvbmc="; };');
if (!KEY || !WRONG) throw new Error('test keys did not parse');
const SOA = (zone: string) =>
  `$ORIGIN ${zone}.\n$TTL 300\n@ IN SOA ns1.example.test. hostmaster.example.test. 1 3600 600 86400 300\n@ IN NS ns1.example.test.\n`;

const ROLES: RoleSettings = {
  roles: {
    editors: { 'example.test': 'rw', '2.0.192.in-addr.arpa': 'rw', 'frozen.test': 'rw' },
    readers: { 'example.test': 'r' },
  },
  usersRoles: {},
  defaultRole: null,
};
const editor: ToolCaller = { user: 'alice', grant: { roles: ['editors'], explicit: true } };
const reader: ToolCaller = { user: 'bob', grant: { roles: ['readers'], explicit: true } };

let store: ZoneStore;
let engine: DnsEngine;
let service: ToolService;
let zones: ToolZone[];

beforeAll(async () => {
  store = await openSqliteStore({ file: ':memory:' });
  for (const zone of ['example.test', '2.0.192.in-addr.arpa', 'frozen.test'])
    await importZoneFile(store, zone, SOA(zone) + (zone === 'example.test' ? 'www IN A 192.0.2.1\n' : ''));
  engine = await DnsEngine.start({
    store,
    host: '127.0.0.1',
    port: 0,
    keys: [KEY],
    access: {
      updateKeys: { 'example.test': ['tool'], '2.0.192.in-addr.arpa': ['tool'] },
      transferKeys: { 'example.test': ['tool'] },
    },
  });
  const server = { host: '127.0.0.1', port: engine.server?.port as number };
  const text = `127.0.0.1 ${server.port}`;
  const zone = (name: string, extra: Partial<ToolZone> = {}): ToolZone => ({
    name,
    updateServer: server,
    updateServerText: text,
    transferServer: server,
    transferServerText: text,
    key: KEY,
    readOnly: false,
    ...extra,
  });
  zones = [
    zone('example.test', { note: 'the demo' }),
    zone('2.0.192.in-addr.arpa'),
    zone('frozen.test', { readOnly: true }),
  ];
  service = new ToolService(zones, ROLES, { timeoutMs: 2000 });
});
afterAll(async () => {
  await engine?.close();
  await store?.close();
});

const query = async (name: string, type: string) =>
  (await new DnsClient({ server: zones[0]!.updateServer, key: KEY }).query(name, type)).answers.map((r) => r.value);

test('the zones a caller may read, in configuration order; a zone it may not read is null', () => {
  expect(service.readableZones(reader).map((z) => z.name)).toEqual(['example.test']);
  expect(service.readableZones(editor).map((z) => z.name)).toEqual([
    'example.test',
    '2.0.192.in-addr.arpa',
    'frozen.test',
  ]);
  expect(service.zone(reader, 'EXAMPLE.test.')?.note).toBeDefined();
  expect(service.zone(reader, 'frozen.test')).toBeNull();
});

test('create with ptr: the record and its PTR are served; list_records has them between the SOAs', async () => {
  const result = await service.create(editor, {
    record: 'app',
    zone: 'example.test',
    type: 'A',
    ttl: '60',
    value: '192.0.2.20',
    ptr: true,
  });
  expect(result.warnings).toEqual([]);
  expect(await query('app.example.test', 'A')).toEqual(['192.0.2.20']);
  expect(await query('20.2.0.192.in-addr.arpa', 'PTR')).toEqual(['app.example.test.']);
  const rows = await service.listRecords(reader, 'example.test');
  expect(rows[0]?.[3]).toBe('SOA');
  expect(rows[rows.length - 1]?.[3]).toBe('SOA');
  expect(rows).toContainEqual(['app.example.test.', '60', 'IN', 'A', '192.0.2.20']);
});

test('replace and delete; get_record asks the DNS server', async () => {
  await service.replace(editor, {
    record: 'app.example.test',
    type: 'A',
    ttl: '120',
    value: '192.0.2.20',
    newValue: '192.0.2.21',
    ptr: true,
  });
  expect(await query('app.example.test', 'A')).toEqual(['192.0.2.21']);
  expect(await query('20.2.0.192.in-addr.arpa', 'PTR')).toEqual([]);
  expect(await query('21.2.0.192.in-addr.arpa', 'PTR')).toEqual(['app.example.test.']);
  expect(await service.getRecord(reader, { record: 'app.example.test' })).toEqual([
    ['app.example.test.', '120', 'IN', 'A', '192.0.2.21'],
  ]);
  await service.delete(editor, { record: 'app', zone: 'example.test', type: 'A', ptr: false });
  expect(await query('app.example.test', 'A')).toEqual([]);
  expect(await service.getRecord(reader, { record: 'app.example.test' })).toEqual([]);
});

test.each([
  [
    'a reader writes',
    () => service.create(reader, { record: 'x.example.test', type: 'A', ttl: '60', value: '192.0.2.9', ptr: false }),
    'Permission denied',
    'You are not authorized to edit example.test',
  ],
  [
    'a read-only zone',
    () => service.create(editor, { record: 'x.frozen.test', type: 'A', ttl: '60', value: '192.0.2.9', ptr: false }),
    'Unable to write: Read-only zone',
    'Domain frozen.test is not writeable',
  ],
  [
    'an unknown zone given',
    () =>
      service.create(editor, { record: 'x', zone: 'nope.test', type: 'A', ttl: '60', value: '192.0.2.9', ptr: false }),
    'No such zone',
    'No such zone: nope.test',
  ],
  [
    'no zone for the name',
    () => service.create(editor, { record: 'x.other.test', type: 'A', ttl: '60', value: '192.0.2.9', ptr: false }),
    'No such zone',
    'Zone for given fqdn was not found',
  ],
  [
    'list_records of a zone not configured',
    () => service.listRecords(editor, 'nope.test'),
    'No such zone',
    'This zone is not in configuration file',
  ],
  [
    'list_records of a zone the caller may not read (not [] as for an empty zone)',
    () => service.listRecords(reader, 'frozen.test'),
    'Permission denied',
    "You don't have access to read data from this zone",
  ],
  [
    'list_records without a zone',
    () => service.listRecords(editor, ''),
    'No zone',
    'You provided no zone name to list records for',
  ],
  [
    'get_record of SOA',
    () => service.getRecord(reader, { record: 'example.test', type: 'SOA' }),
    'Invalid type',
    'Type SOA is not a valid DNS record type',
  ],
  [
    'a TTL of 1e3',
    () => service.create(editor, { record: 'x.example.test', type: 'A', ttl: '1e3', value: '192.0.2.9', ptr: false }),
    'Invalid ttl',
    'TTL must be a number',
  ],
])("%s gives the tool's own error", async (_what, action, error, message) => {
  await expect(action()).rejects.toMatchObject({ error, message, code: -1 });
});

test('the DNS server refusing (wrong key) or unreachable is an ERROR: saying what happened; nothing changed', async () => {
  const wrongKey = new ToolService(
    zones.map((z) => ({ ...z, key: WRONG })),
    ROLES,
  );
  await expect(
    wrongKey.create(editor, { record: 'y.example.test', type: 'A', ttl: '60', value: '192.0.2.8', ptr: false }),
  ).rejects.toMatchObject({
    error: 'ERROR: update failed: NOTAUTH (BADSIG)',
    message: 'update failed: NOTAUTH (BADSIG)',
  });
  expect(await query('y.example.test', 'A')).toEqual([]);
  const unreachable = new ToolService(
    zones.map((z) => ({ ...z, transferServer: { host: '127.0.0.1', port: 1 } })),
    ROLES,
  );
  await expect(unreachable.listRecords(editor, 'example.test')).rejects.toMatchObject({
    error: expect.stringMatching(
      /^ERROR: Unable to retrieve SOA record for example\.test: .*127\.0\.0\.1#1.*ECONNREFUSED/,
    ),
  });
});

test('a PTR step refused after the main change says the main change was applied', async () => {
  const noReverseRight = new ToolService(
    zones.map((z) => (z.name === '2.0.192.in-addr.arpa' ? { ...z, key: WRONG } : z)),
    ROLES,
  );
  await expect(
    noReverseRight.create(editor, { record: 'z.example.test', type: 'A', ttl: '60', value: '192.0.2.30', ptr: true }),
  ).rejects.toMatchObject({
    message: expect.stringMatching(/record change was applied, but the PTR update failed: update failed: NOTAUTH/),
  });
  expect(await query('z.example.test', 'A')).toEqual(['192.0.2.30']);
});
