// @needs bind
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { promisify } from 'node:util';
import { DnsClient } from '../../dns/client';
import { algorithmByName } from '../../dns/dnssec/algorithms';
import { KeyVault } from '../../dns/dnssec/key-vault';
import { KSK_FLAGS, ZSK_FLAGS } from '../../dns/dnssec/keys';
import { newStoredKey } from '../../dns/dnssec/zone-signing';
import { DnsEngine } from '../../dns/engine/engine';
import { sendNotify } from '../../dns/server/operations/notify';
import { openSqliteStore } from '../../dns/store';
import type { DnssecKey, ZoneStore } from '../../dns/store/types';
import { importZoneFile } from '../../dns/zonefile/zone-files';
import { parseKeyFile } from '../../dns/tsig/keyfile';
import { dig, requireTool, startNamed } from '../support/dns-peers';
import {
  axfrText,
  delvQuery,
  dsOfKeys,
  startValidatingResolver,
  verifyZoneWithPeers,
  type PeerVerdict,
} from '../support/dnssec-peers';

/**
 * Zones our DNS server signs, judged by peers nobody here wrote: the AXFR of each (one per algorithm) passes
 * dnssec-verify, ldns-verify-zone and kzonecheck; delv, trusting the zone's DS, fully validates existing names,
 * a wildcard, a CNAME, NXDOMAIN, NODATA and an unsigned delegation, and fails on a changed signature; BIND as a
 * validating resolver sets AD. A dynamic update re-signs what it changed, and the zone still verifies.
 */
const run = promisify(execFile);
const HOST = '127.0.0.1';
const ZONE_TEXT = (zone: string) => `$TTL 600
@       IN SOA   ns1.${zone}. hostmaster.${zone}. ( 1 3600 600 86400 60 )
        IN NS    ns1.${zone}.
        IN A     192.0.2.1
        IN MX    10 mail.${zone}.
ns1     IN A     192.0.2.2
www     IN A     192.0.2.3
Mail    IN A     192.0.2.4
alias   IN CNAME www.${zone}.
*.wild  IN A     192.0.2.5
*.wild  IN TXT   "wildcard"
deep.ent IN TXT  "below an empty non-terminal"
sub     IN NS    ns.sub.${zone}.
ns.sub  IN A     192.0.2.6
signed  IN NS    ns.signed.${zone}.
signed  IN DS    12345 13 2 0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF
ns.signed IN A   192.0.2.7
moved   IN DNAME target.${zone}.
host.target IN A 192.0.2.8
`;

const ZONES: Array<[string, string, number | undefined]> = [
  ['p256.test', 'ECDSAP256SHA256', undefined],
  ['rsa.test', 'RSASHA256', 1024],
  ['p384.test', 'ECDSAP384SHA384', undefined],
  ['ed.test', 'ED25519', undefined],
];
const NOW = Math.floor(Date.now() / 1000);
const SECRET = 'c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MTI=';
const KEYS = parseKeyFile(`key "update-key" { algorithm hmac-sha256; secret "${SECRET}"; };`);

let store: ZoneStore;
let engine: DnsEngine;
let server: { host: string; port: number };
const vault = KeyVault.of(randomBytes(32));
const keysOf = new Map<string, DnssecKey[]>();

/** The zone's DS (SHA-256) as delv's trust anchor wants it: "tag alg 2 HEX". */
const dsOf = (zone: string): string[] => dsOfKeys(zone, keysOf.get(zone) ?? []);

const axfr = (zone: string): Promise<string> => axfrText(server, zone);

const failures = (verdicts: PeerVerdict[]) => verdicts.filter((v) => !v.ok).map((v) => `${v.tool}: ${v.output}`);

beforeAll(async () => {
  store = await openSqliteStore({ file: ':memory:' });
  for (const [zone, algorithmName, bits] of ZONES) {
    await importZoneFile(store, zone, ZONE_TEXT(zone));
    const algorithm = algorithmByName(algorithmName);
    if (!algorithm) throw new Error(algorithmName);
    const times = { publishAt: NOW - 60, activateAt: NOW - 60, lifetime: 86_400 };
    const keys = [KSK_FLAGS, ZSK_FLAGS].map((flags) => newStoredKey(zone, algorithm, flags, vault, times, bits));
    await store.changeDnssecKeys(zone, { add: keys });
    keysOf.set(zone, keys);
  }
  engine = await DnsEngine.start({ store, host: HOST, port: 0, keys: KEYS, dnssec: { vault } });
  server = { host: HOST, port: engine.server?.port ?? 0 };
}, 60_000);

afterAll(async () => {
  await engine?.close();
  await store?.close();
});

describe.each(ZONES)('%s (%s)', (zone) => {
  test('its AXFR passes dnssec-verify, ldns-verify-zone and kzonecheck', async () => {
    const dump = await axfr(zone);
    expect(dump).toMatch(/\sRRSIG\s/);
    expect(dump).toMatch(/\sNSEC\s/);
    expect(dump).toMatch(/\sDNSKEY\s/);
    expect(failures(await verifyZoneWithPeers(zone, dump))).toEqual([]);
  }, 30_000);
});

describe('delv, trusting the DS of p256.test', () => {
  const zone = 'p256.test';
  test.each([
    ['www.p256.test', 'A'],
    ['mail.p256.test', 'A'],
    ['p256.test', 'MX'],
    ['alias.p256.test', 'A'],
    ['x.y.wild.p256.test', 'A'],
    ['x.wild.p256.test', 'TXT'],
    ['nothing.p256.test', 'A'],
    ['www.p256.test', 'MX'],
    ['ent.p256.test', 'A'],
    ['x.wild.p256.test', 'MX'],
    ['sub.p256.test', 'DS'],
    ['signed.p256.test', 'DS'],
    ['p256.test', 'DNSKEY'],
    ['host.moved.p256.test', 'A'],
    ['none.moved.p256.test', 'A'],
  ])(
    '%s %s is fully validated',
    async (name, type) => {
      const r = await delvQuery({ server, zone, ds: dsOf(zone), name, type });
      expect({ validated: r.validated, failed: r.failed, output: r.validated ? '' : r.output }).toEqual({
        validated: true,
        failed: false,
        output: '',
      });
    },
    20_000,
  );

  test('a changed signature: resolution fails for that RRset only', async () => {
    // ed.test's www A has not been answered yet: no wire form of its RRSIG is cached
    const node = engine.index.get('ed.test')?.nodes.get('www.ed.test');
    const rrsig = node?.get('RRSIG')?.find((r) => (r.data as unknown as { typeCovered: string }).typeCovered === 'A');
    const signature = (rrsig?.data as unknown as { signature: Buffer } | undefined)?.signature;
    if (!signature) throw new Error('no RRSIG over www.ed.test A');
    signature[5] = (signature[5] ?? 0) ^ 0xff;
    // the answer thread holds a copy of its own: ship it one with the changed signature
    const data = engine.index.get('ed.test');
    if (!data || !node) throw new Error('ed.test is not served');
    const copy = data.patched(data.soa, new Map([['www.ed.test', [...node.values()].flat()]]));
    copy.signing = data.signing;
    engine.index.set(copy);
    await engine.thread?.current('ed.test');
    const bad = await delvQuery({ server, zone: 'ed.test', ds: dsOf('ed.test'), name: 'www.ed.test', type: 'A' });
    expect({ validated: bad.validated, failed: bad.failed }).toEqual({ validated: false, failed: true });
    expect(bad.output).toMatch(/RRSIG failed to verify|no valid signature/);
    const good = await delvQuery({ server, zone: 'ed.test', ds: dsOf('ed.test'), name: 'mail.ed.test', type: 'A' });
    expect(good.validated).toBe(true);
  }, 20_000);

  test('a wrong DS: resolution fails', async () => {
    const wrong = dsOf(zone).map((d) => d.replace(/[0-9A-F]$/, (c) => (c === '0' ? '1' : '0')));
    const r = await delvQuery({ server, zone, ds: wrong, name: 'www.p256.test', type: 'A' });
    expect(r.validated).toBe(false);
    expect(r.failed).toBe(true);
  }, 20_000);
});

describe('BIND 9 as a validating resolver trusting our DS', () => {
  test('sets AD for an existing name, NXDOMAIN and a wildcard', async () => {
    const resolver = await startValidatingResolver({ zone: 'p256.test', primary: server, ds: dsOf('p256.test') });
    try {
      const ask = (name: string, type: string) =>
        dig({ host: HOST, port: resolver.port }, ['+rec', '+dnssec', name, type]);
      for (const [name, type, status] of [
        ['www.p256.test', 'A', 'NOERROR'],
        ['nothing.p256.test', 'A', 'NXDOMAIN'],
        ['a.wild.p256.test', 'A', 'NOERROR'],
        ['alias.p256.test', 'A', 'NOERROR'],
      ] as const) {
        const answer = await ask(name, type);
        expect({ name, status: answer.status, ad: answer.flags.includes('ad') }).toEqual({ name, status, ad: true });
      }
    } finally {
      await resolver.stop();
    }
  }, 30_000);
});

describe('answers carry DNSSEC records with the DO bit only', () => {
  test.each([
    ['www.p256.test', 'A', /RRSIG/],
    ['nothing.p256.test', 'A', /NSEC/],
  ])('%s %s', async (name, type, dnssecRecord) => {
    const plain = await dig(server, [name, type]);
    expect([...plain.answer, ...plain.authority].join('\n')).not.toMatch(/RRSIG|NSEC/);
    const signed = await dig(server, ['+dnssec', name, type]);
    expect([...signed.answer, ...signed.authority].join('\n')).toMatch(dnssecRecord);
    expect(signed.flags).not.toContain('ad'); // an authoritative server never sets AD
  });
});

describe('DNS UPDATE (nsupdate) to a signed zone', () => {
  test('re-signs what changed: the new name validates, a removed one is proven gone, the zone verifies', async () => {
    requireTool('nsupdate');
    const input = [
      `server ${HOST} ${server.port}`,
      'zone p256.test',
      'update add new.p256.test 300 A 192.0.2.77',
      'update delete www.p256.test A',
      'send',
      '',
    ].join('\n');
    const child = run('nsupdate', ['-y', `hmac-sha256:update-key:${SECRET}`, '-t', '20'], { timeout: 45_000 });
    child.child.stdin?.end(input);
    await child;
    const zone = 'p256.test';
    for (const [name, type] of [
      ['new.p256.test', 'A'],
      ['www.p256.test', 'A'],
      ['p256.test', 'SOA'],
      ['nothing.p256.test', 'A'],
    ] as const) {
      const r = await delvQuery({ server, zone, ds: dsOf(zone), name, type });
      expect({ name, type, validated: r.validated, output: r.validated ? '' : r.output }).toEqual({
        name,
        type,
        validated: true,
        output: '',
      });
    }
    expect((await dig(server, ['www.p256.test', 'A'])).status).toBe('NXDOMAIN'); // its only record went: the name too
    expect(failures(await verifyZoneWithPeers(zone, await axfr(zone)))).toEqual([]);
  }, 60_000);
});

describe('a BIND 9 secondary of a signed zone', () => {
  test('transfers it, serves it so that delv validates, and follows a change after NOTIFY', async () => {
    const zone = 'p256.test';
    const secondary = await startNamed(
      [{ name: zone, text: '', options: `type secondary; primaries { ${HOST} port ${server.port}; };` }],
      '',
      'minimal-responses no-auth; allow-transfer { any; };',
    );
    try {
      const soa = async () => (await dig(secondary, [zone, 'SOA']).catch(() => undefined))?.status;
      for (let i = 0; i < 50 && (await soa()) !== 'NOERROR'; i++) await new Promise((r) => setTimeout(r, 200));
      const validated = async (name: string, type: string) => {
        const r = await delvQuery({ server: secondary, zone, ds: dsOf(zone), name, type });
        return { name, type, validated: r.validated, output: r.validated ? '' : r.output };
      };
      for (const [name, type] of [
        ['mail.p256.test', 'A'],
        ['nothing.p256.test', 'A'],
        ['x.wild.p256.test', 'TXT'],
      ] as const)
        expect(await validated(name, type)).toEqual({ name, type, validated: true, output: '' });
      const { stdout } = await run('dig', [`@${HOST}`, '-p', String(secondary.port), zone, 'AXFR'], {
        timeout: 20_000,
      });
      expect(failures(await verifyZoneWithPeers(zone, stdout))).toEqual([]);

      const outcome = await store.change(zone, [
        { op: 'add', record: { name: 'late.p256.test', type: 'A', ttl: 300, value: '192.0.2.88' } },
      ]);
      await engine.served(zone, outcome.zone.serial);
      expect(await sendNotify(zone, secondary)).toBe(true);
      const late = async () => (await dig(secondary, ['late.p256.test', 'A'])).status;
      for (let i = 0; i < 50 && (await late()) !== 'NOERROR'; i++) await new Promise((r) => setTimeout(r, 200));
      expect(await validated('late.p256.test', 'A')).toEqual({
        name: 'late.p256.test',
        type: 'A',
        validated: true,
        output: '',
      });
    } finally {
      await secondary.stop();
      rmSync(secondary.dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('our DNS client (the DNS record tool reads zones with it)', () => {
  test('shows DNSKEY, RRSIG and NSEC records of a transfer as dig does, not in generic form', async () => {
    const zone = 'rsa.test';
    const transfer = await new DnsClient({ server, timeoutMs: 10_000 }).transfer(zone);
    const ours = transfer.records
      .filter((r) => ['DNSKEY', 'RRSIG', 'NSEC'].includes(r.type))
      .map((r) => `${r.name}. ${r.ttl} IN ${r.type} ${r.value}`);
    expect(ours.length).toBeGreaterThan(20);
    const theirs = new Set(
      (await axfr(zone))
        .split('\n')
        .filter((l) => l && !l.startsWith(';'))
        // the client gives owner names in lower case (dig: as the zone wrote them, `Mail`)
        .map((l) =>
          l
            .replace(/\s+/g, ' ')
            .trim()
            .replace(/^\S+/, (owner) => owner.toLowerCase()),
        ),
    );
    expect(ours.filter((line) => !theirs.has(line))).toEqual([]);
  }, 20_000);
});
