/**
 * Live part of `npm run bench`: how many concurrent subscribers one gateway process holds, provider calls per
 * interval, delay from a tick to the last subscriber's event, and memory per subscriber.
 *
 * The gateway runs as a child process; this process is the client: BENCH_LIVE_SUBSCRIBERS (default 10 000) GraphQL
 * subscriptions over graphql-sse's distinct-connections mode (one HTTP stream each), spread over the original's
 * eight default tickers, each `priceTicks { sequence at }` — `at` is the instant of the poll, so each event's delay is
 * its arrival time minus `at`. Reference in the same run: a raw node:http SSE server writing one precomputed frame to
 * the same number of streams on each tick (the delivery ceiling of this machine).
 */
import { request, Agent, type ClientRequest, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { BENCH_JS, FIXED_ENV, GATEWAY, withChild } from './common';
import { startNode } from './processes';

const SUBSCRIBERS = Number(process.env.BENCH_LIVE_SUBSCRIBERS ?? 10_000);
const INTERVAL_MS = Number(process.env.BENCH_LIVE_INTERVAL_MS ?? 2_000);
const TICKS = Number(process.env.BENCH_LIVE_TICKS ?? 5);
const BATCH = 250;
const TICKERS = ['GOOGL:NASDAQ', 'AAPL:NASDAQ', 'MSFT:NASDAQ', 'BTC-USD', 'THYAO:IST', 'USD-TRY', 'EUR-TRY', 'EUR-USD'];
const SUBSCRIPTION =
  'subscription Bench($t: [String!]) { priceTicks(tickers: $t) { sequence at quotes { ticker price change } } }';

/** Arrival time of each subscriber's event, by tick sequence. */
type Arrivals = Map<number, { at: number; delays: number[] }>;

interface Subscriber {
  req: ClientRequest;
  firstEvent: Promise<void>;
}

const agent = new Agent({ keepAlive: false, maxSockets: Infinity });

/** Opens one SSE stream and records every event's delay; resolves `firstEvent` on its first event. */
function openStream(
  url: URL,
  method: 'GET' | 'POST',
  body: string | undefined,
  arrivals: Arrivals,
  parse: (data: string) => { sequence: number; at: number } | null,
): Subscriber {
  let resolveFirst!: () => void;
  let rejectFirst!: (err: Error) => void;
  const firstEvent = new Promise<void>((res, rej) => {
    resolveFirst = res;
    rejectFirst = rej;
  });
  const req = request(
    url,
    {
      method,
      agent,
      headers: { accept: 'text/event-stream', ...(body ? { 'content-type': 'application/json' } : {}) },
    },
    (res: IncomingMessage) => {
      if (res.statusCode !== 200) {
        rejectFirst(new Error(`stream answered ${res.statusCode}`));
        res.resume();
        return;
      }
      res.setEncoding('utf8');
      let buffer = '';
      res.on('data', (chunk: string) => {
        const now = Date.now();
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const message = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const dataLine = message.split('\n').find((l) => l.startsWith('data: '));
          if (!dataLine) continue;
          const event = parse(dataLine.slice(6));
          if (!event) continue;
          let tick = arrivals.get(event.sequence);
          if (!tick) arrivals.set(event.sequence, (tick = { at: event.at, delays: [] }));
          tick.delays.push(now - event.at);
          resolveFirst();
        }
      });
    },
  );
  req.on('error', (err) => rejectFirst(err));
  req.end(body);
  return { req, firstEvent };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

interface Measured {
  held: number;
  /** Ticks every subscriber received (after all were connected). */
  ticks: Array<{ sequence: number; received: number; p50: number; p99: number; max: number }>;
}

/** Opens `n` streams in batches (each batch waits for its first events), then observes `TICKS` whole ticks. */
async function hold(n: number, open: (arrivals: Arrivals) => Subscriber): Promise<Measured & { close(): void }> {
  const arrivals: Arrivals = new Map();
  const subscribers: Subscriber[] = [];
  for (let i = 0; i < n; i += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, n - i) }, () => open(arrivals));
    subscribers.push(...batch);
    await Promise.all(batch.map((s) => s.firstEvent));
  }
  const startSeq = Math.max(0, ...arrivals.keys());
  const deadline = Date.now() + (TICKS + 3) * INTERVAL_MS * 2;
  const done = () => {
    const complete = [...arrivals.entries()].filter(([seq, t]) => seq > startSeq && t.delays.length >= n);
    return complete.length >= TICKS;
  };
  while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, 200)); // stragglers of the last tick
  const ticks = [...arrivals.entries()]
    .filter(([seq]) => seq > startSeq)
    .sort(([a], [b]) => a - b)
    .slice(0, TICKS)
    .map(([sequence, t]) => {
      const sorted = [...t.delays].sort((a, b) => a - b);
      return {
        sequence,
        received: sorted.length,
        p50: percentile(sorted, 50),
        p99: percentile(sorted, 99),
        max: sorted[sorted.length - 1] ?? NaN,
      };
    });
  return { held: subscribers.length, ticks, close: () => subscribers.forEach((s) => s.req.destroy()) };
}

async function metric(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : NaN;
}

/** The JS heap in use without most of its garbage: the least of a few samples spread over GC cycles. */
async function settledHeap(url: string): Promise<number> {
  let least = Infinity;
  for (let i = 0; i < 8; i++) {
    least = Math.min(least, await metric(url, 'nodejs_heap_size_used_bytes'));
    await new Promise((r) => setTimeout(r, 250));
  }
  return least;
}

async function providerCalls(url: string): Promise<number> {
  const health = (await (await fetch(`${url}/healthz`)).json()) as { subgraphs: { market: { providerCalls: number } } };
  return health.subgraphs.market.providerCalls;
}

function summary(label: string, m: Measured): string[] {
  const worst = m.ticks.reduce((w, t) => Math.max(w, t.p99), 0);
  const lines = [`${label}: ${m.held} subscribers held; ${m.ticks.length} ticks observed`];
  for (const t of m.ticks)
    lines.push(
      `  tick ${t.sequence}: ${t.received}/${m.held} delivered, delay p50 ${t.p50} ms, p99 ${t.p99} ms, max ${t.max} ms`,
    );
  lines.push(`  worst p99 ${worst} ms`);
  return lines;
}

export async function liveBenchmark(): Promise<string[]> {
  const out: string[] = [];
  const env = {
    ...FIXED_ENV,
    MARKET_CLOCK: '',
    LIVE_INTERVAL_MS: String(INTERVAL_MS),
    LIVE_MAX_CONNECTIONS: String(SUBSCRIBERS + 1_000),
    LIVE_MAX_CONNECTIONS_PER_CLIENT: String(SUBSCRIBERS + 1_000),
  };
  const ours = await withChild(startNode(GATEWAY, env), async (gw) => {
    const url = new URL('/graphql/stream', gw.url);
    const rssBefore = await metric(gw.url, 'process_resident_memory_bytes');
    const heapBefore = await settledHeap(gw.url);
    let i = 0;
    const m = await hold(SUBSCRIBERS, (arrivals) =>
      openStream(
        url,
        'POST',
        JSON.stringify({ query: SUBSCRIPTION, variables: { t: [TICKERS[i++ % TICKERS.length]] } }),
        arrivals,
        (data) => {
          const tick = (JSON.parse(data) as { data?: { priceTicks?: { sequence: number; at: string } } }).data
            ?.priceTicks;
          return tick ? { sequence: tick.sequence, at: Date.parse(tick.at) } : null;
        },
      ),
    );
    const callsBefore = await providerCalls(gw.url);
    await new Promise((r) => setTimeout(r, INTERVAL_MS * TICKS));
    const calls = (await providerCalls(gw.url)) - callsBefore;
    const rssAfter = await metric(gw.url, 'process_resident_memory_bytes');
    const heapAfter = await settledHeap(gw.url);
    m.close();
    return {
      ...m,
      calls,
      rssPer: (rssAfter - rssBefore) / m.held,
      heapPer: (heapAfter - heapBefore) / m.held,
      rssAfter,
    };
  });
  const raw = await withChild(
    startNode(join(BENCH_JS, 'raw-sse-server.js'), { RAW_SSE_INTERVAL_MS: String(INTERVAL_MS) }, '/'),
    async (srv) => {
      const url = new URL('/stream', srv.url);
      const m = await hold(SUBSCRIBERS, (arrivals) =>
        openStream(url, 'GET', undefined, arrivals, (data) => JSON.parse(data) as { sequence: number; at: number }),
      );
      m.close();
      return m;
    },
  );
  const oursP99 = ours.ticks.reduce((w, t) => Math.max(w, t.p99), 0);
  const rawP99 = raw.ticks.reduce((w, t) => Math.max(w, t.p99), 0);
  out.push(...summary('our gateway, GraphQL subscriptions over graphql-sse (priceTicks)', ours));
  out.push(...summary('reference: raw node:http SSE broadcast of one precomputed frame', raw));
  out.push(
    `subscribers held by one gateway process: ${ours.held} (goal ≥ 10 000: ${ours.held >= 10_000 && ours.ticks.every((t) => t.received >= ours.held) ? 'met' : 'NOT met'})`,
  );
  out.push(
    `provider calls over ${TICKS} intervals with ${ours.held} subscribers: ${ours.calls} (${(ours.calls / TICKS).toFixed(2)} per interval; goal 1)`,
  );
  out.push(
    `delay tick → last subscriber, worst p99 over ${TICKS} ticks: ${oursP99} ms (goal ≤ 1000 ms: ${oursP99 <= 1000 ? 'met' : 'NOT met'}); raw SSE reference ${rawP99} ms; ratio ${(oursP99 / Math.max(1, rawP99)).toFixed(1)}×`,
  );
  out.push(
    `memory per subscriber: ${(ours.rssPer / 1024).toFixed(1)} KiB RSS, ${(ours.heapPer / 1024).toFixed(1)} KiB JS heap (gateway RSS ${(ours.rssAfter / 1048576).toFixed(0)} MiB with ${ours.held} subscribers)`,
  );
  return out;
}
