// @needs bind build
/**
 * Answer workers (DNS_WORKERS): processes that answer UDP queries on the engine's port — each with a socket of its
 * own in the port's SO_REUSEPORT group (batched UDP, the addon), or sharing the engine's dgram socket
 * (DNS_UDP_BATCH=off). To know who answered, the test blocks this process (the engine's primary) in a synchronous
 * child process that asks from 32 source ports at once: whatever it gets back, a worker answered. With no worker
 * the same questions go unanswered — the control that shows the test can fail. Changes are served by the workers
 * before the engine says they are served; an UPDATE a worker receives is answered by the primary; a worker that
 * dies is replaced; closing the engine ends them.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as packet from 'dns-packet';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DnsClient } from '../../dns/client';
import { queryMessage, updateMessage } from '../../dns/client/messages';
import { decodeResponse } from '../../dns/client/records';
import { algorithmByName } from '../../dns/dnssec/algorithms';
import { KeyVault } from '../../dns/dnssec/key-vault';
import { dnskeyRdata, keyTag, KSK_FLAGS, ZSK_FLAGS } from '../../dns/dnssec/keys';
import { newStoredKey } from '../../dns/dnssec/zone-signing';
import { DnsEngine } from '../../dns/engine/engine';
import { openZoneStore } from '../../dns/store';
import type { ZoneStore } from '../../dns/store/types';
import { parseKeySpec } from '../../dns/tsig/keyfile';
import { signMessage } from '../../dns/tsig/tsig';
import { importZoneFile } from '../../dns/zonefile/zone-files';
import { udpBatchAddon } from '../../dns/server/transport/udp-batch';

const ZONE = 'workers.test';
const KEY = parseKeySpec('hmac-sha256:wk:c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MTI=');
const ZONE_TEXT = `$ORIGIN ${ZONE}.
$TTL 300
@ IN SOA ns1 hostmaster 2026112401 3600 600 86400 300
  IN NS ns1
ns1 IN A 192.0.2.1
www IN A 192.0.2.80
`;
const SOURCES = 32;

/**
 * A process that sends one datagram (hex) to 127.0.0.1:port from SOURCES sockets (source ports: the kernel spreads
 * a SO_REUSEPORT group's traffic by them), waits a second, and prints the answers (hex, one per line).
 */
const ASK_FROM_MANY_PORTS = `const dgram = require('node:dgram');
const [hex, port] = process.argv.slice(1);
const answers = [];
const sockets = Array.from({ length: ${SOURCES} }, () => {
  const s = dgram.createSocket('udp4');
  s.on('message', (m) => answers.push(m.toString('hex')));
  s.send(Buffer.from(hex, 'hex'), Number(port), '127.0.0.1');
  return s;
});
setTimeout(() => { for (const s of sockets) s.close(); console.log(answers.join('\\n')); }, 1000);`;

/** Sends `message` from many ports while this process (the primary) is blocked: the answers only workers gave. */
function askWhileBlocked(port: number, message: Buffer): Buffer[] {
  const out = spawnSync(process.execPath, ['-e', ASK_FROM_MANY_PORTS, message.toString('hex'), String(port)], {
    encoding: 'utf8',
    timeout: 10_000,
  });
  if (out.status !== 0) throw new Error(`the asking process failed: ${out.stderr}`);
  return out.stdout
    .split('\n')
    .filter(Boolean)
    .map((h) => Buffer.from(h, 'hex'));
}

/** The A records of the answers workers gave to `name` A while the primary was blocked (one list per answer). */
function workerAnswers(port: number, name: string, type = 'A'): string[][] {
  return askWhileBlocked(port, queryMessage(name, type)).map((raw) =>
    decodeResponse(raw)
      .answers.filter((a) => a.type === type)
      .map((a) => a.value),
  );
}

const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(condition: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.each([
  { mode: 'batched UDP (SO_REUSEPORT group)', batch: 'on' },
  { mode: 'dgram (one shared socket)', batch: 'off' },
])('DNS answer workers, $mode', ({ batch }) => {
  let dir: string;
  let store: ZoneStore;
  beforeAll(async () => {
    if (batch === 'on' && !udpBatchAddon())
      throw new Error('the udp-batch addon is not built (npm run build): batched UDP cannot be tested');
    dir = mkdtempSync(join(tmpdir(), 'dns-workers-'));
    store = await openZoneStore({ dataDir: dir });
    await importZoneFile(store, ZONE, ZONE_TEXT);
  });

  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const start = (count: number): Promise<DnsEngine> =>
    DnsEngine.start({
      store,
      host: '127.0.0.1',
      port: 0,
      keys: [KEY],
      udpBatch: batch === 'on',
      workers: { count, store: { dataDir: dir } },
      // 32 identical questions at once from one address, every answer checked: response rate limiting (on by
      // default) would rightly slip some of them (test/dns/rrl.test.ts covers it with workers)
      rrl: false,
      // the engine answers on this thread, so that blocking it shows what the worker processes answer alone
      answerThread: false,
    });

  test('control: with no worker, questions asked while the engine is blocked are not answered', async () => {
    const engine = await start(0);
    try {
      expect(engine.workers).toBeUndefined();
      expect(workerAnswers(engine.server!.port, `www.${ZONE}`)).toEqual([]);
    } finally {
      await engine.close();
    }
  });

  describe('with one worker', () => {
    let engine: DnsEngine;
    let port: number;

    beforeAll(async () => {
      engine = await start(1);
      port = engine.server!.port;
    });
    afterAll(async () => {
      await engine.close();
    });

    test('the worker answers on the port, from the same zone', () => {
      expect(engine.workers?.size).toBe(1);
      const answers = workerAnswers(port, `www.${ZONE}`);
      expect(answers.length).toBeGreaterThan(0);
      for (const a of answers) expect(a).toEqual(['192.0.2.80']);
    });

    test('a change is served by the worker once the engine says it is served', async () => {
      const outcome = await store.change(ZONE, [
        { op: 'add', record: { name: `new.${ZONE}`, type: 'A', ttl: 300, value: '192.0.2.99' } },
        { op: 'deleteMatching', name: `www.${ZONE}`, type: 'A' },
      ]);
      await engine.served(ZONE, outcome.zone.serial);
      const added = workerAnswers(port, `new.${ZONE}`);
      expect(added.length).toBeGreaterThan(0);
      for (const a of added) expect(a).toEqual(['192.0.2.99']);
      const removed = workerAnswers(port, `www.${ZONE}`);
      expect(removed.length).toBeGreaterThan(0);
      for (const a of removed) expect(a).toEqual([]);
    });

    test('an UPDATE a worker receives is answered by the engine, and served by every process when answered', async () => {
      const before = engine.workers!.forwarded;
      const update = signMessage(
        updateMessage(ZONE, [{ op: 'add', name: `upd.${ZONE}`, type: 'A', ttl: 300, value: '192.0.2.55' }]),
        KEY,
      ).message;
      // what reaches the worker while the engine is blocked is handed over (adding the same record again is no change)
      askWhileBlocked(port, update);
      await until(() => engine.workers!.forwarded > before, 5_000);
      const client = new DnsClient({ server: { host: '127.0.0.1', port }, timeoutMs: 2000 });
      for (let i = 0; i < 50 && !(await client.query(`upd.${ZONE}`, 'A')).answers.length; i++)
        await new Promise((r) => setTimeout(r, 50));
      const answers = workerAnswers(port, `upd.${ZONE}`);
      expect(answers.length).toBeGreaterThan(0);
      for (const a of answers) expect(a).toEqual(['192.0.2.55']);
    });

    test('a worker that dies is replaced, and the new one answers', async () => {
      const [pid] = engine.workers!.pids;
      process.kill(pid!, 'SIGKILL');
      await until(() => engine.workers!.pids.length === 1 && engine.workers!.pids[0] !== pid, 15_000);
      // the new worker answers once it has loaded the (small) zone and taken its socket
      let answers: string[][] = [];
      for (let i = 0; i < 20 && answers.length === 0; i++) {
        answers = workerAnswers(port, `new.${ZONE}`);
        if (answers.length === 0) await new Promise((r) => setTimeout(r, 100));
      }
      expect(answers.length).toBeGreaterThan(0);
      for (const a of answers) expect(a).toEqual(['192.0.2.99']);
    });

    test('closing the engine ends its workers', async () => {
      const pids = engine.workers!.pids;
      expect(pids.length).toBe(1);
      await engine.close();
      await until(() => pids.every((p) => !isRunning(p)), 10_000);
    });
  });
});

describe('a signed zone (DNSSEC)', () => {
  test('the worker signs it with the same keys: its DO answers carry RRSIGs by the zone ZSK and NSEC proofs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dns-workers-signed-'));
    const store = await openZoneStore({ dataDir: dir });
    const vault = KeyVault.of(randomBytes(32));
    let engine: DnsEngine | undefined;
    try {
      await importZoneFile(store, ZONE, ZONE_TEXT);
      const algorithm = algorithmByName('ECDSAP256SHA256');
      if (!algorithm) throw new Error('no ECDSAP256SHA256');
      const now = Math.floor(Date.now() / 1000) - 60;
      const keys = [KSK_FLAGS, ZSK_FLAGS].map((flags) =>
        newStoredKey(ZONE, algorithm, flags, vault, { publishAt: now, activateAt: now, lifetime: 86_400 }),
      );
      await store.changeDnssecKeys(ZONE, { add: keys });
      engine = await DnsEngine.start({
        store,
        host: '127.0.0.1',
        port: 0,
        workers: { count: 1, store: { dataDir: dir } },
        dnssec: { vault },
        // 32 identical questions at once from one address, every answer checked: RRL would rightly slip some
        rrl: false,
      });
      const zsk = keys.find((k) => k.flags === ZSK_FLAGS);
      const zskTag = keyTag(dnskeyRdata(ZSK_FLAGS, 13, Buffer.from(zsk?.publicKey ?? '', 'base64')));
      const ask = (name: string) =>
        askWhileBlocked(
          engine?.server?.port ?? 0,
          packet.encode({
            type: 'query',
            id: 7,
            questions: [{ name, type: 'A', class: 'IN' }],
            additionals: [
              {
                name: '.',
                type: 'OPT',
                udpPayloadSize: 1232,
                extendedRcode: 0,
                ednsVersion: 0,
                flags: packet.DNSSEC_OK,
                flag_do: true,
                options: [],
              },
            ],
          }),
        ).map((raw) => packet.decode(raw));
      const positive = ask(`www.${ZONE}`);
      expect(positive.length).toBeGreaterThan(0);
      for (const answer of positive) {
        const sigs = (answer.answers ?? []).filter((a) => a.type === 'RRSIG');
        expect(sigs.map((s) => (s.data as { keyTag: number }).keyTag)).toEqual([zskTag]);
      }
      const negative = ask(`none.${ZONE}`);
      expect(negative.length).toBeGreaterThan(0);
      for (const answer of negative) expect((answer.authorities ?? []).map((a) => a.type)).toContain('NSEC');
    } finally {
      await engine?.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
