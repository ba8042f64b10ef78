// @needs bind
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { KeyVault } from '../../dns/dnssec/key-vault';
import { DnsEngine } from '../../dns/engine/engine';
import { KeyedQueue } from '../../platform/async/keyed-queue';
import { openSqliteStore } from '../../dns/store';
import type { ZoneStore } from '../../dns/store/types';
import { importZoneFile } from '../../dns/zonefile/zone-files';
import { ChangeFeed } from '../../subgraphs/dns-api/service/changes';
import { DnssecService, type DnssecPolicy } from '../../subgraphs/dns-api/service/dnssec';
import { RolloverDriver } from '../../subgraphs/dns-api/service/rollover-driver';
import { dig, requireTool, startNamed, type Named } from '../support/dns-peers';
import {
  delvQuery,
  dsFromDnskey,
  ldnsKey2Ds,
  normalizeDs,
  startValidatingResolver,
  type ValidatingResolver,
  ROLLOVER_POLICY_OF_SECONDS,
} from '../support/dnssec-peers';

/**
 * A KSK rollover (RFC 7583 double-KSK) with a policy of seconds, in real time. The parent zone is ours: the child's
 * CDS/CDNSKEY (checked against the DNSKEY with dnssec-dsfromkey and ldns-key2ds) make the parent's DS follow, and
 * BIND 9 validating from the PARENT's DS, and delv, give AD / "fully validated" on every answer of the child
 * (A, DNSKEY, NXDOMAIN) throughout; at the end only the new KSK is in the DNSKEY RRset and the parent's DS points at
 * it. Then a parent elsewhere (BIND 9 serving it): the old KSK stays until the DS is added there with nsupdate, as a
 * registrar would, and the rollover completes once our DS check sees it.
 */
const HOST = '127.0.0.1';
const PARENT = 'ksk.test';
const CHILD = 'kid.ksk.test';
const zoneText = (name: string, extra = '') => `$TTL 2
@    IN SOA ns1.${name}. hostmaster.${name}. ( 1 3600 600 86400 2 )
     IN NS  ns1.${name}.
ns1  IN A   192.0.2.1
www  IN A   192.0.2.2
${extra}`;
/** Rollovers in seconds, not hours: a whole one runs within the test. */
const POLICY: DnssecPolicy = ROLLOVER_POLICY_OF_SECONDS;

let store: ZoneStore;
let engine: DnsEngine;
let feed: ChangeFeed;
let service: DnssecService;
let driver: RolloverDriver;
let resolver: ValidatingResolver | undefined;
let named: Named | undefined;
const vault = KeyVault.of(randomBytes(32));
const server = () => ({ host: HOST, port: engine.server?.port ?? 0 });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The scheduled part, checking every half second; DS asked of `servers` for a parent elsewhere. */
function startDriver(servers: Array<{ host: string; port: number }> = []): void {
  const serving = { served: (z: string, s: number | null) => engine.served(z, s) };
  driver = new RolloverDriver(store, service, serving, feed, {
    everyMs: 500,
    autoRollover: false,
    dsCheck: { servers, timeoutMs: 1000 },
  });
  driver.start();
}

beforeAll(async () => {
  for (const tool of ['named', 'delv', 'nsupdate', 'dnssec-dsfromkey', 'ldns-key2ds']) requireTool(tool);
  store = await openSqliteStore({ file: ':memory:' });
  await importZoneFile(store, PARENT, zoneText(PARENT, `kid IN NS ns1.${CHILD}.\nns1.kid IN A 192.0.2.3\n`));
  await importZoneFile(store, CHILD, zoneText(CHILD));
  engine = await DnsEngine.start({ store, host: HOST, port: 0, dnssec: { vault, policy: { dnskeyTtl: 2 } } });
  feed = new ChangeFeed(store);
  service = new DnssecService(store, { served: (z, s) => engine.served(z, s) }, feed, vault, new KeyedQueue(), POLICY);
});

afterAll(async () => {
  await driver?.close();
  await resolver?.stop();
  await named?.stop();
  if (named) rmSync(named.dir, { recursive: true, force: true });
  feed?.close();
  await engine?.close();
  await store?.close();
});

const dsOf = (status: {
  dsRecords: Array<{ keyTag: string; algorithm: string; digestType: string; digest: string }>;
}) => status.dsRecords.filter((d) => d.digestType === '2').map((d) => `${d.keyTag} ${d.algorithm} 2 ${d.digest}`);
const rrLines = (lines: string[], type: string) => lines.filter((l) => l.split(/\s+/)[3] === type);
/** The KSKs of the DNSKEY RRset the server gives now, as RR lines. */
const kskLines = async (zone: string) =>
  rrLines((await dig(server(), [zone, 'DNSKEY'])).answer, 'DNSKEY').filter((l) => / 257 3 /.test(l));

test('parent ours: every answer validates through the rollover; the parent DS follows the CDS; the old KSK leaves', async () => {
  const parent = await service.set(PARENT, { enable: true }, 'test');
  const child = await service.set(CHILD, { enable: true }, 'test');
  // the first DS, given to the parent by hand (CDS only during rollovers)
  for (const value of dsOf(child))
    await store.change(PARENT, [{ op: 'add', record: { name: CHILD, type: 'DS', ttl: 2, value } }]);
  startDriver();
  resolver = await startValidatingResolver({ zone: PARENT, primary: server(), ds: dsOf(parent) });
  const ask = async (name: string, type: string) => {
    const a = await dig({ host: HOST, port: resolver?.port ?? 0 }, ['+rec', '+dnssec', name, type]);
    return { name, type, status: a.status, ad: a.flags.includes('ad') };
  };
  const checkAll = async (i: number) => {
    for (const [name, type, status] of [
      [`www.${CHILD}`, 'A', 'NOERROR'],
      [CHILD, 'DNSKEY', 'NOERROR'],
      [`gone${i}.${CHILD}`, 'A', 'NXDOMAIN'],
    ] as const)
      expect(await ask(name, type)).toEqual({ name, type, status, ad: true });
  };
  for (let i = 0; !(await ask(`www.${CHILD}`, 'A')).ad && i < 50; i++) await sleep(200); // the DS just added
  await checkAll(0);
  const delv = (name: string, type: string) =>
    delvQuery({ server: server(), zone: PARENT, ds: dsOf(parent), name, type });
  expect((await delv(`www.${CHILD}`, 'A')).validated).toBe(true);

  const rollover = await service.rotate(CHILD, 'test', 'KSK');
  const cdsSeen: string[][] = [];
  const deadline = Date.now() + 60_000;
  let i = 1;
  for (;;) {
    await checkAll(i++);
    const d = await delv(`www.${CHILD}`, 'A');
    expect({ validated: d.validated, failed: d.failed }).toEqual({ validated: true, failed: false });
    const cdsNow = async () => rrLines((await dig(server(), [CHILD, 'CDS'])).answer, 'CDS');
    const cds = await cdsNow();
    const dnskey = cds.length > 0 ? await kskLines(CHILD) : [];
    const cdnskey = cds.length > 0 ? rrLines((await dig(server(), [CHILD, 'CDNSKEY'])).answer, 'CDNSKEY') : [];
    // the driver may end the rollover between these queries (CDS and CDNSKEY leave together): judge a view only
    // when the CDS asked again afterwards is still the same
    if (cds.length > 0 && (await cdsNow()).join('\n') === cds.join('\n')) {
      // the CDS and CDNSKEY are the new KSK's: its DS (SHA-256) as the tools compute it from the DNSKEY served
      expect(cdnskey).toHaveLength(1);
      const asDnskey = (cdnskey[0] ?? '').replace(' CDNSKEY ', ' DNSKEY ');
      expect(dnskey.map((l) => l.split(/\s+/).slice(4).join(' '))).toContain(asDnskey.split(/\s+/).slice(4).join(' '));
      const fromTools = (await dsFromDnskey(CHILD, asDnskey)).filter((d) => d.split(' ')[2] === '2');
      expect((await ldnsKey2Ds(CHILD, asDnskey)).filter((d) => d.split(' ')[2] === '2')).toEqual(fromTools);
      expect(cds.map((l) => normalizeDs(l.split(/\s+/).slice(4).join(' ')))).toEqual(fromTools);
      cdsSeen.push(cds);
    }
    if ((await service.status(CHILD)).rollovers.length === 0) break;
    expect(Date.now()).toBeLessThan(deadline);
    await sleep(300);
  }
  expect(cdsSeen.length).toBeGreaterThan(0);
  // only the new KSK now; the parent's DS points at it; no CDS/CDNSKEY once the rollover is over
  const after = await service.status(CHILD);
  const ksks = after.keys.filter((k) => k.keyType === 'KSK');
  expect(ksks.map((k) => k.id)).toEqual([rollover.newKeyId]);
  // served once the engine's timer re-signed the zone (a second at most after the status says so)
  let served = await kskLines(CHILD);
  while (served.length > 1 && Date.now() < deadline) served = (await sleep(200), await kskLines(CHILD));
  expect(served).toHaveLength(1);
  const parentDs = rrLines((await dig(server(), [CHILD, 'DS'])).answer, 'DS').map((l) =>
    normalizeDs(l.split(/\s+/).slice(4).join(' ')),
  );
  expect(parentDs).toEqual((await dsFromDnskey(CHILD, served.join('\n'))).filter((d) => d.split(' ')[2] === '2'));
  expect(rrLines((await dig(server(), [CHILD, 'CDS'])).answer, 'CDS')).toEqual([]);
  expect(rrLines((await dig(server(), [CHILD, 'CDNSKEY'])).answer, 'CDNSKEY')).toEqual([]);
  await sleep(2500); // caches of the old DNSKEY RRset and DS gone
  await checkAll(i);
  expect((await delv(CHILD, 'DNSKEY')).validated).toBe(true);
}, 120_000);

/** nsupdate against `named`, as a registrar would change the parent. */
function nsupdate(commands: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = execFile('nsupdate', [], { timeout: 10_000 }, (err, _out, stderr) =>
      err ? reject(new Error(`nsupdate: ${stderr || err.message}`)) : resolve(),
    );
    child.stdin?.end(commands);
  });
}

test('parent elsewhere: the old KSK stays until the DS is at the parent servers, then the rollover completes', async () => {
  await driver.close();
  const EXT = 'ext.test';
  const KID = `kid.${EXT}`;
  named = await startNamed([
    {
      name: EXT,
      text: zoneText(EXT, `kid IN NS ns1.${KID}.\nns1.kid IN A 192.0.2.3\n`),
      options: 'type primary; allow-update { any; };',
    },
  ]);
  await importZoneFile(store, KID, zoneText(KID));
  await service.set(KID, { enable: true }, 'test');
  startDriver([{ host: named.host, port: named.port }]);
  const rollover = await service.rotate(KID, 'test', 'KSK');
  const step = async () => (await service.status(KID)).rollovers[0]?.step;
  const deadline = Date.now() + 30_000;
  while ((await step()) !== 'ready') {
    expect(Date.now()).toBeLessThan(deadline);
    await sleep(200);
  }
  // ready, its CDS published; no DS at the parent: well past the time it would take, the old KSK is still there
  let cds: string[] = [];
  while (cds.length === 0 && Date.now() < deadline)
    cds = (await sleep(200), rrLines((await dig(server(), [KID, 'CDS'])).answer, 'CDS'));
  expect(cds).toHaveLength(1);
  await sleep(POLICY.parentDsTtl * 1000 + 4000);
  expect(await step()).toBe('ready');
  expect((await kskLines(KID)).length).toBe(2);
  expect((await service.status(KID)).keys.map((k) => k.id)).toContain(rollover.oldKeyId);

  // the registrar puts the CDS in the parent as DS
  const ds = (cds[0] ?? '').split(/\s+/).slice(4).join(' ');
  await nsupdate(`server ${named.host} ${named.port}\nzone ${EXT}\nupdate add ${KID}. 2 IN DS ${ds}\nsend\n`);
  expect(rrLines((await dig({ host: named.host, port: named.port }, [KID, 'DS'])).answer, 'DS')).toHaveLength(1);
  while ((await service.status(KID)).rollovers.length > 0) {
    expect(Date.now()).toBeLessThan(deadline + 30_000);
    await sleep(300);
  }
  const ksks = (await service.status(KID)).keys.filter((k) => k.keyType === 'KSK');
  expect(ksks.map((k) => k.id)).toEqual([rollover.newKeyId]);
  expect(ksks[0]?.dsSeenAt).not.toBeNull();
  let served = await kskLines(KID);
  while (served.length > 1 && Date.now() < deadline + 30_000) served = (await sleep(200), await kskLines(KID));
  expect(served).toHaveLength(1);
}, 120_000);
