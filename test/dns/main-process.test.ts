// @needs bind build
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../gateway/host/paths';
import { freeDnsPort, freePort } from '../bench/processes';
import { dig, requireTool } from '../support/dns-peers';

/**
 * The case against the built program (`node dist/gateway/main.js`, as `npm start` runs it): two ordinary
 * UPDATEs of 1 000 A records each at many.example.test, then `dig +tcp many.example.test A`. Before, the answer
 * (66 000 bytes) threw out of the server and the process died, and again after every restart. Now: with the
 * default RRset limit the UPDATEs are refused and nothing is applied; with the limit off they apply, and the answer
 * comes with TC; the process stays up and answers over UDP and TCP, also after a restart with the records stored.
 */
const run = promisify(execFile);
const MAIN = join(PROJECT_ROOT, 'dist', 'gateway', 'main.js');
const SECRET = 'c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MTI=';
const dataDir = mkdtempSync(join(tmpdir(), 'onegraph-dns-main-'));
const keyFile = join(dataDir, 'keys.conf');

beforeAll(() => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run npm run build (npm test does it)`);
  requireTool('nsupdate');
  requireTool('dig');
  writeFileSync(keyFile, `key "ops" { algorithm hmac-sha256; secret "${SECRET}"; };\n`);
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

interface Running {
  child: ChildProcess;
  dns: { host: string; port: number };
  output(): string;
  alive(): boolean;
  stop(): Promise<number | null>;
}

async function start(env: Record<string, string> = {}): Promise<Running> {
  const dnsPort = await freeDnsPort();
  const child = spawn(process.execPath, [MAIN], {
    env: {
      ...process.env,
      PORT: String(await freePort()),
      DNS_PORT: String(dnsPort),
      DNS_API_PORT: '0',
      DATA_DIR: dataDir,
      TSIG_KEYFILE: keyFile,
      LOG_LEVEL: 'info',
      MARKET_CLOCK: '2026-11-20T18:00:00Z',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => {
    output += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    output += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // the gateway's line comes once everything listens, the DNS server (started first) included
  const up = () => output.includes('DNS server listening on') && output.includes('gateway listening at');
  for (let i = 0; i < 200 && child.exitCode === null && !up(); i++) await new Promise((r) => setTimeout(r, 100));
  if (!up()) {
    child.kill('SIGKILL');
    throw new Error(`the program did not start its DNS server:\n${output.slice(-3000)}`);
  }
  return {
    child,
    dns: { host: '127.0.0.1', port: dnsPort },
    output: () => output,
    alive: () => child.exitCode === null && child.signalCode === null,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** One UPDATE adding `count` A records at many.example.test (10.x.y.z from `first`), sent by nsupdate. */
async function addMany(
  server: { host: string; port: number },
  first: number,
  count: number,
): Promise<{ ok: boolean; out: string }> {
  const lines = Array.from({ length: count }, (_, k) => {
    const i = first + k;
    return `update add many.example.test 300 A 10.0.${i >> 8}.${i & 255}`;
  });
  const script = `server ${server.host} ${server.port}\nzone example.test\n${lines.join('\n')}\nsend\nanswer\n`;
  try {
    const child = run('nsupdate', ['-y', `hmac-sha256:ops:${SECRET}`, '-t', '30'], { timeout: 60_000 });
    child.child.stdin?.end(script);
    const { stdout, stderr } = await child;
    return { ok: true, out: stdout + stderr };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    return { ok: false, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

/** The process answers a normal query over UDP and over TCP. */
async function answersNormally(dns: { host: string; port: number }): Promise<void> {
  for (const transport of ['+notcp', '+tcp']) {
    const www = await dig(dns, [transport, 'www.example.test', 'A']);
    expect({ transport, status: www.status, answer: www.answer }).toEqual({
      transport,
      status: 'NOERROR',
      answer: ['www.example.test. 3600 IN A 192.0.2.10'],
    });
  }
}

test('with the default RRset limit (100) the UPDATEs are refused (SERVFAIL, as BIND), nothing applied, the process answers on', async () => {
  const p = await start();
  try {
    for (const first of [0, 1000]) {
      const res = await addMany(p.dns, first, 1000);
      expect(res.ok).toBe(false);
      expect(res.out).toMatch(/SERVFAIL/);
    }
    const many = await dig(p.dns, ['+tcp', 'many.example.test', 'A']);
    expect(many.status).toBe('NXDOMAIN');
    expect(p.output()).toMatch(/too many records: many\.example\.test A would hold 1000; the limit is 100/);
    await answersNormally(p.dns);
    expect(p.alive()).toBe(true);
  } finally {
    expect(await p.stop()).toBe(0);
  }
}, 120_000);

test('with the limit off the UPDATEs apply; dig +tcp gets all 2 000 (names compressed), UDP gets TC; the process answers on, and again after a restart', async () => {
  let p = await start({ DNS_MAX_RECORDS_PER_RRSET: '0' });
  try {
    expect((await addMany(p.dns, 0, 1000)).ok).toBe(true);
    expect((await addMany(p.dns, 1000, 1000)).ok).toBe(true);
    const many = await dig(p.dns, ['+tcp', 'many.example.test', 'A']);
    // (dig's YAML of an answer this large leaves the status out, for BIND's answer as for ours)
    expect({ tc: many.flags.includes('tc'), answers: many.answer.length }).toEqual({ tc: false, answers: 2000 });
    await answersNormally(p.dns);
    expect(p.alive()).toBe(true);
  } finally {
    expect(await p.stop()).toBe(0);
  }
  // the records are stored: a restart serves them the same way (under the default limit too: stored data stays)
  p = await start();
  try {
    for (let i = 0; i < 3; i++) {
      const tcp = i % 2 === 0;
      const many = await dig(p.dns, [tcp ? '+tcp' : '+notcp', '+ignore', 'many.example.test', 'A']);
      if (tcp)
        expect({ tc: many.flags.includes('tc'), answers: many.answer.length }).toEqual({ tc: false, answers: 2000 });
      else expect({ status: many.status, tc: many.flags.includes('tc') }).toEqual({ status: 'NOERROR', tc: true });
    }
    await answersNormally(p.dns);
    // the full AXFR still works: 2 000 + the demo zone's records, in many messages
    const { stdout } = await run(
      'dig',
      ['+noall', '+answer', '+stats', `@${p.dns.host}`, '-p', String(p.dns.port), 'example.test', 'AXFR'],
      { timeout: 30_000, maxBuffer: 32 * 1024 * 1024 },
    );
    expect(stdout.split('\n').filter((l) => /^many\.example\.test\.\s/.test(l))).toHaveLength(2000);
    expect(Number(/messages (\d+)/.exec(stdout)?.[1])).toBeGreaterThan(1);
    expect(p.alive()).toBe(true);
  } finally {
    expect(await p.stop()).toBe(0);
  }
}, 120_000);
