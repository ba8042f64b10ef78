/**
 * The market domain as plain data. Providers produce these shapes; the GraphQL types and the REST adapter
 * expose them. Every figure is nullable: absent data is null, never a fake 0 or "".
 */

/** Normalised ticker: `SYMBOL:EXCHANGE` (stocks, indices, ETFs) or `BASE-QUOTE` (crypto, currency pairs). */
export type Ticker = string;

export const INSTRUMENT_TYPES = ['stock', 'index', 'crypto', 'etf', 'unknown'] as const;
export type InstrumentType = (typeof INSTRUMENT_TYPES)[number];

export const CHART_RANGES = ['1D', '5D', '1M', '6M', 'YTD', '1Y', '5Y', 'MAX'] as const;
export type ChartRange = (typeof CHART_RANGES)[number];

export const FINANCIALS_TYPES = ['quarterly', 'annual', 'all'] as const;
export type FinancialsType = (typeof FINANCIALS_TYPES)[number];

export const MOVER_CATEGORIES = ['most-active', 'gainers', 'losers'] as const;
export type MoverCategory = (typeof MOVER_CATEGORIES)[number];

export interface PriceChange {
  price: number | null;
  change: number | null;
  changePercent: number | null;
}

export type AfterHours = PriceChange;

export interface Quote extends PriceChange {
  ticker: Ticker;
  exchange: string | null;
  name: string | null;
  type: InstrumentType | null;
  currency: string | null;
  timezone: string | null;
  previousClose: number | null;
  afterHours: AfterHours | null;
}

export interface CompanyInfo {
  description: string | null;
  ceo: string | null;
  employees: number | null;
  marketCap: number | null;
  open: number | null;
  high: number | null;
  low: number | null;
  fiftyTwoWeekHigh: number | null;
  fiftyTwoWeekLow: number | null;
  peRatio: number | null;
  volume: number | null;
  sector: string | null;
}

export interface ChartPoint {
  /** `YYYY-MM-DD` for daily and coarser points; ISO 8601 with time and UTC offset for intraday (1D, 5D). */
  date: string;
  price: number | null;
  volume: number | null;
}

export interface ChartData {
  previousClose: number | null;
  points: ChartPoint[];
}

export interface NewsItem {
  title: string | null;
  source: string | null;
  url: string | null;
  /** Unix seconds. */
  timestamp: number | null;
}

export interface FinancialPeriod {
  /** `"2025-Q3"` for a quarter, `"2025"` for a fiscal year. */
  fiscalEnd: string | null;
  isAnnual: boolean;
  currency: string | null;
  revenue: number | null;
  netIncome: number | null;
  eps: number | null;
  epsDiluted: number | null;
  operatingMargin: number | null;
  peRatio: number | null;
}

/** One row of a market list: related stocks, indices, movers, trending. */
export interface MarketListItem extends PriceChange {
  ticker: Ticker;
  name: string | null;
}

export interface EarningsEvent {
  ticker: Ticker | null;
  name: string | null;
  /** Fiscal quarter label `YYYY-Qn` (the original service's field, kept as it was). */
  date: string | null;
  exchange: string | null;
  /** The day the results come out, ISO 8601 `YYYY-MM-DD` (the company's local date); null when the source does not say. */
  reportDate: string | null;
}

export interface Headline {
  title: string | null;
  url: string | null;
  source: string | null;
}
