/**
 * Payload builders for the fake finance upstream: domain model → payload `d` laid out exactly as documented in
 * docs/market.md ("The upstream RPC"), i.e. the inverse of
 * subgraphs/market/providers/google/parsers.ts. Written from the reference, not from the parsers, so that a test
 * that builds with these and parses with those checks the parsers against the document.
 *
 * Positions the reference does not document are filled with filler values (never null), so that a parser that
 * reads a wrong index gets a wrong value and a test notices.
 *
 * Also holds the fixed catalog the fake serves (FAKE_TICKERS, FAKE_MARKET, fakeChart).
 */
import type {
  ChartData,
  ChartRange,
  CompanyInfo,
  EarningsEvent,
  FinancialPeriod,
  Headline,
  InstrumentType,
  MarketListItem,
  MoverCategory,
  NewsItem,
  Quote,
} from '../../subgraphs/market/model';

// ------------------------------------------------------------------------------------------------- helpers

/** Filler for undocumented positions: a value no documented field ever has. */
const FILL = (i: number): string => `~filler${i}`;

function filled(length: number): unknown[] {
  return Array.from({ length }, (_, i) => FILL(i));
}

/** `SYM:EXCH` → `[null,["SYM","EXCH"]]`; `BASE-QUOTE` → `[null,null,["BASE","QUOTE"]]`. */
export function tupleOf(ticker: string): unknown[] {
  const colon = ticker.indexOf(':');
  if (colon >= 0) return [null, [ticker.slice(0, colon), ticker.slice(colon + 1)]];
  const dash = ticker.indexOf('-');
  return [null, null, [ticker.slice(0, dash), ticker.slice(dash + 1)]];
}

/** The inverse of tupleOf; null for anything else. */
export function tickerOfTuple(t: unknown): string | null {
  if (!Array.isArray(t) || t[0] !== null) return null;
  const pair = (v: unknown): [string, string] | null =>
    Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'string' ? [v[0], v[1]] : null;
  if (t.length === 2) {
    const p = pair(t[1]);
    return p ? `${p[0]}:${p[1]}` : null;
  }
  if (t.length === 3 && t[1] === null) {
    const p = pair(t[2]);
    return p ? `${p[0]}-${p[1]}` : null;
  }
  return null;
}

const TYPE_CODES: Record<InstrumentType, number> = { stock: 0, index: 1, crypto: 3, etf: 5, unknown: 4 };

// ------------------------------------------------------------------------------------------------ builders

/** `d[0][0][0] = q`: q[1] [symbol, exchange] (null without exchange), q[2] name, q[3] type code, q[4] currency,
 * q[5] [price, change, pct], q[7] previous close, q[12] timezone, q[16] after hours, q[21] ticker. */
export function quotePayload(q: Quote): unknown {
  const a = filled(24);
  const colon = q.ticker.indexOf(':');
  a[1] = q.exchange !== null ? [colon >= 0 ? q.ticker.slice(0, colon) : q.ticker, q.exchange] : null;
  a[2] = q.name;
  a[3] = q.type === null ? null : TYPE_CODES[q.type];
  a[4] = q.currency;
  a[5] = [q.price, q.change, q.changePercent, FILL(3)];
  a[7] = q.previousClose;
  a[12] = q.timezone;
  a[16] = q.afterHours ? [q.afterHours.price, q.afterHours.change, q.afterHours.changePercent, FILL(3)] : null;
  a[21] = q.ticker;
  return [[[a]]];
}

/** `d[0][0] = c`: [2] description, [5] CEO, [6] employees, [7] market cap, [9] open, [10] high, [11] low,
 * [12]/[13] 52-week high/low, [16] P/E, [18] volume, [71] sector. */
export function companyPayload(c: CompanyInfo): unknown {
  const a = filled(75);
  a[2] = c.description;
  a[5] = c.ceo;
  a[6] = c.employees;
  a[7] = c.marketCap;
  a[9] = c.open;
  a[10] = c.high;
  a[11] = c.low;
  a[12] = c.fiftyTwoWeekHigh;
  a[13] = c.fiftyTwoWeekLow;
  a[16] = c.peRatio;
  a[18] = c.volume;
  a[71] = c.sector;
  return [[a]];
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):00(?:([+-])(\d{2}):(\d{2}))?)?$/;

export interface SessionTime {
  hour: number;
  minute: number;
  offsetSeconds: number;
}

/**
 * Point date string → `[y, m, d, h, min, null, null, [utcOffsetSeconds]]`. A date-only string gets `closeTime`
 * when given (the upstream sends a time for daily points too; the parser must drop it), else null hour/minute.
 */
export function dateArrOf(date: string, closeTime?: SessionTime): unknown[] {
  const m = DATE_RE.exec(date);
  if (!m) throw new Error(`fake chart: bad point date ${date}`);
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (m[4] === undefined) {
    return closeTime
      ? [y, mo, d, closeTime.hour, closeTime.minute, null, null, [closeTime.offsetSeconds]]
      : [y, mo, d, null, null, null, null, null];
  }
  const offset = m[6] === undefined ? null : (m[6] === '-' ? -1 : 1) * (Number(m[7]) * 3600 + Number(m[8]) * 60);
  return [y, mo, d, Number(m[4]), Number(m[5]), null, null, offset === null ? null : [offset]];
}

/** `d[0][0] = ch`: ch[3] periods (one per day for intraday ranges, else one), `period[1]` points
 * `[dateArr, [price, …], volume?]`, ch[6] previous close. */
export function chartPayload(c: ChartData, opts: { ticker?: string; closeTime?: SessionTime } = {}): unknown {
  const periods: unknown[][] = [];
  let currentDay: string | null = null;
  for (const p of c.points) {
    const day = p.date.slice(0, 10);
    const intraday = p.date.length > 10;
    if (periods.length === 0 || (intraday && day !== currentDay)) {
      periods.push([dateArrOf(day), []]);
      currentDay = day;
    }
    const point: unknown[] = [dateArrOf(p.date, opts.closeTime), [p.price, FILL(1), FILL(2)]];
    if (p.volume !== null) point.push(p.volume);
    (periods[periods.length - 1]![1] as unknown[]).push(point);
  }
  const ch = filled(9);
  ch[0] = opts.ticker ? tupleOf(opts.ticker) : FILL(0);
  ch[3] = periods;
  ch[6] = c.previousClose;
  return [[ch]];
}

/** Items of `d[0]`: `[url, title, source, ?, timestampSeconds]`. */
export function newsPayload(items: readonly NewsItem[]): unknown {
  return [items.map((n) => [n.url, n.title, n.source, FILL(3), n.timestamp, FILL(5)])];
}

function splitQuarter(fiscalEnd: string | null): [number | null, number | null] {
  const m = fiscalEnd === null ? null : /^(\d{4})-Q([1-4])$/.exec(fiscalEnd);
  return m ? [Number(m[1]), Number(m[2])] : [null, null];
}

function financialData(p: FinancialPeriod): unknown[] {
  const a = filled(20);
  a[0] = p.revenue;
  a[1] = p.netIncome;
  a[2] = p.eps;
  a[3] = p.operatingMargin;
  a[9] = p.epsDiluted;
  a[16] = p.currency;
  a[18] = p.peRatio;
  return a;
}

/**
 * `root = d[0][0]` (as the original service decodes it): quarterly rows `[year, quarter, data]` in root[0], annual
 * rows `[year, data]` in root[1].
 */
export function financialsPayload(periods: readonly FinancialPeriod[]): unknown {
  const quarterly = periods.filter((p) => !p.isAnnual).map((p) => [...splitQuarter(p.fiscalEnd), financialData(p)]);
  const annual = periods
    .filter((p) => p.isAnnual)
    .map((p) => [p.fiscalEnd !== null && /^\d{4}$/.test(p.fiscalEnd) ? Number(p.fiscalEnd) : null, financialData(p)]);
  return [[[quarterly, annual]]];
}

/** One list item: `a[1] = [symbol, exchange]`, `a[2]` name, `a[5] = [price, change, pct]`, length ≥ 6. */
export function listItem(item: MarketListItem): unknown[] {
  const colon = item.ticker.indexOf(':');
  const a = filled(9);
  a[0] = `/g/fake/${item.ticker}`;
  a[1] = colon >= 0 ? [item.ticker.slice(0, colon), item.ticker.slice(colon + 1)] : [item.ticker, null];
  a[2] = item.name;
  a[3] = 7; // undocumented numbers the scan must not mistake for anything
  a[5] = [item.price, item.change, item.changePercent, FILL(3)];
  return a;
}

/** Indices, movers, trending, related: items nested in groups (`[label, [items…]]`) inside `d`. */
export function listPayload(items: readonly MarketListItem[], groupSize = 4): unknown {
  const groups: unknown[] = [];
  for (let i = 0; i < items.length; i += groupSize) {
    groups.push([`group ${groups.length + 1}`, items.slice(i, i + groupSize).map(listItem)]);
  }
  return [groups, FILL(1)];
}

/** Items of `d[0]`: `a[1] = [ticker, exchange]`, `a[3]` name, `a[4] = [year, quarter]`. */
export function earningsPayload(events: readonly EarningsEvent[]): unknown {
  return [
    events.map((e) => {
      const a = filled(6);
      const colon = e.ticker === null ? -1 : e.ticker.indexOf(':');
      a[1] = e.ticker === null ? null : [colon >= 0 ? e.ticker.slice(0, colon) : e.ticker, e.exchange];
      a[3] = e.name;
      const [y, q] = splitQuarter(e.date);
      a[4] = y === null ? null : [y, q];
      return a;
    }),
  ];
}

/** `d[0] = [url, title, source]`. */
export function headlinePayload(h: Headline): unknown {
  return [[h.url, h.title, h.source, FILL(3)], FILL(1)];
}

// ------------------------------------------------------------------------------------------------- catalog

export interface TickerFixture {
  quote: Quote;
  company: CompanyInfo | null;
  /** null: the upstream has no financials for it (null payload). */
  financials: FinancialPeriod[] | null;
  news: NewsItem[];
  related: MarketListItem[];
  /** Trading session used to build chart points. */
  session: SessionTime & { closeHour: number };
  /** Days without trading are skipped in charts. */
  weekdaysOnly: boolean;
}

/** Rounded, and never -0 (JSON has no -0). */
const round = (n: number, digits = 2): number => Math.round(n * 10 ** digits) / 10 ** digits + 0;

function company(p: Partial<CompanyInfo>): CompanyInfo {
  return {
    description: null,
    ceo: null,
    employees: null,
    marketCap: null,
    open: null,
    high: null,
    low: null,
    fiftyTwoWeekHigh: null,
    fiftyTwoWeekLow: null,
    peRatio: null,
    volume: null,
    sector: null,
    ...p,
  };
}

function stockFinancials(scale: number, currency: string): FinancialPeriod[] {
  const quarters: [number, number][] = [
    [2025, 3],
    [2025, 2],
    [2025, 1],
    [2024, 4],
  ];
  const q = quarters.map(([y, n], i): FinancialPeriod => ({
    fiscalEnd: `${y}-Q${n}`,
    isAnnual: false,
    currency,
    revenue: round(scale * (1 - i * 0.03), 0),
    netIncome: round(scale * 0.25 * (1 - i * 0.05), 0),
    eps: round(1.5 - i * 0.1),
    epsDiluted: round(1.49 - i * 0.1),
    operatingMargin: round(30.1 - i),
    peRatio: round(35.2 - i),
  }));
  const a = [2024, 2023, 2022].map((y, i): FinancialPeriod => ({
    fiscalEnd: String(y),
    isAnnual: true,
    currency,
    revenue: round(scale * 4 * (1 - i * 0.06), 0),
    netIncome: round(scale * (1 - i * 0.08), 0),
    eps: round(6.1 - i * 0.4),
    epsDiluted: round(6.08 - i * 0.4),
    operatingMargin: round(31.5 - i),
    peRatio: null,
  }));
  return [...q, ...a];
}

function news(slug: string, source: string): NewsItem[] {
  return [0, 1, 2].map((i) => ({
    title: `${slug.toUpperCase()} headline ${i + 1}`,
    source,
    url: `https://news.example/${slug}/${i + 1}`,
    timestamp: 1763650800 - i * 5400,
  }));
}

function item(ticker: string, name: string, price: number, change: number): MarketListItem {
  return { ticker, name, price, change, changePercent: round((change / (price - change)) * 100) };
}

const US: TickerFixture['session'] = { hour: 9, minute: 30, offsetSeconds: -5 * 3600, closeHour: 16 };
const IST: TickerFixture['session'] = { hour: 10, minute: 0, offsetSeconds: 3 * 3600, closeHour: 18 };
const UTC: TickerFixture['session'] = { hour: 0, minute: 0, offsetSeconds: 0, closeHour: 23 };

const RELATED_US = [
  item('MSFT:NASDAQ', 'Microsoft Corp', 478.43, -3.1),
  item('GOOGL:NASDAQ', 'Alphabet Inc Class A', 289.45, 4.6),
  item('AMZN:NASDAQ', 'Amazon.com Inc', 222.69, -1.21),
  item('META:NASDAQ', 'Meta Platforms Inc', 590.32, 2.8),
  item('NVDA:NASDAQ', 'NVIDIA Corp', 186.52, 5.4),
];

export const FAKE_TICKERS: Readonly<Record<string, TickerFixture>> = {
  'AAPL:NASDAQ': {
    quote: {
      ticker: 'AAPL:NASDAQ',
      exchange: 'NASDAQ',
      name: 'Apple Inc',
      type: 'stock',
      currency: 'USD',
      timezone: 'America/New_York',
      price: 266.25,
      change: 1.82,
      changePercent: 0.69,
      previousClose: 264.43,
      afterHours: { price: 266.5, change: 0.25, changePercent: 0.09 },
    },
    company: company({
      description: 'Apple Inc. designs, manufactures and markets smartphones, computers, tablets and wearables.',
      ceo: 'Tim Cook',
      employees: 166000,
      marketCap: 3.95e12,
      open: 265.1,
      high: 267.8,
      low: 263.9,
      fiftyTwoWeekHigh: 277.32,
      fiftyTwoWeekLow: 169.21,
      peRatio: 35.7,
      volume: 45123400,
      sector: 'Technology',
    }),
    financials: stockFinancials(102_466_000_000, 'USD'),
    news: news('aapl', 'Example Wire'),
    related: RELATED_US.filter((r) => r.ticker !== 'AAPL:NASDAQ'),
    session: US,
    weekdaysOnly: true,
  },
  'MSFT:NASDAQ': {
    quote: {
      ticker: 'MSFT:NASDAQ',
      exchange: 'NASDAQ',
      name: 'Microsoft Corp',
      type: 'stock',
      currency: 'USD',
      timezone: 'America/New_York',
      price: 478.43,
      change: -3.1,
      changePercent: -0.64,
      previousClose: 481.53,
      afterHours: null,
    },
    company: company({
      description: 'Microsoft Corporation develops and supports software, services, devices and solutions.',
      ceo: 'Satya Nadella',
      employees: 228000,
      marketCap: 3.56e12,
      open: 480.2,
      high: 482.0,
      low: 476.1,
      fiftyTwoWeekHigh: 555.45,
      fiftyTwoWeekLow: 344.79,
      peRatio: 34.1,
      volume: 21876500,
      sector: 'Technology',
    }),
    financials: stockFinancials(77_673_000_000, 'USD'),
    news: news('msft', 'Example Wire'),
    related: RELATED_US.filter((r) => r.ticker !== 'MSFT:NASDAQ'),
    session: US,
    weekdaysOnly: true,
  },
  'GOOGL:NASDAQ': {
    quote: {
      ticker: 'GOOGL:NASDAQ',
      exchange: 'NASDAQ',
      name: 'Alphabet Inc Class A',
      type: 'stock',
      currency: 'USD',
      timezone: 'America/New_York',
      price: 289.45,
      change: 4.6,
      changePercent: 1.61,
      previousClose: 284.85,
      afterHours: { price: 288.9, change: -0.55, changePercent: -0.19 },
    },
    company: company({
      description: 'Alphabet Inc. is the holding company of Google.',
      ceo: 'Sundar Pichai',
      employees: 190167,
      marketCap: 3.49e12,
      open: 285.5,
      high: 290.9,
      low: 284.7,
      fiftyTwoWeekHigh: 291.2,
      fiftyTwoWeekLow: 140.53,
      peRatio: 28.4,
      volume: 38765400,
      sector: 'Communication Services',
    }),
    financials: stockFinancials(102_346_000_000, 'USD'),
    news: news('googl', 'Example Daily'),
    related: RELATED_US.filter((r) => r.ticker !== 'GOOGL:NASDAQ'),
    session: US,
    weekdaysOnly: true,
  },
  '.INX:INDEXSP': {
    quote: {
      ticker: '.INX:INDEXSP',
      exchange: 'INDEXSP',
      name: 'S&P 500',
      type: 'index',
      currency: null,
      timezone: 'America/New_York',
      price: 6642.16,
      change: -13.0,
      changePercent: -0.2,
      previousClose: 6655.16,
      afterHours: null,
    },
    company: company({
      description: 'The S&P 500 index of 500 leading US companies.',
      open: 6650.1,
      high: 6690.2,
      low: 6630.0,
      fiftyTwoWeekHigh: 6920.34,
      fiftyTwoWeekLow: 4835.04,
    }),
    financials: null,
    news: news('inx', 'Example Markets'),
    related: [
      item('.DJI:INDEXDJX', 'Dow Jones Industrial Average', 46138.77, -1.0),
      item('.IXIC:INDEXNASDAQ', 'Nasdaq Composite', 22564.23, 15.2),
    ],
    session: US,
    weekdaysOnly: true,
  },
  'SPY:NYSEARCA': {
    quote: {
      ticker: 'SPY:NYSEARCA',
      exchange: 'NYSEARCA',
      name: 'SPDR S&P 500 ETF Trust',
      type: 'etf',
      currency: 'USD',
      timezone: 'America/New_York',
      price: 662.6,
      change: -0.94,
      changePercent: -0.14,
      previousClose: 663.54,
      afterHours: { price: 662.9, change: 0.3, changePercent: 0.05 },
    },
    company: company({
      description: 'The SPDR S&P 500 ETF Trust tracks the S&P 500 index.',
      marketCap: 6.9e11,
      open: 663.0,
      high: 668.1,
      low: 659.8,
      volume: 74321000,
    }),
    financials: null,
    news: news('spy', 'Example Markets'),
    related: [
      item('VOO:NYSEARCA', 'Vanguard S&P 500 ETF', 609.4, -0.8),
      item('IVV:NYSEARCA', 'iShares Core S&P 500 ETF', 665.9, -0.9),
    ],
    session: US,
    weekdaysOnly: true,
  },
  'BTC-USD': {
    quote: {
      ticker: 'BTC-USD',
      exchange: null,
      name: 'Bitcoin (BTC / USD)',
      type: 'crypto',
      currency: 'USD',
      timezone: null,
      price: 91234.56,
      change: -1523.4,
      changePercent: -1.64,
      previousClose: 92757.96,
      afterHours: null,
    },
    company: company({
      description: 'Bitcoin is a decentralised digital currency.',
      marketCap: 1.82e12,
      volume: 58234000000,
    }),
    financials: null,
    news: news('btc', 'Example Crypto'),
    related: [item('ETH-USD', 'Ethereum (ETH / USD)', 3012.3, -80.1)],
    session: UTC,
    weekdaysOnly: false,
  },
  'EUR-USD': {
    quote: {
      ticker: 'EUR-USD',
      exchange: null,
      name: 'EUR / USD',
      type: 'unknown',
      currency: 'USD',
      timezone: null,
      price: 1.1532,
      change: -0.0011,
      changePercent: -0.1,
      previousClose: 1.1543,
      afterHours: null,
    },
    company: company({ open: 1.1541, high: 1.1558, low: 1.1519 }),
    financials: null,
    news: news('eurusd', 'Example FX'),
    related: [],
    session: UTC,
    weekdaysOnly: true,
  },
  'THYAO:IST': {
    quote: {
      ticker: 'THYAO:IST',
      exchange: 'IST',
      name: 'Turk Hava Yollari AO',
      type: 'stock',
      currency: 'TRY',
      timezone: 'Europe/Istanbul',
      price: 276.5,
      change: 3.25,
      changePercent: 1.19,
      previousClose: 273.25,
      afterHours: null,
    },
    company: company({
      description: 'Turkish Airlines is the national flag carrier airline of Turkey.',
      ceo: 'Bilal Eksi',
      employees: 90000,
      marketCap: 3.8e11,
      open: 273.5,
      high: 277.0,
      low: 272.75,
      fiftyTwoWeekHigh: 352.0,
      fiftyTwoWeekLow: 262.25,
      peRatio: 3.9,
      volume: 31234567,
      sector: 'Industrials',
    }),
    financials: stockFinancials(175_000_000_000, 'TRY'),
    news: news('thyao', 'Example Haber'),
    related: [item('PGSUS:IST', 'Pegasus Hava Tasimaciligi AS', 241.8, 1.9)],
    session: IST,
    weekdaysOnly: true,
  },
};

/** Fixed "today" of the catalog charts. */
export const FAKE_TODAY = Date.UTC(2025, 10, 20); // Thursday 2025-11-20
const DAY = 86_400_000;

function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function formatOffset(seconds: number): string {
  const sign = seconds < 0 ? '-' : '+';
  const m = Math.abs(seconds) / 60;
  return `${sign}${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
}

/** Last `count` trading days up to FAKE_TODAY, oldest first, `stepDays` apart. */
function days(count: number, stepDays: number, weekdaysOnly: boolean): number[] {
  const out: number[] = [];
  let t = FAKE_TODAY;
  while (out.length < count) {
    const wd = new Date(t).getUTCDay();
    if (!weekdaysOnly || stepDays > 1 || (wd !== 0 && wd !== 6)) out.push(t);
    t -= stepDays * DAY;
  }
  return out.reverse();
}

/** The chart the fake serves for a catalog ticker, as the provider must return it. */
export function fakeChart(ticker: string, range: ChartRange): ChartData | null {
  const f = FAKE_TICKERS[ticker];
  if (!f) return null;
  const base = f.quote.previousClose ?? f.quote.price ?? 100;
  const digits = base < 10 ? 4 : 2;
  const hasVolume = f.quote.type === 'stock' || f.quote.type === 'etf';
  const priceAt = (i: number): number => round(base * (1 + 0.02 * Math.sin(i / 5) + 0.0004 * i), digits);
  const volumeAt = (i: number): number | null => (hasVolume ? 100_000 + ((i * 7919) % 50_000) : null);
  const s = f.session;
  let stamps: string[];
  if (range === '1D' || range === '5D') {
    const [nDays, perDay, stepMin] = range === '1D' ? [1, 78, 5] : [5, 14, 30];
    stamps = [];
    for (const d of days(nDays, 1, f.weekdaysOnly)) {
      for (let k = 0; k < perDay; k++) {
        const minutes = s.hour * 60 + s.minute + k * stepMin;
        const hh = String(Math.floor(minutes / 60) % 24).padStart(2, '0');
        const mm = String(minutes % 60).padStart(2, '0');
        stamps.push(`${isoDay(d)}T${hh}:${mm}:00${formatOffset(s.offsetSeconds)}`);
      }
    }
  } else {
    const spans: Record<Exclude<typeof range, '1D' | '5D'>, readonly [count: number, step: number]> = {
      '1M': [22, 1],
      '6M': [26, 7],
      YTD: [46, 7],
      '1Y': [52, 7],
      '5Y': [60, 30],
      MAX: [120, 30],
    };
    const [count, step] = spans[range];
    stamps = days(count, step, f.weekdaysOnly).map(isoDay);
  }
  return {
    previousClose: range === '1D' ? f.quote.previousClose : round(base * 0.93, digits),
    points: stamps.map((date, i) => ({ date, price: priceAt(i), volume: volumeAt(i) })),
  };
}

function movers(category: MoverCategory): MarketListItem[] {
  const sign = category === 'gainers' ? 1 : category === 'losers' ? -1 : 0;
  const prefix = { 'most-active': 'ACT', gainers: 'GAIN', losers: 'LOSS' }[category];
  return Array.from({ length: 30 }, (_, i) => {
    const price = round(20 + i * 3.5);
    const change = round(sign !== 0 ? sign * (30 - i) * 0.1 : (i % 2 === 0 ? 1 : -1) * 0.5);
    return item(`${prefix}${i + 1}:NYSE`, `${category} company ${i + 1}`, price, change);
  });
}

export const FAKE_MARKET = {
  indices: [
    item('.INX:INDEXSP', 'S&P 500', 6642.16, -13.0),
    item('.DJI:INDEXDJX', 'Dow Jones Industrial Average', 46138.77, -1.0),
    item('.IXIC:INDEXNASDAQ', 'Nasdaq Composite', 22564.23, 15.2),
    item('DAX:INDEXDB', 'DAX PERFORMANCE-INDEX', 23278.85, -120.4),
    item('UKX:INDEXFTSE', 'FTSE 100 Index', 9507.41, 55.1),
    item('NI225:INDEXNIKKEI', 'Nikkei 225', 49823.94, 1286.4),
    item('XU100:INDEXIST', 'BIST 100', 10744.2, 61.3),
  ],
  movers: {
    'most-active': movers('most-active'),
    gainers: movers('gainers'),
    losers: movers('losers'),
  } as Readonly<Record<MoverCategory, MarketListItem[]>>,
  trending: [
    item('NVDA:NASDAQ', 'NVIDIA Corp', 186.52, 5.4),
    item('TSLA:NASDAQ', 'Tesla Inc', 403.99, -7.2),
    item('AAPL:NASDAQ', 'Apple Inc', 266.25, 1.82),
    item('PLTR:NASDAQ', 'Palantir Technologies Inc', 171.1, 3.3),
  ],
  earnings: [
    { ticker: 'NVDA:NASDAQ', name: 'NVIDIA Corp', date: '2026-Q3', exchange: 'NASDAQ', reportDate: null },
    { ticker: 'WMT:NYSE', name: 'Walmart Inc', date: '2026-Q3', exchange: 'NYSE', reportDate: null },
    { ticker: 'INTU:NASDAQ', name: 'Intuit Inc', date: '2026-Q1', exchange: 'NASDAQ', reportDate: null },
  ] as EarningsEvent[],
  headline: {
    title: 'Stocks slip as investors weigh rate outlook',
    url: 'https://news.example/markets/top',
    source: 'Example Wire',
  } as Headline,
};

/** Movers category of each number the fake accepts (must match what the provider sends). */
export const FAKE_MOVER_CODES: Readonly<Record<number, MoverCategory>> = {
  1: 'most-active',
  2: 'gainers',
  3: 'losers',
};
/** Chart range of each `mode` number (from the reference). */
export const FAKE_CHART_MODES: Readonly<Record<number, ChartRange>> = {
  1: '1D',
  2: '5D',
  3: '1M',
  4: '6M',
  5: 'YTD',
  6: '1Y',
  7: '5Y',
  8: 'MAX',
};
