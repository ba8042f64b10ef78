// @needs bind build
/**
 * Answer workers (DNS_WORKERS): processes that answer UDP queries from the engine's own socket. To know who
 * answered, the test blocks this process (the engine's primary) in a synchronous child process: whatever `dig` gets
 * then, a worker answered. With no worker the same question goes unanswered — the control that shows the test can
 * fail. Changes are served by the workers before the engine says they are served; an UPDATE a worker receives is
 * answered by the primary; a worker that dies is replaced; closing the engine ends them.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DnsClient } from '../../dns/client';
import { updateMessage } from '../../dns/client/messages';
import { signMessage } from '../../dns/tsig/tsig';
import { DnsEngine } from '../../dns/engine';
import { openZoneStore } from '../../dns/store';
import type { ZoneStore } from '../../dns/store/types';
import { parseKeySpec } from '../../dns/tsig/keyfile';
import { importZoneFile } from '../../dns/zone-files';
import { requireTool } from '../helpers/dns-peers';

const ZONE = 'workers.test';
const KEY = parseKeySpec('hmac-sha256:wk:c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MTI=');
const ZONE_TEXT = `$ORIGIN ${ZONE}.
$TTL 300
@ IN SOA ns1 hostmaster 2026112401 3600 600 86400 300
  IN NS ns1
ns1 IN A 192.0.2.1
www IN A 192.0.2.80
`;

/** A process that sends one datagram (hex) to 127.0.0.1:port and lingers half a second: the primary stays blocked. */
const SEND_AND_WAIT = `const s = require('node:dgram').createSocket('udp4');
s.send(Buffer.from(process.argv[1], 'hex'), Number(process.argv[2]), '127.0.0.1', () => setTimeout(() => s.close(), 500));`;

/** dig, run while this process (the primary) is blocked: only a worker can answer. */
function digBlocking(port: number, name: string, type = 'A'): string | null {
  const out = spawnSync('dig', ['@127.0.0.1', '-p', String(port), name, type, '+short', '+tries=1', '+time=2'], {
    encoding: 'utf8',
    timeout: 10_000,
  });
  return out.status === 0 ? out.stdout.trim() : null;
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

describe('DNS answer workers', () => {
  let dir: string;
  let store: ZoneStore;

  beforeAll(async () => {
    requireTool('dig');
    dir = mkdtempSync(join(tmpdir(), 'dns-workers-'));
    store = await openZoneStore({ dataDir: dir });
    await importZoneFile(store, ZONE, ZONE_TEXT);
  });

  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const start = (count: number): Promise<DnsEngine> =>
    DnsEngine.start({ store, host: '127.0.0.1', port: 0, keys: [KEY], workers: { count, store: { dataDir: dir } } });

  test('control: with no worker, a question asked while the engine is blocked is not answered', async () => {
    const engine = await start(0);
    try {
      expect(engine.workers).toBeUndefined();
      expect(digBlocking(engine.server!.port, `www.${ZONE}`)).toBeNull();
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

    test('a worker answers from the shared socket, from the same zone', () => {
      expect(engine.workers?.size).toBe(1);
      expect(digBlocking(port, `www.${ZONE}`)).toBe('192.0.2.80');
      expect(digBlocking(port, `nothing.${ZONE}`)).toBe('');
    });

    test('a change is served by the worker once the engine says it is served', async () => {
      const outcome = await store.change(ZONE, [
        { op: 'add', record: { name: `new.${ZONE}`, type: 'A', ttl: 300, value: '192.0.2.99' } },
        { op: 'deleteMatching', name: `www.${ZONE}`, type: 'A' },
      ]);
      await engine.served(ZONE, outcome.zone.serial);
      expect(digBlocking(port, `new.${ZONE}`)).toBe('192.0.2.99');
      expect(digBlocking(port, `www.${ZONE}`)).toBe('');
      expect(digBlocking(port, ZONE, 'SOA')).toContain(` ${outcome.zone.serial} `);
    });

    test('an UPDATE a worker receives is answered by the engine, and served by every process when answered', async () => {
      const before = engine.workers!.forwarded;
      const update = signMessage(
        updateMessage(ZONE, [{ op: 'add', name: `upd.${ZONE}`, type: 'A', ttl: 300, value: '192.0.2.55' }]),
        KEY,
      ).message;
      // sent by another process while this one (the engine) is blocked: the worker takes it and hands it over
      const sent = spawnSync(process.execPath, ['-e', SEND_AND_WAIT, update.toString('hex'), String(port)], {
        timeout: 10_000,
      });
      expect(sent.status).toBe(0);
      await until(() => engine.workers!.forwarded === before + 1, 5_000);
      const client = new DnsClient({ server: { host: '127.0.0.1', port }, timeoutMs: 2000 });
      for (let i = 0; i < 50 && !(await client.query(`upd.${ZONE}`, 'A')).answers.length; i++)
        await new Promise((r) => setTimeout(r, 50));
      expect(digBlocking(port, `upd.${ZONE}`)).toBe('192.0.2.55');
    });

    test('a worker that dies is replaced, and the new one answers', async () => {
      const [pid] = engine.workers!.pids;
      process.kill(pid!, 'SIGKILL');
      await until(() => engine.workers!.pids.length === 1 && engine.workers!.pids[0] !== pid, 15_000);
      // the new worker answers once it has the socket: give it the time to load the (small) zone
      let answer: string | null = null;
      for (let i = 0; i < 20 && answer !== '192.0.2.99'; i++) {
        answer = digBlocking(port, `new.${ZONE}`);
        if (answer !== '192.0.2.99') await new Promise((r) => setTimeout(r, 100));
      }
      expect(answer).toBe('192.0.2.99');
    });

    test('closing the engine ends its workers', async () => {
      const pids = engine.workers!.pids;
      expect(pids.length).toBe(1);
      await engine.close();
      await until(() => pids.every((p) => !isRunning(p)), 10_000);
    });
  });
});
