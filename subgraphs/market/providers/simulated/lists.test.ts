import fc from 'fast-check';
import { MOVER_CATEGORIES, type MarketListItem, type MoverCategory, type Quote } from '../../model';
import { CATALOG } from './catalog';
import { rankMovers, type MoverRow } from './lists';
import { instantArb, Market } from './testing/index';

const STOCK_TICKERS = CATALOG.filter((i) => i.type === 'stock').map((i) => i.ticker);
const typeOf = new Map(CATALOG.map((i) => [i.ticker, i.type]));

/** Rows that differ from the instrument's quote at the same clock. */
async function mismatches(m: Market, rows: readonly MarketListItem[]): Promise<string[]> {
  const out: string[] = [];
  for (const r of rows) {
    const q: Quote = await m.quote(r.ticker);
    const a = { ticker: r.ticker, name: r.name, price: r.price, change: r.change, changePercent: r.changePercent };
    const b = { ticker: q.ticker, name: q.name, price: q.price, change: q.change, changePercent: q.changePercent };
    if (JSON.stringify(a) !== JSON.stringify(b)) out.push(`${JSON.stringify(a)} ≠ ${JSON.stringify(b)}`);
  }
  return out;
}

const movers = (m: Market, category: MoverCategory, count: number, offset: number) =>
  m.list({ kind: 'movers', category, count, offset });

describe('movers', () => {
  test('each category is sorted by its key with ties by ticker, and rows equal the quotes', async () => {
    await fc.assert(
      fc.asyncProperty(instantArb, async (now) => {
        const m = new Market(now);
        const problems: string[] = [];
        const active = await movers(m, 'most-active', 100, 0);
        // Every stock takes part in most-active; the order is by today's volume (as company.volume reports it).
        if (JSON.stringify(active.map((r) => r.ticker).sort()) !== JSON.stringify([...STOCK_TICKERS].sort()))
          problems.push('most-active is not all stocks');
        const volumes = await Promise.all(active.map(async (r) => (await m.company(r.ticker)).volume as number));
        active.forEach((r, i) => {
          if (i === 0) return;
          const [v0, v1] = [volumes[i - 1] as number, volumes[i] as number];
          const previous = active[i - 1] as MarketListItem;
          if (v1 > v0 || (v1 === v0 && r.ticker < previous.ticker))
            problems.push(`most-active: ${previous.ticker} before ${r.ticker}`);
        });
        const gainers = await movers(m, 'gainers', 100, 0);
        const losers = await movers(m, 'losers', 100, 0);
        const pct = (r: MarketListItem) => r.changePercent as number;
        gainers.forEach((r, i) => {
          if (!(pct(r) > 0)) problems.push(`gainer ${r.ticker} at ${pct(r)}`);
          const p = gainers[i - 1];
          if (p && (pct(r) > pct(p) || (pct(r) === pct(p) && r.ticker < p.ticker)))
            problems.push(`gainers: ${p.ticker} before ${r.ticker}`);
        });
        losers.forEach((r, i) => {
          if (!(pct(r) < 0)) problems.push(`loser ${r.ticker} at ${pct(r)}`);
          const p = losers[i - 1];
          if (p && (pct(r) < pct(p) || (pct(r) === pct(p) && r.ticker < p.ticker)))
            problems.push(`losers: ${p.ticker} before ${r.ticker}`);
        });
        // Every stock that moved is a gainer or a loser.
        const moved = (await Promise.all(STOCK_TICKERS.map((t) => m.quote(t)))).filter(
          (q) => q.changePercent !== 0,
        ).length;
        if (gainers.length + losers.length !== moved)
          problems.push(`${gainers.length} gainers + ${losers.length} losers ≠ ${moved} moved`);
        problems.push(...(await mismatches(m, [...active, ...gainers, ...losers])));
        expect(problems).toEqual([]);
      }),
      { numRuns: 15 },
    );
  });

  test('ties are broken by ticker whatever order the rows come in', () => {
    fc.assert(
      fc.property(
        fc.shuffledSubarray(['A:X', 'B:X', 'C:X', 'D:X', 'E:X', 'F:X'], { minLength: 6, maxLength: 6 }),
        (order) => {
          // Two groups of equal values, in every input order.
          const rows: MoverRow[] = order.map((ticker) => {
            const up = ticker < 'D';
            return {
              item: { ticker, name: ticker, price: 10, change: up ? 1 : -1, changePercent: up ? 5 : -5 },
              volume: up ? 100 : 50,
            };
          });
          const tickers = (category: MoverCategory) => rankMovers(rows, category).map((r) => r.item.ticker);
          expect(tickers('most-active')).toEqual(['A:X', 'B:X', 'C:X', 'D:X', 'E:X', 'F:X']);
          expect(tickers('gainers')).toEqual(['A:X', 'B:X', 'C:X']);
          expect(tickers('losers')).toEqual(['D:X', 'E:X', 'F:X']);
        },
      ),
      { numRuns: 50 },
    );
  });

  test('paging is stable: a page is a slice of the full order, and two pages make one bigger page', async () => {
    await fc.assert(
      fc.asyncProperty(
        instantArb,
        fc.constantFrom(...MOVER_CATEGORIES),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 0, max: 40 }),
        async (now, category, first, second, offset) => {
          const m = new Market(now);
          const all = await movers(m, category, 100, 0);
          const a = await movers(m, category, first, offset);
          const b = await movers(m, category, second, offset + first);
          const both = await movers(m, category, first + second, offset);
          expect(a).toEqual(all.slice(offset, offset + first));
          expect([...a, ...b]).toEqual(both);
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('other lists', () => {
  test('related: 5–8 other instruments of the same type, same sector first, equal to their quotes', async () => {
    await fc.assert(
      fc.asyncProperty(instantArb, fc.constantFrom(...CATALOG), async (now, instrument) => {
        const m = new Market(now);
        const rows = await m.list({ kind: 'related', ticker: instrument.ticker });
        expect(rows.length).toBeGreaterThanOrEqual(5);
        expect(rows.length).toBeLessThanOrEqual(8);
        expect(new Set(rows.map((r) => r.ticker)).size).toBe(rows.length);
        expect(rows.map((r) => r.ticker)).not.toContain(instrument.ticker);
        expect(rows.every((r) => typeOf.get(r.ticker) === instrument.type)).toBe(true);
        if (instrument.type === 'stock') {
          const sectors = await Promise.all(rows.map(async (r) => (await m.company(r.ticker)).sector));
          const peers = CATALOG.filter((i) => i.sector === instrument.sector && i !== instrument).length;
          const same = sectors.map((s) => s === instrument.sector);
          // The same-sector peers come first (as many as fit).
          expect(same).toEqual(same.map((_, k) => k < Math.min(peers, rows.length)));
        }
        expect(await mismatches(m, rows)).toEqual([]);
      }),
      { numRuns: 25 },
    );
  });

  test('indices: every index of the catalog, as quoted', async () => {
    const m = new Market(Date.UTC(2026, 8, 15, 14, 20));
    const rows = await m.list({ kind: 'indices' });
    expect(rows.map((r) => r.ticker)).toEqual(CATALOG.filter((i) => i.type === 'index').map((i) => i.ticker));
    expect(await mismatches(m, rows)).toEqual([]);
  });

  test('trending: up to ten distinct stocks, ETFs or coins, as quoted, changing from day to day', async () => {
    const days = await Promise.all(
      [0, 1, 2, 3].map(async (d) => {
        const m = new Market(Date.UTC(2026, 8, 15 + d, 14, 20));
        const rows = await m.list({ kind: 'trending' });
        expect(rows.length).toBe(10);
        expect(new Set(rows.map((r) => r.ticker)).size).toBe(10);
        expect(rows.every((r) => ['stock', 'etf', 'crypto'].includes(typeOf.get(r.ticker) as string))).toBe(true);
        expect(await mismatches(m, rows)).toEqual([]);
        return rows.map((r) => r.ticker).join();
      }),
    );
    expect(new Set(days).size).toBeGreaterThan(1);
  });
});

describe('news and headline', () => {
  test('3–10 items per ticker, newest first, in the past, about the instrument, on a fake host', async () => {
    await fc.assert(
      fc.asyncProperty(instantArb, async (now) => {
        const m = new Market(now);
        const problems: string[] = [];
        for (const i of CATALOG) {
          const items = await m.news(i.ticker);
          if (items.length < 3 || items.length > 10) problems.push(`${i.ticker}: ${items.length} items`);
          items.forEach((n, k) => {
            const ts = n.timestamp as number;
            if (!Number.isInteger(ts) || !(ts * 1000 < now) || ts < now / 1000 - 20 * 86400)
              problems.push(`${i.ticker}: timestamp ${ts}`);
            if (k > 0 && !(ts < (items[k - 1]?.timestamp as number))) problems.push(`${i.ticker}: not newest first`);
            if (!n.title?.includes(i.shortName)) problems.push(`${i.ticker}: title "${n.title}"`);
            if (!n.url?.startsWith('https://news.example/') || !n.source) problems.push(`${i.ticker}: url/source`);
          });
          if (new Set(items.map((n) => n.url)).size !== items.length) problems.push(`${i.ticker}: duplicate urls`);
        }
        expect(problems).toEqual([]);
      }),
      { numRuns: 15 },
    );
  });

  test('published items stay: a minute later the newest item is still listed unchanged', async () => {
    await fc.assert(
      fc.asyncProperty(instantArb, fc.constantFrom(...CATALOG), async (now, i) => {
        const first = (await new Market(now).news(i.ticker))[0];
        expect(await new Market(now + 60_000).news(i.ticker)).toContainEqual(first);
      }),
      { numRuns: 40 },
    );
  });

  test('the headline is the newest article of the whole catalog', async () => {
    const now = Date.UTC(2026, 3, 2, 9, 41);
    const m = new Market(now);
    const headline = await m.headline();
    const newest = (await Promise.all(CATALOG.map((i) => m.news(i.ticker)))).map((items) => items[0]);
    const top = Math.max(...newest.map((n) => n?.timestamp as number));
    const match = newest.find((n) => n?.url === headline.url);
    expect(match).toMatchObject({ title: headline.title, source: headline.source, timestamp: top });
    expect(headline.url).toMatch(/^https:\/\/news\.example\//);
  });
});
