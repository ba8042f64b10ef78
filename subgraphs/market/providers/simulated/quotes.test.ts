import fc from 'fast-check';
import type { Quote } from '../../model';
import { SIMULATED_TICKERS } from './index';
import {
  DAY,
  decimalPlaces,
  decimalsOf,
  HOUR,
  type Hours,
  hoursOf,
  instantArb,
  isOpen,
  localInstant,
  localTime,
  Market,
  MINUTE,
  round,
  US_LISTED,
} from './testing/index';

const allQuotes = async (m: Market): Promise<Quote[]> => Promise.all(SIMULATED_TICKERS.map((t) => m.quote(t)));

describe('quote arithmetic', () => {
  test('change = price − previousClose and changePercent = change / previousClose × 100, at the documented precision', async () => {
    await fc.assert(
      fc.asyncProperty(instantArb, async (now) => {
        const problems: string[] = [];
        for (const q of await allQuotes(new Market(now))) {
          const d = decimalsOf(q.ticker);
          const price = q.price as number;
          const previous = q.previousClose as number;
          const change = q.change as number;
          if (!(price > 0 && previous > 0)) problems.push(`${q.ticker}: non-positive price ${price} / ${previous}`);
          if (decimalPlaces(price) > d || decimalPlaces(previous) > d)
            problems.push(`${q.ticker}: ${price} / ${previous} not at ${d} decimals`);
          if (change !== round(price - previous, d))
            problems.push(`${q.ticker}: change ${change} vs ${price} − ${previous}`);
          if (!(Math.abs(price - previous - change) < 1e-9))
            problems.push(`${q.ticker}: change ${change} off by more than 1e-9`);
          if (q.changePercent !== round((change / previous) * 100, 4))
            problems.push(`${q.ticker}: changePercent ${q.changePercent}`);
        }
        expect(problems).toEqual([]);
      }),
      { numRuns: 40 },
    );
  });
});

describe('market hours', () => {
  test('the 1D chart ends now while the session trades, and at the session close otherwise', async () => {
    await fc.assert(
      fc.asyncProperty(
        instantArb,
        fc.subarray([...SIMULATED_TICKERS], { minLength: 8, maxLength: 16 }),
        async (now, tickers) => {
          const m = new Market(now);
          for (const ticker of tickers) {
            const h = hoursOf(ticker);
            const points = (await m.chart(ticker, '1D')).points;
            const first = Date.parse(points[0]?.date as string);
            const last = Date.parse(points.at(-1)?.date as string);
            // The session opens at the local opening time (FX: 17:00 the evening before; crypto: UTC midnight).
            expect(localTime(h.zone, first).minutes).toBe(h.kind === 'crypto' ? 0 : h.open);
            if (isOpen(ticker, now)) {
              expect(last).toBe(Math.floor(now / 1000) * 1000);
            } else {
              expect(localTime(h.zone, last).minutes).toBe(h.close === 24 * 60 ? 0 : h.close);
              expect(last).toBeLessThanOrEqual(now);
              expect(now - last).toBeLessThan(3.5 * DAY); // at most a weekend away
            }
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  test('while a market is closed the quote does not move', async () => {
    let compared = 0;
    await fc.assert(
      fc.asyncProperty(instantArb, fc.integer({ min: 1, max: 12 * 60 }), async (start, minutes) => {
        const end = start + minutes * MINUTE;
        const [a, b] = [new Market(start), new Market(end)];
        // Closed at every 5-minute sample of [start, end] by the test's own hours table (one check per market).
        const closedThroughout = new Map<Hours, boolean>();
        const problems: string[] = [];
        for (const ticker of SIMULATED_TICKERS) {
          const h = hoursOf(ticker);
          if (!closedThroughout.has(h)) {
            let closed = !isOpen(ticker, end);
            for (let t = start; t < end && closed; t += 5 * MINUTE) closed = !isOpen(ticker, t);
            closedThroughout.set(h, closed);
          }
          if (!closedThroughout.get(h)) continue;
          const [qa, qb] = [await a.quote(ticker), await b.quote(ticker)];
          if (qa.price !== qb.price || qa.previousClose !== qb.previousClose || qa.change !== qb.change) {
            problems.push(
              `${ticker}: ${qa.price}/${qa.previousClose} at ${new Date(start).toISOString()} but ${qb.price}/${qb.previousClose} ${minutes} min later`,
            );
          }
          compared++;
        }
        expect(problems).toEqual([]);
      }),
      { numRuns: 60 },
    );
    expect(compared).toBeGreaterThan(200);
  });

  test('a weekend is closed for exchanges and FX but not for crypto', async () => {
    const saturday = new Market(Date.UTC(2026, 5, 6, 12));
    const sunday = new Market(Date.UTC(2026, 5, 7, 12));
    for (const ticker of ['AAPL:NASDAQ', 'THYAO:IST', '7203:TYO', 'EUR-USD', '.INX:INDEXSP']) {
      expect((await sunday.quote(ticker)).price).toBe((await saturday.quote(ticker)).price);
    }
    const moved = await Promise.all(
      ['BTC-USD', 'ETH-USD', 'SOL-USD'].map(
        async (t) => (await sunday.quote(t)).price !== (await saturday.quote(t)).price,
      ),
    );
    expect(moved).toContain(true);
  });

  test('during a session the price moves', async () => {
    const m = new Market(localInstant('America/New_York', '2026-03-11', 15 * 60));
    for (const ticker of ['AAPL:NASDAQ', 'JPM:NYSE', 'SPY:NYSEARCA', '.DJI:INDEXDJX', 'BTC-USD', 'EUR-USD']) {
      const prices = new Set((await m.chart(ticker, '1D')).points.map((p) => p.price));
      expect(prices.size).toBeGreaterThan(5);
    }
  });

  test('previousClose is the close of the previous session (crypto: the price at the previous UTC midnight)', async () => {
    // Monday 2026-03-09 14:00 New York: AAPL's previous session is Friday, whose 1D chart ends at its close.
    const monday = new Market(localInstant('America/New_York', '2026-03-09', 14 * 60));
    const friday = new Market(localInstant('America/New_York', '2026-03-07', 12 * 60));
    expect((await monday.quote('AAPL:NASDAQ')).previousClose).toBe((await friday.quote('AAPL:NASDAQ')).price);
    const btcNoon = new Market(Date.UTC(2026, 2, 9, 12));
    const btcMidnight = new Market(Date.UTC(2026, 2, 9, 0));
    expect((await btcNoon.quote('BTC-USD')).previousClose).toBe((await btcMidnight.quote('BTC-USD')).price);
    expect((await btcNoon.quote('BTC-USD')).previousClose).toBe(
      (await btcNoon.chart('BTC-USD', '1D')).points[0]?.price,
    );
  });
});

describe('after hours', () => {
  test('present only for US-listed stocks and ETFs outside regular hours, with change against the regular close', async () => {
    let present = 0;
    await fc.assert(
      fc.asyncProperty(instantArb, async (now) => {
        const problems: string[] = [];
        for (const q of await allQuotes(new Market(now))) {
          const expected = US_LISTED(q.ticker) && (q.type === 'stock' || q.type === 'etf') && !isOpen(q.ticker, now);
          if ((q.afterHours !== null) !== expected)
            problems.push(`${q.ticker}: afterHours ${JSON.stringify(q.afterHours)} at ${new Date(now).toISOString()}`);
          const ah = q.afterHours;
          if (ah === null) continue;
          present++;
          if (ah.change !== round((ah.price as number) - (q.price as number), 2))
            problems.push(`${q.ticker}: after-hours change ${ah.change}`);
          if (ah.changePercent !== round(((ah.change as number) / (q.price as number)) * 100, 4))
            problems.push(`${q.ticker}: after-hours % ${ah.changePercent}`);
        }
        expect(problems).toEqual([]);
      }),
      { numRuns: 40 },
    );
    expect(present).toBeGreaterThan(100);
  });

  test('it moves in the post-market and pre-market and stays put overnight and over the weekend', async () => {
    const at = (date: string, minute: number) => new Market(localInstant('America/New_York', date, minute));
    const tickers = ['AAPL:NASDAQ', 'MSFT:NASDAQ', 'JPM:NYSE', 'SPY:NYSEARCA', 'QQQ:NASDAQ', 'TSLA:NASDAQ'];
    const ah = async (m: Market, t: string) => (await m.quote(t)).afterHours?.price;
    let postMoves = 0;
    let preMoves = 0;
    for (const t of tickers) {
      // Wednesday: 16:30 vs 19:45 (post-market), then 20:00 = 23:00 = 03:59 the next day (overnight).
      const eight = await ah(at('2026-03-11', 20 * 60), t);
      if ((await ah(at('2026-03-11', 16 * 60 + 30), t)) !== (await ah(at('2026-03-11', 19 * 60 + 45), t))) postMoves++;
      expect(await ah(at('2026-03-11', 23 * 60), t)).toBe(eight);
      expect(await ah(at('2026-03-12', 3 * 60 + 59), t)).toBe(eight);
      if ((await ah(at('2026-03-12', 4 * 60 + 30), t)) !== (await ah(at('2026-03-12', 9 * 60 + 15), t))) preMoves++;
      // Friday 20:00 = Saturday = Sunday.
      const friday = await ah(at('2026-03-13', 20 * 60), t);
      expect(await ah(at('2026-03-14', 12 * 60), t)).toBe(friday);
      expect(await ah(at('2026-03-15', 22 * 60), t)).toBe(friday);
    }
    expect(postMoves).toBeGreaterThanOrEqual(4);
    expect(preMoves).toBeGreaterThanOrEqual(4);
  });

  test('never for an instrument that does not trade after hours', async () => {
    const evening = new Market(localInstant('America/New_York', '2026-03-11', 18 * 60));
    for (const t of ['.INX:INDEXSP', 'THYAO:IST', 'SAP:ETR', 'BTC-USD', 'EUR-USD', 'RY:TSE']) {
      expect((await evening.quote(t)).afterHours).toBeNull();
    }
    expect((await evening.quote('AAPL:NASDAQ')).afterHours).not.toBeNull();
  });
});

describe('price path', () => {
  test('stays near the catalog level on the anchor date and keeps plausible levels', async () => {
    const m = new Market(Date.UTC(2025, 6, 1, 21));
    expect((await m.quote('AAPL:NASDAQ')).price).toBeCloseTo(210, -1);
    const later = new Market(Date.UTC(2026, 6, 1, 21));
    const btc = (await later.quote('BTC-USD')).price as number;
    expect(btc).toBeGreaterThan(20_000);
    expect(btc).toBeLessThan(500_000);
  });

  test('a day-to-day move is small compared with the price', async () => {
    await fc.assert(
      fc.asyncProperty(instantArb, async (now) => {
        for (const q of await allQuotes(new Market(now + 12 * HOUR)))
          expect(Math.abs(q.changePercent as number)).toBeLessThan(30);
      }),
      { numRuns: 10 },
    );
  });
});
