import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../gateway/paths';
import { freePort } from './bench/processes';

/** The built entry point as `npm start` runs it (npm test builds first). */
const MAIN = join(PROJECT_ROOT, 'dist', 'gateway', 'main.js');
const baseEnv = {
  ...process.env, LOG_LEVEL: 'info', DNS_PORT: '0', DNS_API_PORT: '0', MARKET_CLOCK: '2026-11-20T18:00:00Z',
  DATA_DIR: mkdtempSync(join(tmpdir(), 'onegraph-cli-')),
};

beforeAll(() => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run npm run build (npm test does it)`);
});

test('--help lists the flags with their environment variables', () => {
  const out = spawnSync(process.execPath, [MAIN, '--help'], { encoding: 'utf8' });
  expect(out.status).toBe(0);
  for (const flag of ['--port', '--config', '--market-provider', '--redis-url', '--subgraph', '--no-response-cache', '--zone', '--tsig-keyfile', '--dns-port', '--database-url', '--notify']) {
    expect(out.stdout).toContain(flag);
  }
  expect(out.stdout).toContain('[MARKET_PROVIDER]');
});

test('a bad configuration value stops start-up with a message naming the key and the allowed values', () => {
  const out = spawnSync(process.execPath, [MAIN], { encoding: 'utf8', env: { ...baseEnv, MARKET_PROVIDER: 'yahoo' } });
  expect(out.status).toBe(1);
  expect(out.stderr).toContain('MARKET_PROVIDER (marketProvider) must be one of: simulated, google');
});

test('starts, logs JSON with a request id per request, and exits 0 on SIGTERM after finishing', async () => {
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN], { env: { ...baseEnv, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    for (let i = 0; i < 100 && !stdout.includes('gateway listening'); i++) await new Promise((r) => setTimeout(r, 100));
    expect(stdout).toContain('gateway listening');
    const res = await fetch(`http://127.0.0.1:${port}/v1/quote/AAPL:NASDAQ`, { headers: { 'x-request-id': 'test-req-42', authorization: 'Bearer secret-xyz' } });
    expect(res.status).toBe(200);
    for (let i = 0; i < 50 && !stdout.includes('test-req-42'); i++) await new Promise((r) => setTimeout(r, 50));
    const line = stdout.split('\n').find((l) => l.includes('test-req-42'));
    expect(JSON.parse(line as string)).toMatchObject({ reqId: 'test-req-42', method: 'GET', status: 200, msg: 'request' });
    expect(stdout).not.toContain('secret-xyz');
  } finally {
    child.kill('SIGTERM');
  }
  expect(await exited).toBe(0);
  expect(stdout).toContain('shutting down');
});
