// @needs bind
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DnsClient } from '../../dns/client';
import { parseKeyFile } from '../../dns/tsig/keyfile';
import { freePort } from '../bench/processes';
import { dig } from '../support/dns-peers';
import { getJson, startSystem, type RunningSystem } from '../support/system';

/** The DNS engine inside the whole system: --zone files, the demo zone, TSIG key file, /healthz, restart. */
const dir = mkdtempSync(join(tmpdir(), 'system-dns-'));
const zoneFile = join(dir, 'compare.zone');
writeFileSync(zoneFile, readFileSync(join(__dirname, 'fixtures', 'compare.zone'), 'utf8'));
const keyFile = join(dir, 'keys.conf');
writeFileSync(keyFile, 'key "ops" { algorithm hmac-sha256; secret "c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0"; };\n');

let sys: RunningSystem;
let dnsPort: number;
const dataDir = join(dir, 'data');

beforeAll(async () => {
  dnsPort = await freePort();
  sys = await startSystem({ DATA_DIR: dataDir, DNS_PORT: String(dnsPort), TSIG_KEYFILE: keyFile }, {});
});
afterAll(() => sys?.close());

test('first start seeds the demo zone; /healthz shows the DNS part', async () => {
  const www = await dig({ host: '127.0.0.1', port: dnsPort }, ['www.example.test', 'A']);
  expect(www.status).toBe('NOERROR');
  expect(www.answer).toEqual(['www.example.test. 3600 IN A 192.0.2.10']);
  const health = await getJson(`${sys.url}/healthz`);
  expect(health.body).toMatchObject({
    status: 'ok',
    // response rate limiting is on by default
    dns: { status: 'ok', store: 'sqlite', zones: 1, listening: `127.0.0.1:${dnsPort}`, rrl: 'on' },
  });
});

test('the TSIG key file is loaded: a query signed with its key is answered signed; an unknown key is BADKEY', async () => {
  const [ops] = parseKeyFile(readFileSync(keyFile, 'utf8'));
  const [stranger] = parseKeyFile(
    'key "stranger" { algorithm hmac-sha256; secret "c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0"; };',
  );
  if (!ops || !stranger) throw new Error('test keys did not parse');
  const server = { host: '127.0.0.1', port: dnsPort };
  const signed = await new DnsClient({ server, key: ops }).query('www.example.test', 'A');
  expect(signed.answers.map((r) => r.value)).toEqual(['192.0.2.10']);
  await expect(new DnsClient({ server, key: stranger }).query('www.example.test', 'A')).rejects.toMatchObject({
    rcode: 'NOTAUTH',
    tsigError: 'BADKEY',
  });
});

test('a restart keeps the store; a zone file (--zone / zoneFiles) is loaded when the store lacks the zone, kept otherwise', async () => {
  const ask = (name: string) => dig({ host: '127.0.0.1', port: dnsPort }, [name, 'A']);
  await sys.close();
  const config = join(dir, 'config.yaml');
  writeFileSync(config, `zoneFiles:\n  compare.test: ${zoneFile}\n`);
  sys = await startSystem({ DATA_DIR: dataDir, DNS_PORT: String(dnsPort), CONFIG: config }, {});
  expect((await ask('www.example.test')).answer).toHaveLength(1); // the demo zone survived the restart
  expect((await ask('www.compare.test')).answer).toEqual([
    'www.compare.test. 3600 IN A 192.0.2.1',
    'www.compare.test. 3600 IN A 192.0.2.2',
  ]);
  // change the file: the store's copy stays the source of truth
  writeFileSync(zoneFile, readFileSync(zoneFile, 'utf8').replace('192.0.2.1\n', '192.0.2.111\n'));
  await sys.close();
  sys = await startSystem({ DATA_DIR: dataDir, DNS_PORT: String(dnsPort), CONFIG: config }, {});
  expect((await ask('www.compare.test')).answer).toContain('www.compare.test. 3600 IN A 192.0.2.1');
  expect((await getJson(`${sys.url}/healthz`)).body).toMatchObject({ dns: { zones: 2 } });
});

test('a zone file with an error stops start-up with the line and the reason', async () => {
  const bad = join(dir, 'bad.zone');
  writeFileSync(bad, '$ORIGIN bad.test.\n$TTL 60\n@ IN SOA ns1 hostmaster 1 2 3 4 5\nwww IN A 300.1.2.3\n');
  const config = join(dir, 'bad.yaml');
  writeFileSync(config, `zoneFiles:\n  bad.test: ${bad}\n`);
  await expect(startSystem({ DATA_DIR: join(dir, 'data-bad'), CONFIG: config }, {})).rejects.toThrow(/line 4: .*A/);
});
