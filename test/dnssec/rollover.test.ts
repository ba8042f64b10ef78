// @needs bind
import { randomBytes } from 'node:crypto';
import { KeyVault } from '../../dns/dnssec/key-vault';
import { DnsEngine } from '../../dns/engine/engine';
import { KeyedQueue } from '../../platform/async/keyed-queue';
import { openSqliteStore } from '../../dns/store';
import type { ZoneStore } from '../../dns/store/types';
import { importZoneFile } from '../../dns/zonefile/zone-files';
import { ChangeFeed } from '../../subgraphs/dns-api/service/changes';
import { DnssecService, type DnssecPolicy } from '../../subgraphs/dns-api/service/dnssec';
import { dig } from '../support/dns-peers';
import {
  dsFromDnskey,
  ldnsKey2Ds,
  startValidatingResolver,
  type ValidatingResolver,
  ROLLOVER_POLICY_OF_SECONDS,
} from '../support/dnssec-peers';

/**
 * A ZSK rollover (RFC 7583 pre-publication) on a zone with a policy of seconds instead of hours, in real time, with
 * BIND 9 as a validating resolver caching what we serve by the TTLs we give: every answer it gives while the new
 * key is published, starts signing and the old one leaves has the AD bit, and at the end only the new ZSK signs
 * and the old one is gone from the DNSKEY RRset — when `rollover_completion_date` said.
 */
const HOST = '127.0.0.1';
const ZONE = 'roll.test';
const TEXT = `$TTL 2
@    IN SOA ns1.roll.test. hostmaster.roll.test. ( 1 3600 600 86400 2 )
     IN NS  ns1.roll.test.
ns1  IN A   192.0.2.1
www  IN A   192.0.2.2
`;
/** Rollovers in seconds, not hours: a whole one runs within the test. */
const POLICY: DnssecPolicy = ROLLOVER_POLICY_OF_SECONDS;

let store: ZoneStore;
let engine: DnsEngine;
let feed: ChangeFeed;
let service: DnssecService;
let resolver: ValidatingResolver | undefined;
const vault = KeyVault.of(randomBytes(32));
const startEngine = (port: number) =>
  DnsEngine.start({ store, host: HOST, port, dnssec: { vault, policy: { dnskeyTtl: POLICY.dnskeyTtl } } });

beforeAll(async () => {
  store = await openSqliteStore({ file: ':memory:' });
  await importZoneFile(store, ZONE, TEXT);
  engine = await DnsEngine.start({
    store,
    host: HOST,
    port: 0,
    dnssec: { vault, policy: { dnskeyTtl: POLICY.dnskeyTtl } },
  });
  feed = new ChangeFeed(store);
  service = new DnssecService(store, { served: (z, s) => engine.served(z, s) }, feed, vault, new KeyedQueue(), POLICY);
});

afterAll(async () => {
  await resolver?.stop();
  feed?.close();
  await engine?.close();
  await store?.close();
});

const server = () => ({ host: HOST, port: engine.server?.port ?? 0 });
const tagsOf = (lines: string[], type: string) =>
  lines.filter((l) => l.includes(` RRSIG ${type} `)).map((l) => Number(l.split(/\s+/)[10]));

test('the resolver validates every answer through the rollover; the old ZSK leaves when the API said', async () => {
  const status = await service.set(ZONE, { enable: true }, 'test');
  const ksk = status.keys.find((k) => k.keyType === 'KSK');
  const oldZsk = status.keys.find((k) => k.keyType === 'ZSK');
  const ds = status.dsRecords
    .filter((d) => d.digestType === '2')
    .map((d) => `${d.keyTag} ${d.algorithm} 2 ${d.digest}`);
  resolver = await startValidatingResolver({ zone: ZONE, primary: server(), ds });
  const ask = async (name: string) => {
    const a = await dig({ host: HOST, port: resolver?.port ?? 0 }, ['+rec', '+dnssec', name, 'A']);
    return { name, status: a.status, ad: a.flags.includes('ad') };
  };
  expect(await ask('www.roll.test')).toEqual({ name: 'www.roll.test', status: 'NOERROR', ad: true });

  const rollover = await service.rotate(ZONE, 'test');
  // the rollover lives in the store: a server started again (same port) carries on with it
  const port = server().port;
  await engine.close();
  engine = await startEngine(port);
  expect(rollover.oldKeyId).toBe(oldZsk?.id);
  const completion = Date.parse(rollover.rolloverCompletionDate);
  // Ipub = 1 + 2 + 1 s, Iret = 1 + 2 (largest TTL) + 1 s
  expect(Math.round((completion - Date.now()) / 1000)).toBeGreaterThanOrEqual(7);
  expect(Math.round((completion - Date.now()) / 1000)).toBeLessThanOrEqual(9);

  const seen = new Set<number>();
  let i = 0;
  while (Date.now() < completion + 2500) {
    for (const name of ['www.roll.test', `gone${i++}.roll.test`]) {
      const answer = await ask(name);
      expect(answer).toEqual({ name, status: name.startsWith('www') ? 'NOERROR' : 'NXDOMAIN', ad: true });
    }
    const direct = await dig(server(), ['+dnssec', 'www.roll.test', 'A']);
    for (const tag of tagsOf(direct.answer, 'A')) seen.add(tag);
    await new Promise((r) => setTimeout(r, 400));
  }
  // the old key leaves at the completion date, give or take the timer's second and a loaded machine's delay
  const dnskeyCount = async () =>
    (await dig(server(), [ZONE, 'DNSKEY'])).answer.filter((l) => / DNSKEY 25[67] /.test(l)).length;
  while ((await dnskeyCount()) > 2 && Date.now() < completion + 10_000) await new Promise((r) => setTimeout(r, 200));
  expect(Date.now()).toBeLessThan(completion + 10_000);
  const after = await service.status(ZONE);
  const newZsk = after.keys.find((k) => k.keyType === 'ZSK');
  expect(newZsk?.id).toBe(rollover.newKeyId);
  expect(after.keys.map((k) => k.id).sort()).toEqual([ksk?.id, rollover.newKeyId].sort());
  // what the server signs with now, and the DNSKEY RRset it publishes
  const direct = await dig(server(), ['+dnssec', 'www.roll.test', 'A']);
  expect(tagsOf(direct.answer, 'A')).toEqual([newZsk?.keyTag]);
  expect([...seen].sort()).toEqual([oldZsk?.keyTag, newZsk?.keyTag].sort()); // both signed, one after the other
  const dnskeys = await dig(server(), ['+dnssec', ZONE, 'DNSKEY']);
  expect(dnskeys.answer.filter((l) => / DNSKEY 25[67] /.test(l))).toHaveLength(2);
  expect(await ask('www.roll.test')).toEqual({ name: 'www.roll.test', status: 'NOERROR', ad: true });
}, 90_000);

test('the DS records the API gives are the ones dnssec-dsfromkey and ldns-key2ds compute from the served DNSKEY', async () => {
  const status = await service.status(ZONE);
  const ours = status.dsRecords.map((d) => `${d.keyTag} ${d.algorithm} ${d.digestType} ${d.digest}`).sort();
  const dnskeys = (await dig(server(), [ZONE, 'DNSKEY'])).answer.filter((l) => / DNSKEY /.test(l)).join('\n');
  expect(ours).toHaveLength(2); // SHA-256 and SHA-384 of the one KSK
  expect((await dsFromDnskey(ZONE, dnskeys)).sort()).toEqual(ours);
  expect((await ldnsKey2Ds(ZONE, dnskeys)).sort()).toEqual(ours);
});

test('turning DNSSEC off: no DNSKEY, RRSIG or NSEC any more, unsigned answers', async () => {
  const off = await service.set(ZONE, { enable: false }, 'test');
  expect(off).toEqual({ enabled: false, keys: [], dsRecords: [], rollovers: [], denial: null, nsec3param: null });
  const answer = await dig(server(), ['+dnssec', 'www.roll.test', 'A']);
  expect(answer.answer.join('\n')).not.toMatch(/RRSIG/);
  const nx = await dig(server(), ['+dnssec', 'nothing.roll.test', 'A']);
  expect(nx.authority.join('\n')).not.toMatch(/NSEC|RRSIG/);
  expect((await dig(server(), [ZONE, 'DNSKEY'])).answer).toEqual([]);
});
