/**
 * Helpers for this folder's tests only. Trading hours and local times are re-derived here independently of
 * sessions.ts/timezones.ts (a table written out again, and Intl's own formatToParts), so the tests can catch a
 * wrong session rule instead of restating it.
 */
import fc from 'fast-check';
import type {
  ChartData,
  ChartRange,
  CompanyInfo,
  EarningsEvent,
  FinancialPeriod,
  Headline,
  MarketListItem,
  NewsItem,
  Quote,
} from '../../../model';
import type { MarketProvider, MarketRequest, MarketValue } from '../../provider';
import { createSimulatedProvider } from '../index';

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

export interface LocalTime {
  weekday: number; // 0 = Sunday
  minutes: number; // minutes after local midnight
  date: string; // YYYY-MM-DD
}

const formatters = new Map<string, Intl.DateTimeFormat>();
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

export function localTime(zone: string, utcMs: number): LocalTime {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      weekday: 'short',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    });
    formatters.set(zone, f);
  }
  const parts = Object.fromEntries(f.formatToParts(utcMs).map((p) => [p.type, p.value]));
  return {
    weekday: WEEKDAYS.indexOf(parts.weekday as string),
    minutes: Number(parts.hour) * 60 + Number(parts.minute),
    date: `${parts.year}-${parts.month}-${parts.day}`,
  };
}

/** UTC instant of a local wall-clock time (by fixed-point iteration on Intl's offsets). */
export function localInstant(zone: string, date: string, minutes: number): number {
  const wall = Date.parse(`${date}T00:00:00Z`) + minutes * MINUTE;
  let t = wall;
  for (let i = 0; i < 3; i++) {
    const lt = localTime(zone, t);
    const shown = Date.parse(`${lt.date}T00:00:00Z`) + lt.minutes * MINUTE;
    t += wall - shown;
  }
  return t;
}

export interface Hours {
  zone: string;
  open: number;
  close: number;
  /** Regular hours the tests expect; written out here on purpose (not imported). */
  kind: 'exchange' | 'crypto' | 'fx';
}

const hm = (h: number, m = 0): number => h * 60 + m;
const EXCHANGE_HOURS: Record<string, Hours> = {
  NASDAQ: { zone: 'America/New_York', open: hm(9, 30), close: hm(16), kind: 'exchange' },
  NYSE: { zone: 'America/New_York', open: hm(9, 30), close: hm(16), kind: 'exchange' },
  NYSEARCA: { zone: 'America/New_York', open: hm(9, 30), close: hm(16), kind: 'exchange' },
  INDEXDJX: { zone: 'America/New_York', open: hm(9, 30), close: hm(16), kind: 'exchange' },
  INDEXSP: { zone: 'America/New_York', open: hm(9, 30), close: hm(16), kind: 'exchange' },
  INDEXNASDAQ: { zone: 'America/New_York', open: hm(9, 30), close: hm(16), kind: 'exchange' },
  IST: { zone: 'Europe/Istanbul', open: hm(10), close: hm(18), kind: 'exchange' },
  INDEXIST: { zone: 'Europe/Istanbul', open: hm(10), close: hm(18), kind: 'exchange' },
  LON: { zone: 'Europe/London', open: hm(8), close: hm(16, 30), kind: 'exchange' },
  INDEXFTSE: { zone: 'Europe/London', open: hm(8), close: hm(16, 30), kind: 'exchange' },
  ETR: { zone: 'Europe/Berlin', open: hm(9), close: hm(17, 30), kind: 'exchange' },
  INDEXDB: { zone: 'Europe/Berlin', open: hm(9), close: hm(17, 30), kind: 'exchange' },
  EPA: { zone: 'Europe/Paris', open: hm(9), close: hm(17, 30), kind: 'exchange' },
  INDEXEURO: { zone: 'Europe/Paris', open: hm(9), close: hm(17, 30), kind: 'exchange' },
  TYO: { zone: 'Asia/Tokyo', open: hm(9), close: hm(15, 30), kind: 'exchange' },
  INDEXNIKKEI: { zone: 'Asia/Tokyo', open: hm(9), close: hm(15, 30), kind: 'exchange' },
  TSE: { zone: 'America/Toronto', open: hm(9, 30), close: hm(16), kind: 'exchange' },
  INDEXTSI: { zone: 'America/Toronto', open: hm(9, 30), close: hm(16), kind: 'exchange' },
};
const FX_HOURS: Hours = { zone: 'America/New_York', open: hm(17), close: hm(17), kind: 'fx' };
const CRYPTO_HOURS: Hours = { zone: 'UTC', open: 0, close: hm(24), kind: 'crypto' };
const COINS = new Set(['BTC', 'ETH', 'SOL', 'XRP', 'DOGE', 'ADA']);

export function hoursOf(ticker: string): Hours {
  const colon = ticker.indexOf(':');
  if (colon >= 0) {
    const h = EXCHANGE_HOURS[ticker.slice(colon + 1)];
    if (!h) throw new Error(`no hours in the test table for ${ticker}`);
    return h;
  }
  return COINS.has(ticker.split('-')[0] as string) ? CRYPTO_HOURS : FX_HOURS;
}

/** Is the regular session trading at this instant (holidays ignored, as documented)? */
export function isOpen(ticker: string, utcMs: number): boolean {
  const h = hoursOf(ticker);
  if (h.kind === 'crypto') return true;
  const lt = localTime(h.zone, utcMs);
  if (h.kind === 'fx') {
    // Sunday 17:00 to Friday 17:00 New York time.
    if (lt.weekday === 6) return false;
    if (lt.weekday === 0) return lt.minutes >= h.open;
    if (lt.weekday === 5) return lt.minutes < h.close;
    return true;
  }
  return lt.weekday >= 1 && lt.weekday <= 5 && lt.minutes >= h.open && lt.minutes < h.close;
}

export const US_LISTED = (ticker: string): boolean => /:(NASDAQ|NYSE|NYSEARCA)$/.test(ticker);

/** 2019-01-01 … 2027-12-31. */
const FROM = Date.UTC(2019, 0, 1);
const TO = Date.UTC(2027, 11, 31);

/**
 * Instants over several years, biased towards the interesting ones: around each exchange's open and close
 * (± a few minutes), US pre-/post-market edges, FX's Friday/Sunday 17:00, weekends and UTC midnight.
 */
export const instantArb: fc.Arbitrary<number> = fc.oneof(
  fc.integer({ min: FROM, max: TO }),
  fc
    .tuple(
      fc.integer({ min: 0, max: Math.floor((TO - FROM) / DAY) }),
      fc.constantFrom(...Object.values(EXCHANGE_HOURS), FX_HOURS, CRYPTO_HOURS),
      fc.constantFrom('open', 'close', 'pre', 'post'),
      fc.integer({ min: -3, max: 3 }),
    )
    .map(([dayOffset, h, edge, delta]) => {
      const date = new Date(FROM + dayOffset * DAY).toISOString().slice(0, 10);
      const minute = edge === 'open' ? h.open : edge === 'close' ? h.close : edge === 'pre' ? hm(4) : hm(20);
      return localInstant(h.zone, date, minute) + delta * MINUTE;
    }),
);

/** A provider, and a typed way to ask it one thing at a fixed clock. */
export class Market {
  readonly provider: MarketProvider;

  constructor(
    readonly now: number,
    seed: string | number = 'test-seed',
  ) {
    this.provider = createSimulatedProvider({ seed, now: () => this.now });
  }

  async ask(request: MarketRequest): Promise<MarketValue> {
    const [result] = await this.provider.fetch([request]);
    if (!result || !result.ok) throw result?.error ?? new Error('no result');
    return result.value;
  }

  async quote(ticker: string): Promise<Quote> {
    return (await this.ask({ kind: 'quote', ticker })) as Quote;
  }

  async company(ticker: string): Promise<CompanyInfo> {
    return (await this.ask({ kind: 'company', ticker })) as CompanyInfo;
  }

  async chart(ticker: string, range: ChartRange): Promise<ChartData> {
    return (await this.ask({ kind: 'chart', ticker, range })) as ChartData;
  }

  async news(ticker: string): Promise<NewsItem[]> {
    return (await this.ask({ kind: 'news', ticker })) as NewsItem[];
  }

  async financials(ticker: string): Promise<FinancialPeriod[]> {
    return (await this.ask({ kind: 'financials', ticker })) as FinancialPeriod[];
  }

  async list(request: MarketRequest): Promise<MarketListItem[]> {
    return (await this.ask(request)) as MarketListItem[];
  }

  async earnings(): Promise<EarningsEvent[]> {
    return (await this.ask({ kind: 'earnings' })) as EarningsEvent[];
  }

  async headline(): Promise<Headline> {
    return (await this.ask({ kind: 'headline' })) as Headline;
  }
}

/** Rounds as the provider documents (half away from zero is irrelevant here: inputs are already on the grid). */
export function round(value: number, decimals: number): number {
  const scale = 10 ** decimals;
  return Math.round(value * scale) / scale;
}

/** Decimals of a published price, as documented: 4 for FX pairs and coins under 10, else 2. */
export function decimalsOf(ticker: string): number {
  if (hoursOf(ticker).kind === 'fx') return 4;
  return ['XRP-USD', 'DOGE-USD', 'ADA-USD'].includes(ticker) ? 4 : 2;
}

export function decimalPlaces(x: number): number {
  const s = String(x);
  if (s.includes('e')) return 99;
  const dot = s.indexOf('.');
  return dot < 0 ? 0 : s.length - dot - 1;
}
