import type {
  ChartData,
  ChartRange,
  CompanyInfo,
  EarningsEvent,
  FinancialPeriod,
  Headline,
  MarketListItem,
  MoverCategory,
  NewsItem,
  Quote,
  Ticker,
} from '../model';

/**
 * One thing a provider can be asked for. Everything one GraphQL request needs is handed to the provider as one
 * array, so a provider that can batch (the upstream RPC envelope) makes one round trip for all of it.
 */
export type MarketRequest =
  | { kind: 'quote'; ticker: Ticker }
  | { kind: 'company'; ticker: Ticker }
  | { kind: 'chart'; ticker: Ticker; range: ChartRange }
  | { kind: 'news'; ticker: Ticker }
  /** All periods, quarterly and annual; the caller filters by type. */
  | { kind: 'financials'; ticker: Ticker }
  | { kind: 'related'; ticker: Ticker }
  | { kind: 'indices' }
  | { kind: 'movers'; category: MoverCategory; count: number; offset: number }
  | { kind: 'trending' }
  | { kind: 'earnings' }
  | { kind: 'headline' };

export type MarketRequestKind = MarketRequest['kind'];

/** What each kind of request yields. `null` means the provider has no data (unknown ticker): a NOT_FOUND. */
export interface MarketValueOf {
  quote: Quote | null;
  company: CompanyInfo | null;
  chart: ChartData | null;
  news: NewsItem[] | null;
  financials: FinancialPeriod[] | null;
  related: MarketListItem[] | null;
  indices: MarketListItem[] | null;
  movers: MarketListItem[] | null;
  trending: MarketListItem[] | null;
  earnings: EarningsEvent[] | null;
  headline: Headline | null;
}

export type MarketValue = MarketValueOf[MarketRequestKind];

/** The provider could not answer (network, timeout, non-200, unparseable envelope). */
export class UpstreamError extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, { cause });
    this.name = 'UpstreamError';
  }
}

/** Result of one request of a batch: a value (possibly null = no data) or the error that stopped it. */
export type MarketResult = { ok: true; value: MarketValue } | { ok: false; error: UpstreamError };

export interface MarketProvider {
  /** `simulated` or `google`; shown in health output and logs. */
  readonly name: string;
  /**
   * Answers a batch; the result array has the same length and order as `requests`. A provider never throws for
   * a single bad item: it reports an `UpstreamError` result for it. It may reject as a whole only for a fault
   * that hits every item (then every item fails with that error).
   */
  fetch(requests: readonly MarketRequest[]): Promise<MarketResult[]>;
  /** Releases sockets and timers. */
  close?(): Promise<void>;
}

/** Stable cache key of a request (also the coalescing key for in-flight calls). */
export function requestKey(r: MarketRequest): string {
  switch (r.kind) {
    case 'quote':
    case 'company':
    case 'news':
    case 'financials':
    case 'related':
      return `${r.kind}:${r.ticker}`;
    case 'chart':
      return `chart:${r.ticker}:${r.range}`;
    case 'movers':
      return `movers:${r.category}:${r.count}:${r.offset}`;
    case 'indices':
    case 'trending':
    case 'earnings':
    case 'headline':
      return r.kind;
  }
}
