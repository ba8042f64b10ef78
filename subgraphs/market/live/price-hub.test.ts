import { MarketConfigSchema } from '../config';
import { createMarketCache } from '../cache';
import { MarketData } from '../market-data';
import type { Quote } from '../model';
import { UpstreamError, type MarketProvider, type MarketRequest, type MarketResult } from '../providers/provider';
import { LocalTicker } from './local-ticker';
import { LiveOpenError, PriceHub, type PriceEvent, type PriceTickEvent } from './price-hub';

const ttls = MarketConfigSchema.parse({}).marketCacheTtl;
const INTERVAL_MS = 50;

/** Quotes whose price is the number of calls so far (each poll sees new prices); tickers starting NONE have no data. */
class CountingProvider implements MarketProvider {
  readonly name = 'counting';
  calls: MarketRequest[][] = [];
  fail = false;
  async fetch(requests: readonly MarketRequest[]): Promise<MarketResult[]> {
    this.calls.push([...requests]);
    const price = this.calls.length;
    return requests.map((r): MarketResult => {
      if (this.fail) return { ok: false, error: new UpstreamError('upstream down') };
      const ticker = (r as { ticker: string }).ticker;
      return { ok: true, value: ticker.startsWith('NONE') ? null : ({ ticker, price } as Quote) };
    });
  }
}

function hubWith(provider: CountingProvider): { hub: PriceHub; data: MarketData } {
  const data = new MarketData(provider, createMarketCache(), ttls);
  const hub = new PriceHub(data);
  hub.attach(new LocalTicker(hub, INTERVAL_MS));
  return { hub, data };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function take<T>(stream: AsyncIterator<T>, n: number): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < n; i++) {
    const step = await stream.next();
    if (step.done) break;
    out.push(step.value);
  }
  return out;
}

describe('PriceHub', () => {
  test('one batched provider call per interval, however many subscribers watch, only for watched tickers', async () => {
    const provider = new CountingProvider();
    const { hub } = hubWith(provider);
    const streams = await Promise.all(
      Array.from({ length: 500 }, (_, i) => hub.prices([i % 2 ? 'AAPL:NASDAQ' : 'BTC-USD'])),
    );
    const initialCalls = provider.calls.length; // first quotes through the cache: a call per ticker at most, the rest coalesced
    expect(initialCalls).toBeLessThanOrEqual(2);
    await sleep(INTERVAL_MS * 5.5);
    const polls = provider.calls.slice(initialCalls);
    expect(polls.length).toBeGreaterThanOrEqual(3);
    expect(polls.length).toBeLessThanOrEqual(6);
    for (const poll of polls)
      expect(poll.map((r) => (r as { ticker: string }).ticker).sort()).toEqual(['AAPL:NASDAQ', 'BTC-USD']);
    await Promise.all(streams.map((s) => s.return()));
    expect(hub.stats).toMatchObject({ watchedTickers: 0, listeners: 0, timers: 0 });
    const after = provider.calls.length;
    await sleep(INTERVAL_MS * 3);
    expect(provider.calls.length).toBe(after); // nobody watches: nothing is polled
  });

  test('every subscriber of a ticker gets the same event object per tick (executions downstream are shared)', async () => {
    const { hub } = hubWith(new CountingProvider());
    const [a, b] = await Promise.all([hub.prices(['AAPL:NASDAQ']), hub.prices(['AAPL:NASDAQ'])]);
    const [ea, eb] = await Promise.all([take(a, 2), take(b, 2)]);
    expect(ea[0]).toBe(eb[0]);
    expect(ea[1]).toBe(eb[1]);
    expect((ea[1] as PriceEvent).sequence).toBe((ea[0] as PriceEvent).sequence + 1);
    expect((ea[1] as PriceEvent).quote.price).toBeGreaterThan((ea[0] as PriceEvent).quote.price as number);
    await Promise.all([a.return(), b.return()]);
  });

  test('priceTicks: the current quotes at once, then one event per tick with every ticker in order', async () => {
    const { hub } = hubWith(new CountingProvider());
    const stream = await hub.priceTicks(['BTC-USD', 'AAPL:NASDAQ']);
    const events = await take<PriceTickEvent>(stream, 3);
    expect(events.map((e) => e.quotes.map((q) => q.ticker))).toEqual([
      ['BTC-USD', 'AAPL:NASDAQ'],
      ['BTC-USD', 'AAPL:NASDAQ'],
      ['BTC-USD', 'AAPL:NASDAQ'],
    ]);
    expect(events[2]?.sequence).toBe((events[1]?.sequence as number) + 1);
    await stream.return();
    expect(hub.stats.listeners).toBe(0);
  });

  test('a ticker without data refuses the whole stream (NOT FOUND) and leaves nothing watched', async () => {
    const { hub } = hubWith(new CountingProvider());
    await expect(hub.prices(['AAPL:NASDAQ', 'NONE:NASDAQ'])).rejects.toMatchObject({
      failure: { kind: 'not-found', ticker: 'NONE:NASDAQ' },
    });
    expect(hub.stats).toMatchObject({ watchedTickers: 0, listeners: 0, timers: 0 });
  });

  test('skipMissing (the default list): tickers without data are left out, logged once, and never watched', async () => {
    const provider = new CountingProvider();
    const warnings: object[] = [];
    const hub = new PriceHub(new MarketData(provider, createMarketCache(), ttls), {
      info: () => undefined,
      warn: (obj) => warnings.push(obj),
    });
    hub.attach(new LocalTicker(hub, INTERVAL_MS));
    const list = ['AAPL:NASDAQ', 'NONE:A', 'BTC-USD', 'NONE:B'];
    const [a, b] = [
      await hub.priceTicks(list, { skipMissing: true }),
      await hub.priceTicks(list, { skipMissing: true }),
    ];
    const events = await take<PriceTickEvent>(a, 2);
    expect(events.map((e) => e.quotes.map((q) => q.ticker))).toEqual([
      ['AAPL:NASDAQ', 'BTC-USD'],
      ['AAPL:NASDAQ', 'BTC-USD'],
    ]);
    expect(hub.stats.watchedTickers).toBe(2);
    const polled = provider.calls
      .at(-1)
      ?.map((r) => (r as { ticker: string }).ticker)
      .sort();
    expect(polled).toEqual(['AAPL:NASDAQ', 'BTC-USD']);
    expect(warnings).toEqual([{ tickers: ['NONE:A', 'NONE:B'] }]); // the second stream left out the same: not logged again
    expect((await hub.snapshot(list, { skipMissing: true })).map((q) => q.ticker)).toEqual(['AAPL:NASDAQ', 'BTC-USD']);
    await Promise.all([a.return(), b.return()]);
    expect(hub.stats).toMatchObject({ watchedTickers: 0, listeners: 0, timers: 0 });
  });

  test('skipMissing with no data for any ticker is still NOT FOUND and leaves nothing watched', async () => {
    const { hub } = hubWith(new CountingProvider());
    await expect(hub.priceTicks(['NONE:A', 'NONE:B'], { skipMissing: true })).rejects.toMatchObject({
      failure: { kind: 'not-found', ticker: 'NONE:A' },
    });
    await expect(hub.snapshot(['NONE:A'], { skipMissing: true })).rejects.toMatchObject({
      failure: { kind: 'not-found' },
    });
    expect(hub.stats).toMatchObject({ watchedTickers: 0, listeners: 0, timers: 0 });
  });

  test('a failing provider refuses the stream with the upstream error', async () => {
    const provider = new CountingProvider();
    provider.fail = true;
    const { hub } = hubWith(provider);
    const err = await hub.priceTicks(['AAPL:NASDAQ']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LiveOpenError);
    expect((err as LiveOpenError).message).toMatch(/upstream unavailable: upstream down/);
    expect(hub.stats.listeners).toBe(0);
  });

  test('a poll that fails sends no event and the stream stays open for the next one', async () => {
    const provider = new CountingProvider();
    const { hub } = hubWith(provider);
    const stream = await hub.prices(['AAPL:NASDAQ']);
    await take(stream, 1);
    provider.fail = true;
    await sleep(INTERVAL_MS * 3);
    provider.fail = false;
    const [next] = await take<PriceEvent>(stream, 1);
    expect(next?.quote.ticker).toBe('AAPL:NASDAQ');
    await stream.return();
  });

  test("snapshot: the hub's quote for watched tickers, current ones for others, and keeps nothing unwatched", async () => {
    const provider = new CountingProvider();
    const { hub } = hubWith(provider);
    const stream = await hub.prices(['AAPL:NASDAQ']);
    const [first] = await take<PriceEvent>(stream, 1);
    const snapshot = await hub.snapshot(['AAPL:NASDAQ', 'BTC-USD']);
    expect(snapshot[0]).toBe(first?.quote);
    expect(snapshot[1]?.ticker).toBe('BTC-USD');
    expect(hub.stats.watchedTickers).toBe(1);
    await expect(hub.snapshot(['NONE:X'])).rejects.toBeInstanceOf(LiveOpenError);
    await stream.return();
  });

  test("a stream's sequence never goes back, whatever numbers the driver brings (max(driver's, last + 1))", async () => {
    const hub = new PriceHub(new MarketData(new CountingProvider(), createMarketCache(), ttls)); // no poller: only our ticks
    const [prices, ticks] = [await hub.prices(['AAPL:NASDAQ']), await hub.priceTicks(['AAPL:NASDAQ'])];
    // shared ticks, then Redis restarted (its counter from 1), then a local count, then the shared counter ahead again
    const driver = [41, 42, 1, 2, 2, 3, 50, 51];
    for (const [i, sequence] of driver.entries()) {
      hub.deliver({
        sequence,
        at: new Date(),
        quotes: new Map([['AAPL:NASDAQ', { ticker: 'AAPL:NASDAQ', price: i } as Quote]]),
      });
    }
    const seen = (await take<PriceEvent>(prices, driver.length + 1)).map((e) => e.sequence);
    expect(seen).toEqual([1, 41, 42, 43, 44, 45, 46, 50, 51]); // 1: the opening's own quotes, fetched before any tick
    expect((await take<PriceTickEvent>(ticks, driver.length + 1)).map((e) => e.sequence)).toEqual(seen);
    await Promise.all([prices.return(), ticks.return()]);
  });

  test('after an idle spell the first event is new: a number never seen before, stamped when it was made', async () => {
    const hub = new PriceHub(new MarketData(new CountingProvider(), createMarketCache(), ttls)); // no poller: only our ticks
    const lastTickAt = new Date(Date.now() - 60_000); // the last tick before everybody left, a minute ago
    const seen: number[] = [];
    for (const open of [() => hub.priceTicks(['AAPL:NASDAQ']), () => hub.prices(['AAPL:NASDAQ'])] as const) {
      const first = await open();
      hub.deliver({
        sequence: 7,
        at: lastTickAt,
        quotes: new Map([['AAPL:NASDAQ', { ticker: 'AAPL:NASDAQ', price: 1 } as Quote]]),
      });
      seen.push(...(await take<PriceEvent | PriceTickEvent>(first, 2)).map((e) => e.sequence));
      await first.return(); // nobody watches: idle
      const reopened = Date.now();
      const again = await open();
      const [event] = await take<PriceEvent | PriceTickEvent>(again, 1);
      expect(event?.at.getTime()).toBeGreaterThanOrEqual(reopened);
      expect(event?.sequence).toBeGreaterThan(Math.max(...seen));
      seen.push(event?.sequence as number);
      await again.return();
    }
  });

  test('a subscriber that never reads loses the oldest events beyond its queue, never grows without bound', async () => {
    const hub = new PriceHub(new MarketData(new CountingProvider(), createMarketCache(), ttls)); // no poller: only our ticks
    const stream = await hub.prices(['AAPL:NASDAQ']);
    for (let i = 1; i <= 200; i++)
      hub.deliver({
        sequence: 1_000 + i,
        at: new Date(),
        quotes: new Map([['AAPL:NASDAQ', { ticker: 'AAPL:NASDAQ', price: i } as Quote]]),
      });
    const events = await take<PriceEvent>(stream, 64);
    expect(events[0]?.sequence).toBe(1_000 + 200 - 63);
    expect(events[63]?.sequence).toBe(1_200);
    await stream.return();
  });
});
