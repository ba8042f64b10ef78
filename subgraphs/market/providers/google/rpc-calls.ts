/**
 * MarketRequest → one batchexecute call (rpcid + params) of the finance site's internal RPC.
 *
 * Unofficial and undocumented: the ids and parameter shapes below come from reading public code that calls the
 * endpoint (docs/market.md, "The upstream RPC"). They change without notice; when they do,
 * this file and `parsers.ts` are the only places to touch.
 */
import type { ChartRange, MoverCategory } from '../../model';
import { parseTicker, type ParsedTicker } from '../../tickers';
import type { MarketRequest, MarketRequestKind } from '../provider';

/** The rpcid of each kind of request. */
export const RPC_IDS = {
  quote: 'xh8wxf',
  company: 'HqGpWd',
  financials: 'Pr8h2e',
  chart: 'AiCwsd',
  news: 'nBEQBc',
  related: 'SICF5d',
  indices: 'Xhdx2e',
  movers: 'YtbmEe',
  trending: 'lvVhof',
  earnings: 'JFUMjd',
  headline: 'QKZUzd',
} as const satisfies Record<MarketRequestKind, string>;

/** Chart `mode` parameter of each range. */
export const CHART_MODES: Readonly<Record<ChartRange, number>> = {
  '1D': 1,
  '5D': 2,
  '1M': 3,
  '6M': 4,
  YTD: 5,
  '1Y': 6,
  '5Y': 7,
  MAX: 8,
};

/**
 * Category of the movers call. The site sends a number, not a name; public sources show the numbers 1, 2 and 3
 * but not which list each one is. This order (most active, gainers, losers) is our assumption: verify it against
 * the live site before relying on the google provider for movers.
 */
export const MOVER_CATEGORY_CODES: Readonly<Record<MoverCategory, number>> = {
  'most-active': 1,
  gainers: 2,
  losers: 3,
};

/** First news parameter: 5 for a `SYMBOL:EXCHANGE` ticker, 6 for a `BASE-QUOTE` pair (crypto and currencies). */
export const NEWS_TYPE_EXCHANGE = 5;
export const NEWS_TYPE_PAIR = 6;
/** Second news parameter, as the original service sent it. */
export const NEWS_LIMIT = 3;
/** Second related parameter and only trending parameter, as the site sends them. */
export const RELATED_MODE = 18;
export const TRENDING_MODE = 18;

/** `SYM:EXCH` → `[null,["SYM","EXCH"]]`; `BASE-QUOTE` → `[null,null,["BASE","QUOTE"]]`. */
export type TickerTuple = [null, [string, string]] | [null, null, [string, string]];

export function tickerTuple(t: ParsedTicker): TickerTuple {
  return t.form === 'exchange' ? [null, [t.symbol, t.exchange]] : [null, null, [t.base, t.quote]];
}

/** One call of an envelope, before it gets its sequence number. */
export interface RpcCall {
  rpcid: string;
  /** Sent as `JSON.stringify(params)`. */
  params: unknown[];
  /** Normalised ticker for ticker calls (decides `source-path`), null for market-wide calls. */
  ticker: string | null;
}

/** Builds the call of a request; throws InvalidTickerError for a ticker in neither allowed form. */
export function buildRpcCall(r: MarketRequest): RpcCall {
  switch (r.kind) {
    case 'quote': {
      const t = parseTicker(r.ticker);
      return { rpcid: RPC_IDS.quote, params: [[tickerTuple(t)], 1], ticker: t.ticker };
    }
    case 'company': {
      const t = parseTicker(r.ticker);
      return { rpcid: RPC_IDS.company, params: [[tickerTuple(t)]], ticker: t.ticker };
    }
    case 'financials': {
      const t = parseTicker(r.ticker);
      return { rpcid: RPC_IDS.financials, params: [[tickerTuple(t)]], ticker: t.ticker };
    }
    case 'chart': {
      const t = parseTicker(r.ticker);
      const mode = CHART_MODES[r.range];
      if (mode === undefined) throw new Error(`unknown chart range "${String(r.range)}"`);
      return { rpcid: RPC_IDS.chart, params: [[tickerTuple(t)], mode], ticker: t.ticker };
    }
    case 'news': {
      const t = parseTicker(r.ticker);
      const type = t.form === 'pair' ? NEWS_TYPE_PAIR : NEWS_TYPE_EXCHANGE;
      return { rpcid: RPC_IDS.news, params: [type, NEWS_LIMIT, [tickerTuple(t)]], ticker: t.ticker };
    }
    case 'related': {
      const t = parseTicker(r.ticker);
      return { rpcid: RPC_IDS.related, params: [tickerTuple(t), RELATED_MODE], ticker: t.ticker };
    }
    case 'indices':
      return { rpcid: RPC_IDS.indices, params: [null, 1], ticker: null };
    case 'movers': {
      const code = MOVER_CATEGORY_CODES[r.category];
      if (code === undefined) throw new Error(`unknown movers category "${String(r.category)}"`);
      return { rpcid: RPC_IDS.movers, params: [[code], r.count, r.offset], ticker: null };
    }
    case 'trending':
      return { rpcid: RPC_IDS.trending, params: [TRENDING_MODE], ticker: null };
    case 'earnings':
      return { rpcid: RPC_IDS.earnings, params: [], ticker: null };
    case 'headline':
      return { rpcid: RPC_IDS.headline, params: [1], ticker: null };
    default:
      throw new Error(`unsupported request kind "${String((r as { kind?: unknown }).kind)}"`);
  }
}

/** Human-readable name of a request for error messages and logs: `quote AAPL:NASDAQ`, `chart BTC-USD 5D`. */
export function describeRequest(r: MarketRequest): string {
  if (typeof r !== 'object' || r === null) return 'invalid request';
  switch (r.kind) {
    case 'quote':
    case 'company':
    case 'news':
    case 'financials':
    case 'related':
      return `${r.kind} ${r.ticker}`;
    case 'chart':
      return `chart ${r.ticker} ${r.range}`;
    case 'movers':
      return `movers ${r.category} (count ${r.count}, offset ${r.offset})`;
    case 'indices':
    case 'trending':
    case 'earnings':
    case 'headline':
      return r.kind;
    default:
      return `request of kind ${String((r as { kind?: unknown }).kind)}`;
  }
}
