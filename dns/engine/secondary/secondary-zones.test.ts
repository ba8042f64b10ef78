import { mkdtempSync, readFileSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DnsClient, DnsClientError } from '../../client';
import { sendNotify } from '../../server';
import { openSqliteStore, type ZoneStore } from '../../store';
import { parseKeySpec } from '../../tsig';
import { importZoneFile } from '../../zonefile';
import { DnsEngine } from '../engine';

/**
 * Two engines on loopback, one the primary (a zone of its store, transfers only with the key) and one its secondary
 * (secondary-zones.ts): who may NOTIFY, what an UPDATE gets, the copy on disk, and expiry (SERVFAIL, as BIND).
 * Timers come from the zone's SOA, so the expiry case takes its expire time (2 s), waited for as a condition.
 */
const ZONE = 'sec.test';
const OTHER = 'other.test';
const XFER = parseKeySpec('hmac-sha256:xfer:eGZyLXNlY29uZGFyeS10ZXN0LWtleS1zZWNyZXQtMTIzNA==');
const STRANGER = parseKeySpec('hmac-sha256:stranger:c3RyYW5nZXIta2V5LXNlY3JldC1zdHJhbmdlci0xMjM0');
const zoneText = (zone: string) => `$ORIGIN ${zone}.
$TTL 300
@    IN SOA ns1.${zone}. hostmaster.${zone}. ( 10 1 1 2 60 )
     IN NS  ns1.${zone}.
ns1  IN A   192.0.2.1
www  IN A   192.0.2.2
`;

let primaryStore: ZoneStore;
let otherStore: ZoneStore;
let secondaryStore: ZoneStore;
let primary: DnsEngine | undefined;
let other: DnsEngine;
let secondary: DnsEngine;
let primaryPort: number;
const dir = mkdtempSync(join(tmpdir(), 'secondary-zones-'));

const startPrimary = (port: number) =>
  DnsEngine.start({
    store: primaryStore,
    host: '127.0.0.1',
    port,
    answerThread: false,
    keys: [XFER],
    access: { transferKeys: { [ZONE]: ['xfer'] }, transferFromLoopback: false },
  });

const at = (port: number) => ({ host: '127.0.0.1', port });
const ours = () => new DnsClient({ server: at(secondary.server!.port), timeoutMs: 1000 });

async function until<T>(what: string, check: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const serialServed = async (zone: string): Promise<number | undefined> => {
  const answer = await ours().query(zone, 'SOA');
  const soa = answer.answers.find((r) => r.type === 'SOA');
  return answer.rcode === 0 && soa ? Number(soa.value.split(' ')[2]) : undefined;
};

beforeAll(async () => {
  primaryStore = await openSqliteStore({ file: ':memory:' });
  await importZoneFile(primaryStore, ZONE, zoneText(ZONE));
  otherStore = await openSqliteStore({ file: ':memory:' });
  await importZoneFile(otherStore, OTHER, zoneText(OTHER));
  secondaryStore = await openSqliteStore({ file: ':memory:' });
  primary = await startPrimary(0);
  primaryPort = primary.server!.port;
  // a primary on another loopback address: NOTIFY from 127.0.0.1 is not from it
  other = await DnsEngine.start({ store: otherStore, host: '127.0.0.2', port: 0, answerThread: false });
  secondary = await DnsEngine.start({
    store: secondaryStore,
    host: '127.0.0.1',
    port: 0,
    answerThread: false,
    keys: [XFER, STRANGER],
    secondary: {
      zones: [
        { zone: ZONE, primary: at(primaryPort), key: 'xfer' },
        { zone: OTHER, primary: { host: '127.0.0.2', port: other.server!.port } },
      ],
      dir,
      timeoutMs: 500,
    },
  });
});

afterAll(async () => {
  await secondary?.close();
  await primary?.close();
  await other?.close();
  for (const s of [primaryStore, otherStore, secondaryStore]) await s?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('both zones are transferred (one with the key the primary insists on) and answered authoritatively', async () => {
  expect(await until('sec.test served', () => serialServed(ZONE))).toBe(10);
  expect(await until('other.test served', () => serialServed(OTHER))).toBe(10);
  const www = await ours().query(`www.${ZONE}`, 'A');
  expect(www.answers.map((r) => r.value)).toEqual(['192.0.2.2']);
  expect(www.raw.readUInt16BE(2) & 0x400).toBe(0x400); // AA
  expect(readFileSync(join(dir, `${ZONE}.zone`), 'utf8')).toMatch(/www\s+IN\s+A\s+192\.0\.2\.2/);
});

test('NOTIFY is acknowledged only from the primary and with its key; the change is then served', async () => {
  await until('sec.test served', () => serialServed(ZONE));
  await new DnsClient({ server: at(primaryPort), key: XFER }).update(ZONE, [
    { op: 'add', name: `new.${ZONE}`, type: 'A', ttl: 60, value: '192.0.2.50' },
  ]);
  const serial = (await primaryStore.getZone(ZONE))!.serial;
  const target = at(secondary.server!.port);
  expect(await sendNotify(ZONE, target, { tries: 1 })).toBe(false); // unsigned
  expect(await sendNotify(ZONE, target, { tries: 1, key: STRANGER })).toBe(false); // another key
  expect(await sendNotify(OTHER, target, { tries: 1 })).toBe(false); // not from 127.0.0.2
  const started = Date.now();
  expect(await sendNotify(ZONE, target, { tries: 1, key: XFER })).toBe(true);
  await until('the change served', async () => ((await serialServed(ZONE)) === serial ? true : undefined), 5000);
  // the target is 1 s (tens of ms here); the refresh timer would take the SOA's 1 s at least: a generous backstop
  expect(Date.now() - started).toBeLessThan(5000);
  const added = await ours().query(`new.${ZONE}`, 'A');
  expect(added.answers.map((r) => r.value)).toEqual(['192.0.2.50']);
});

test('an UPDATE of a secondary zone is REFUSED, though signed with a key the server takes', async () => {
  const err = await new DnsClient({ server: at(secondary.server!.port), key: XFER })
    .update(ZONE, [{ op: 'add', name: `x.${ZONE}`, type: 'A', ttl: 60, value: '192.0.2.9' }])
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(DnsClientError);
  expect((err as DnsClientError).rcode).toBe('REFUSED');
});

test('past its expire time without the primary, the zone answers SERVFAIL; back once the primary is', async () => {
  const before = await until('sec.test served', () => serialServed(ZONE));
  await primary!.close();
  primary = undefined;
  const down = Date.now();
  await until('SERVFAIL', async () => ((await ours().query(`www.${ZONE}`, 'A')).rcode === 2 ? true : undefined), 5000);
  // not before expire (2 s) after the last successful refresh, which was at most the refresh time (1 s) and a
  // query's time before
  expect(Date.now() - down).toBeGreaterThanOrEqual(900);
  const status = secondary.secondaryStatus().find((s) => s.zone === ZONE);
  expect(status).toMatchObject({ expired: true, serial: before });
  expect(status?.error).toMatch(/127\.0\.0\.1/);
  const transfer = await new DnsClient({ server: at(secondary.server!.port) }).transfer(ZONE).catch((e: unknown) => e);
  expect((transfer as DnsClientError).rcode).toBe('SERVFAIL');
  expect((await ours().query(ZONE, 'IXFR')).rcode).toBe(2); // over UDP: no SOA of the expired copy either
  primary = await startPrimary(primaryPort);
  expect(await until('served again', () => serialServed(ZONE), 5000)).toBe(before);
  expect(secondary.secondaryStatus().find((s) => s.zone === ZONE)).toMatchObject({ expired: false });
});

test('a restart with the primary down serves the copy on disk, unless the file says it expired meanwhile', async () => {
  await until('sec.test served', () => serialServed(ZONE));
  await secondary.close();
  await primary!.close();
  primary = undefined;
  const restart = () =>
    DnsEngine.start({
      store: secondaryStore,
      host: '127.0.0.1',
      port: 0,
      answerThread: false,
      secondary: { zones: [{ zone: ZONE, primary: at(primaryPort) }], dir, timeoutMs: 500 },
    });
  // known current a moment ago (the file's time): answered at once from the copy
  secondary = await restart();
  expect((await ours().query(`new.${ZONE}`, 'A')).answers.map((r) => r.value)).toEqual(['192.0.2.50']);
  await secondary.close();
  // last known current longer ago than the SOA's expire (2 s): SERVFAIL from the start, as BIND
  const past = new Date(Date.now() - 60_000);
  utimesSync(join(dir, `${ZONE}.zone`), past, past);
  secondary = await restart();
  expect((await ours().query(`new.${ZONE}`, 'A')).rcode).toBe(2);
  expect(secondary.secondaryStatus()[0]).toMatchObject({ zone: ZONE, expired: true });
});
