import type { Metric, Registry } from 'prom-client';
import type { DnsEngineStats } from '../../dns/engine';
import {
  COUNTED_TYPES,
  DROP_REASONS,
  G,
  PLUGINS,
  PROTOS,
  RCODE_NAMES,
  SIZE_BUCKETS,
  TIME_BUCKETS,
  TIME_SLOT_COUNT,
  ZONE_OFFSETS,
} from '../../dns/server';

/**
 * The DNS server's figures on /metrics, named as CoreDNS names them where they mean the same (coredns_dns_…,
 * coredns_cache_…) and onegraph_dns_… for the rest (docs/operations.md lists every one). The answering loops count
 * in plain typed arrays; these metrics read them when scraped: one `DnsEngine.stats()` per scrape, shared by all of
 * them (the registry asks every metric at once).
 */

type Labels = Record<string, string | number>;
interface Sample {
  labels: Labels;
  value: number;
  metricName?: string;
}
type Kind = 'counter' | 'gauge' | 'histogram';

/** A zone's label: its name with the trailing dot ("." the root, and every name of no zone served). */
function zoneLabel(zone: string): string {
  return zone === '' || zone === '.' ? '.' : `${zone}.`;
}

/** `from` added into `into` at the same label set (the root and "no zone" share "."), in order of first sight. */
class Series {
  private readonly map = new Map<string, Sample>();
  add(labels: Labels, value: number, metricName?: string): void {
    const key = `${metricName ?? ''}|${Object.values(labels).join('|')}`;
    const had = this.map.get(key);
    if (had) had.value += value;
    else this.map.set(key, { labels, value, ...(metricName ? { metricName } : {}) });
  }
  get samples(): Sample[] {
    return [...this.map.values()];
  }
}

/**
 * A histogram's samples from per-bucket counts at `at` of `counts` (one per bound, one for +Inf, then the sum);
 * none when nothing was observed.
 */
function histogram(
  into: Series,
  name: string,
  labels: Labels,
  counts: Float64Array,
  at: number,
  bounds: readonly number[],
): void {
  let total = 0;
  for (let b = 0; b <= bounds.length; b++) total += counts[at + b] ?? 0;
  if (total === 0) return;
  let cumulative = 0;
  for (let b = 0; b < bounds.length; b++) {
    cumulative += counts[at + b] ?? 0;
    into.add({ ...labels, le: bounds[b] ?? 0 }, cumulative, `${name}_bucket`);
  }
  into.add({ ...labels, le: '+Inf' }, total, `${name}_bucket`);
  into.add(labels, counts[at + bounds.length + 1] ?? 0, `${name}_sum`);
  into.add(labels, total, `${name}_count`);
}

/** Registers the DNS metrics on `registry`, read from `stats` at each scrape (null: no DNS server, no samples). */
export function registerDnsMetrics(registry: Registry, stats: () => Promise<DnsEngineStats | null>): void {
  let pending: Promise<DnsEngineStats | null> | undefined;
  /** One read per scrape: the metrics asked at once share it. */
  const scrape = (): Promise<DnsEngineStats | null> => {
    pending ??= stats()
      .catch(() => null)
      .finally(() => setImmediate(() => (pending = undefined)));
    return pending;
  };
  const define = (name: string, help: string, type: Kind, samples: (s: DnsEngineStats) => Sample[]): void => {
    const get = async (): Promise<object> => {
      const s = await scrape();
      return { name, help, type, aggregator: 'sum', values: s ? samples(s) : [] };
    };
    // a metric whose values are computed at scrape time: the registry asks `get` alone of it
    registry.registerMetric({ name, help, type, aggregator: 'sum', get, reset: () => undefined } as unknown as Metric);
  };
  const perZone = (s: DnsEngineStats, each: (into: Series, zone: string, block: Float64Array) => void): Sample[] => {
    const into = new Series();
    for (const [zone, block] of s.answering.zones) each(into, zoneLabel(zone), block);
    return into.samples;
  };
  const global = (s: DnsEngineStats, offset: number): number => s.answering.global[offset] ?? 0;
  const { REQUESTS, RESPONSES, REQUEST_SIZE, RESPONSE_SIZE, TYPES, PLUGINS: PLUGIN_COUNT, SIZE_SLOTS } = ZONE_OFFSETS;

  define(
    'coredns_dns_requests_total',
    'DNS requests by zone (served; else "."), transport, address family (1 IPv4, 2 IPv6) and question type',
    'counter',
    (s) =>
      perZone(s, (into, zone, block) => {
        for (let proto = 0; proto < 2; proto++)
          for (let family = 1; family <= 2; family++)
            for (let type = 0; type < TYPES; type++) {
              const n = block[REQUESTS + (proto * 2 + family - 1) * TYPES + type] ?? 0;
              if (n > 0)
                into.add(
                  { server: s.server, zone, proto: PROTOS[proto] ?? '', family, type: COUNTED_TYPES[type] ?? '' },
                  n,
                );
            }
      }),
  );
  define(
    'coredns_dns_responses_total',
    'DNS responses by zone, rcode and the part that made them (plugin: cache, file, transfer, update, notify, "" none)',
    'counter',
    (s) =>
      perZone(s, (into, zone, block) => {
        for (let rcode = 0; rcode < 16; rcode++)
          for (let plugin = 0; plugin < PLUGIN_COUNT; plugin++) {
            const n = block[RESPONSES + rcode * PLUGIN_COUNT + plugin] ?? 0;
            if (n > 0)
              into.add({ server: s.server, zone, rcode: RCODE_NAMES[rcode] ?? '', plugin: PLUGINS[plugin] ?? '' }, n);
          }
      }),
  );
  for (const [name, at, what] of [
    ['coredns_dns_request_size_bytes', REQUEST_SIZE, 'request'],
    ['coredns_dns_response_size_bytes', RESPONSE_SIZE, 'response'],
  ] as const)
    define(name, `Size of each DNS ${what} (bytes) by zone and transport`, 'histogram', (s) =>
      perZone(s, (into, zone, block) => {
        for (let proto = 0; proto < 2; proto++)
          histogram(
            into,
            name,
            { server: s.server, zone, proto: PROTOS[proto] ?? '' },
            block,
            at + proto * SIZE_SLOTS,
            SIZE_BUCKETS,
          );
      }),
    );
  define(
    'coredns_dns_request_duration_seconds',
    'Time in the server per DNS request by transport: from its batch of datagrams (UDP) or message (TCP) reaching the answer loop to its answer handed to the kernel; every query of a UDP batch counts the batch time; UPDATE and zone transfers until their last message',
    'histogram',
    (s) => {
      const into = new Series();
      for (let proto = 0; proto < 2; proto++)
        histogram(
          into,
          'coredns_dns_request_duration_seconds',
          { server: s.server, proto: PROTOS[proto] ?? '' },
          s.answering.global,
          G.duration + proto * TIME_SLOT_COUNT,
          TIME_BUCKETS,
        );
      return into.samples;
    },
  );
  define(
    'coredns_cache_hits_total',
    'Plain queries answered from the answer cache (type: success, or denial — NXDOMAIN and no-data answers)',
    'counter',
    (s) => [
      { labels: { server: s.server, type: 'success' }, value: global(s, G.cacheHitsSuccess) },
      { labels: { server: s.server, type: 'denial' }, value: global(s, G.cacheHitsDenial) },
    ],
  );
  define(
    'coredns_cache_misses_total',
    'Plain queries the answer cache did not hold (computed, then cached)',
    'counter',
    (s) => [{ labels: { server: s.server }, value: global(s, G.cacheMisses) }],
  );
  define('coredns_cache_entries', 'Answers the answer cache holds (every answering process)', 'gauge', (s) => [
    { labels: { server: s.server }, value: s.answering.cacheEntries },
  ]);
  define(
    'onegraph_dns_updates_total',
    'Dynamic updates (RFC 2136) answered, by zone (served; else ".") and rcode',
    'counter',
    (s) => {
      const into = new Series();
      for (const u of s.updates)
        into.add({ server: s.server, zone: zoneLabel(u.zone), rcode: RCODE_NAMES[u.rcode & 0xf] ?? '' }, u.count);
      return into.samples;
    },
  );
  define(
    'onegraph_dns_transfers_total',
    'Zone transfers asked of this server over TCP, by zone, type (AXFR, IXFR) and rcode (NOERROR: sent; REFUSED, NOTAUTH, …)',
    'counter',
    (s) => {
      const into = new Series();
      for (const [key, n] of s.answering.transfers) {
        const [zone = '.', type = '', rcode = ''] = key.split(' ');
        into.add({ server: s.server, zone: zoneLabel(zone), type, rcode }, n);
      }
      return into.samples;
    },
  );
  define(
    'onegraph_dns_notify_received_total',
    'NOTIFY messages received, by zone and the rcode answered',
    'counter',
    (s) => {
      const into = new Series();
      for (const [key, n] of s.answering.notifies) {
        const [zone = '.', rcode = ''] = key.split(' ');
        into.add({ server: s.server, zone: zoneLabel(zone), rcode }, n);
      }
      return into.samples;
    },
  );
  define(
    'onegraph_dns_notify_sent_total',
    'NOTIFY messages sent to secondaries, by zone and result (acked, unacknowledged, failed)',
    'counter',
    (s) => {
      const into = new Series();
      for (const n of s.notifiesSent)
        into.add({ server: s.server, zone: zoneLabel(n.zone), result: n.result }, n.count);
      return into.samples;
    },
  );
  define(
    'onegraph_dns_secondary_refreshes_total',
    'Refreshes of secondary zones, by zone and result (current, transferred, failed)',
    'counter',
    (s) => {
      const into = new Series();
      for (const r of s.secondary) into.add({ server: s.server, zone: zoneLabel(r.zone), result: r.result }, r.count);
      return into.samples;
    },
  );
  define('onegraph_dns_tcp_connections', 'DNS TCP connections open now', 'gauge', (s) => [
    { labels: { server: s.server }, value: global(s, G.tcpAccepted) - global(s, G.tcpClosed) },
  ]);
  define('onegraph_dns_tcp_connections_total', 'DNS TCP connections accepted', 'counter', (s) => [
    { labels: { server: s.server }, value: global(s, G.tcpAccepted) },
  ]);
  define(
    'onegraph_dns_tcp_connections_refused_total',
    'DNS TCP connections closed at once: the connection limit (DNS_TCP_MAX_CONNECTIONS) was reached',
    'counter',
    (s) => [{ labels: { server: s.server }, value: global(s, G.tcpRefused) }],
  );
  define(
    'onegraph_dns_tcp_timeouts_total',
    'DNS TCP connections closed for a deadline (idle, a message too slow to arrive, answers not read)',
    'counter',
    (s) => [{ labels: { server: s.server }, value: global(s, G.tcpTimeouts) }],
  );
  define(
    'onegraph_dns_truncated_total',
    'UDP answers sent truncated (TC: too large for the client, which asks again over TCP)',
    'counter',
    (s) => [{ labels: { server: s.server }, value: global(s, G.truncated) }],
  );
  define(
    'onegraph_dns_dropped_total',
    'DNS messages not answered at all, by reason (malformed: shorter than a header or unreadable; response: a response, never answered; handover-full: an answer worker could not hand a message to the primary)',
    'counter',
    (s) => DROP_REASONS.map((reason, i) => ({ labels: { server: s.server, reason }, value: global(s, G.dropped + i) })),
  );
  define(
    'onegraph_dns_rrl_dropped_total',
    'UDP answers response rate limiting (DNS_RRL) did not send; in log-only mode, those it would not have sent',
    'counter',
    (s) => [{ labels: { server: s.server }, value: global(s, G.rrlDropped) }],
  );
  define(
    'onegraph_dns_rrl_slipped_total',
    'UDP answers response rate limiting (DNS_RRL) sent truncated (TC) in their place so the client asks over TCP; in log-only mode, those it would have',
    'counter',
    (s) => [{ labels: { server: s.server }, value: global(s, G.rrlSlipped) }],
  );
  define('onegraph_dns_answer_workers', 'Answer worker processes running (DNS_WORKERS)', 'gauge', (s) => [
    { labels: { server: s.server }, value: s.workers },
  ]);
}
