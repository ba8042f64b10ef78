// @needs build
/**
 * The DNS figures of /metrics, from the built program over the wire: known numbers of queries of several types
 * (NOERROR, NXDOMAIN, REFUSED; UDP and TCP), a signed UPDATE and an AXFR are sent, /metrics is scraped over HTTP
 * before and after, and the counters must have moved by exactly that, by their labels. With an answer worker process
 * (DNS_WORKERS=1) the queries are spread over the worker and the answer thread by source port: the totals are still
 * exact, so the worker's counts are in them. The exposition must parse (every sample of a declared metric).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DnsClient } from '../../dns/client';
import { parseKeySpec } from '../../dns/tsig';
import { gatewayStarted, launchGateway, stopGateway, type GatewayProcess } from '../support/gateway-process';

jest.setTimeout(120_000);

const SECRET = 'c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MTI=';
const KEY = parseKeySpec(`hmac-sha256:ops:${SECRET}`);

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The Prometheus text format, strictly: comments, or `name{labels} value`; every sample's metric declared by TYPE. */
function parseExposition(text: string): Sample[] {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (type) {
      types.set(type[1] as string, type[2] as string);
      continue;
    }
    if (line.startsWith('# HELP ')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (-?[0-9.e+-]+|NaN|[+-]Inf)$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const name = m[1] as string;
    const labels: Record<string, string> = {};
    const body = m[2] ?? '';
    const re = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)/gy;
    let seen = 0;
    for (let l = re.exec(body); l; l = re.exec(body)) {
      labels[l[1] as string] = l[2] as string;
      seen = re.lastIndex;
    }
    if (seen !== body.length) throw new Error(`bad labels: ${line}`);
    const base = name.replace(/_(bucket|sum|count)$/, '');
    if (!types.has(name) && !(types.get(base) === 'histogram'))
      throw new Error(`sample of an undeclared metric: ${line}`);
    samples.push({ name, labels, value: Number(m[3]) });
  }
  return samples;
}

async function scrape(p: GatewayProcess): Promise<Sample[]> {
  const res = await fetch(`${p.base}/metrics`);
  expect(res.status).toBe(200);
  return parseExposition(await res.text());
}

/** The sum of `name`'s samples whose labels include `match`. */
function total(samples: Sample[], name: string, match: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(match).every(([k, v]) => s.labels[k] === v))
    .reduce((a, s) => a + s.value, 0);
}

describe.each([0, 1])('DNS metrics with DNS_WORKERS=%i', (workers) => {
  let p: GatewayProcess;

  beforeAll(async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dns-metrics-'));
    const keyFile = join(dataDir, 'keys.conf');
    writeFileSync(keyFile, `key "ops" { algorithm hmac-sha256; secret "${SECRET}"; };\n`);
    p = await launchGateway({
      SEED_DEMO: 'true',
      DNS_WORKERS: String(workers),
      DATA_DIR: dataDir,
      TSIG_KEYFILE: keyFile,
    });
    await gatewayStarted(p, '/readyz');
  });
  afterAll(async () => {
    await stopGateway(p);
    rmSync(p.dataDir, { recursive: true, force: true });
  });

  test('queries by type and rcode, UPDATE, AXFR and TCP counted exactly; the exposition parses', async () => {
    const client = new DnsClient({ server: { host: '127.0.0.1', port: p.dnsPort } });
    const before = await scrape(p);
    const ask = async (n: number, name: string, type: string, tcp = false): Promise<number[]> => {
      const rcodes: number[] = [];
      for (let i = 0; i < n; i++) rcodes.push((await client.query(name, type, { tcp })).rcode);
      return rcodes;
    };
    expect(await ask(20, 'www.example.test', 'A')).toEqual(Array(20).fill(0));
    expect(await ask(5, 'www.example.test', 'AAAA')).toEqual(Array(5).fill(0));
    expect(await ask(3, 'nope.example.test', 'TXT')).toEqual(Array(3).fill(3)); // NXDOMAIN
    expect(await ask(2, 'www.other.invalid', 'A')).toEqual(Array(2).fill(5)); // REFUSED: no zone of ours
    expect(await ask(4, 'example.test', 'MX', true)).toEqual(Array(4).fill(0));
    await new DnsClient({ server: { host: '127.0.0.1', port: p.dnsPort }, key: KEY }).update('example.test', [
      { op: 'add', name: 'metrics.example.test', type: 'A', ttl: 300, value: '192.0.2.99' },
    ]);
    const axfr = await client.transfer('example.test');
    expect(axfr.records.some((r) => r.name === 'metrics.example.test')).toBe(true);
    const after = await scrape(p);
    const delta = (name: string, match: Record<string, string> = {}): number =>
      total(after, name, match) - total(before, name, match);

    const zone = 'example.test.';
    const requests = 'coredns_dns_requests_total';
    expect(delta(requests, { zone, proto: 'udp', family: '1', type: 'A' })).toBe(20);
    expect(delta(requests, { zone, proto: 'udp', type: 'AAAA' })).toBe(5);
    expect(delta(requests, { zone, proto: 'udp', type: 'TXT' })).toBe(3);
    expect(delta(requests, { zone: '.', proto: 'udp', type: 'A' })).toBe(2);
    expect(delta(requests, { zone, proto: 'tcp', type: 'MX' })).toBe(4);
    expect(delta(requests, { zone, proto: 'udp', type: 'SOA' })).toBe(1); // the UPDATE (its zone section)
    expect(delta(requests, { zone, proto: 'tcp', type: 'AXFR' })).toBe(1);
    expect(delta(requests)).toBe(36);

    const responses = 'coredns_dns_responses_total';
    expect(delta(responses, { zone, rcode: 'NXDOMAIN' })).toBe(3);
    expect(delta(responses, { zone: '.', rcode: 'REFUSED' })).toBe(2);
    expect(delta(responses, { zone, rcode: 'NOERROR', plugin: 'update' })).toBe(1);
    expect(delta(responses, { zone, rcode: 'NOERROR', plugin: 'transfer' })).toBe(1);
    expect(delta(responses)).toBe(36);
    expect(delta('onegraph_dns_updates_total', { zone, rcode: 'NOERROR' })).toBe(1);
    expect(delta('onegraph_dns_transfers_total', { zone, type: 'AXFR', rcode: 'NOERROR' })).toBe(1);

    // every plain query went through the answer cache: a hit or a miss (each process has a cache of its own)
    const hits = delta('coredns_cache_hits_total');
    const misses = delta('coredns_cache_misses_total');
    expect(hits + misses).toBe(34);
    if (workers > 0) {
      // the worker answered some (its own cache computed them again): its counts are in the totals above
      expect(misses).toBeGreaterThan(5);
    } else {
      expect(misses).toBe(5); // the first of each of the five questions
      expect(delta('coredns_cache_hits_total', { type: 'denial' })).toBe(2 + 1); // NXDOMAIN, REFUSED after the first
    }

    // every request is in the latency and size histograms, each by its transport
    const duration = 'coredns_dns_request_duration_seconds_count';
    expect(delta(duration, { proto: 'udp' })).toBe(31);
    expect(delta(duration, { proto: 'tcp' })).toBe(5);
    expect(delta('coredns_dns_request_size_bytes_count', { proto: 'tcp' })).toBe(5);
    expect(delta('coredns_dns_response_size_bytes_count', { zone, proto: 'udp' })).toBe(29);
    expect(
      total(after, 'coredns_dns_request_duration_seconds_bucket', { proto: 'udp', le: '+Inf' }) -
        total(before, 'coredns_dns_request_duration_seconds_bucket', { proto: 'udp', le: '+Inf' }),
    ).toBe(31);
    // one connection per TCP exchange of the client (4 queries, the AXFR), all closed by now or soon
    expect(delta('onegraph_dns_tcp_connections_total')).toBe(5);
    expect(total(after, 'onegraph_dns_answer_workers')).toBe(workers);
  });
});
