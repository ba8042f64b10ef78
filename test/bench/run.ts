import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeUpstream } from '../support/google-upstream';
import {
  bodyOf,
  CONNECTIONS,
  BENCH_JS,
  FIXED_ENV,
  FULL_QUERY,
  GATEWAY,
  GRAPHQL_BODY,
  ratioLine,
  rps,
  SECONDS,
  TICKER,
  withChild,
  type Target,
} from './common';
import { dnsBenchmark } from './dns';
import { dnsApiBenchmark } from './dns-api';
import { dnsToolBenchmark } from './dns-tool';
import { dnssecBenchmark } from './dnssec';
import { gatewayVsPlain } from './gateway';
import { gwbenchBenchmark } from './gwbench';
import { isolationBenchmark } from './isolation';
import { liveBenchmark } from './live';
import { replicasBenchmark } from './replicas';
import { rrlBenchmark } from './rrl';
import { startNode } from './processes';

/**
 * `npm run bench`: every figure is a ratio against a reference measured in this same run on this machine.
 * Servers run as child processes; the load generator (autocannon, dnsperf) runs apart. BENCH_SECONDS sets each
 * run's length. One section alone: `npm run bench -- dns-api` (or BENCH_ONLY=dns-api); sections are market, gateway,
 * dns, dnssec (signed zones against BIND: queries with DO, signing 100 000 records, re-signing one change;
 * BENCH_DNSSEC_PARTS=do,sign,resign), dns-api, dns-tool, live and gwbench (The Guild's federation gateway benchmark:
 * our gateway vs Apollo Gateway, Hive Gateway and Hive Gateway + router-runtime over the same HTTP subgraphs; its
 * workload is in the repository, test/bench/gwbench/, and is compared with the public files in GWBENCH_DIR when
 * present) and isolation (DNS answers under a steady 2 000 questions/s while the control plane imports, lists,
 * exports, transfers and signs a 100 000-record zone: lost questions, p99, longest silence, RSS; wall times against
 * PowerDNS and BIND; BENCH_ISOLATION_PARTS=import,list,export,axfr,dnssec) and replicas (three replicas on one
 * PostgreSQL database: propagation lag, API creates/s through 1, 2, 3 replicas) and rrl (response rate limiting: the
 * amplification a DNSKEY flood from one forged address gets, with and without it, a bystander's answers meanwhile,
 * and what the accounting costs).
 */

async function rawCeiling(body: string): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-'));
  const file = join(dir, 'body.json');
  writeFileSync(file, body);
  return withChild(startNode(join(BENCH_JS, 'raw-server.js'), { RAW_BODY_FILE: file }, '/'), (raw) =>
    rps({ url: raw.url }),
  );
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
  const plain = await withChild(startNode(join(BENCH_JS, 'plain-gateway.js'), FIXED_ENV, '/'), (gw) =>
    rps({ url: gw.url, method: 'POST', body: GRAPHQL_BODY }),
  );
  const rawRest = await rawCeiling(measured.restBody);
  const rawGql = await rawCeiling(measured.gqlBody);
  out.push(
    `raw node:http ceiling, /v1/full body (${measured.restBody.length} B): ${rawRest.toFixed(0)} req/s; GraphQL body: ${rawGql.toFixed(0)} req/s`,
  );
  out.push(ratioLine(`GET ${restPath} (warm cache)`, measured.rest, rawRest, 0.5));
  out.push(ratioLine('GraphQL full query (warm cache)', measured.gql, rawGql, 0.1));
  out.push(ratioLine(`GET ${restPath}, response cache off (data cache warm)`, uncached.rest, rawRest));
  out.push(ratioLine('GraphQL full query, response cache off (data cache warm)', uncached.gql, rawGql));
  out.push(ratioLine('reference: plain @apollo/gateway + LocalGraphQLDataSource', plain, rawGql));
  out.push(
    `our gateway vs plain @apollo/gateway in-process: ${(measured.gql / plain).toFixed(1)}× (response cache on), ${(uncached.gql / plain).toFixed(1)}× (off)`,
  );
  return out;
}

async function upstreamEconomy(): Promise<string[]> {
  const upstream = await startFakeUpstream();
  try {
    return await withChild(
      startNode(GATEWAY, { ...FIXED_ENV, MARKET_PROVIDER: 'google', GOOGLE_FINANCE_URL: upstream.url }),
      async (gw) => {
        const trips = async (fn: () => Promise<unknown>): Promise<number> => {
          const before = upstream.requests;
          await fn();
          return upstream.requests - before;
        };
        const full = (): Promise<string> => bodyOf({ url: `${gw.url}/v1/full/${TICKER}` });
        const cold = await trips(full);
        const warm = await trips(full);
        const gqlOther = await trips(() =>
          bodyOf({
            url: `${gw.url}/graphql`,
            method: 'POST',
            body: JSON.stringify({ query: FULL_QUERY, variables: { ticker: 'MSFT:NASDAQ' } }),
          }),
        );
        return [
          `upstream round trips per /v1/full request (google provider, fake upstream): cold ${cold} (goal 1), warm ${warm} (goal 0)`,
          `upstream round trips for the equivalent GraphQL query, cold: ${gqlOther}`,
        ];
      },
    );
  } finally {
    await upstream.close();
  }
}

const SECTIONS = [
  'market',
  'gateway',
  'dns',
  'dnssec',
  'dns-api',
  'dns-tool',
  'live',
  'gwbench',
  'isolation',
  'replicas',
  'rrl',
];

async function main(): Promise<void> {
  console.log(`bench: ${SECONDS} s per run, ${CONNECTIONS} connections, node ${process.version}`);
  const only = process.argv[2] ?? process.env.BENCH_ONLY; // one of SECTIONS: run that part alone
  if (only && !SECTIONS.includes(only)) throw new Error(`no bench section ${only}: one of ${SECTIONS.join(', ')}`);
  if (!only || only === 'market') {
    for (const l of await upstreamEconomy()) console.log(l);
    for (const l of await throughput()) console.log(l);
  }
  if (!only || only === 'gateway') for (const l of await gatewayVsPlain()) console.log(l);
  if (!only || only === 'dns') for (const l of await dnsBenchmark()) console.log(l);
  if (!only || only === 'dnssec') for (const l of await dnssecBenchmark()) console.log(l);
  if (!only || only === 'dns-api') for (const l of await dnsApiBenchmark()) console.log(l);
  if (!only || only === 'dns-tool') for (const l of await dnsToolBenchmark()) console.log(l);
  if (!only || only === 'live') for (const l of await liveBenchmark()) console.log(l);
  if (!only || only === 'gwbench') for (const l of await gwbenchBenchmark()) console.log(l);
  if (!only || only === 'isolation') for (const l of await isolationBenchmark()) console.log(l);
  if (!only || only === 'replicas') for (const l of await replicasBenchmark()) console.log(l);
  if (!only || only === 'rrl') for (const l of await rrlBenchmark()) console.log(l);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
