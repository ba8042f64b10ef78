// @needs build
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../gateway/host/paths';
import { SIMULATED_TICKERS } from '../../subgraphs/market/providers/simulated/catalog';
import { freePort } from '../bench/processes';
import { neverReading, sleep } from '../support/slow-clients';

/**
 * Slow clients (docs/live.md, "Slow clients") on the built gateway (`node dist/gateway/main.js`, as `npm start`
 * runs it): never-reading subscriptions of a heavy selection over real TCP sockets. The gateway's resident memory
 * must stay bounded, and clients stuck past LIVE_SLOW_CLIENT_TIMEOUT_MS are disconnected with one log line each.
 */
const MAIN = join(PROJECT_ROOT, 'dist', 'gateway', 'main.js');
const TICKERS = SIMULATED_TICKERS.slice(0, 20);
const HEAVY = `subscription Heavy($t: [String!]) { priceTicks(tickers: $t) { sequence quotes { ticker price
  company { description ceo sector marketCap } chart(range: ONE_DAY) { previousClose points { date price volume } }
  news { title source url timestamp } } } }`;

function rssOf(pid: number): number {
  const line =
    readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('VmRSS:')) ?? '';
  return Number(/(\d+)/.exec(line)?.[1] ?? 0) * 1024;
}

beforeAll(() => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run npm run build (npm test does it)`);
});

test("never-reading subscriptions keep the built gateway's RSS bounded; stuck clients are disconnected and logged", async () => {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [MAIN], {
    env: {
      ...process.env,
      PORT: String(port),
      DNS_PORT: '0',
      DNS_API_PORT: '0',
      LOG_LEVEL: 'warn',
      DATA_DIR: mkdtempSync(join(tmpdir(), 'onegraph-slow-')),
      LIVE_INTERVAL_MS: '100',
      LIVE_MAX_STREAM_BUFFER_BYTES: String(512 * 1024),
      LIVE_SLOW_CLIENT_TIMEOUT_MS: '8000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const sockets: Socket[] = [];
  try {
    for (let i = 0; i < 100; i++) {
      if (
        (await fetch(`http://127.0.0.1:${port}/healthz`).then(
          (r) => r.status,
          () => 0,
        )) === 200
      )
        break;
      await sleep(100);
    }
    const pid = child.pid as number;
    const body = JSON.stringify({ query: HEAVY, variables: { t: TICKERS } });
    const request = {
      method: 'POST' as const,
      path: '/graphql/stream',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body,
    };
    await sleep(1_000);
    const rssBefore = rssOf(pid);
    // 40 never-reading subscriptions: each event is ~120 KB, 10 per second, ~50 MB/s in all if nothing bounded them.
    // The first seconds fill the sockets' kernel buffers (MBs each on loopback TCP); after that every stream is
    // stuck at its bound and the gateway's memory must stay flat until the slow-client timeout ends them.
    for (let i = 0; i < 40; i++) sockets.push(await neverReading(port, request));
    const started = Date.now();
    await sleep(4_000);
    const rssSettled = rssOf(pid);
    let maxRss = rssSettled;
    while (Date.now() - started < 7_500) {
      await sleep(200);
      maxRss = Math.max(maxRss, rssOf(pid));
    }

    console.log(
      `RSS ${(rssBefore / 1e6).toFixed(0)} MB before, ${(rssSettled / 1e6).toFixed(0)} MB after 4 s, at most ${(maxRss / 1e6).toFixed(0)} MB up to 7.5 s`,
    );
    // Unbounded queues would add ~170 MB in those 3.5 s (and ~400 MB in all); bounded ones hold 40 × (512 KiB + one
    // event) ≈ 25 MB, reached early.
    expect(maxRss - rssSettled).toBeLessThan(80 * 1024 * 1024);
    expect(maxRss - rssBefore).toBeLessThan(300 * 1024 * 1024);

    // Stuck for more than LIVE_SLOW_CLIENT_TIMEOUT_MS: disconnected, one warning each naming client, bytes and limit.
    const disconnected = () => out.split('\n').filter((l) => l.includes('slow live client disconnected')).length;
    for (let i = 0; i < 60 && disconnected() < 40; i++) await sleep(200);
    const lines = out
      .split('\n')
      .filter((l) => l.includes('slow live client disconnected'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(40);
    expect(lines[0]).toMatchObject({
      client: '127.0.0.1',
      kind: 'graphql',
      limit: 'liveSlowClientTimeoutMs',
      bytes: expect.any(Number),
    });
    expect(lines[0]?.bytes as number).toBeGreaterThanOrEqual(512 * 1024);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toMatch(
      /^live_slow_client_disconnects_total\{kind="graphql",limit="liveSlowClientTimeoutMs"\} [1-9]\d*$/m,
    );
    expect(metrics).toMatch(/^live_buffered_bytes \d+$/m);
  } finally {
    for (const s of sockets) s.destroy();
    child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      exited,
      new Promise((r) => {
        timer = setTimeout(r, 10_000);
      }),
    ]);
    clearTimeout(timer);
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}, 60_000);
