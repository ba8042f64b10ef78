/**
 * Payload → domain model, one parser per kind, reading exactly the index paths documented in
 * docs/market.md ("The upstream RPC"). Unofficial, undocumented layouts that change without
 * notice: all knowledge of them is kept in this provider folder.
 *
 * Rules: a parser never throws, whatever it is given. A value that is missing, null or of the wrong type becomes
 * null (never 0 or ""). A payload without the structure its kind needs yields null (no data → NOT_FOUND).
 */
import type {
  ChartData,
  ChartPoint,
  ChartRange,
  CompanyInfo,
  EarningsEvent,
  FinancialPeriod,
  Headline,
  InstrumentType,
  MarketListItem,
  NewsItem,
  PriceChange,
  Quote,
} from '../../model';
import type { MarketRequest, MarketValue } from '../provider';

// ---------------------------------------------------------------------------------------------- safe access

/** `v[i0][i1]…`, or undefined as soon as a step is not an array or the index is out of range. */
export function at(v: unknown, ...path: number[]): unknown {
  let cur = v;
  for (const i of path) {
    if (!Array.isArray(cur) || i < 0 || i >= cur.length) return undefined;
    cur = cur[i];
  }
  return cur;
}

/** A finite number, else null. `-0` becomes `0`. */
export function num(v: unknown): number | null {
  if (typeof v !== 'number' || !Number.isFinite(v)) return null;
  return v === 0 ? 0 : v;
}

/** Where a parser reports an upstream value it had to drop (the provider logs it). */
export type ParseWarn = (message: string) => void;

/**
 * An integer-valued field (counts, volumes, seconds): a finite number rounded to the nearest integer, else null.
 * Beyond ±(2^53 − 1) a number is no longer an exact integer (and no GraphQL SafeInt): null, reported to `warn`.
 */
export function int(v: unknown, field = 'integer', warn?: ParseWarn): number | null {
  const n = num(v);
  if (n === null) return null;
  const r = Math.round(n);
  if (!Number.isSafeInteger(r)) {
    warn?.(`${field} ${String(v)} is beyond the safe integer range (±${Number.MAX_SAFE_INTEGER}); shown as null`);
    return null;
  }
  return r === 0 ? 0 : r;
}

/** A non-empty string, else null. */
export function str(v: unknown): string | null {
  return typeof v === 'string' && v.length > 0 ? v : null;
}

function arr(v: unknown): unknown[] | null {
  return Array.isArray(v) ? v : null;
}

function isInt(v: unknown, min: number, max: number): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

function priceChange(v: unknown): PriceChange {
  return { price: num(at(v, 0)), change: num(at(v, 1)), changePercent: num(at(v, 2)) };
}

// ---------------------------------------------------------------------------------------------------- quote

export const QUOTE_TYPE_CODES: Readonly<Record<number, InstrumentType>> = {
  0: 'stock',
  1: 'index',
  3: 'crypto',
  5: 'etf',
};

/** Type code → type: 0 stock, 1 index, 3 crypto, 5 etf, any other number unknown; no number → null. */
export function instrumentType(code: unknown): InstrumentType | null {
  if (typeof code !== 'number' || !Number.isFinite(code)) return null;
  return QUOTE_TYPE_CODES[code] ?? 'unknown';
}

/**
 * `q = d[0][0][0]`. The ticker is the one asked for (it is the Quote entity's key, so it must round-trip exactly);
 * without one, from `q[1] = [symbol, exchange]`, else (crypto, currencies) from `q[21]`.
 */
export function parseQuote(d: unknown, requestedTicker?: string): Quote | null {
  const q = arr(at(d, 0, 0, 0));
  if (!q) return null;
  const symbol = str(at(q, 1, 0));
  const exchange = str(at(q, 1, 1));
  const ticker = requestedTicker ?? (symbol !== null && exchange !== null ? `${symbol}:${exchange}` : str(q[21]));
  if (ticker === null) return null;
  const after = arr(q[16]);
  return {
    ticker,
    exchange,
    name: str(q[2]),
    type: instrumentType(q[3]),
    currency: str(q[4]),
    ...priceChange(q[5]),
    previousClose: num(q[7]),
    timezone: str(q[12]),
    afterHours: after ? priceChange(after) : null,
  };
}

// -------------------------------------------------------------------------------------------------- company

/** `c = d[0][0]`. */
export function parseCompany(d: unknown, warn?: ParseWarn): CompanyInfo | null {
  const c = arr(at(d, 0, 0));
  if (!c) return null;
  return {
    description: str(c[2]),
    ceo: str(c[5]),
    employees: int(c[6], 'company employees', warn),
    marketCap: num(c[7]),
    open: num(c[9]),
    high: num(c[10]),
    low: num(c[11]),
    fiftyTwoWeekHigh: num(c[12]),
    fiftyTwoWeekLow: num(c[13]),
    peRatio: num(c[16]),
    volume: int(c[18], 'company volume', warn),
    sector: str(c[71]),
  };
}

// ---------------------------------------------------------------------------------------------------- chart

export const INTRADAY_RANGES: ReadonlySet<ChartRange> = new Set<ChartRange>(['1D', '5D']);
const MAX_OFFSET_SECONDS = 18 * 3600;

/** `+HH:MM` / `-HH:MM` (whole minutes), or null for an offset that is not a plausible UTC offset. */
export function formatUtcOffset(seconds: unknown): string | null {
  if (!isInt(seconds, -MAX_OFFSET_SECONDS, MAX_OFFSET_SECONDS) || seconds % 60 !== 0) return null;
  const sign = seconds < 0 ? '-' : '+';
  const minutes = Math.abs(seconds) / 60;
  return `${sign}${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;
}

/**
 * `dateArr = [y, m, d, h, min, null, null, [utcOffsetSeconds]]` (month 1-based).
 * Daily and coarser ranges: `YYYY-MM-DD`. Intraday (1D, 5D): `YYYY-MM-DDTHH:MM:00±HH:MM`; without the offset the
 * local time is given without one, without hour and minute only the date. Null when there is no valid date.
 */
export function formatChartDate(dateArr: unknown, intraday: boolean): string | null {
  const y = at(dateArr, 0);
  const m = at(dateArr, 1);
  const d = at(dateArr, 2);
  if (!isInt(y, 1, 9999) || !isInt(m, 1, 12) || !isInt(d, 1, 31)) return null;
  const date = `${pad(y, 4)}-${pad(m)}-${pad(d)}`;
  if (!intraday) return date;
  const h = at(dateArr, 3);
  const min = at(dateArr, 4);
  if (!isInt(h, 0, 23) || !isInt(min, 0, 59)) return date;
  return `${date}T${pad(h)}:${pad(min)}:00${formatUtcOffset(at(dateArr, 7, 0)) ?? ''}`;
}

/** `ch = d[0][0]`; `ch[6]` previous close; periods in `ch[3]`, points in `period[1]` as `[dateArr, priceArr, volume?]`. */
export function parseChart(d: unknown, range: ChartRange, warn?: ParseWarn): ChartData | null {
  const ch = arr(at(d, 0, 0));
  if (!ch) return null;
  const intraday = INTRADAY_RANGES.has(range);
  const points: ChartPoint[] = [];
  for (const period of arr(ch[3]) ?? []) {
    for (const p of arr(at(period, 1)) ?? []) {
      const date = formatChartDate(at(p, 0), intraday);
      if (date === null) continue; // a point without a date cannot be placed
      points.push({ date, price: num(at(p, 1, 0)), volume: int(at(p, 2), `chart volume at ${date}`, warn) });
    }
  }
  return { previousClose: num(ch[6]), points };
}

// ----------------------------------------------------------------------------------------------------- news

/** Items of `d[0]`: `[url, title, source, ?, timestampSeconds]`. Items with neither url nor title are left out. */
export function parseNews(d: unknown, warn?: ParseWarn): NewsItem[] | null {
  const items = arr(at(d, 0));
  if (!items) return null;
  const out: NewsItem[] = [];
  for (const it of items) {
    if (!Array.isArray(it)) continue;
    const url = str(it[0]);
    const title = str(it[1]);
    if (url === null && title === null) continue;
    out.push({ title, source: str(it[2]), url, timestamp: int(it[4], 'news timestamp', warn) });
  }
  return out;
}

// ----------------------------------------------------------------------------------------------- financials

function financialPeriod(fiscalEnd: string, isAnnual: boolean, data: unknown[]): FinancialPeriod {
  return {
    fiscalEnd,
    isAnnual,
    currency: str(data[16]),
    revenue: num(data[0]),
    netIncome: num(data[1]),
    eps: num(data[2]),
    epsDiluted: num(data[9]),
    operatingMargin: num(data[3]),
    peRatio: num(data[18]),
  };
}

/** Fiscal years outside this range are no year: the row is read from the wrong place. */
const FIRST_YEAR = 1900;
const LAST_YEAR = 2200;

function quarterLabel(y: unknown, q: unknown): string | null {
  return isInt(y, 1, 9999) && isInt(q, 1, 4) ? `${pad(y, 4)}-Q${q}` : null;
}

/** `[year, quarter, data]`, or null when the row is not one. */
function quarterRow(row: unknown): FinancialPeriod | null {
  const [year, quarter, data] = Array.isArray(row) ? (row as unknown[]) : [];
  if (!isInt(year, FIRST_YEAR, LAST_YEAR) || !isInt(quarter, 1, 4) || !Array.isArray(data)) return null;
  return financialPeriod(`${year}-Q${quarter}`, false, data);
}

/** `[year, data]`, or null when the row is not one. */
function yearRow(row: unknown): FinancialPeriod | null {
  const [year, data] = Array.isArray(row) ? (row as unknown[]) : [];
  if (!isInt(year, FIRST_YEAR, LAST_YEAR) || !Array.isArray(data)) return null;
  return financialPeriod(String(year), true, data);
}

/**
 * `root = d[0][0]` (the original service's decoder, the only evidence of the real layout): quarterly rows in
 * `root[0]` as `[year, quarter, data]` (fiscalEnd `YYYY-Qn`), annual rows in `root[1]` as `[year, data]` (fiscalEnd
 * `YYYY`). In `data`: 0 revenue, 1 net income, 2 EPS, 3 operating margin, 9 diluted EPS, 16 currency, 18 P/E.
 * Quarterly periods first, then annual, each in upstream order.
 *
 * Every row is checked before it is read (a year from 1900 to 2200, a quarter 1–4, data an array): a payload with
 * one row that does not fit is laid out differently than we think, so it gives no periods (`[]`, reported to
 * `warn`) rather than figures read from the wrong places. No root, or neither list: null (no data).
 */
export function parseFinancials(d: unknown, warn?: ParseWarn): FinancialPeriod[] | null {
  const root = arr(at(d, 0, 0));
  if (!root) return null;
  const absent = (v: unknown) => v === null || v === undefined;
  if (absent(root[0]) && absent(root[1])) return null;
  const quarterly = absent(root[0]) ? [] : arr(root[0]);
  const annual = absent(root[1]) ? [] : arr(root[1]);
  if (quarterly === null || annual === null) {
    warn?.('financials payload does not have the documented layout (lists of quarterly and annual rows); no periods');
    return [];
  }
  const out: FinancialPeriod[] = [];
  for (const [rows, read, kind] of [
    [quarterly, quarterRow, 'quarterly'],
    [annual, yearRow, 'annual'],
  ] as const) {
    for (const [i, row] of rows.entries()) {
      const period = read(row);
      if (!period) {
        warn?.(
          `financials ${kind} row ${i} is not ${kind === 'quarterly' ? '[year, quarter 1-4, data]' : '[year, data]'} with a year from ${FIRST_YEAR} to ${LAST_YEAR}; no periods`,
        );
        return [];
      }
      out.push(period);
    }
  }
  return out;
}

// ------------------------------------------------------------------------------ lists: indices, movers, …

/**
 * The list-item shape: `a.length >= 6`, a string at `a[1][0]`, an array at `a[5]`. Beyond docs/market.md, the
 * exchange `a[1][1]` and the figures `a[5][0..2]` must not be arrays: that keeps a container of items (whose [1]
 * and [5] are items themselves) from passing for an item.
 */
function isListItem(a: unknown[]): boolean {
  if (a.length < 6 || typeof at(a, 1, 0) !== 'string' || Array.isArray(at(a, 1, 1))) return false;
  const figures = a[5];
  return Array.isArray(figures) && !figures.slice(0, 3).some(Array.isArray);
}

/**
 * Scans every nested array (depth first, in order) for list items: ticker `a[1][0]:a[1][1]` (just `a[1][0]` when
 * there is no exchange), name `a[2]`, `a[5] = [price, change, pct]`. The inside of an item is not scanned again;
 * a ticker seen twice is kept once (first occurrence).
 */
export function parseMarketList(d: unknown): MarketListItem[] | null {
  if (!Array.isArray(d)) return null;
  const out: MarketListItem[] = [];
  const seen = new Set<string>();
  // iterative, so that deeply nested junk cannot overflow the stack
  const stack: unknown[][] = [d];
  const visited = new Set<unknown[]>();
  while (stack.length > 0) {
    const a = stack.pop()!;
    if (visited.has(a)) continue;
    visited.add(a);
    if (isListItem(a)) {
      const symbol = at(a, 1, 0) as string;
      const exchange = str(at(a, 1, 1));
      const ticker = exchange !== null ? `${symbol}:${exchange}` : symbol;
      if (!seen.has(ticker)) {
        seen.add(ticker);
        out.push({ ticker, name: str(a[2]), ...priceChange(a[5]) });
      }
      continue;
    }
    for (let i = a.length - 1; i >= 0; i--) {
      const child = a[i];
      if (Array.isArray(child)) stack.push(child);
    }
  }
  return out;
}

// ------------------------------------------------------------------------------------------------- earnings

/**
 * Items of `d[0]`: `a[1] = [symbol, exchange]`, `a[3]` name, `a[4] = [year, quarter]`. The ticker is given in the
 * normalised `SYMBOL:EXCHANGE` form (just the symbol when there is no exchange). Items with neither ticker nor
 * name are left out.
 */
export function parseEarnings(d: unknown): EarningsEvent[] | null {
  const items = arr(at(d, 0));
  if (!items) return null;
  const out: EarningsEvent[] = [];
  for (const a of items) {
    if (!Array.isArray(a)) continue;
    const symbol = str(at(a, 1, 0));
    const exchange = str(at(a, 1, 1));
    const ticker = symbol === null ? null : exchange === null ? symbol : `${symbol}:${exchange}`;
    const name = str(a[3]);
    if (ticker === null && name === null) continue;
    // the upstream gives the quarter only, not the day of the report
    out.push({ ticker, name, date: quarterLabel(at(a, 4, 0), at(a, 4, 1)), exchange, reportDate: null });
  }
  return out;
}

// ------------------------------------------------------------------------------------------------- headline

/** `d[0] = [url, title, source]`; null when it has neither title nor url. */
export function parseHeadline(d: unknown): Headline | null {
  const h = arr(at(d, 0));
  if (!h) return null;
  const url = str(h[0]);
  const title = str(h[1]);
  if (url === null && title === null) return null;
  return { title, url, source: str(h[2]) };
}

// ------------------------------------------------------------------------------------------------- dispatch

/** The value of a request from its decoded payload (`null` payload → no data). Never throws; values it drops go to `warn`. */
export function parsePayload(r: MarketRequest, payload: unknown, warn?: ParseWarn): MarketValue {
  if (payload === null || payload === undefined) return null;
  switch (r.kind) {
    case 'quote':
      return parseQuote(payload, r.ticker);
    case 'company':
      return parseCompany(payload, warn);
    case 'chart':
      return parseChart(payload, r.range, warn);
    case 'news':
      return parseNews(payload, warn);
    case 'financials':
      return parseFinancials(payload, warn);
    case 'related':
    case 'indices':
    case 'movers':
    case 'trending':
      return parseMarketList(payload);
    case 'earnings':
      return parseEarnings(payload);
    case 'headline':
      return parseHeadline(payload);
    default:
      return null;
  }
}
