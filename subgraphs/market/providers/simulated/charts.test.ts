import fc from 'fast-check';
import { CHART_RANGES, type ChartData, type ChartPoint, type ChartRange } from '../../model';
import { SIMULATED_TICKERS } from './index';
import { DAY, hoursOf, instantArb, localInstant, localTime, Market, MINUTE } from './testing/index';

const INTRADAY = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/;
const DAILY = /^\d{4}-\d{2}-\d{2}$/;
const tickersArb = fc.subarray([...SIMULATED_TICKERS], { minLength: 4, maxLength: 10 });
const noVolume = (ticker: string) => ticker.includes(':INDEX') || hoursOf(ticker).kind === 'fx';

async function charts(m: Market, ticker: string): Promise<Record<ChartRange, ChartData>> {
  const entries = await Promise.all(CHART_RANGES.map(async (r) => [r, await m.chart(ticker, r)] as const));
  return Object.fromEntries(entries) as Record<ChartRange, ChartData>;
}

const sumVolumes = (points: readonly ChartPoint[]) => points.reduce((s, p) => s + (p.volume as number), 0);

describe('charts', () => {
  test('every range ends at the quote price, in date order, with well-formed dates and integer volumes', async () => {
    await fc.assert(
      fc.asyncProperty(instantArb, tickersArb, async (now, tickers) => {
        const m = new Market(now);
        const problems: string[] = [];
        for (const ticker of tickers) {
          const quote = await m.quote(ticker);
          const all = await charts(m, ticker);
          for (const range of CHART_RANGES) {
            const { points, previousClose } = all[range];
            const where = `${ticker} ${range}`;
            if (points.length === 0) {
              problems.push(`${where}: no points`);
              continue;
            }
            if (points.at(-1)?.price !== quote.price)
              problems.push(`${where}: last ${points.at(-1)?.price} ≠ price ${quote.price}`);
            if (!(typeof previousClose === 'number' && previousClose > 0))
              problems.push(`${where}: previousClose ${previousClose}`);
            const intraday = range === '1D' || range === '5D';
            const keys = points.map((p) => (intraday ? Date.parse(p.date) : p.date));
            if (points.some((p) => !(intraday ? INTRADAY : DAILY).test(p.date)))
              problems.push(`${where}: bad date format ${points[0]?.date}`);
            if (keys.some((k, i) => i > 0 && !(k > (keys[i - 1] as typeof k))))
              problems.push(`${where}: dates not strictly increasing`);
            for (const p of points) {
              const ok = noVolume(ticker) ? p.volume === null : Number.isInteger(p.volume) && (p.volume as number) >= 0;
              if (!ok) {
                problems.push(`${where}: volume ${p.volume} at ${p.date}`);
                break;
              }
            }
          }
          if (all['1D'].previousClose !== quote.previousClose) problems.push(`${ticker}: 1D previousClose ≠ quote`);
        }
        expect(problems).toEqual([]);
      }),
      { numRuns: 25 },
    );
  });

  test('ranges agree with each other: same closes on the same dates, previousClose = the close before the first point', async () => {
    await fc.assert(
      fc.asyncProperty(instantArb, tickersArb, async (now, tickers) => {
        const m = new Market(now);
        const problems: string[] = [];
        for (const ticker of tickers) {
          const all = await charts(m, ticker);
          const year = all['1Y'].points;
          const closeOn = new Map(year.map((p) => [p.date, p.price]));
          const indexOf = new Map(year.map((p, i) => [p.date, i]));
          for (const range of ['1M', '6M', 'YTD', '5Y', 'MAX'] as const) {
            for (const p of all[range].points) {
              if (closeOn.has(p.date) && closeOn.get(p.date) !== p.price)
                problems.push(`${ticker} ${range} ${p.date}: ${p.price} vs 1Y ${closeOn.get(p.date)}`);
            }
          }
          for (const range of ['1M', '6M', 'YTD'] as const) {
            const i = indexOf.get(all[range].points[0]?.date as string);
            if (i === undefined) problems.push(`${ticker} ${range}: first date not in 1Y`);
            else if (i > 0 && all[range].previousClose !== year[i - 1]?.price)
              problems.push(`${ticker} ${range}: previousClose ${all[range].previousClose} vs ${year[i - 1]?.price}`);
          }
          // The five sessions of 5D are the last five daily points; its previousClose is the one before them.
          const month = all['1M'].points;
          if (all['5D'].previousClose !== month.at(-6)?.price)
            problems.push(`${ticker} 5D: previousClose ${all['5D'].previousClose} vs ${month.at(-6)?.price}`);
        }
        expect(problems).toEqual([]);
      }),
      { numRuns: 20 },
    );
  });

  test("weekly and monthly volumes are the sums of the daily ones; the 1D volumes sum to the day's", async () => {
    await fc.assert(
      fc.asyncProperty(instantArb, async (now) => {
        const m = new Market(now);
        const problems: string[] = [];
        for (const ticker of ['AAPL:NASDAQ', 'THYAO:IST', 'BTC-USD', 'SPY:NYSEARCA', '7203:TYO']) {
          const all = await charts(m, ticker);
          const year = all['1Y'].points;
          if (sumVolumes(all['1D'].points) !== year.at(-1)?.volume) problems.push(`${ticker}: 1D sum ≠ today's volume`);
          // Weeks (Monday-based) and months fully inside the 1Y range.
          const weekOf = (date: string) => {
            const t = Date.parse(`${date}T00:00:00Z`);
            return new Date(t - ((new Date(t).getUTCDay() + 6) % 7) * DAY).toISOString().slice(0, 10);
          };
          const start = year[0]?.date as string;
          for (const [range, keyOf] of [
            ['5Y', weekOf],
            ['MAX', (d: string) => d.slice(0, 7)],
          ] as const) {
            const coarse = all[range].points;
            for (let i = 1; i < coarse.length; i++) {
              const p = coarse[i] as ChartPoint;
              const previous = coarse[i - 1] as ChartPoint;
              if (previous.date < start) continue; // the period may begin before the 1Y range
              const days = year.filter((d) => d.date > previous.date && d.date <= p.date);
              if (days.some((d) => keyOf(d.date) !== keyOf(p.date)))
                problems.push(`${ticker} ${range}: ${p.date} covers more than one period`);
              if (sumVolumes(days) !== p.volume)
                problems.push(`${ticker} ${range} ${p.date}: ${p.volume} vs Σ daily ${sumVolumes(days)}`);
            }
          }
        }
        expect(problems).toEqual([]);
      }),
      { numRuns: 15 },
    );
  });

  test('1D is every 5 minutes from the open and 5D every 30 minutes over five sessions', async () => {
    await fc.assert(
      fc.asyncProperty(instantArb, tickersArb, async (now, tickers) => {
        const m = new Market(now);
        const problems: string[] = [];
        for (const ticker of tickers) {
          const h = hoursOf(ticker);
          const day = (await m.chart(ticker, '1D')).points.map((p) => Date.parse(p.date));
          day.forEach((t, i) => {
            if (i > 0 && i < day.length - 1 && t - (day[i - 1] as number) !== 5 * MINUTE)
              problems.push(`${ticker} 1D: gap at ${i}`);
          });
          const last = day.at(-1) as number;
          if (day.length > 1 && !(last - (day.at(-2) as number) <= 5 * MINUTE)) problems.push(`${ticker} 1D: last gap`);
          const five = (await m.chart(ticker, '5D')).points.map((p) => Date.parse(p.date));
          // It starts at the open of the session four trading days back (the fifth-last daily point)…
          const sessionDate = (await m.chart(ticker, '1M')).points.at(-5)?.date as string;
          const opensOn =
            h.kind === 'fx'
              ? new Date(Date.parse(`${sessionDate}T00:00:00Z`) - DAY).toISOString().slice(0, 10)
              : sessionDate;
          const start = localTime(h.zone, five[0] as number);
          if (start.date !== opensOn || start.minutes !== h.open % (24 * 60))
            problems.push(`${ticker} 5D: starts ${start.date} ${start.minutes} for session ${sessionDate}`);
          // …and steps by 30 minutes, except across a closure (close → next open) and to the final point (now).
          five.forEach((t, i) => {
            if (i === 0) return;
            const gap = t - (five[i - 1] as number);
            if (gap > 30 * MINUTE) {
              const before = localTime(h.zone, five[i - 1] as number).minutes;
              const after = localTime(h.zone, t).minutes;
              if (h.kind === 'crypto' || before !== h.close % (24 * 60) || after !== h.open % (24 * 60))
                problems.push(`${ticker} 5D: ${gap / MINUTE}-minute gap at ${i}`);
            } else if (gap < 30 * MINUTE && i < five.length - 1) {
              problems.push(`${ticker} 5D: ${gap / MINUTE}-minute step at ${i}`);
            }
          });
        }
        expect(problems).toEqual([]);
      }),
      { numRuns: 20 },
    );
  });

  test('a complete US session has 79 five-minute points from 09:30 to 16:00 New York time', async () => {
    const m = new Market(localInstant('America/New_York', '2026-07-08', 18 * 60));
    const points = (await m.chart('MSFT:NASDAQ', '1D')).points;
    expect(points).toHaveLength(79);
    expect(points[0]?.date).toBe('2026-07-08T09:30:00-04:00');
    expect(points.at(-1)?.date).toBe('2026-07-08T16:00:00-04:00');
    const winter = await new Market(localInstant('Europe/Istanbul', '2026-01-14', 12 * 60)).chart('THYAO:IST', '1D');
    expect(winter.points[0]?.date).toBe('2026-01-14T10:00:00+03:00');
    expect(winter.points.at(-1)?.date).toBe('2026-01-14T12:00:00+03:00');
  });

  test('daily ranges cover their calendar span; 5Y is weekly and MAX monthly back to the listing', async () => {
    const now = Date.UTC(2026, 4, 20, 20, 30); // Wednesday, after the US close
    const m = new Market(now);
    const c = await charts(m, 'AAPL:NASDAQ');
    expect(c['1M'].points[0]?.date).toBe('2026-04-21');
    expect(c['YTD'].points[0]?.date).toBe('2026-01-01'); // holidays are not modelled
    expect(c['1Y'].points[0]?.date).toBe('2025-05-21');
    expect(c['1Y'].points).toHaveLength(261);
    const weekly = c['5Y'].points;
    expect(weekly.slice(0, -1).every((p) => new Date(`${p.date}T00:00:00Z`).getUTCDay() === 5)).toBe(true);
    expect(weekly.length).toBeGreaterThanOrEqual(259);
    expect(weekly.length).toBeLessThanOrEqual(262);
    const monthly = c['MAX'].points;
    expect(monthly[0]?.date.slice(0, 7)).toBe('1980-12'); // Apple listed on 1980-12-12
    const months = monthly.map((p) => p.date.slice(0, 7));
    expect(new Set(months).size).toBe(months.length);
    expect(months.at(-1)).toBe('2026-05');
    expect(months).toHaveLength((2026 - 1980) * 12 + 5 - 11);
    const btcWeekly = (await m.chart('BTC-USD', '5Y')).points;
    expect(btcWeekly.slice(0, -1).every((p) => new Date(`${p.date}T00:00:00Z`).getUTCDay() === 0)).toBe(true);
  });
});
