// @needs bind
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DnsEngine, type DnsEngineOptions } from '../../dns/engine/engine';
import { openSqliteStore } from '../../dns/store';
import type { ZoneStore } from '../../dns/store/types';
import { sendNotify } from '../../dns/server/operations/notify';
import { parseKeySpec, type TsigKey } from '../../dns/tsig/keyfile';
import { importZoneFile } from '../../dns/zonefile/zone-files';
import { axfrLines, dig, requireTool, startNamed, type DigAnswer, type Named } from '../support/dns-peers';

/**
 * BIND 9 `named` as OUR secondary: it loads each zone from our server by zone transfer (for `signed.test` with a TSIG
 * key our server insists on), answers exactly like we do, and after a change and our NOTIFY transfers it again.
 *
 * Order of start: our engines first (named's `primaries` need their ports), then named, then the engines are
 * restarted on the same ports with `notify` pointing at named's port (known only once it runs).
 */
const run = promisify(execFile);
const ZONE_TEXT = readFileSync(join(__dirname, 'fixtures', 'compare.zone'), 'utf8');
const SIGNED_TEXT = `$ORIGIN signed.test.
$TTL 600
@    IN SOA ns1.signed.test. hostmaster.signed.test. ( 1 3600 600 86400 60 )
     IN NS  ns1.signed.test.
ns1  IN A   192.0.2.153
www  IN A   192.0.2.154
txt  IN TXT "signed" "transfer"
`;
const SECRET = 'eGZyLWtleS1zZWNyZXQteGZyLWtleS1zZWNyZXQtMTIzNA==';
const XFER_KEY = parseKeySpec(`hmac-sha256:xfer-key:${SECRET}`);
const KEYS = [XFER_KEY];

let plainStore: ZoneStore;
let signedStore: ZoneStore;
let plain: DnsEngine;
let signed: DnsEngine;
let named: Named;
/** named's log from its start on (it logs every NOTIFY and transfer at the default level). */
let namedLog = '';
const at = (port: number) => ({ host: '127.0.0.1', port });

function plainOptions(port: number, notifyPort?: number): DnsEngineOptions {
  return { store: plainStore, host: '127.0.0.1', port, notify: notifyPort ? [at(notifyPort)] : [] };
}
function signedOptions(port: number, notifyPort?: number): DnsEngineOptions {
  return {
    store: signedStore,
    host: '127.0.0.1',
    port,
    keys: KEYS,
    access: { transferKeys: { 'signed.test': ['xfer-key'] }, transferFromLoopback: false },
    notify: notifyPort ? [at(notifyPort)] : [],
    notifyKey: notifyPort ? 'xfer-key' : undefined,
  };
}

const portOf = (engine: DnsEngine): number => engine.server?.port as number;

async function soaSerial(server: { host: string; port: number }, zone: string): Promise<number | undefined> {
  const res = await dig(server, [zone, 'SOA']);
  const serial = res.status === 'NOERROR' ? /\sSOA\s+\S+\s+\S+\s+(\d+)/i.exec(res.answer[0] ?? '')?.[1] : undefined;
  return serial === undefined ? undefined : Number(serial);
}

/** Polls until named's SOA serial for `zone` equals `serial` (at most `ms`); returns the last serial seen. */
async function waitForSerial(zone: string, serial: number, ms = 10_000): Promise<number | undefined> {
  const deadline = Date.now() + ms;
  let seen: number | undefined;
  while (Date.now() < deadline) {
    seen = await soaSerial(named, zone);
    if (seen === serial) return seen;
    await new Promise((r) => setTimeout(r, 100));
  }
  return seen;
}

beforeAll(async () => {
  requireTool('dig');
  plainStore = await openSqliteStore({ file: ':memory:' });
  await importZoneFile(plainStore, 'compare.test', ZONE_TEXT);
  signedStore = await openSqliteStore({ file: ':memory:' });
  await importZoneFile(signedStore, 'signed.test', SIGNED_TEXT);
  plain = await DnsEngine.start(plainOptions(0));
  signed = await DnsEngine.start(signedOptions(0));
  const [plainPort, signedPort] = [portOf(plain), portOf(signed)];
  named = await startNamed(
    [
      // empty master files: named has nothing until it transfers the zone from us
      {
        name: 'compare.test',
        text: '',
        options: `type secondary; primaries { 127.0.0.1 port ${plainPort}; }; allow-notify { 127.0.0.1; }; allow-transfer { 127.0.0.1; };`,
      },
      {
        name: 'signed.test',
        text: '',
        options: `type secondary; primaries { 127.0.0.1 port ${signedPort} key "xfer-key"; }; allow-notify { 127.0.0.1; };`,
      },
    ],
    `key "xfer-key" { algorithm hmac-sha256; secret "${SECRET}"; };`,
  );
  named.process.stderr?.on('data', (d: Buffer) => {
    namedLog += d.toString();
  });
  // let the initial transfers finish before the restart (the tests below assert they happened)
  await waitForSerial('compare.test', (await plainStore.getZone('compare.test'))?.serial as number);
  await waitForSerial('signed.test', (await signedStore.getZone('signed.test'))?.serial as number);
  await plain.close();
  await signed.close();
  plain = await DnsEngine.start(plainOptions(plainPort, named.port));
  signed = await DnsEngine.start(signedOptions(signedPort, named.port));
}, 45_000);
afterAll(async () => {
  await plain?.close();
  await signed?.close();
  await plainStore?.close();
  await signedStore?.close();
  await named?.stop();
});

/** Comparable form: case-insensitive, records sorted within a section; the SOA serial is kept (it is transferred). */
function comparable(a: DigAnswer): object {
  const norm = (lines: string[]) => lines.map((l) => l.toLowerCase()).sort();
  return {
    status: a.status,
    flags: [...a.flags].sort(),
    answer: norm(a.answer),
    authority: norm(a.authority),
    additional: norm(a.additional),
  };
}

const QUERIES: string[][] = [
  ['compare.test', 'SOA'],
  ['compare.test', 'NS'],
  ['compare.test', 'MX'],
  ['compare.test', 'TXT'],
  ['www.compare.test', 'A'],
  ['www.compare.test', 'AAAA'],
  ['www.compare.test', 'MX'], // NODATA: SOA in authority, with the serial
  ['nope.compare.test', 'A'], // NXDOMAIN
  ['b.c.compare.test', 'A'], // empty non-terminal
  ['alias.compare.test', 'A'],
  ['chain1.compare.test', 'A'],
  ['x.y.wild.compare.test', 'TXT'],
  ['_sip._tcp.compare.test', 'SRV'],
  ['caa.compare.test', 'CAA'],
  ['naptr.compare.test', 'NAPTR'],
  ['sshfp.compare.test', 'SSHFP'],
  ['tlsa.compare.test', 'TLSA'],
  ['x.dname.compare.test', 'A'],
  ['host.sub.compare.test', 'A'], // referral with glue
  ['+tcp', 'big.compare.test', 'TXT'],
];

describe('named as secondary of compare.test (unsigned transfer from loopback)', () => {
  let serial: number;

  test('named loads the zone by transfer from us, with our SOA serial', async () => {
    serial = (await plainStore.getZone('compare.test'))?.serial as number;
    expect(serial).toBeGreaterThan(1);
    expect(await waitForSerial('compare.test', serial)).toBe(serial);
  });

  test.each(QUERIES)('%s %s: named answers exactly like us', async (...args) => {
    const [theirs, mine] = await Promise.all([dig(named, args), dig(at(portOf(plain)), args)]);
    expect(mine.status).not.toBe('SERVFAIL');
    expect(comparable(theirs)).toEqual(comparable(mine));
  });

  test("named's AXFR of the zone has exactly our records", async () => {
    const [theirs, mine] = await Promise.all([
      axfrLines(named, 'compare.test'),
      axfrLines(at(portOf(plain)), 'compare.test'),
    ]);
    expect(mine.length).toBe((await plainStore.listRecords('compare.test')).length + 2);
    expect(mine[0]).toMatch(
      new RegExp(`^compare\\.test\\. 3600 in soa ns1\\.compare\\.test\\. hostmaster\\.compare\\.test\\. ${serial} `),
    );
    expect(theirs.sort()).toEqual(mine.sort());
  });

  test('after a change in the store, our NOTIFY makes named transfer the new serial and answer the changed names like us', async () => {
    const www = (await plainStore.listRecords('compare.test', { name: 'www.compare.test', type: 'A' })).find(
      (r) => r.value === '192.0.2.1',
    );
    const outcome = await plainStore.change('compare.test', [
      { op: 'add', record: { name: 'new.compare.test', type: 'A', ttl: 120, value: '192.0.2.201' } },
      {
        op: 'add',
        record: { name: 'new.compare.test', type: 'TXT', ttl: 120, value: '"added after the first transfer"' },
      },
      { op: 'deleteMatching', name: 'mail.compare.test', type: 'A' },
      { op: 'update', id: www?.id as string, ttl: 60, value: '192.0.2.11' },
    ]);
    const newSerial = outcome.zone.serial;
    expect(newSerial).toBeGreaterThan(serial);
    // named's refresh timer is hours (SOA refresh 10800): only our NOTIFY can make it transfer within the wait
    expect(await waitForSerial('compare.test', newSerial)).toBe(newSerial);
    expect(namedLog).toMatch(/received notify for zone 'compare\.test'/);
    expect(namedLog).toMatch(new RegExp(`zone compare\\.test/IN: transferred serial ${newSerial}`));
    for (const args of [
      ['new.compare.test', 'A'],
      ['new.compare.test', 'TXT'],
      ['mail.compare.test', 'A'],
      ['www.compare.test', 'A'],
      ['compare.test', 'SOA'],
      ['nope.compare.test', 'A'],
    ]) {
      const [theirs, mine] = await Promise.all([dig(named, args), dig(at(portOf(plain)), args)]);
      expect({ args, ...comparable(theirs) }).toEqual({ args, ...comparable(mine) });
    }
    const mine = await dig(at(portOf(plain)), ['new.compare.test', 'A']);
    expect(mine.answer).toEqual(['new.compare.test. 120 IN A 192.0.2.201']);
    expect((await dig(named, ['mail.compare.test', 'A'])).status).toBe('NXDOMAIN');
    expect((await dig(named, ['www.compare.test', 'A'])).answer.sort()).toEqual([
      'www.compare.test. 60 IN A 192.0.2.11',
      'www.compare.test. 60 IN A 192.0.2.2',
    ]);
  });
});

describe('named as secondary of signed.test (transfer needs the TSIG key)', () => {
  test('an unsigned dig axfr is refused by us, one signed with the key gets the zone', async () => {
    const { stdout } = await run(
      'dig',
      ['+time=3', '+tries=1', `@127.0.0.1`, '-p', String(portOf(signed)), 'signed.test', 'AXFR'],
      { timeout: 15_000 },
    );
    expect(stdout).toMatch(/Transfer failed|REFUSED/i);
    expect(stdout).not.toMatch(/IN\s+A\s+192\.0\.2\.154/);
    const withKey = await axfrLines(at(portOf(signed)), 'signed.test', ['-y', `hmac-sha256:xfer-key:${SECRET}`]);
    expect(withKey.filter((l) => !/ tsig /.test(l))).toHaveLength(
      (await signedStore.listRecords('signed.test')).length + 2,
    );
    const wrongKey = await run(
      'dig',
      [
        '+time=3',
        '+tries=1',
        '-y',
        `hmac-sha256:xfer-key:${Buffer.from('not the secret at all').toString('base64')}`,
        `@127.0.0.1`,
        '-p',
        String(portOf(signed)),
        'signed.test',
        'AXFR',
      ],
      { timeout: 15_000 },
    ).catch((e: { stdout: string }) => e);
    expect(wrongKey.stdout).not.toMatch(/IN\s+A\s+192\.0\.2\.154/);
  });

  test('named, configured with the key, transferred the zone and answers like us', async () => {
    const serial = (await signedStore.getZone('signed.test'))?.serial as number;
    expect(await waitForSerial('signed.test', serial)).toBe(serial);
    for (const args of [
      ['signed.test', 'SOA'],
      ['signed.test', 'NS'],
      ['www.signed.test', 'A'],
      ['txt.signed.test', 'TXT'],
      ['missing.signed.test', 'A'],
    ]) {
      const [theirs, mine] = await Promise.all([dig(named, args), dig(at(portOf(signed)), args)]);
      expect({ args, ...comparable(theirs) }).toEqual({ args, ...comparable(mine) });
    }
  });

  test('a change reaches named through a TSIG-signed NOTIFY and a signed transfer', async () => {
    const outcome = await signedStore.change('signed.test', [
      { op: 'add', record: { name: 'later.signed.test', type: 'AAAA', ttl: 300, value: '2001:db8::154' } },
    ]);
    expect(await waitForSerial('signed.test', outcome.zone.serial)).toBe(outcome.zone.serial);
    // named checked our signature on the NOTIFY, and the transfer it then made was signed both ways
    expect(namedLog).toMatch(/received notify for zone 'signed\.test': TSIG 'xfer-key'/);
    expect(namedLog).toMatch(
      new RegExp(`zone signed\\.test/IN: transferred serial ${outcome.zone.serial}: TSIG 'xfer-key'`),
    );
    const [theirs, mine] = await Promise.all([
      dig(named, ['later.signed.test', 'AAAA']),
      dig(at(portOf(signed)), ['later.signed.test', 'AAAA']),
    ]);
    expect(mine.answer).toEqual(['later.signed.test. 300 IN AAAA 2001:db8::154']);
    expect(comparable(theirs)).toEqual(comparable(mine));
  });
});

describe('NOTIFY acknowledgement', () => {
  test('named acknowledges our NOTIFY for a zone it is secondary for, signed or not; an error answer is no acknowledgement', async () => {
    const target = at(named.port);
    expect(await sendNotify('compare.test', target, { tries: 1 })).toBe(true);
    expect(await sendNotify('signed.test', target, { tries: 1, key: KEYS[0] })).toBe(true);
    // named answers NOTAUTH for a zone it does not serve, and for a NOTIFY signed with a wrong secret (BADSIG)
    expect(await sendNotify('not-served.test', target, { tries: 1 })).toBe(false);
    const wrong: TsigKey = { ...XFER_KEY, secret: Buffer.from('not the secret at all') };
    expect(await sendNotify('signed.test', target, { tries: 1, key: wrong })).toBe(false);
  });
});
