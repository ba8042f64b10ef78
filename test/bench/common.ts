import autocannon from 'autocannon';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../gateway/host/paths';
import type { Child } from './processes';

/** Shared settings and helpers of `npm run bench` (every figure a ratio against a reference in the same run). */
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
export const DIST = join(PROJECT_ROOT, 'dist');
export const GATEWAY = join(DIST, 'gateway', 'main.js');
export const SUBGRAPH = join(DIST, 'gateway', 'subgraph-main.js');
/** The benchmarks' own compiled scripts (npm run bench compiles them apart from the production build). */
export const BENCH_JS = join(DIST, 'bench', 'test', 'bench');
export const TICKER = 'AAPL:NASDAQ';
export const FIXED_ENV = {
  // Every process of a comparison (ours and the references) in the same mode; ours defaults to production anyway.
  NODE_ENV: 'production',
  LOG_LEVEL: 'warn',
  MARKET_CLOCK: '2026-11-20T18:00:00Z',
  DNS_PORT: '0',
  DNS_API_PORT: '0',
  // load generators ask from one address many times a second, which response rate limiting (on by default) is
  // there to limit; the reference servers (BIND, Knot, PowerDNS) run without it too. The rrl section measures it.
  DNS_RRL: 'off',
  DATA_DIR: mkdtempSync(join(tmpdir(), 'bench-data-')),
};

export const FULL_QUERY = `query Full($ticker: String!) { quote(ticker: $ticker) {
  ticker exchange name type currency timezone price change changePercent previousClose afterHours { price change changePercent }
  company { description ceo employees marketCap open high low fiftyTwoWeekHigh fiftyTwoWeekLow peRatio volume sector }
  chart(range: ONE_MONTH) { previousClose points { date price volume } }
  news { title source url timestamp } } }`;
export const GRAPHQL_BODY = JSON.stringify({ query: FULL_QUERY, variables: { ticker: TICKER } });

export interface Target {
  url: string;
  method?: 'GET' | 'POST';
  body?: string;
}

export async function rps(target: Target): Promise<number> {
  const opts = {
    url: target.url,
    method: target.method ?? 'GET',
    body: target.body,
    headers: target.body ? { 'content-type': 'application/json' } : undefined,
    connections: CONNECTIONS,
  };
  await autocannon({ ...opts, duration: 1 }); // warm-up: JIT, caches, keep-alive sockets
  const result = await autocannon({ ...opts, duration: SECONDS });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${target.url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result.requests.average;
}

export async function withChild<T>(start: Promise<Child>, fn: (c: Child) => Promise<T>): Promise<T> {
  const child = await start;
  try {
    return await fn(child);
  } finally {
    await child.stop();
  }
}

export async function bodyOf(target: Target): Promise<string> {
  const res = await fetch(target.url, {
    method: target.method ?? 'GET',
    body: target.body,
    headers: target.body ? { 'content-type': 'application/json' } : undefined,
  });
  if (!res.ok) throw new Error(`${target.url} answered ${res.status}`);
  return res.text();
}

export function ratioLine(label: string, value: number, reference: number, goal?: number): string {
  const ratio = value / reference;
  const verdict = goal === undefined ? '' : ratio >= goal ? `  (goal ≥ ${goal}: met)` : `  (goal ≥ ${goal}: NOT met)`;
  return `${label.padEnd(58)} ${value.toFixed(0).padStart(7)} req/s  ratio ${ratio.toFixed(3)}${verdict}`;
}

/** Runs a section on its own when its file is the one node was started with, printing its lines. */
export function runWhenMain(mod: NodeModule, section: () => Promise<string[]>): void {
  if (require.main !== mod) return;
  section().then(
    (lines) => {
      for (const l of lines) console.log(l);
    },
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
