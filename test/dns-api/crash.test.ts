// @needs build
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../gateway/host/paths';
import { freePort } from '../bench/processes';
import { TEST_ADMIN_PASSWORD } from '../support/system';
import { freeDnsPort } from '../bench/processes';
import { call, login } from './api';

/**
 * A crash during a large batch leaves the zone as before: the built program (`node dist/gateway/main.js`, as
 * `npm start` runs it) is killed with SIGKILL while a batch of 1 000 creates is in flight, at several points of its
 * course; after each restart the batch's records are either all there or none, and all there whenever the batch
 * had been answered. Where the kill lands does not matter to the assertions, only to how much of the path is covered.
 */
const MAIN = join(PROJECT_ROOT, 'dist', 'gateway', 'main.js');
const dataDir = mkdtempSync(join(tmpdir(), 'dns-api-crash-'));
const ZONE = 'crash.example.test';
const BATCH = 1_000;

interface Running {
  child: ChildProcess;
  api: string;
  output(): string;
}

let running: Running | undefined;

async function start(): Promise<Running> {
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN], {
    env: {
      ...process.env,
      PORT: String(port),
      DNS_PORT: String(await freeDnsPort()),
      DNS_API_PORT: '0',
      DATA_DIR: dataDir,
      ADMIN_PASSWORD: TEST_ADMIN_PASSWORD,
      SEED_DEMO: 'false',
      LOG_LEVEL: 'warn',
      MARKET_CLOCK: '2026-11-20T18:00:00Z',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300 && child.exitCode === null; i++) {
    const up = await fetch(`${base}/healthz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (up) return { child, api: `${base}/api/v1`, output: () => output };
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`the program did not start within 30 s:\n${output.slice(-3000)}`);
}

async function kill(p: Running): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => p.child.once('exit', () => resolve()));
  p.child.kill('SIGKILL');
  await exited;
}

async function names(api: string, token: string): Promise<string[]> {
  const res = await call<{ records: Array<{ name: string }> }>(api, 'GET', `/zones/${ZONE}/records`, { token });
  if (res.status !== 200) throw new Error(`listing answered ${res.status}: ${res.text}`);
  return res.body.records.map((r) => r.name);
}

const batchOf = (tag: string) => ({
  operations: Array.from({ length: BATCH }, (_, i) => ({
    operation: 'create',
    name: `${tag}-${i}`,
    type: 'A',
    value: `10.${(i >> 8) & 255}.${i & 255}.1`,
  })),
});

beforeAll(() => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run npm run build (npm test does it)`);
});
afterAll(async () => {
  if (running) await kill(running);
  rmSync(dataDir, { recursive: true, force: true });
});

test('SIGKILL during a batch of 1 000 creates: after a restart, all of the batch or none of it', async () => {
  running = await start();
  let token = await login(running.api, 'admin', TEST_ADMIN_PASSWORD);
  expect((await call(running.api, 'POST', '/zones', { token, body: { name: ZONE } })).status).toBe(201);

  // One batch run to the end: how long one takes here, so the kills below fall across its course.
  const t0 = Date.now();
  const full = await call(running.api, 'POST', `/zones/${ZONE}/records/batch`, { token, body: batchOf('full') });
  expect(full.status).toBe(200);
  const took = Date.now() - t0;
  let expected = await names(running.api, token);
  expect(expected).toHaveLength(BATCH + 2); // and the NS record and its name server's address (ns1.<zone> A)

  const outcomes: string[] = [];
  for (const [round, fraction] of [0.05, 0.25, 0.5, 0.75, 0.95, 1.5].entries()) {
    const tag = `round${round}`;
    let answered = 0;
    const inFlight = call(running.api, 'POST', `/zones/${ZONE}/records/batch`, { token, body: batchOf(tag) }).then(
      (res) => {
        answered = res.status;
      },
      () => undefined, // the connection dies with the process
    );
    await new Promise((r) => setTimeout(r, Math.round(took * fraction)));
    await kill(running);
    await inFlight;

    running = await start();
    token = await login(running.api, 'admin', TEST_ADMIN_PASSWORD);
    const now = await names(running.api, token);
    const ofBatch = now.filter((n) => n.startsWith(`${tag}-`));
    outcomes.push(`${tag} killed at ${Math.round(took * fraction)} ms: answered ${answered}, ${ofBatch.length} stored`);
    expect({ tag, stored: ofBatch.length }).toEqual({ tag, stored: ofBatch.length === 0 ? 0 : BATCH });
    if (answered === 200) expect(ofBatch).toHaveLength(BATCH);
    // everything from before the batch is still there, nothing else changed
    expect(now.filter((n) => !n.startsWith(`${tag}-`)).sort()).toEqual([...expected].sort());
    expected = now;
  }
  // the zone takes writes again after the crashes
  const after = await call(running.api, 'POST', `/zones/${ZONE}/records`, {
    token,
    body: { name: 'after', type: 'A', value: '192.0.2.99' },
  });
  expect(after.status).toBe(201);
  process.stdout.write(`crash rounds (one batch took ${took} ms):\n  ${outcomes.join('\n  ')}\n`);
}, 240_000);
