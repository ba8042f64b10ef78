/**
 * Signed zones kept on disk: a file read back gives the copy that was written (every record, signatures included,
 * and the chain), and is used only while it still matches what the store has and the clock allows — another serial,
 * incarnation, key set or policy, a key event since it was signed, signatures near expiry, or a damaged file: none.
 */
import type { SoaAnswer } from 'dns-packet';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_SIGNING_POLICY, signZone } from '../dnssec/zone-signer';
import { freshKeys } from '../dnssec/zone-keys';
import { ZoneBuilder, type ZoneData } from '../zone/zone-index';
import { keyFingerprint, SignedZoneFiles } from './signed-zone-files';

const NOW = 1_790_000_000;
const ZONE = 'kept.test';
const CREATED = '2026-11-01T00:00:00.000Z';
const soa: SoaAnswer = {
  name: ZONE,
  type: 'SOA',
  class: 'IN',
  ttl: 3600,
  data: {
    mname: 'ns1.kept.test',
    rname: 'hostmaster.kept.test',
    serial: 7,
    refresh: 1,
    retry: 2,
    expire: 3,
    minimum: 300,
  },
};

function unsigned(): ZoneData {
  const builder = new ZoneBuilder(ZONE, soa);
  builder.add({ name: ZONE, type: 'NS', ttl: 300, value: 'ns1.kept.test.' });
  for (let i = 0; i < 50; i++) builder.add({ name: `h${i}.${ZONE}`, type: 'A', ttl: 300, value: `192.0.2.${i}` });
  builder.add({ name: `ns1.${ZONE}`, type: 'A', ttl: 300, value: '192.0.2.53' });
  builder.add({ name: `sub.${ZONE}`, type: 'NS', ttl: 300, value: 'ns.elsewhere.test.' });
  return builder.finish();
}

/** Every record of a copy as JSON (binary fields as hex), sorted. */
function everything(zone: ZoneData): string[] {
  // binary as hex; a type bitmap's types in one order (the wire form sorts them)
  const hex = (k: string, v: unknown): unknown =>
    k === 'rrtypes' && Array.isArray(v)
      ? [...(v as string[])].sort()
      : v && typeof v === 'object' && (v as { type?: unknown }).type === 'Buffer'
        ? Buffer.from((v as { data: number[] }).data).toString('hex')
        : v;
  const out: string[] = [];
  for (const owner of [...zone.nodes.keys()].sort())
    for (const rrs of zone.nodes.get(owner)?.values() ?? [])
      for (const rr of rrs) out.push(JSON.stringify([rr.name.toLowerCase(), rr.type, rr.ttl, rr.data], hex));
  return out.sort();
}

let dir: string;
const keys = freshKeys(ZONE, 13, NOW - 100);
const signed = signZone(unsigned(), keys, DEFAULT_SIGNING_POLICY, NOW);
const mark = { serial: 7, createdAt: CREATED };
const warnings: string[] = [];
const log = { warn: (_obj: object, msg: string) => void warnings.push(msg) };

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'signed-files-'));
  warnings.length = 0;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const files = () => new SignedZoneFiles(dir, { write: true, log });

test('a file read back is the copy written: every record and signature, the chain, the signing times', async () => {
  const f = files();
  await f.write(ZONE, signed, CREATED);
  const back = await f.read(ZONE, mark, keys, DEFAULT_SIGNING_POLICY, NOW + 60);
  expect(back).toBeDefined();
  expect(everything(back as ZoneData)).toEqual(everything(signed));
  expect(back?.signing?.chain).toEqual(signed.signing?.chain);
  expect(back?.signing?.keys).toBe(keys);
  expect(back?.signing?.signedAt).toBe(NOW);
  expect(back?.signing?.expiresAt).toBe(signed.signing?.expiresAt);
  expect(back?.soa.data.serial).toBe(7);
  expect(readFileSync(f.fileOf(ZONE)).includes(Buffer.from('PRIVATE'))).toBe(false);
});

test('a copy read from a file is written again byte for byte (its nodes copied, not decoded)', async () => {
  const f = files();
  await f.write(ZONE, signed, CREATED);
  const first = readFileSync(f.fileOf(ZONE));
  const back = (await f.read(ZONE, mark, keys, DEFAULT_SIGNING_POLICY, NOW)) as ZoneData;
  await f.write(ZONE, back, CREATED);
  expect(readFileSync(f.fileOf(ZONE)).equals(first)).toBe(true);
});

describe('a file is not used when', () => {
  beforeEach(async () => {
    await files().write(ZONE, signed, CREATED);
  });
  const read = (m = mark, k = keys, policy = DEFAULT_SIGNING_POLICY, now = NOW + 60) =>
    files().read(ZONE, m, k, policy, now);

  test('the store has another serial, or another incarnation of the zone', async () => {
    expect(await read({ serial: 8, createdAt: CREATED })).toBeUndefined();
    expect(await read({ serial: 7, createdAt: '2026-11-02T00:00:00.000Z' })).toBeUndefined();
  });

  test('the keys or the policy differ', async () => {
    expect(await read(mark, freshKeys(ZONE, 13, NOW - 100))).toBeUndefined();
    expect(await read(mark, keys.slice(0, 1))).toBeUndefined();
    // the KSK's CDS window moved (a KSK rollover's step): CDS/CDNSKEY at the apex differ
    expect(
      await read(
        mark,
        keys.map((k) => (k.flags === 257 ? { ...k, cdsAt: NOW - 5 } : k)),
      ),
    ).toBeUndefined();
    expect(await read(mark, keys, { ...DEFAULT_SIGNING_POLICY, dnskeyTtl: 60 })).toBeUndefined();
    expect(keyFingerprint(keys, DEFAULT_SIGNING_POLICY)).not.toBe(
      keyFingerprint(
        [{ ...(keys[1] as (typeof keys)[number]), inactiveAt: NOW + 10 }, keys[0] as (typeof keys)[number]],
        DEFAULT_SIGNING_POLICY,
      ),
    );
  });

  test('a key event fell between its signing and now (a key started signing since)', async () => {
    const later = keys.map((k) => ({ ...k, inactiveAt: k.flags === 256 ? NOW + 30 : null }));
    await files().write(ZONE, signZone(unsigned(), later, DEFAULT_SIGNING_POLICY, NOW), CREATED);
    expect(await read(mark, later, DEFAULT_SIGNING_POLICY, NOW + 10)).toBeDefined();
    expect(await read(mark, later, DEFAULT_SIGNING_POLICY, NOW + 30)).toBeUndefined();
  });

  test('its signatures expire within the hour', async () => {
    const expires = signed.signing?.expiresAt ?? 0;
    expect(await read(mark, keys, DEFAULT_SIGNING_POLICY, expires - 3601)).toBeDefined();
    expect(await read(mark, keys, DEFAULT_SIGNING_POLICY, expires - 3599)).toBeUndefined();
  });

  test('it is damaged or cut short (logged), or is not a signed zone file', async () => {
    const file = files().fileOf(ZONE);
    const bytes = readFileSync(file);
    const altered = Buffer.from(bytes);
    const middle = Math.floor(bytes.length / 2);
    altered[middle] = (altered[middle] ?? 0) ^ 1;
    writeFileSync(file, altered);
    expect(await read()).toBeUndefined();
    expect(warnings.at(-1)).toMatch(/checksum does not match/);
    writeFileSync(file, bytes.subarray(0, bytes.length - 100));
    expect(await read()).toBeUndefined();
    writeFileSync(file, 'hello');
    expect(await read()).toBeUndefined();
    expect(warnings.at(-1)).toMatch(/not a signed zone file/);
    rmSync(file);
    expect(await read()).toBeUndefined();
  });
});

test('only a writer writes, removes and marks; names that are not plain stay inside the directory', async () => {
  const reader = new SignedZoneFiles(dir, { write: false });
  await reader.write(ZONE, signed, CREATED);
  reader.markBusy(ZONE);
  expect(existsSync(reader.fileOf(ZONE))).toBe(false);
  expect(existsSync(`${reader.fileOf(ZONE)}.busy`)).toBe(false);
  const writer = files();
  writer.markBusy(ZONE);
  expect(readFileSync(`${writer.fileOf(ZONE)}.busy`, 'utf8')).toBe(String(process.pid));
  writer.clearBusy(ZONE);
  expect(existsSync(`${writer.fileOf(ZONE)}.busy`)).toBe(false);
  await writer.write(ZONE, signed, CREATED);
  await writer.remove(ZONE);
  expect(existsSync(writer.fileOf(ZONE))).toBe(false);
  expect(writer.fileOf('../../etc')).toBe(join(dir, `%${Buffer.from('../../etc').toString('hex')}.signed`));
  expect(writer.fileOf('')).toBe(join(dir, '@.signed'));
});

test('a worker waits while the engine (its parent) marks the zone busy, and not for anyone else', async () => {
  const writer = files();
  writer.markBusy(ZONE);
  const started = Date.now();
  await writer.waitForEngine(ZONE, process.pid + 1); // another process's marker: no wait
  expect(Date.now() - started).toBeLessThan(1000);
  const waiting = writer.waitForEngine(ZONE, process.pid);
  let done = false;
  void waiting.then(() => (done = true));
  await new Promise((r) => setTimeout(r, 200));
  expect(done).toBe(false);
  writer.clearBusy(ZONE);
  await waiting;
  expect(done).toBe(true);
});
