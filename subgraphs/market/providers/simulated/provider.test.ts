import fc from 'fast-check';
import { CHART_RANGES, type Quote } from '../../model';
import { UpstreamError, type MarketRequest } from '../provider';
import { createSimulatedProvider, SIMULATED_TICKERS } from './index';
import { instantArb } from './testing/index';

/** One of each kind of request (all chart ranges) for a few tickers. */
function everything(tickers: readonly string[]): MarketRequest[] {
  const perTicker = tickers.flatMap((ticker): MarketRequest[] => [
    { kind: 'quote', ticker },
    { kind: 'company', ticker },
    { kind: 'news', ticker },
    { kind: 'financials', ticker },
    { kind: 'related', ticker },
    ...CHART_RANGES.map((range): MarketRequest => ({ kind: 'chart', ticker, range })),
  ]);
  return [
    ...perTicker,
    { kind: 'indices' },
    { kind: 'trending' },
    { kind: 'earnings' },
    { kind: 'headline' },
    { kind: 'movers', category: 'gainers', count: 5, offset: 0 },
    { kind: 'movers', category: 'most-active', count: 10, offset: 3 },
  ];
}

const tickersArb = fc.subarray([...SIMULATED_TICKERS], { minLength: 1, maxLength: 4 });

describe('simulated provider', () => {
  test('is named simulated and answers a batch in order, one result per request', async () => {
    const p = createSimulatedProvider({ now: () => Date.UTC(2026, 0, 7, 15) });
    expect(p.name).toBe('simulated');
    const requests = everything(['AAPL:NASDAQ', 'BTC-USD']);
    const results = await p.fetch(requests);
    expect(results).toHaveLength(requests.length);
    expect(results.every((r) => r.ok)).toBe(true);
    expect((results[0] as { value: Quote }).value.ticker).toBe('AAPL:NASDAQ');
    expect(await p.fetch([])).toEqual([]);
  });

  test('same seed and same clock give identical answers to every kind of request', async () => {
    await fc.assert(
      fc.asyncProperty(instantArb, tickersArb, fc.oneof(fc.string(), fc.integer()), async (now, tickers, seed) => {
        const requests = everything(tickers);
        const a = await createSimulatedProvider({ seed, now: () => now }).fetch(requests);
        const b = await createSimulatedProvider({ seed, now: () => now }).fetch(requests);
        expect(b).toEqual(a);
      }),
      { numRuns: 15 },
    );
  });

  test('without a seed the market is still reproducible (a fixed default seed)', async () => {
    const now = () => Date.UTC(2026, 0, 7, 15);
    const requests = everything(['MSFT:NASDAQ']);
    expect(await createSimulatedProvider({ now }).fetch(requests)).toEqual(
      await createSimulatedProvider({ now }).fetch(requests),
    );
  });

  test('another seed gives another market', async () => {
    await fc.assert(
      fc.asyncProperty(instantArb, fc.string(), fc.string(), async (now, s1, s2) => {
        fc.pre(s1 !== s2);
        const quotes = async (seed: string) =>
          (
            await createSimulatedProvider({ seed, now: () => now }).fetch(
              SIMULATED_TICKERS.map((ticker) => ({ kind: 'quote', ticker })),
            )
          ).map((r) => (r.ok ? (r.value as Quote).price : null));
        const [a, b] = [await quotes(s1), await quotes(s2)];
        const differing = a.filter((price, k) => price !== b[k]).length;
        expect(differing).toBeGreaterThan(SIMULATED_TICKERS.length * 0.8);
      }),
      { numRuns: 10 },
    );
  });

  test('a ticker of valid form outside the catalog has no data: null for every ticker request', async () => {
    const p = createSimulatedProvider({ now: () => Date.UTC(2026, 0, 7, 15) });
    for (const ticker of ['ZZZZ:NASDAQ', 'AAPL:NYSE', 'FOO-BAR', 'BTC-EUR', 'aapl:nasdaq']) {
      const requests: MarketRequest[] = [
        { kind: 'quote', ticker },
        { kind: 'company', ticker },
        { kind: 'news', ticker },
        { kind: 'financials', ticker },
        { kind: 'related', ticker },
        ...CHART_RANGES.map((range): MarketRequest => ({ kind: 'chart', ticker, range })),
      ];
      expect(await p.fetch(requests)).toEqual(requests.map(() => ({ ok: true, value: null })));
    }
  });

  test('a failing clock becomes an UpstreamError for every item, never a throw', async () => {
    const broken = createSimulatedProvider({
      now: () => {
        throw new Error('clock unplugged');
      },
    });
    const results = await broken.fetch([{ kind: 'quote', ticker: 'AAPL:NASDAQ' }, { kind: 'headline' }]);
    expect(results).toHaveLength(2);
    for (const r of results) {
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.error).toBeInstanceOf(UpstreamError);
        expect(r.error.message).toMatch(/clock unplugged/);
      }
    }
    const nan = await createSimulatedProvider({ now: () => Number.NaN }).fetch([{ kind: 'indices' }]);
    expect(nan[0]?.ok).toBe(false);
  });

  test('a movers category outside the three is an UpstreamError naming it, and the rest of the batch still answers', async () => {
    const p = createSimulatedProvider({ now: () => Date.UTC(2026, 0, 7, 15) });
    const bad = { kind: 'movers', category: 'MOST_ACTIVE', count: 5, offset: 0 } as unknown as MarketRequest;
    const [first, second] = await p.fetch([bad, { kind: 'indices' }]);
    expect(first?.ok).toBe(false);
    if (first && !first.ok) expect(first.error.message).toMatch(/"MOST_ACTIVE"/);
    expect(second?.ok).toBe(true);
  });

  test('a batch describes one instant, even with a clock that moves between reads', async () => {
    let t = Date.UTC(2026, 0, 7, 15);
    const p = createSimulatedProvider({ now: () => (t += 60_000) });
    const [quote, chart] = await p.fetch([
      { kind: 'quote', ticker: 'BTC-USD' },
      { kind: 'chart', ticker: 'BTC-USD', range: '1D' },
    ]);
    const price = quote?.ok ? (quote.value as Quote).price : undefined;
    const last = chart?.ok ? (chart.value as { points: Array<{ price: number }> }).points.at(-1)?.price : undefined;
    expect(last).toBe(price);
  });

  test('the clock drives the market: a later instant in an open session gives a different price', async () => {
    const at = (t: number) =>
      createSimulatedProvider({ seed: 1, now: () => t }).fetch([{ kind: 'quote', ticker: 'BTC-USD' }]);
    const [a] = await at(Date.UTC(2026, 0, 7, 15));
    const [b] = await at(Date.UTC(2026, 0, 7, 17));
    expect(a).not.toEqual(b);
  });
});
