// @needs bind
/**
 * Refreshes of a signed zone's signatures through the engine, by its signing clock: the zone is signed whole in the
 * past (8.5 days ago by the real clock); moved to now, the scheduler asks for a new serial and the engine signs again
 * only the RRsets whose signatures near expiry (and the SOA), not the zone; an IXFR gives secondaries just those. The
 * AXFR then passes dnssec-verify, ldns-verify-zone and kzonecheck (which judge by the real clock: the refreshed
 * signatures and the old ones alike), a restart serves the refreshed copy from its file with every signature's own
 * times, and a key event still signs the zone whole.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { algorithmByName } from '../../dns/dnssec/algorithms';
import type { RrsigFields } from '../../dns/dnssec/canonical';
import { KeyVault } from '../../dns/dnssec/key-vault';
import { KSK_FLAGS, ZSK_FLAGS } from '../../dns/dnssec/keys';
import { SigningScheduler } from '../../dns/dnssec/scheduler';
import { newStoredKey } from '../../dns/dnssec/zone-signing';
import { DnsEngine } from '../../dns/engine/engine';
import { openZoneStore } from '../../dns/store';
import type { ZoneStore } from '../../dns/store/types';
import type { ZoneData } from '../../dns/zone';
import { importZoneFile } from '../../dns/zonefile/zone-files';
import { axfrText, verifyZoneWithPeers } from '../support/dnssec-peers';
import { waitFor } from '../support/sse';

const run = promisify(execFile);
const HOST = '127.0.0.1';
const DAY = 86_400;
const hosts = Array.from({ length: 200 }, (_, i) => `h${i} IN A 192.0.2.${i % 250}`).join('\n');
const ZONE_TEXT = (zone: string) => `$ORIGIN ${zone}.
$TTL 300
@ IN SOA ns1 hostmaster 1 3600 600 86400 300
  IN NS ns1
  IN MX 10 mail
ns1 IN A 192.0.2.1
mail IN A 192.0.2.25
*.wild IN TXT "wildcard"
sub IN NS ns.elsewhere.test.
signed IN NS ns.elsewhere.test.
signed IN DS 12345 13 2 0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF
${hosts}
`;
/** Expirations over the last 7 of 14 days; refreshed with 2 days left, and what is due within the hour after. */
const POLICY = { signatureJitter: 7 * DAY, signatureRefresh: 2 * DAY, signaturePreRefresh: 3600 };
const REAL_NOW = Math.floor(Date.now() / 1000);
/** Signed whole then: by now (8.5 days on) about half the signatures are due, the other half not. */
const T0 = REAL_NOW - 8.5 * DAY;

let dir: string;
let store: ZoneStore;
let clock = T0;
const vault = KeyVault.of(randomBytes(32));
const running: DnsEngine[] = [];

const start = async (): Promise<DnsEngine> => {
  const engine = await DnsEngine.start({
    store,
    host: HOST,
    port: 0,
    dnssec: { vault, policy: POLICY, now: () => clock, keptDir: join(dir, 'signed-zones') },
  });
  running.push(engine);
  return engine;
};

type Sig = RrsigFields & { signature: Buffer };

/** Every RRSIG of the copy served, by "owner type tag". */
function signatures(zone: ZoneData | undefined): Map<string, Sig> {
  const out = new Map<string, Sig>();
  for (const [owner, node] of zone?.nodes.entries() ?? [])
    for (const rrsig of node.get('RRSIG') ?? []) {
      const sig = rrsig.data as unknown as Sig;
      out.set(`${owner} ${sig.typeCovered} ${sig.keyTag}`, sig);
    }
  return out;
}
const serialOf = (engine: DnsEngine, zone: string): number => engine.index.get(zone)?.soa.data.serial ?? 0;

describe.each([
  ['nsec.test', { denial: 'NSEC', optOut: false }],
  ['nsec3.test', { denial: 'NSEC3', optOut: false }],
] as const)('%s', (zone, denial) => {
  let engine: DnsEngine;
  let refreshed: Map<string, Sig>;

  // a store and files of its own: the scheduler looks at every zone of an engine
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dnssec-refresh-'));
    store = await openZoneStore({ dataDir: dir });
    const algorithm = algorithmByName('ECDSAP256SHA256');
    if (!algorithm) throw new Error('no ECDSAP256SHA256');
    await importZoneFile(store, zone, ZONE_TEXT(zone));
    const times = { publishAt: T0 - 60, activateAt: T0 - 60, lifetime: 365 * DAY };
    const keys = [KSK_FLAGS, ZSK_FLAGS].map((flags) => newStoredKey(zone, algorithm, flags, vault, times));
    await store.changeDnssecKeys(zone, { add: keys, denial });
  });

  afterAll(async () => {
    await Promise.all(running.splice(0).map((e) => e.close()));
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('moved to the refresh time, the engine signs again only the RRsets near expiry; the zone verifies', async () => {
    clock = T0;
    engine = await start();
    const before = signatures(engine.index.get(zone));
    const serial = serialOf(engine, zone);
    expect(SigningScheduler.dueAt(engine.index.get(zone) as ZoneData)).toBeLessThanOrEqual(REAL_NOW);
    clock = REAL_NOW;
    engine.checkSigning();
    await waitFor(() => serialOf(engine, zone) !== serial, 20_000, 'the refresh');
    refreshed = signatures(engine.index.get(zone));
    const dueBy = REAL_NOW + 2 * DAY + 3600;
    const expected = [...before]
      .filter(([id, s]) => s.expiration <= dueBy || id.startsWith(`${zone} SOA `))
      .map(([id]) => id)
      .sort();
    const remade = [...refreshed].filter(([id, s]) => before.get(id)?.inception !== s.inception).map(([id]) => id);
    expect(remade.sort()).toEqual(expected);
    expect(expected.length).toBeGreaterThan(before.size / 4);
    expect(expected.length).toBeLessThan((before.size * 3) / 4);
    for (const id of remade) expect(refreshed.get(id)?.inception).toBe(REAL_NOW - 3600);
    expect(engine.index.get(zone)?.signing?.signedAt).toBe(T0); // not signed whole
    // secondaries get the slice by IXFR: the RRSIGs replaced, then their successors, between the SOAs
    const { stdout } = await run('dig', [`@${HOST}`, '-p', String(engine.server?.port), zone, `IXFR=${serial}`]);
    const records = stdout.split('\n').filter((l) => l.trim() && !l.startsWith(';'));
    expect(records.filter((l) => l.split(/\s+/)[3] === 'SOA')).toHaveLength(4); // new, old, new, new
    expect(records.filter((l) => l.split(/\s+/)[3] === 'RRSIG')).toHaveLength(2 * remade.length);
    expect(records).toHaveLength(4 + 2 * remade.length);
    const verdicts = await verifyZoneWithPeers(
      zone,
      await axfrText({ host: HOST, port: engine.server?.port ?? 0 }, zone),
    );
    expect(verdicts.filter((v) => !v.ok).map((v) => `${v.tool}: ${v.output}`)).toEqual([]);
  }, 60_000);

  test("a restart serves the refreshed copy from its file: every signature's times (and bytes) as they were", async () => {
    await engine.close();
    engine = await start();
    const copy = engine.index.get(zone) as ZoneData;
    const back = signatures(copy);
    expect([...back.keys()].sort()).toEqual([...refreshed.keys()].sort());
    for (const [id, s] of back) {
      const was = refreshed.get(id) as Sig;
      expect([id, s.inception, s.expiration, s.signature.equals(was.signature)]).toEqual([
        id,
        was.inception,
        was.expiration,
        true,
      ]);
    }
    expect(copy.signing?.expiresAt).toBe(Math.min(...[...back.values()].map((s) => s.expiration)));
    expect(SigningScheduler.dueAt(copy)).toBeGreaterThan(REAL_NOW); // nothing due again
  }, 60_000);

  test('a key event (a new key published) still signs the zone whole', async () => {
    clock = REAL_NOW + 60;
    const serial = serialOf(engine, zone);
    const algorithm = algorithmByName('ECDSAP256SHA256');
    if (!algorithm) throw new Error('no ECDSAP256SHA256');
    const times = { publishAt: REAL_NOW + 60, activateAt: REAL_NOW + 60 + 30 * DAY, lifetime: 365 * DAY };
    await store.changeDnssecKeys(zone, { add: [newStoredKey(zone, algorithm, ZSK_FLAGS, vault, times)] });
    await waitFor(() => serialOf(engine, zone) !== serial, 20_000, 'the signing');
    const whole = signatures(engine.index.get(zone));
    for (const [id, s] of whole) expect([id, s.inception]).toEqual([id, REAL_NOW + 60 - 3600]);
    expect(engine.index.get(zone)?.signing?.signedAt).toBe(REAL_NOW + 60);
    await engine.close();
  }, 60_000);
});
