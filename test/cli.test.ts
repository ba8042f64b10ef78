// @needs build
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../gateway/host/paths';
import { freePort } from './bench/processes';
import { startFakeUpstream } from './support/google-upstream';
import { dataFrames, openStream, waitFor } from './support/sse';

/** The built entry point as `npm start` runs it (npm test builds first). */
const MAIN = join(PROJECT_ROOT, 'dist', 'gateway', 'main.js');
const SUBGRAPH_MAIN = join(PROJECT_ROOT, 'dist', 'gateway', 'subgraph-main.js');
// As users run it: jest's NODE_ENV=test changes libraries' behaviour (Apollo Server's signal handlers, for one).
const { NODE_ENV: _jestNodeEnv, ...userEnv } = process.env;
const baseEnv = {
  ...userEnv,
  LOG_LEVEL: 'info',
  DNS_PORT: '0',
  DNS_API_PORT: '0',
  MARKET_CLOCK: '2026-11-20T18:00:00Z',
  DATA_DIR: mkdtempSync(join(tmpdir(), 'onegraph-cli-')),
};

// A start on a loaded machine (CI runs many test files at once) can take several seconds: wait for it generously.
jest.setTimeout(90_000);
const STARTUP_MS = 45_000;

/** Waits until `done()` holds, up to `ms`. */
async function until(done: () => boolean, ms = STARTUP_MS): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
}

beforeAll(() => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run npm run build (npm test does it)`);
});

test('--help lists the flags with their environment variables', () => {
  const out = spawnSync(process.execPath, [MAIN, '--help'], { encoding: 'utf8' });
  expect(out.status).toBe(0);
  for (const flag of [
    '--port',
    '--config',
    '--market-provider',
    '--redis-url',
    '--subgraph',
    '--no-response-cache',
    '--zone',
    '--tsig-keyfile',
    '--dns-port',
    '--database-url',
    '--notify',
  ]) {
    expect(out.stdout).toContain(flag);
  }
  expect(out.stdout).toContain('[MARKET_PROVIDER]');
});

test('a bad configuration value stops start-up with a message naming the key and the allowed values', () => {
  const out = spawnSync(process.execPath, [MAIN], { encoding: 'utf8', env: { ...baseEnv, MARKET_PROVIDER: 'yahoo' } });
  expect(out.status).toBe(1);
  expect(out.stderr).toContain('MARKET_PROVIDER (marketProvider) must be one of: simulated, google');
});

test('a manifest of trusted documents that is not JSON stops start-up with one line naming the setting and the file', () => {
  const file = join(baseEnv.DATA_DIR, 'not-a-manifest.json');
  writeFileSync(file, 'query { quote }');
  const out = spawnSync(process.execPath, [MAIN], { encoding: 'utf8', env: { ...baseEnv, PERSISTED_DOCUMENTS: file } });
  expect(out.status).toBe(1);
  expect(out.stderr.trim().split('\n')).toEqual([
    expect.stringMatching(
      new RegExp(`^cannot start: PERSISTED_DOCUMENTS \\(persistedDocuments\\): ${file} is not JSON: `),
    ),
  ]);
});

test('credentials in connection URLs are never printed: an unreachable PostgreSQL names the URL masked', () => {
  const out = spawnSync(process.execPath, [MAIN], {
    encoding: 'utf8',
    timeout: 20_000,
    env: {
      ...baseEnv,
      PORT: '0',
      DATABASE_URL: 'postgres://zones:S3CRET-A@127.0.0.1:1/zones?password=S3CRET-B&sslpassword=S3CRET-C',
    },
  });
  expect(out.status).toBe(1);
  const printed = out.stdout + out.stderr;
  expect(printed).toContain(
    'cannot start: PostgreSQL at postgres://zones:***@127.0.0.1:1/zones?password=***&sslpassword=*** is unreachable',
  );
  expect(printed).not.toMatch(/S3CRET/);
});

test('LOG_FORMAT=pretty prints readable lines, not JSON (what a terminal gets by default)', async () => {
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN], {
    env: { ...baseEnv, PORT: String(port), LOG_FORMAT: 'pretty' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    await until(() => stdout.includes('gateway listening'));
    const line = stdout.split('\n').find((l) => l.includes('gateway listening')) ?? '';
    expect(line).toMatch(/\d\d:\d\d:\d\d\.\d{3}.*INFO.*gateway listening/);
    expect(() => JSON.parse(line)).toThrow();
  } finally {
    child.kill('SIGTERM');
  }
  expect(await exited).toBe(0);
});

test('starts, logs JSON with a request id per request, and exits 0 on SIGTERM after finishing', async () => {
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN], {
    env: { ...baseEnv, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    await until(() => stdout.includes('gateway listening'));
    expect(stdout).toContain('gateway listening');
    const res = await fetch(`http://127.0.0.1:${port}/v1/quote/AAPL:NASDAQ`, {
      headers: { 'x-request-id': 'test-req-42', authorization: 'Bearer secret-xyz' },
    });
    expect(res.status).toBe(200);
    const requestLogged = () =>
      stdout.split('\n').some((l) => l.includes('test-req-42') && l.includes('"msg":"request"'));
    for (let i = 0; i < 50 && !requestLogged(); i++) await new Promise((r) => setTimeout(r, 50));
    const lines = stdout
      .split('\n')
      .filter((l) => l.includes('test-req-42'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toContainEqual(
      expect.objectContaining({ reqId: 'test-req-42', method: 'GET', status: 200, msg: 'request' }),
    );
    // the REST path ran its fixed GraphQL operation under the same request id
    expect(lines).toContainEqual(
      expect.objectContaining({ reqId: 'test-req-42', msg: 'graphql', operationName: 'RestQuote' }),
    );
    expect(stdout).not.toContain('secret-xyz');
    const gql = await fetch(`http://127.0.0.1:${port}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'gql-req-7' },
      body: JSON.stringify({
        query: 'query LogProbe($t: String!) { quote(ticker: $t) { price } }',
        variables: { t: 'MSFT:NASDAQ' },
      }),
    });
    expect(gql.status).toBe(200);
    for (let i = 0; i < 50 && !stdout.includes('"LogProbe"'); i++) await new Promise((r) => setTimeout(r, 50));
    const opLine = JSON.parse(stdout.split('\n').find((l) => l.includes('"LogProbe"')) as string);
    expect(opLine).toMatchObject({
      msg: 'graphql',
      reqId: 'gql-req-7',
      operationName: 'LogProbe',
      type: 'query',
      cached: false,
      fetches: [{ subgraph: 'market', ok: true, ms: expect.any(Number) }],
    });
    expect(stdout).not.toContain('MSFT:NASDAQ'); // variables are never logged
  } finally {
    child.kill('SIGTERM');
  }
  expect(await exited).toBe(0);
  expect(stdout).toContain('shutting down');
});

test('SIGTERM with live streams open: the streams end, the process exits 0 promptly', async () => {
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN], {
    env: { ...baseEnv, PORT: String(port), LIVE_INTERVAL_MS: '200' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    await until(() => stdout.includes('gateway listening'));
    const rest = await openStream(`http://127.0.0.1:${port}/v1/live?tickers=AAPL:NASDAQ`);
    const graphql = await fetch(`http://127.0.0.1:${port}/graphql/stream`, {
      method: 'POST',
      headers: { accept: 'text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'subscription { prices(tickers: ["BTC-USD"]) { ticker } }' }),
    });
    const graphqlEnded = graphql.text(); // resolves when the server ends the stream
    await waitFor(() => dataFrames(rest.frames).length >= 1, 5_000, 'a first /v1/live frame');
    const started = Date.now();
    child.kill('SIGTERM');
    await Promise.all([rest.ended, graphqlEnded]);
    expect(await exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await graphqlEnded).toContain('event: next');
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
});

/** Starts the built binary and waits until it logs `ready`. */
async function startBinary(
  script: string,
  args: string[],
  env: Record<string, string>,
  ready: string,
): Promise<{
  child: ReturnType<typeof spawn>;
  out: () => string;
  exited: Promise<{ code: number | null; signal: string | null }>;
}> {
  const child = spawn(process.execPath, [script, ...args], {
    env: { ...baseEnv, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  await until(() => out.includes(ready));
  if (!out.includes(ready)) {
    child.kill('SIGKILL');
    throw new Error(`${script} did not start:\n${out}`);
  }
  return { child, out: () => out, exited };
}

/** A fake Google upstream that holds every answer until `release()`: requests stay in flight meanwhile. */
async function heldUpstream() {
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  return { upstream: await startFakeUpstream({ answerAfter: released }), release };
}

describe.each(['SIGTERM', 'SIGINT'] as const)('%s on the real binary (production defaults)', (signal) => {
  test('requests in flight are answered in full, then the gateway exits 0', async () => {
    const { upstream, release } = await heldUpstream(); // every market request is in flight until the shutdown began
    const port = await freePort();
    const gateway = await startBinary(
      MAIN,
      [],
      { PORT: String(port), MARKET_PROVIDER: 'google', GOOGLE_FINANCE_URL: upstream.url, UPSTREAM_RETRIES: '0' },
      'gateway listening',
    );
    try {
      const rest = fetch(`http://127.0.0.1:${port}/v1/quote/AAPL:NASDAQ`).then(async (r) => ({
        status: r.status,
        body: await r.json(),
      }));
      const gql = fetch(`http://127.0.0.1:${port}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ quote(ticker: "MSFT:NASDAQ") { ticker price } }' }),
      }).then(async (r) => ({ status: r.status, body: await r.json() }));
      await waitFor(() => upstream.requests >= 2, 5_000, 'both requests to reach the upstream');
      gateway.child.kill(signal);
      await until(() => gateway.out().includes('shutting down'));
      release();
      expect(await rest).toEqual({
        status: 200,
        body: expect.objectContaining({ ticker: 'AAPL:NASDAQ', price: expect.any(Number) }),
      });
      expect(await gql).toEqual({
        status: 200,
        body: { data: { quote: { ticker: 'MSFT:NASDAQ', price: expect.any(Number) } } },
      });
      expect(await gateway.exited).toEqual({ code: 0, signal: null });
      expect(gateway.out()).toContain('shutting down');
    } finally {
      release();
      if (gateway.child.exitCode === null) gateway.child.kill('SIGKILL');
      await upstream.close();
    }
  });

  test('a subgraph served alone answers its requests in flight, then exits 0', async () => {
    const { upstream, release } = await heldUpstream();
    const port = await freePort();
    const sub = await startBinary(
      SUBGRAPH_MAIN,
      ['market', '--port', String(port)],
      { MARKET_PROVIDER: 'google', GOOGLE_FINANCE_URL: upstream.url, UPSTREAM_RETRIES: '0' },
      'subgraph market listening',
    );
    try {
      const gql = fetch(`http://127.0.0.1:${port}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ quote(ticker: "MSFT:NASDAQ") { ticker } }' }),
      }).then(async (r) => ({ status: r.status, body: await r.json() }));
      await waitFor(() => upstream.requests >= 1, 5_000, 'the request to reach the upstream');
      sub.child.kill(signal);
      await until(() => sub.out().includes('shutting down'));
      release();
      expect(await gql).toEqual({ status: 200, body: { data: { quote: { ticker: 'MSFT:NASDAQ' } } } });
      expect(await sub.exited).toEqual({ code: 0, signal: null });
      expect(sub.out()).toContain('shutting down');
    } finally {
      release();
      if (sub.child.exitCode === null) sub.child.kill('SIGKILL');
      await upstream.close();
    }
  });
});
