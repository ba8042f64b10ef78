import { openStream, waitFor, type OpenStream } from '../support/sse';
import { startSystem, type RunningSystem } from '../support/system';
import type { MarketSubgraph } from '../../subgraphs/market';

/**
 * `priceTicks` through the gateway after an idle spell: subscribe, leave (nobody watches, the poller stops), come
 * back — the first event is stamped when it was made, with a sequence number never seen before, not the last poll's
 * time and number again.
 */
let sys: RunningSystem;
beforeAll(async () => {
  sys = await startSystem({ LIVE_INTERVAL_MS: '200' });
}, 60_000);
afterAll(() => sys?.close());

interface Tick {
  sequence: number;
  at: string;
}

async function subscribe(): Promise<OpenStream> {
  return openStream(
    `${sys.url}/graphql/stream?query=${encodeURIComponent(
      'subscription { priceTicks(tickers: ["AAPL:NASDAQ"]) { sequence at } }',
    )}`,
  );
}

const ticksOf = (s: OpenStream): Tick[] =>
  s.frames
    .filter((f) => f.event === 'next' && f.data)
    .map((f) => (JSON.parse(f.data as string) as { data: { priceTicks: Tick } }).data.priceTicks);

test('subscribe, go idle, resubscribe: the first event has a fresh `at` and a sequence never seen before', async () => {
  const hub = (sys.subgraphs.get('market') as MarketSubgraph).hub;
  const first = await subscribe();
  await waitFor(() => ticksOf(first).length >= 3, 10_000, 'three events');
  first.close();
  const seen = ticksOf(first);
  await waitFor(() => hub.stats.listeners === 0 && hub.stats.timers === 0, 5_000, 'the hub idle');
  await new Promise((r) => setTimeout(r, 500)); // idle for longer than two intervals

  const reopened = Date.now();
  const again = await subscribe();
  try {
    await waitFor(() => ticksOf(again).length >= 1, 10_000, 'the first event');
    const [event] = ticksOf(again) as [Tick];
    expect(Date.parse(event.at)).toBeGreaterThanOrEqual(reopened - 5); // DateTimeISO keeps milliseconds
    expect(seen.map((t) => t.sequence)).not.toContain(event.sequence);
    expect(event.sequence).toBeGreaterThan(Math.max(...seen.map((t) => t.sequence)));
  } finally {
    again.close();
  }
});
