// @needs build
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../gateway/host/paths';
import { freePort } from '../bench/processes';
import { startFixture, type Fixture } from '../federation/fixture';

/**
 * WORKERS=2 on a general gateway (`npm start` as built, SUPERGRAPH_FILE over the federation fixture): two worker
 * processes behind one port answer alike, /metrics of whichever worker a scrape reaches counts every worker's
 * requests, a worker that dies is replaced, and SIGTERM stops them all.
 */
const MAIN = join(PROJECT_ROOT, 'dist', 'gateway', 'main.js');
const QUERY = '{ restockNeeded { upc name price } }';

let fixture: Fixture;
let primary: ChildProcess;
let base: string;
let output: () => string = () => '';

/** How many workers have logged that they listen. */
const listening = () =>
  output()
    .split('\n')
    .filter((l) => l.includes('"msg":"gateway listening')).length;

/** Pids of the primary's live child processes. */
function workers(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === primary.pid && fields[0] !== 'Z') pids.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}

/** One POST on a connection of its own (the primary hands connections, not requests, to workers). */
function post(body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${base}/graphql`,
      { method: 'POST', agent: false, headers: { 'content-type': 'application/json', connection: 'close' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function waitFor(check: () => boolean | Promise<boolean>, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms:\n${output().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** `npm start` as built, with two workers over `supergraphFile`, its output collected. */
async function spawnGateway(
  supergraphFile: string,
): Promise<{ child: ChildProcess; port: number; output: () => string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN], {
    env: {
      ...process.env,
      PORT: String(port),
      SUPERGRAPH_FILE: supergraphFile,
      WORKERS: '2',
      DNS_PORT: '0',
      DNS_API_PORT: '0',
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout?.on('data', (d: Buffer) => (text += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (text += d.toString()));
  return { child, port, output: () => text };
}

beforeAll(async () => {
  fixture = await startFixture();
  const gateway = await spawnGateway(fixture.supergraphFile);
  primary = gateway.child;
  base = `http://127.0.0.1:${gateway.port}`;
  output = gateway.output;
  await waitFor(
    () =>
      fetch(`${base}/healthz`).then(
        (r) => r.ok,
        () => false,
      ),
    'the gateway answering',
    30_000,
  );
  await waitFor(() => workers().length === 2 && listening() === 2, 'two workers listening');
}, 60_000);

afterAll(async () => {
  if (primary.exitCode === null && primary.signalCode === null) primary.kill('SIGKILL');
  await fixture?.close();
});

test('two workers behind one port give the same answer, and /metrics counts the requests of both', async () => {
  const first = await post(JSON.stringify({ query: QUERY }));
  expect(first.status).toBe(200);
  expect(JSON.parse(first.text)).toEqual({
    data: {
      restockNeeded: [
        { upc: '1002', name: 'Oak Table (small)', price: 89_900 },
        { upc: '1004', name: 'Brass Lamp', price: 5_900 },
      ],
    },
  });
  const rest = await Promise.all(Array.from({ length: 19 }, () => post(JSON.stringify({ query: QUERY }))));
  for (const r of rest) expect(r.text).toBe(first.text);
  const metrics = await (await fetch(`${base}/metrics`)).text();
  const count = /^graphql_operation_duration_seconds_count\{[^}]*\} (\d+)/m.exec(metrics);
  expect(Number(count?.[1])).toBe(20); // the sum over both workers, whichever one served the scrape
});

test('a worker that dies after it listened is replaced; SIGTERM stops the primary and every worker', async () => {
  const [victim] = workers();
  expect(victim).toBeDefined();
  process.kill(victim as number, 'SIGKILL');
  await waitFor(
    () => workers().length === 2 && !workers().includes(victim as number) && listening() === 3,
    'a new worker listening',
  );
  await waitFor(
    () =>
      post(JSON.stringify({ query: QUERY })).then(
        (r) => r.status === 200,
        () => false,
      ),
    'answers',
  );
  const pids = workers();
  const exited = new Promise<number | null>((resolve) => primary.once('exit', (code) => resolve(code)));
  primary.kill('SIGTERM');
  expect(await exited).toBe(0);
  for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
}, 30_000);

test('a worker that cannot start stops the whole gateway instead of restarting in a loop', async () => {
  // package.json is not a supergraph: every worker fails at start
  const { child, output: text } = await spawnGateway(join(PROJECT_ROOT, 'package.json'));
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  expect(code).toBe(1);
  expect(text()).toContain('a gateway worker died before it could serve: stopping');
  expect(text().split('"msg":"gateway: 2 worker processes').length).toBe(2); // started once, never again
}, 30_000);
