/**
 * KSK rollovers (double-KSK, RFC 7583 §3.3.2) and rollovers at a key's lifetime, step by step on a clock the test
 * moves: the new KSK signs the DNSKEY RRset at once, its CDS come after Ipub, the parent zone (ours) takes the DS
 * from them, that counts as the DS seen, and the old KSK leaves the DS TTL + Dprp + retire safety later — never
 * before. The state is in the store: a process started again carries on. Conflicts and bad values are refused.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GraphQLError } from 'graphql';
import { KeyVault } from '../../../dns/dnssec/key-vault';
import { openSqliteStore, type ZoneStore } from '../../../dns/store';
import { importZoneFile } from '../../../dns/zonefile/zone-files';
import { KeyedQueue } from '../../../platform/async/keyed-queue';
import { ChangeFeed } from './changes';
import { DEFAULT_DNSSEC_POLICY, DnssecService, type DnssecPolicy } from './dnssec';
import { dsValue } from './parent-ds';
import { RolloverDriver } from './rollover-driver';

const T0 = 1_800_000_000;
const PARENT = 'par.test';
const CHILD = 'kid.par.test';
const zoneText = (name: string, extra = '') => `$TTL 600
@ IN SOA ns1.${name}. h.${name}. ( 1 3600 600 86400 300 )
  IN NS ns1.${name}.
ns1 IN A 192.0.2.1
${extra}`;
const POLICY: DnssecPolicy = { ...DEFAULT_DNSSEC_POLICY }; // Ipub 7500 s; retire: DS TTL + 300 + 3600 s
const IPUB = POLICY.propagationDelay + POLICY.dnskeyTtl + POLICY.publishSafety;
const PARENT_DS_TTL = 600; // the parent's default TTL: its DS RRset's

let dir: string;
let store: ZoneStore;
let now = T0;
const vault = KeyVault.of(randomBytes(32));
let service: DnssecService;
let driver: RolloverDriver;
let feed: ChangeFeed;

/** The API's service and the scheduled part, on `store`, as a process starting builds them. */
function start(policy: DnssecPolicy = POLICY, autoRollover = false): void {
  feed = new ChangeFeed(store);
  const serving = { served: async () => undefined };
  service = new DnssecService(store, serving, feed, vault, new KeyedQueue(), policy, () => now);
  const options = { everyMs: 0, autoRollover, dsCheck: { servers: [], timeoutMs: 100 } };
  driver = new RolloverDriver(store, service, serving, feed, options, () => now);
}

async function open(): Promise<void> {
  store = await openSqliteStore({ file: join(dir, 'store.sqlite') });
}

const parentDs = async (): Promise<string[]> =>
  (await store.listRecords(PARENT, { name: CHILD, type: 'DS' })).map((r) => r.value).sort();
const ksks = async () => (await service.status(CHILD)).keys.filter((k) => k.keyType === 'KSK');
/** `work` refused with a 409 whose message matches `message`. */
async function conflict(work: Promise<unknown>, message: RegExp): Promise<void> {
  const err = await work.then(
    () => new Error('it succeeded'),
    (e: unknown) => e,
  );
  expect({ code: (err as GraphQLError).extensions?.code, message: (err as Error).message }).toEqual({
    code: 'CONFLICT',
    message: expect.stringMatching(message),
  });
}
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const iso = (s: number) => new Date(s * 1000).toISOString();

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ksk-rollover-'));
  now = T0;
  await open();
  await importZoneFile(store, PARENT, zoneText(PARENT, `kid IN NS ns1.${CHILD}.\nns1.kid IN A 192.0.2.2\n`));
  await importZoneFile(store, CHILD, zoneText(CHILD));
  start();
});

afterEach(async () => {
  await driver.close();
  feed.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a KSK rollover with the parent zone ours', () => {
  it('goes published → ready (CDS, the parent DS follows) → retiring → done, across a restart', async () => {
    const enabled = await service.set(CHILD, { enable: true }, 'test');
    const oldKsk = enabled.keys.find((k) => k.keyType === 'KSK');
    await driver.tick();
    expect(await parentDs()).toEqual([]); // CDS only during rollovers (the default): nothing to take yet

    now = T0 + 10;
    const started = await service.rotate(CHILD, 'test', 'KSK');
    expect(started).toMatchObject({ success: true, keyType: 'KSK', oldKeyId: oldKsk?.id });
    // the earliest: ready at +Ipub, the DS seen then, the old key gone DS TTL (assumed) + Dprp + retire safety later
    expect(started.rolloverCompletionDate).toBe(
      iso(now + IPUB + POLICY.parentDsTtl + POLICY.propagationDelay + POLICY.retireSafety),
    );
    expect(started.message).toMatch(/waited for/);
    let status = await service.status(CHILD);
    expect(status.rollovers).toEqual([
      {
        keyType: 'KSK',
        step: 'published',
        startedAt: iso(now),
        oldKeyId: oldKsk?.id,
        newKeyId: started.newKeyId,
        completesAt: null,
        steps: [
          { step: 'published', at: iso(now), done: true },
          { step: 'ready', at: iso(now + IPUB), done: false },
          { step: 'ds-seen', at: null, done: false },
          { step: 'done', at: null, done: false },
        ],
      },
    ]);
    // both KSKs sign the DNSKEY RRset from the start (double signature): both active
    expect((await ksks()).map((k) => [k.id, k.state])).toEqual([
      [oldKsk?.id, 'active'],
      [started.newKeyId, 'active'],
    ]);
    // the DS records to give the parent: both KSKs' while the rollover runs
    expect(new Set(status.dsRecords.map((d) => d.keyTag)).size).toBe(2);

    // a process started again carries on from the store
    await driver.close();
    feed.close();
    await store.close();
    await open();
    start();

    now = T0 + 10 + IPUB - 1;
    await driver.tick();
    expect(await parentDs()).toEqual([]);
    expect((await service.status(CHILD)).rollovers[0]?.step).toBe('published');

    now = T0 + 10 + IPUB;
    await driver.tick(); // CDS published: the parent's DS follows them, and that is the DS seen
    const fresh = (await store.listDnssecKeys(CHILD)).find((k) => k.id === started.newKeyId);
    if (!fresh) throw new Error('no new KSK');
    expect(await parentDs()).toEqual([dsValue(CHILD, fresh)]);
    status = await service.status(CHILD);
    const retireAt = now + PARENT_DS_TTL + POLICY.propagationDelay + POLICY.retireSafety;
    expect(status.rollovers[0]).toMatchObject({ step: 'retiring', completesAt: iso(retireAt) });
    expect(status.rollovers[0]?.steps.map((s) => [s.step, s.at, s.done])).toEqual([
      ['published', iso(T0 + 10), true],
      ['ready', iso(T0 + 10 + IPUB), true],
      ['ds-seen', iso(now), true],
      ['done', iso(retireAt), false],
    ]);
    expect((await ksks()).find((k) => k.id === started.newKeyId)).toMatchObject({
      dsSeenAt: iso(now),
      cdsAt: iso(now),
      cdsUntil: iso(retireAt),
    });
    // the old KSK stays until then
    now = retireAt - 1;
    expect((await ksks()).map((k) => k.id)).toEqual([oldKsk?.id, started.newKeyId]);
    now = retireAt;
    status = await service.status(CHILD);
    expect(status.keys.filter((k) => k.keyType === 'KSK').map((k) => k.id)).toEqual([started.newKeyId]);
    expect(status.rollovers).toEqual([]);
    expect(new Set(status.dsRecords.map((d) => d.keyTag))).toEqual(
      new Set([String(fresh && dsValue(CHILD, fresh).split(' ')[0])]),
    );
    await driver.tick(); // no CDS any more: the parent's DS stays as it is
    expect(await parentDs()).toEqual([dsValue(CHILD, fresh)]);
  });

  it('never retires the old KSK while the parent has no DS for the new one', async () => {
    await service.set(CHILD, { enable: true }, 'test');
    await store.deleteZone(PARENT); // a parent elsewhere, whose servers cannot be found: no DS seen
    const started = await service.rotate(CHILD, 'test', 'KSK');
    for (const later of [IPUB, IPUB * 10, 365 * 86_400]) {
      now = T0 + later;
      await driver.tick();
      expect((await ksks()).map((k) => k.id)).toContain(started.oldKeyId);
      expect((await service.status(CHILD)).rollovers[0]).toMatchObject({ step: 'ready', completesAt: null });
    }
  });

  it('with CDS always: the first KSK bootstraps the parent DS at enable, and the CDS move to the new KSK', async () => {
    start({ ...POLICY, cdsPublish: 'always' });
    const enabled = await service.set(CHILD, { enable: true }, 'test');
    const first = (await store.listDnssecKeys(CHILD)).find((k) => k.flags === 257);
    if (!first) throw new Error('no KSK');
    expect(enabled.keys.find((k) => k.keyType === 'KSK')).toMatchObject({ cdsAt: iso(T0), cdsUntil: null });
    await driver.tick();
    expect(await parentDs()).toEqual([dsValue(CHILD, first)]);
    const started = await service.rotate(CHILD, 'test', 'KSK');
    now = T0 + IPUB;
    await driver.tick();
    const fresh = (await store.listDnssecKeys(CHILD)).find((k) => k.id === started.newKeyId);
    if (!fresh) throw new Error('no new KSK');
    expect(await parentDs()).toEqual([dsValue(CHILD, fresh)]);
    expect((await ksks()).find((k) => k.id === fresh.id)).toMatchObject({ dsSeenAt: iso(now), cdsUntil: null });
  });
});

describe('DNSSEC turned off', () => {
  it("removes the zone's DS from our parent zone (else the zone is bogus), and only its own", async () => {
    start({ ...POLICY, cdsPublish: 'always' });
    await service.set(CHILD, { enable: true }, 'test');
    await driver.tick();
    const first = (await store.listDnssecKeys(CHILD)).find((k) => k.flags === 257);
    if (!first) throw new Error('no KSK');
    const other = '12345 13 2 0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF';
    await store.change(PARENT, [
      { op: 'add', record: { name: CHILD, type: 'DS', ttl: 600, value: dsValue(CHILD, first, 4) } },
      { op: 'add', record: { name: CHILD, type: 'DS', ttl: 600, value: other } },
    ]);
    expect(await parentDs()).toHaveLength(3);
    const serial = (await store.getZone(PARENT))?.serial ?? 0;
    await service.set(CHILD, { enable: false }, 'test');
    expect(await parentDs()).toEqual([other]); // a DS of another key (someone else's) is not ours to remove
    expect((await store.getZone(PARENT))?.serial).toBeGreaterThan(serial);
    expect(await store.listDnssecKeys(CHILD)).toEqual([]);
  });

  it('leaves the parent alone when it has no DS of the zone', async () => {
    await service.set(CHILD, { enable: true }, 'test');
    const serial = (await store.getZone(PARENT))?.serial;
    await service.set(CHILD, { enable: false }, 'test');
    expect((await store.getZone(PARENT))?.serial).toBe(serial);
  });
});

describe('replicas', () => {
  it('two checking at once: the parent DS written once, the DS seen recorded once, neither fails', async () => {
    await service.set(CHILD, { enable: true }, 'test');
    const started = await service.rotate(CHILD, 'test', 'KSK');
    const logs: string[] = [];
    const log = { info: (_: object, msg: string) => logs.push(msg), warn: (_: object, msg: string) => logs.push(msg) };
    const serving = { served: async () => undefined };
    const options = { everyMs: 0, autoRollover: false, dsCheck: { servers: [], timeoutMs: 100 }, log };
    const replicas = [0, 1].map(() => {
      const other = new DnssecService(store, serving, feed, vault, new KeyedQueue(), POLICY, () => now);
      return new RolloverDriver(store, other, serving, feed, options, () => now);
    });
    now = T0 + IPUB;
    const before = (await store.getZone(CHILD))?.serial ?? 0;
    await Promise.all(replicas.map((r) => r.tick()));
    await Promise.all(replicas.map((r) => r.close()));
    expect(logs.filter((m) => /could not/.test(m))).toEqual([]);
    expect(logs.filter((m) => /the parent's DS for the new KSK is there/.test(m))).toHaveLength(1);
    expect(logs.filter((m) => /CDS changed its DS RRset/.test(m))).toHaveLength(1);
    expect((await store.getZone(CHILD))?.serial).toBe(before + 1);
    expect((await ksks()).find((k) => k.id === started.newKeyId)?.dsSeenAt).toBe(iso(now));
  });
});

describe('ds-seen by hand', () => {
  it('409 without a KSK rollover, before the new key is ready, for another key tag, and once seen', async () => {
    await service.set(CHILD, { enable: true }, 'test');
    await store.deleteZone(PARENT);
    await conflict(service.dsSeen(CHILD, 'test'), /no KSK rollover .* waits for the parent's DS/);
    const started = await service.rotate(CHILD, 'test', 'KSK');
    await conflict(service.dsSeen(CHILD, 'test'), new RegExp(escape(`come at ${iso(T0 + IPUB)}`)));
    now = T0 + IPUB + 5;
    const tag = (await ksks()).find((k) => k.id === started.newKeyId)?.keyTag ?? -1;
    await conflict(service.dsSeen(CHILD, 'test', (tag + 1) % 65_536), new RegExp(escape(`key tag ${tag}`)));
    const status = await service.dsSeen(CHILD, 'test', tag);
    // by hand the DS TTL is the setting's (DNSSEC_PARENT_DS_TTL_S)
    const retireAt = now + POLICY.parentDsTtl + POLICY.propagationDelay + POLICY.retireSafety;
    expect(status.rollovers[0]).toMatchObject({ keyType: 'KSK', step: 'retiring', completesAt: iso(retireAt) });
    await conflict(service.dsSeen(CHILD, 'test'), /was seen already/);
  });

  it('422 for a key tag that is none, naming keyTag', async () => {
    for (const bad of [-1, 65_536, 1.5, '12'])
      expect(() => service.prepareDsSeen(CHILD, 'test', bad)).toThrow(/keyTag must be an integer from 0 to 65535/);
  });
});

describe('rotate', () => {
  it('422 for a key type that is none; KSK and ZSK rollovers run at once, a second of a kind is a 409', async () => {
    for (const bad of ['XSK', 'ksk', 1])
      expect(() => service.prepareRotate(CHILD, 'test', bad)).toThrow(/keyType must be KSK or ZSK/);
    await service.set(CHILD, { enable: true }, 'test');
    const ksk = await service.rotate(CHILD, 'test', 'KSK');
    const zsk = await service.rotate(CHILD, 'test');
    expect([ksk.keyType, zsk.keyType]).toEqual(['KSK', 'ZSK']);
    expect((await service.status(CHILD)).rollovers.map((r) => r.keyType)).toEqual(['KSK', 'ZSK']);
    await conflict(service.rotate(CHILD, 'test', 'KSK'), /a KSK rollover is already in progress: the new KSK/);
    await conflict(service.set(CHILD, { enable: false }, 'test'), /during a KSK and a ZSK rollover/);
  });
});

describe('rollovers at a key lifetime', () => {
  it('start when expires_at comes (one per check), once, and only with DNSSEC_AUTO_ROLLOVER', async () => {
    const policy = { ...POLICY, zskLifetime: 86_400, kskLifetime: 2 * 86_400 };
    start(policy, false);
    await service.set(CHILD, { enable: true }, 'test');
    now = T0 + 3 * 86_400;
    await driver.tick();
    expect((await service.status(CHILD)).rollovers).toEqual([]); // off
    start(policy, true);
    now = T0 + 86_400 - 1;
    await driver.tick();
    expect((await service.status(CHILD)).rollovers).toEqual([]);
    now = T0 + 86_400;
    await driver.tick();
    expect((await service.status(CHILD)).rollovers.map((r) => r.keyType)).toEqual(['ZSK']);
    await driver.tick();
    expect((await store.listDnssecKeys(CHILD)).filter((k) => k.flags === 256)).toHaveLength(2);
    now = T0 + 2 * 86_400;
    await driver.tick();
    // the ZSK rollover is over by then (its new key lives on): the KSK's
    expect((await service.status(CHILD)).rollovers.map((r) => r.keyType)).toEqual(['KSK']);
  });
});
