import fc from 'fast-check';
import type { FinancialPeriod } from '../../model';
import { CATALOG } from './catalog';
import { DAY, hoursOf, instantArb, localTime, Market, round } from './testing/index';

const STOCKS = CATALOG.filter((i) => i.type === 'stock');
const instrumentsArb = fc.subarray([...CATALOG], { minLength: 4, maxLength: 10 });
/** Pence quotes, pound statements. */
const unitOf = (currency: string | null) => (currency === 'GBX' ? 0.01 : 1);
const quarterly = (periods: readonly FinancialPeriod[]) => periods.filter((p) => !p.isAnnual);

describe('company', () => {
  test('day and 52-week ranges agree with the 1D and 1Y charts; volume is the 1D total', async () => {
    await fc.assert(
      fc.asyncProperty(instantArb, instrumentsArb, async (now, instruments) => {
        const m = new Market(now);
        const problems: string[] = [];
        for (const { ticker } of instruments) {
          const [c, q, day, year] = [
            await m.company(ticker),
            await m.quote(ticker),
            await m.chart(ticker, '1D'),
            await m.chart(ticker, '1Y'),
          ];
          const dayPrices = day.points.map((p) => p.price as number);
          const yearPrices = year.points.map((p) => p.price as number);
          if (c.open !== dayPrices[0]) problems.push(`${ticker}: open ${c.open} vs ${dayPrices[0]}`);
          if (c.high !== Math.max(...dayPrices) || c.low !== Math.min(...dayPrices))
            problems.push(`${ticker}: high/low ${c.high}/${c.low}`);
          const hi = c.fiftyTwoWeekHigh as number;
          const lo = c.fiftyTwoWeekLow as number;
          if (!(hi >= Math.max(...yearPrices, q.price as number, c.high as number)))
            problems.push(`${ticker}: 52w high ${hi} below a 1Y point or today`);
          if (!(lo <= Math.min(...yearPrices, q.price as number, c.low as number)))
            problems.push(`${ticker}: 52w low ${lo} above a 1Y point or today`);
          if (!(lo > 0)) problems.push(`${ticker}: 52w low ${lo}`);
          const expectedVolume =
            ticker.includes(':INDEX') || q.type === 'unknown'
              ? null
              : day.points.reduce((s, p) => s + (p.volume as number), 0);
          if (c.volume !== expectedVolume) problems.push(`${ticker}: volume ${c.volume} vs ${expectedVolume}`);
        }
        expect(problems).toEqual([]);
      }),
      { numRuns: 25 },
    );
  });

  test('market cap = price × shares; P/E = price / trailing-four-quarter EPS from the financials', async () => {
    await fc.assert(
      fc.asyncProperty(instantArb, async (now) => {
        const m = new Market(now);
        const problems: string[] = [];
        for (const i of STOCKS) {
          const [c, q, f] = [await m.company(i.ticker), await m.quote(i.ticker), await m.financials(i.ticker)];
          const price = (q.price as number) * unitOf(q.currency);
          if (c.marketCap !== Math.round(price * (i.company?.sharesOutstanding as number)))
            problems.push(`${i.ticker}: market cap ${c.marketCap}`);
          const ttm = round(
            quarterly(f)
              .slice(0, 4)
              .reduce((s, p) => s + (p.eps as number), 0),
            2,
          );
          const pe = ttm > 0 ? round(price / ttm, 2) : null;
          if (c.peRatio !== pe) problems.push(`${i.ticker}: P/E ${c.peRatio} vs ${pe}`);
        }
        expect(problems).toEqual([]);
      }),
      { numRuns: 10 },
    );
  });

  test('company-only fields are filled for stocks and null for everything else', async () => {
    const m = new Market(Date.UTC(2026, 1, 3, 16));
    for (const i of CATALOG) {
      const c = await m.company(i.ticker);
      expect(c.description).toMatch(/\S/);
      expect(c.open).toEqual(expect.any(Number));
      expect(c.fiftyTwoWeekHigh).toEqual(expect.any(Number));
      if (i.type === 'stock') {
        expect(c).toMatchObject({
          ceo: expect.stringMatching(/\S/),
          employees: expect.any(Number),
          sector: expect.stringMatching(/\S/),
        });
        expect(c.marketCap).toBeGreaterThan(1e9);
      } else {
        expect(c).toMatchObject({ ceo: null, employees: null, sector: null, peRatio: null });
        if (i.type === 'crypto') expect(c.marketCap).toBeGreaterThan(1e8);
        else expect(c.marketCap).toBeNull();
      }
    }
    expect((await m.company('.INX:INDEXSP')).volume).toBeNull();
    expect((await m.company('EUR-USD')).volume).toBeNull();
    expect((await m.company('BTC-USD')).volume).toBeGreaterThan(0);
  });
});

describe('financials', () => {
  const label = (q: number) => `${Math.floor(q / 4)}-Q${(q % 4) + 1}`;
  const quarterIndex = (s: string) => Number(s.slice(0, 4)) * 4 + Number(s.slice(6)) - 1;
  /** Day number (days since 1970-01-01) of the quarter's last calendar day. */
  const lastDayOfQuarter = (q: number) => Date.UTC(Math.floor((q + 1) / 4), ((q + 1) % 4) * 3, 1) / DAY - 1;
  /** Day number of the local date at the ticker's exchange (Intl, independent of the simulation's own zones). */
  const localDayNumber = (ticker: string, utcMs: number) =>
    Date.parse(`${localTime(hoursOf(ticker).zone, utcMs).date}T00:00:00Z`) / DAY;
  /**
   * Found by fast-check (seed -1013908279): 2026-04-20T13:30Z is 20 days after 2026-03-31 in Istanbul, the day
   * GARAN:IST reports 2026-Q1. The test used to count from 2026-04-01T00:00Z (a day late, and in UTC).
   */
  const FOUND_INSTANTS = [1776691800000];

  test('8 consecutive quarters then 4 consecutive years, newest first, with consistent figures', async () => {
    await fc.assert(
      fc.asyncProperty(instantArb, async (now) => {
        const m = new Market(now);
        const problems: string[] = [];
        for (const i of STOCKS) {
          const f = await m.financials(i.ticker);
          const shares = i.company?.sharesOutstanding as number;
          const quarters = f.slice(0, 8);
          const years = f.slice(8);
          if (f.length !== 12 || quarters.some((p) => p.isAnnual) || years.some((p) => !p.isAnnual)) {
            problems.push(`${i.ticker}: layout`);
            continue;
          }
          const latest = quarterIndex(quarters[0]?.fiscalEnd as string);
          quarters.forEach((p, k) => {
            if (p.fiscalEnd !== label(latest - k)) problems.push(`${i.ticker}: quarter ${k} is ${p.fiscalEnd}`);
          });
          // A year is out once its fourth quarter is.
          const lastYear = Math.floor((latest + 1) / 4) - 1;
          years.forEach((p, k) => {
            if (p.fiscalEnd !== String(lastYear - k)) problems.push(`${i.ticker}: year ${k} is ${p.fiscalEnd}`);
          });
          // Reports come out 20–44 days after the quarter's last day, counted in the exchange's own calendar: the
          // latest is at least 20 days old, and the next one is not yet 45 days past its end (else it would be out).
          const today = localDayNumber(i.ticker, now);
          const sinceEnd = (q: number) => today - lastDayOfQuarter(q);
          if (!(sinceEnd(latest) >= 20 && sinceEnd(latest + 1) < 45))
            problems.push(`${i.ticker}: latest quarter ${quarters[0]?.fiscalEnd} at ${new Date(now).toISOString()}`);
          for (const p of f) {
            const eps = p.eps as number;
            const netIncome = p.netIncome as number;
            if (p.currency !== (i.currency === 'GBX' ? 'GBP' : i.currency))
              problems.push(`${i.ticker}: currency ${p.currency}`);
            if (!(Math.abs(eps - netIncome / shares) <= 0.005 + 1e-9))
              problems.push(`${i.ticker} ${p.fiscalEnd}: eps ${eps} vs ${netIncome / shares}`);
            if (eps > 0 ? !((p.epsDiluted as number) <= eps) : p.epsDiluted !== eps)
              problems.push(`${i.ticker} ${p.fiscalEnd}: diluted ${p.epsDiluted} vs ${eps}`);
            if (!((p.revenue as number) > 0 && Number.isInteger(p.revenue) && Number.isInteger(netIncome)))
              problems.push(`${i.ticker} ${p.fiscalEnd}: revenue`);
            // operatingMargin is a percentage.
            const margin = p.operatingMargin as number;
            if (!(Math.abs(margin - 100 * i.company!.operatingMargin) < 10))
              problems.push(`${i.ticker} ${p.fiscalEnd}: margin ${margin}`);
            if (p.peRatio !== null && !(p.peRatio > 0)) problems.push(`${i.ticker} ${p.fiscalEnd}: P/E ${p.peRatio}`);
          }
          // The latest year's revenue and net income are the sums of its quarters (all of them are shown).
          const year = years[0] as FinancialPeriod;
          const ofYear = quarters.filter((p) => p.fiscalEnd?.startsWith(`${year.fiscalEnd}-`));
          const sum = (k: 'revenue' | 'netIncome') => ofYear.reduce((s, p) => s + (p[k] as number), 0);
          if (ofYear.length !== 4 || sum('revenue') !== year.revenue || sum('netIncome') !== year.netIncome)
            problems.push(`${i.ticker}: ${year.fiscalEnd} ≠ Σ quarters`);
          // P/E of a quarter: price at its end over trailing four quarters' EPS; the fourth-latest has all four shown.
          const q3 = quarters[3] as FinancialPeriod;
          const ttm = round(
            quarters.slice(3, 7).reduce((s, p) => s + (p.eps as number), 0),
            2,
          );
          if ((q3.peRatio === null) !== ttm <= 0) problems.push(`${i.ticker}: P/E null-ness vs TTM EPS ${ttm}`);
        }
        expect(problems).toEqual([]);
      }),
      { numRuns: 12, examples: FOUND_INSTANTS.map((t): [number] => [t]) },
    );
  });

  test('the history never changes; it only rolls forward as quarters are reported', async () => {
    await fc.assert(
      fc.asyncProperty(instantArb, fc.integer({ min: 1, max: 400 }), async (now, days) => {
        const [a, b] = [new Market(now), new Market(now + days * DAY)];
        const problems: string[] = [];
        for (const i of STOCKS.slice(0, 12)) {
          const [before, after] = [await a.financials(i.ticker), await b.financials(i.ticker)];
          const later = new Map(after.map((p) => [`${p.isAnnual}:${p.fiscalEnd}`, p]));
          for (const p of before) {
            const same = later.get(`${p.isAnnual}:${p.fiscalEnd}`);
            if (same && JSON.stringify(same) !== JSON.stringify(p)) problems.push(`${i.ticker} ${p.fiscalEnd} changed`);
          }
          // A quarter is reported at most 44 days after it ends, so 140 days always bring a new one.
          const latest = (f: FinancialPeriod[]) => quarterIndex(f[0]?.fiscalEnd as string);
          if (latest(after) < latest(before) || (days >= 140 && latest(after) === latest(before)))
            problems.push(`${i.ticker}: did not roll over ${days} days`);
        }
        expect(problems).toEqual([]);
      }),
      { numRuns: 15 },
    );
  });

  test('earnings events announce, for each stock, the quarter after its latest reported one', async () => {
    await fc.assert(
      fc.asyncProperty(instantArb, async (now) => {
        const m = new Market(now);
        const events = await m.earnings();
        expect(events.map((e) => e.ticker).sort()).toEqual(STOCKS.map((i) => i.ticker).sort());
        const problems: string[] = [];
        for (const e of events) {
          const latest = (await m.financials(e.ticker as string))[0]?.fiscalEnd as string;
          if (e.date !== label(quarterIndex(latest) + 1))
            problems.push(`${e.ticker}: event ${e.date} after reported ${latest}`);
          const i = STOCKS.find((s) => s.ticker === e.ticker);
          if (e.name !== i?.name || e.exchange !== i?.exchange) problems.push(`${e.ticker}: name/exchange`);
        }
        expect(problems).toEqual([]);
      }),
      { numRuns: 10 },
    );
  });

  test('earnings events carry the day of the report as an ISO date: upcoming, 20–44 days after its quarter ends', async () => {
    await fc.assert(
      fc.asyncProperty(instantArb, async (now) => {
        const m = new Market(now);
        const problems: string[] = [];
        for (const e of await m.earnings()) {
          const zone = STOCKS.find((s) => s.ticker === e.ticker)?.market.timeZone as string;
          const day = e.reportDate ?? '';
          if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || new Date(`${day}T00:00:00Z`).toISOString().slice(0, 10) !== day) {
            problems.push(`${e.ticker}: reportDate ${e.reportDate} is not a date`);
            continue;
          }
          if (!/^\d{4}-Q[1-4]$/.test(e.date ?? '')) problems.push(`${e.ticker}: date ${e.date} is not YYYY-Qn`);
          if (day <= localTime(zone, now).date) problems.push(`${e.ticker}: ${day} is not after today`);
          const q = quarterIndex(e.date as string);
          const quarterEnd = Date.UTC(Math.floor(q / 4), (q % 4) * 3 + 3, 0); // last day of the quarter
          const after = (Date.parse(`${day}T00:00:00Z`) - quarterEnd) / DAY;
          if (after < 20 || after > 44) problems.push(`${e.ticker}: ${day} is ${after} days after ${e.date} ends`);
        }
        expect(problems).toEqual([]);
      }),
      { numRuns: 10 },
    );
  });

  test('non-stocks have no financial statements', async () => {
    const m = new Market(Date.UTC(2026, 1, 3, 16));
    for (const t of ['.INX:INDEXSP', 'SPY:NYSEARCA', 'BTC-USD', 'EUR-USD']) expect(await m.financials(t)).toEqual([]);
  });
});
