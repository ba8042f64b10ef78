// @needs bind build
/**
 * Signed zones kept on disk (dns/engine/signed-zone-files.ts), seen over the wire. ECDSA signatures are made with a
 * random nonce, so two signings of one record never give the same bytes: a signature that is the same after a
 * restart, or from an answer worker, was read from the file, not made again.
 * - a restart serves the zone from its file: the AXFR (signatures included) is the one before, and verifies;
 * - a change made while the server was down is not served from the old file: the zone is signed afresh;
 * - a change made while running is in the file once the engine closes, so the next start reads it;
 * - a damaged file is ignored (logged) and the zone signed afresh;
 * - an answer worker reads the file the engine wrote instead of signing a copy of its own (and without files, the
 *   control: it signs its own, so the test can fail).
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as packet from 'dns-packet';
import { algorithmByName } from '../../dns/dnssec/algorithms';
import { KeyVault } from '../../dns/dnssec/key-vault';
import { KSK_FLAGS, ZSK_FLAGS } from '../../dns/dnssec/keys';
import { newStoredKey } from '../../dns/dnssec/zone-signing';
import { DnsEngine } from '../../dns/engine/engine';
import { openZoneStore } from '../../dns/store';
import type { ZoneStore } from '../../dns/store/types';
import { importZoneFile } from '../../dns/zonefile/zone-files';
import { axfrText, verifyZoneWithPeers } from '../support/dnssec-peers';

const HOST = '127.0.0.1';
const ZONE = 'kept.test';
const names = Array.from({ length: 300 }, (_, i) => `h${i} IN A 192.0.2.${i % 250}`).join('\n');
const ZONE_TEXT = `$ORIGIN ${ZONE}.
$TTL 300
@ IN SOA ns1 hostmaster 1 3600 600 86400 300
  IN NS ns1
ns1 IN A 192.0.2.1
www IN A 192.0.2.80
sub IN NS ns.elsewhere.test.
${names}
`;

let dir: string;
let store: ZoneStore;
const vault = KeyVault.of(randomBytes(32));
const warnings: string[] = [];
const log = {
  info: () => undefined,
  warn: (_obj: object, msg: string) => void warnings.push(msg),
};

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'signed-kept-'));
  store = await openZoneStore({ dataDir: dir });
  await importZoneFile(store, ZONE, ZONE_TEXT);
  const algorithm = algorithmByName('ECDSAP256SHA256');
  if (!algorithm) throw new Error('no ECDSAP256SHA256');
  const now = Math.floor(Date.now() / 1000) - 60;
  await store.changeDnssecKeys(ZONE, {
    add: [KSK_FLAGS, ZSK_FLAGS].map((flags) =>
      newStoredKey(ZONE, algorithm, flags, vault, { publishAt: now, activateAt: now, lifetime: 86_400 }),
    ),
  });
  warnings.length = 0;
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((e) => e.close()));
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const keptDir = () => join(dir, 'signed-zones');
/** Engines started by the test running: closed after it whatever happens (close twice is once). */
const running: DnsEngine[] = [];
const start = async (options: { kept?: boolean; workers?: number } = {}): Promise<DnsEngine> => {
  const engine = await startEngine(options);
  running.push(engine);
  return engine;
};
const startEngine = (options: { kept?: boolean; workers?: number }) =>
  DnsEngine.start({
    store,
    host: HOST,
    port: 0,
    log,
    dnssec: { vault, ...(options.kept === false ? {} : { keptDir: keptDir() }) },
    ...(options.workers ? { workers: { count: options.workers, store: { dataDir: dir } }, answerThread: false } : {}),
  });
/** The zone transferred with BIND's dig: its records, whitespace normalised (case kept: signatures are base64). */
async function axfr(engine: DnsEngine): Promise<string[]> {
  const text = await axfrText({ host: HOST, port: engine.server?.port ?? 0 }, ZONE);
  return text
    .split('\n')
    .map((l) => l.replace(/\s+/g, ' ').trim())
    .filter((l) => l && !l.startsWith(';'));
}
/** The signature (base64) of the RRSIG over `name`'s A records, from an AXFR. */
const signatureOf = (lines: string[], name: string): string | undefined =>
  lines
    .find((l) => l.startsWith(`${name}.${ZONE}. `) && / RRSIG A /.test(l))
    ?.split(' ')
    .slice(12)
    .join('');

test('a restart serves the signed zone from its file: the same signatures, and it verifies', async () => {
  let engine = await start();
  const before = await axfr(engine);
  await engine.close();
  const file = join(keptDir(), `${ZONE}.signed`);
  expect(existsSync(file)).toBe(true);
  expect(readFileSync(file).includes(Buffer.from('PRIVATE'))).toBe(false);
  engine = await start();
  try {
    const after = await axfr(engine);
    expect(after).toEqual(before);
    expect(signatureOf(after, 'www')).toBeDefined();
    const verdicts = await verifyZoneWithPeers(ZONE, after.join('\n'));
    expect(verdicts.filter((v) => !v.ok).map((v) => v.output)).toEqual([]);
    expect(existsSync(`${file}.busy`)).toBe(false);
  } finally {
    await engine.close();
  }
}, 120_000);

test('an NSEC3 zone too: a restart serves its NSEC3 chain from the file, and a switch to NSEC is not served from it', async () => {
  await store.changeDnssecKeys(ZONE, { denial: { denial: 'NSEC3', optOut: false } });
  let engine = await start();
  const before = await axfr(engine);
  expect(before.some((l) => / NSEC3PARAM /.test(l))).toBe(true);
  await engine.close();
  engine = await start();
  const after = await axfr(engine);
  expect(after).toEqual(before);
  expect((await verifyZoneWithPeers(ZONE, after.join('\n'))).filter((v) => !v.ok).map((v) => v.output)).toEqual([]);
  await engine.close();
  await store.changeDnssecKeys(ZONE, { denial: { denial: 'NSEC', optOut: false } });
  engine = await start();
  const nsec = await axfr(engine);
  expect(nsec.some((l) => / NSEC3/.test(l))).toBe(false);
  expect(nsec.some((l) => / NSEC /.test(l))).toBe(true);
}, 120_000);

test('without files (the control), a restart signs afresh: other signatures', async () => {
  let engine = await start({ kept: false });
  const before = await axfr(engine);
  await engine.close();
  engine = await start({ kept: false });
  try {
    expect(signatureOf(await axfr(engine), 'www')).not.toEqual(signatureOf(before, 'www'));
  } finally {
    await engine.close();
  }
}, 120_000);

test('a change made while the server was down is served: the old file is not used', async () => {
  let engine = await start();
  const before = await axfr(engine);
  await engine.close();
  await store.change(ZONE, [{ op: 'add', record: { name: `new.${ZONE}`, type: 'A', ttl: 300, value: '192.0.2.200' } }]);
  engine = await start();
  try {
    const after = await axfr(engine);
    expect(after.some((l) => l.startsWith(`new.${ZONE}. 300 IN A 192.0.2.200`))).toBe(true);
    expect(signatureOf(after, 'www')).not.toEqual(signatureOf(before, 'www'));
    const verdicts = await verifyZoneWithPeers(ZONE, after.join('\n'));
    expect(verdicts.filter((v) => !v.ok).map((v) => v.output)).toEqual([]);
  } finally {
    await engine.close();
  }
}, 120_000);

test('a change made while running is in the file when the engine closes; the next start reads it', async () => {
  let engine = await start();
  const outcome = await store.change(ZONE, [
    { op: 'add', record: { name: `live.${ZONE}`, type: 'A', ttl: 300, value: '192.0.2.201' } },
  ]);
  await engine.served(ZONE, outcome.zone.serial);
  const before = await axfr(engine);
  expect(before.some((l) => l.startsWith(`live.${ZONE}. 300 IN A`))).toBe(true);
  await engine.close();
  engine = await start();
  try {
    const after = await axfr(engine);
    expect(after).toEqual(before);
    // a change on the copy read from the file signs on: the zone still verifies
    const removed = await store.change(ZONE, [{ op: 'deleteMatching', name: `h7.${ZONE}`, type: 'A' }]);
    await engine.served(ZONE, removed.zone.serial);
    const changed = await axfr(engine);
    expect(changed.some((l) => l.startsWith(`h7.${ZONE}.`))).toBe(false);
    const verdicts = await verifyZoneWithPeers(ZONE, changed.join('\n'));
    expect(verdicts.filter((v) => !v.ok).map((v) => v.output)).toEqual([]);
  } finally {
    await engine.close();
  }
}, 120_000);

test('a damaged file is ignored, logged, and the zone signed afresh', async () => {
  let engine = await start();
  const before = await axfr(engine);
  await engine.close();
  const file = join(keptDir(), `${ZONE}.signed`);
  const bytes = readFileSync(file);
  const middle = Math.floor(bytes.length / 2);
  bytes[middle] = (bytes[middle] ?? 0) ^ 0xff;
  writeFileSync(file, bytes);
  engine = await start();
  try {
    const after = await axfr(engine);
    expect(signatureOf(after, 'www')).not.toEqual(signatureOf(before, 'www'));
    expect(warnings.some((w) => /signed zone file ignored: its checksum does not match/.test(w))).toBe(true);
  } finally {
    await engine.close();
  }
}, 120_000);

/** Asks `www A` with DO from many source ports while this process (the engine, answering on its loop) is blocked. */
function workerSignatures(port: number): string[] {
  const query = packet.encode({
    type: 'query',
    id: 9,
    questions: [{ name: `www.${ZONE}`, type: 'A', class: 'IN' }],
    additionals: [{ name: '.', type: 'OPT', udpPayloadSize: 1232, flags: packet.DNSSEC_OK } as packet.Answer],
  });
  const script = `const dgram = require('node:dgram'); const out = [];
const socks = Array.from({ length: 16 }, () => { const s = dgram.createSocket('udp4');
  s.on('message', (m) => out.push(m.toString('hex'))); s.send(Buffer.from(process.argv[1], 'hex'), Number(process.argv[2]), '127.0.0.1'); return s; });
setTimeout(() => { for (const s of socks) s.close(); console.log(out.join('\\n')); }, 1000);`;
  const run = spawnSync(process.execPath, ['-e', script, query.toString('hex'), String(port)], {
    encoding: 'utf8',
    timeout: 10_000,
  });
  return run.stdout
    .split('\n')
    .filter(Boolean)
    .flatMap((hex) => packet.decode(Buffer.from(hex, 'hex')).answers ?? [])
    .filter((a) => a.type === 'RRSIG')
    .map((a) => (a.data as { signature: Buffer }).signature.toString('hex'));
}

describe.each([
  { kept: true, what: 'reads the engine’s file: the engine’s own signatures' },
  { kept: false, what: 'without files (the control) signs its own copy: other signatures' },
])('an answer worker $what', ({ kept }) => {
  test('www A with DO', async () => {
    const engine = await start({ kept, workers: 1 });
    try {
      const own = signatureOf(await axfr(engine), 'www')
        ?.split(' ')
        .at(-1);
      const fromWorker = workerSignatures(engine.server?.port ?? 0);
      expect(fromWorker.length).toBeGreaterThan(0);
      const ownHex = Buffer.from(own ?? '', 'base64').toString('hex');
      if (kept) expect(new Set(fromWorker)).toEqual(new Set([ownHex]));
      else expect(fromWorker).not.toContain(ownHex);
    } finally {
      await engine.close();
    }
  }, 120_000);
});
