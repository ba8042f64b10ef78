import autocannon from 'autocannon';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../gateway/paths';
import { startFakeUpstream } from '../fakes/google-upstream';
import { startNode, type Child } from './processes';

/**
 * `npm run bench`: every figure is a ratio against a reference measured in this same run on this machine.
 * Servers run as child processes; the load generator (autocannon) runs here. BENCH_SECONDS sets each run's length.
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const DIST = join(PROJECT_ROOT, 'dist');
const GATEWAY = join(DIST, 'gateway', 'main.js');
const TICKER = 'AAPL:NASDAQ';
const FIXED_ENV = { LOG_LEVEL: 'warn', MARKET_CLOCK: '2026-11-20T18:00:00Z', DNS_PORT: '0', DNS_API_PORT: '0' };

const FULL_QUERY = `query Full($ticker: String!) { quote(ticker: $ticker) {
  ticker exchange name type currency timezone price change changePercent previousClose afterHours { price change changePercent }
  company { description ceo employees marketCap open high low fiftyTwoWeekHigh fiftyTwoWeekLow peRatio volume sector }
  chart(range: ONE_MONTH) { previousClose points { date price volume } }
  news { title source url timestamp } } }`;
const GRAPHQL_BODY = JSON.stringify({ query: FULL_QUERY, variables: { ticker: TICKER } });

interface Target { url: string; method?: 'GET' | 'POST'; body?: string }

async function rps(target: Target): Promise<number> {
  const opts = {
    url: target.url,
    method: target.method ?? 'GET',
    body: target.body,
    headers: target.body ? { 'content-type': 'application/json' } : undefined,
    connections: CONNECTIONS,
  };
  await autocannon({ ...opts, duration: 1 }); // warm-up: JIT, caches, keep-alive sockets
  const result = await autocannon({ ...opts, duration: SECONDS });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${target.url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result.requests.average;
}

async function withChild<T>(start: Promise<Child>, fn: (c: Child) => Promise<T>): Promise<T> {
  const child = await start;
  try {
    return await fn(child);
  } finally {
    await child.stop();
  }
}

async function bodyOf(target: Target): Promise<string> {
  const res = await fetch(target.url, { method: target.method ?? 'GET', body: target.body, headers: target.body ? { 'content-type': 'application/json' } : undefined });
  if (!res.ok) throw new Error(`${target.url} answered ${res.status}`);
  return res.text();
}

async function rawCeiling(body: string): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-'));
  const file = join(dir, 'body.json');
  writeFileSync(file, body);
  return withChild(startNode(join(DIST, 'test', 'bench', 'raw-server.js'), { RAW_BODY_FILE: file }, '/'), (raw) => rps({ url: raw.url }));
}

function line(label: string, value: number, reference: number, goal?: number): string {
  const ratio = value / reference;
  const verdict = goal === undefined ? '' : ratio >= goal ? `  (goal ≥ ${goal}: met)` : `  (goal ≥ ${goal}: NOT met)`;
  return `${label.padEnd(58)} ${value.toFixed(0).padStart(7)} req/s  ratio ${ratio.toFixed(3)}${verdict}`;
}

async function throughput(): Promise<string[]> {
  const out: string[] = [];
  const restPath = `/v1/full/${TICKER}`;
  const measured = await withChild(startNode(GATEWAY, FIXED_ENV), async (gw) => {
    const rest = { url: gw.url + restPath };
    const gql: Target = { url: `${gw.url}/graphql`, method: 'POST', body: GRAPHQL_BODY };
    return { restBody: await bodyOf(rest), gqlBody: await bodyOf(gql), rest: await rps(rest), gql: await rps(gql) };
  });
  const uncached = await withChild(startNode(GATEWAY, { ...FIXED_ENV, RESPONSE_CACHE: 'false' }), async (gw) => ({
    rest: await rps({ url: gw.url + restPath }),
    gql: await rps({ url: `${gw.url}/graphql`, method: 'POST', body: GRAPHQL_BODY }),
  }));
  const plain = await withChild(startNode(join(DIST, 'test', 'bench', 'plain-gateway.js'), FIXED_ENV, '/'), (gw) =>
    rps({ url: gw.url, method: 'POST', body: GRAPHQL_BODY }));
  const rawRest = await rawCeiling(measured.restBody);
  const rawGql = await rawCeiling(measured.gqlBody);
  out.push(`raw node:http ceiling, /v1/full body (${measured.restBody.length} B): ${rawRest.toFixed(0)} req/s; GraphQL body: ${rawGql.toFixed(0)} req/s`);
  out.push(line(`GET ${restPath} (warm cache)`, measured.rest, rawRest, 0.5));
  out.push(line('GraphQL full query (warm cache)', measured.gql, rawGql, 0.1));
  out.push(line(`GET ${restPath}, response cache off (data cache warm)`, uncached.rest, rawRest));
  out.push(line('GraphQL full query, response cache off (data cache warm)', uncached.gql, rawGql));
  out.push(line('reference: plain @apollo/gateway + LocalGraphQLDataSource', plain, rawGql));
  out.push(`our gateway vs plain @apollo/gateway in-process: ${(measured.gql / plain).toFixed(1)}× (response cache on), ${(uncached.gql / plain).toFixed(1)}× (off)`);
  return out;
}

async function upstreamEconomy(): Promise<string[]> {
  const upstream = await startFakeUpstream();
  try {
    return await withChild(startNode(GATEWAY, { ...FIXED_ENV, MARKET_PROVIDER: 'google', GOOGLE_FINANCE_URL: upstream.url }), async (gw) => {
      const trips = async (fn: () => Promise<unknown>): Promise<number> => {
        const before = upstream.requests;
        await fn();
        return upstream.requests - before;
      };
      const full = (): Promise<string> => bodyOf({ url: `${gw.url}/v1/full/${TICKER}` });
      const cold = await trips(full);
      const warm = await trips(full);
      const gqlOther = await trips(() => bodyOf({ url: `${gw.url}/graphql`, method: 'POST', body: JSON.stringify({ query: FULL_QUERY, variables: { ticker: 'MSFT:NASDAQ' } }) }));
      return [
        `upstream round trips per /v1/full request (google provider, fake upstream): cold ${cold} (goal 1), warm ${warm} (goal 0)`,
        `upstream round trips for the equivalent GraphQL query, cold: ${gqlOther}`,
      ];
    });
  } finally {
    await upstream.close();
  }
}

async function main(): Promise<void> {
  console.log(`bench: ${SECONDS} s per run, ${CONNECTIONS} connections, node ${process.version}`);
  for (const l of await upstreamEconomy()) console.log(l);
  for (const l of await throughput()) console.log(l);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
