// @needs bind
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { promisify } from 'node:util';
import { dig, requireTool, startNamed, type Named } from '../support/dns-peers';
import {
  delvQuery,
  dsFromDnskey,
  ldnsKey2Ds,
  signZoneWithBind,
  startValidatingResolver,
  tamperRrsig,
  verifyZoneWithPeers,
  zoneFileFromAxfr,
  type BindSignedZone,
  type PeerVerdict,
} from '../support/dnssec-peers';

/**
 * The DNSSEC peer harness (test/support/dnssec-peers.ts) checked against a zone signed by BIND's own tools, so it is
 * known to accept a good zone and to reject a bad one before it judges ours: the three zone verifiers, delv with the
 * zone's DS as its trust anchor, BIND as a validating resolver, and the DS computed by BIND and by ldns. The bad zone
 * is the same signed zone with the signature bytes of one RRSIG (www A) changed. Everything runs on 127.0.0.1.
 */
const run = promisify(execFile);
const ZONE = 'example.test';
const ZONE_TEXT = `$TTL 600
@       IN SOA   ns1.example.test. hostmaster.example.test. ( 1 3600 600 86400 60 )
        IN NS    ns1.example.test.
        IN A     192.0.2.1
        IN MX    10 mail.example.test.
ns1     IN A     192.0.2.2
www     IN A     192.0.2.3
mail    IN A     192.0.2.4
alias   IN CNAME www.example.test.
*.wild  IN A     192.0.2.5
sub     IN NS    ns.sub.example.test.
ns.sub  IN A     192.0.2.6
`;

let signed: BindSignedZone;
let tampered: string;
let ds: string[];
let primary: Named;
let tamperedPrimary: Named;
const running: Array<{ stop(): Promise<void> }> = [];

/** Waits until named answers the zone's SOA (its log says "running" a little before it listens). */
async function answering(server: Named): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      if ((await dig(server, [ZONE, 'SOA'])).status === 'NOERROR') return;
    } catch (err) {
      if (i >= 20) throw err;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** `dig AXFR` as a person would type it: text with dig's comments and the SOA first and last. */
async function axfr(server: Named): Promise<string> {
  requireTool('dig');
  const { stdout } = await run('dig', [`@${server.host}`, '-p', String(server.port), ZONE, 'AXFR'], {
    timeout: 20_000,
  });
  return stdout;
}

const byTool = (verdicts: PeerVerdict[]) => Object.fromEntries(verdicts.map((v) => [v.tool, v]));

beforeAll(async () => {
  signed = await signZoneWithBind(ZONE, ZONE_TEXT);
  tampered = tamperRrsig(signed.signed, 'www.example.test', 'A');
  ds = await dsFromDnskey(ZONE, signed.ksk);
  primary = await startNamed([{ name: ZONE, text: signed.signed }]);
  running.push(primary);
  tamperedPrimary = await startNamed([{ name: ZONE, text: tampered }]);
  running.push(tamperedPrimary);
  await Promise.all([answering(primary), answering(tamperedPrimary)]);
}, 30_000);

afterAll(async () => {
  await Promise.all(running.map((r) => r.stop()));
  // startNamed leaves its directory behind
  for (const named of [primary, tamperedPrimary]) if (named) rmSync(named.dir, { recursive: true, force: true });
}, 15_000);

describe('zone verifiers (dnssec-verify, ldns-verify-zone, kzonecheck)', () => {
  test('accept the zone BIND signed, as its file and as an AXFR dump', async () => {
    const dump = await axfr(primary);
    // the dump's closing SOA is there, and the helper drops it
    expect(dump.match(/\sIN\s+SOA\s/g)).toHaveLength(2);
    expect(zoneFileFromAxfr(ZONE, dump).match(/\sIN\s+SOA\s/g)).toHaveLength(1);
    for (const text of [signed.signed, dump]) {
      const verdicts = await verifyZoneWithPeers(ZONE, text);
      expect(verdicts.map((v) => v.tool)).toEqual(['dnssec-verify', 'ldns-verify-zone', 'kzonecheck']);
      for (const v of verdicts) expect({ tool: v.tool, ok: v.ok, output: v.output }).toMatchObject({ ok: true });
      const t = byTool(verdicts);
      expect(t['dnssec-verify']?.output).toContain('Zone fully signed:');
      expect(t['ldns-verify-zone']?.output).toContain('Zone is verified and complete');
      expect(t.kzonecheck?.output.trim()).toBe(''); // kzonecheck says nothing when all is well
    }
  }, 20_000);

  test('all three reject one changed signature, naming the RRset', async () => {
    for (const text of [tampered, await axfr(tamperedPrimary)]) {
      const t = byTool(await verifyZoneWithPeers(ZONE, text));
      expect(t['dnssec-verify']).toMatchObject({ ok: false });
      expect(t['dnssec-verify']?.output).toContain('No correct ECDSAP256SHA256 signature for www.example.test A');
      expect(t['dnssec-verify']?.output).toContain('DNSSEC completeness test failed');
      expect(t['ldns-verify-zone']).toMatchObject({ ok: false });
      expect(t['ldns-verify-zone']?.output).toMatch(/Bogus DNSSEC signature for www\.example\.test\.\s+A/);
      // kzonecheck verifies signatures too (with --dnssec on; Knot 3.2 also does when it sees a signed zone)
      expect(t.kzonecheck).toMatchObject({ ok: false });
      expect(t.kzonecheck?.output).toContain('[www.example.test.] no valid signature for a record (record type A)');
    }
  }, 20_000);
});

describe('delv with the DS as its trust anchor', () => {
  const ask = (server: Named, name: string, type: string, anchor = ds) =>
    delvQuery({ server, zone: ZONE, ds: anchor, name, type });

  test('validates answers, wildcard expansions, CNAMEs and proven negative answers', async () => {
    const cases: Array<[name: string, type: string, shows: RegExp]> = [
      ['www.example.test', 'A', /^; fully validated\nwww\.example\.test\.\s+600\s+IN\s+A\s+192\.0\.2\.3$/m],
      ['x.y.wild.example.test', 'A', /^x\.y\.wild\.example\.test\.\s+\d+\s+IN\s+A\s+192\.0\.2\.5$/m],
      ['alias.example.test', 'A', /^alias\.example\.test\.\s+600\s+IN\s+CNAME\s+www\.example\.test\.$/m],
      ['example.test', 'MX', /IN\s+MX\s+10 mail\.example\.test\.$/m],
      ['nope.example.test', 'A', /^; negative response, fully validated\n.*NXDOMAIN/m],
      ['www.example.test', 'MX', /^; negative response, fully validated\n.*NXRRSET/m], // NODATA
      ['sub.example.test', 'DS', /^; negative response, fully validated\n.*NXRRSET/m], // an insecure delegation
    ];
    for (const [name, type, shows] of cases) {
      const r = await ask(primary, name, type);
      expect({ name, type, validated: r.validated, failed: r.failed, output: r.output }).toMatchObject({
        validated: true,
        failed: false,
      });
      expect(r.output).toMatch(shows);
    }
  }, 20_000);

  test('fails on the changed signature, and on a DS that is not the zone’s', async () => {
    const bad = await ask(tamperedPrimary, 'www.example.test', 'A');
    expect(bad).toMatchObject({ validated: false, failed: true });
    expect(bad.output).toContain(';; validating www.example.test/A: no valid signature found');
    expect(bad.output).toContain(';; resolution failed: RRSIG failed to verify');
    // the rest of the zone still validates: only that one signature was changed
    expect(await ask(tamperedPrimary, 'mail.example.test', 'A')).toMatchObject({ validated: true, failed: false });

    const sha256 = ds.find((d) => d.split(' ')[2] === '2') ?? '';
    const wrongDs = sha256.replace(/.$/, (c) => (c === '0' ? '1' : '0'));
    const untrusted = await ask(primary, 'www.example.test', 'A', [wrongDs]);
    expect(untrusted).toMatchObject({ validated: false, failed: true });
    expect(untrusted.output).toContain(';; resolution failed: broken trust chain');
  }, 20_000);
});

describe('BIND named as a validating resolver', () => {
  const ask = (resolver: { port: number }, name: string, type: string) =>
    dig({ host: '127.0.0.1', port: resolver.port }, ['+rec', '+dnssec', name, type]);

  test('sets AD for validated answers and NXDOMAIN, SERVFAIL for the changed signature', async () => {
    const good = await startValidatingResolver({ zone: ZONE, primary, ds });
    running.push(good);
    const bad = await startValidatingResolver({ zone: ZONE, primary: tamperedPrimary, ds });
    running.push(bad);

    const www = await ask(good, 'www.example.test', 'A');
    expect(www).toMatchObject({ status: 'NOERROR', flags: expect.arrayContaining(['ad']) });
    expect(www.answer).toContain('www.example.test. 600 IN A 192.0.2.3');
    const nx = await ask(good, 'nope.example.test', 'A');
    expect(nx).toMatchObject({ status: 'NXDOMAIN', flags: expect.arrayContaining(['ad']) });
    const wild = await ask(good, 'a.wild.example.test', 'A');
    expect(wild).toMatchObject({ status: 'NOERROR', flags: expect.arrayContaining(['ad']) });

    expect(await ask(bad, 'www.example.test', 'A')).toMatchObject({ status: 'SERVFAIL' });
    expect(await ask(bad, 'mail.example.test', 'A')).toMatchObject({
      status: 'NOERROR',
      flags: expect.arrayContaining(['ad']),
    });
    // querylog is on: the resolver's log (shown when something fails) has the queries it was asked
    expect(good.log()).toContain('query: www.example.test IN A');
    await Promise.all([good.stop(), bad.stop()]);
  }, 30_000);
});

describe('DS from the KSK', () => {
  test('BIND (dnssec-dsfromkey) and ldns (ldns-key2ds) give the same SHA-256 and SHA-384 DS', async () => {
    const fromLdns = await ldnsKey2Ds(ZONE, signed.ksk);
    expect(fromLdns).toEqual(ds);
    expect(ds.map((d) => d.split(' ').slice(1, 3).join(' '))).toEqual(['13 2', '13 4']);
    expect(ds[0]).toMatch(/^\d+ 13 2 [0-9A-F]{64}$/);
    expect(ds[1]).toMatch(/^\d+ 13 4 [0-9A-F]{96}$/);
    // what dnssec-signzone wrote for the parent, and the DS of the zone's DNSKEY RRset as served (the ZSK, without
    // the SEP flag, has none), and of the key as bare RDATA
    expect(signed.dsset).toEqual([ds[0]]);
    const served = (await dig(primary, [ZONE, 'DNSKEY'])).answer.filter((l) => / DNSKEY /.test(l));
    expect(served).toHaveLength(2);
    expect(await dsFromDnskey(ZONE, served.join('\n'))).toEqual(ds);
    expect(await ldnsKey2Ds(ZONE, served.join('\n'))).toEqual(ds);
    const rdata = signed.ksk.split(/\s+DNSKEY\s+/)[1] ?? '';
    expect(await dsFromDnskey(ZONE, rdata)).toEqual(ds);
  }, 20_000);
});
