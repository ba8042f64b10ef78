import type DataLoader from 'dataloader';
import type { SubgraphContext } from '../subgraph';
import type { PriceHub } from './live/price-hub';
import type { MarketRequest, MarketValueOf, MarketValue } from './providers/provider';

export interface MarketLimits {
  /** Most tickers one `quotes` field may ask for. */
  maxQuotesPerRequest: number;
  /** Most tickers one live subscription (or snapshot) may name. */
  maxTickersPerSubscription: number;
}

export interface MarketContext extends SubgraphContext {
  market: DataLoader<MarketRequest, MarketValue, string>;
  limits: MarketLimits;
  /** The live price hub (one per subgraph instance, shared by every request and subscription). */
  live: PriceHub;
}

/** Typed load: the value type follows the request kind. */
export function load<K extends MarketRequest['kind']>(
  ctx: MarketContext,
  request: Extract<MarketRequest, { kind: K }>,
): Promise<MarketValueOf[K]> {
  return ctx.market.load(request) as Promise<MarketValueOf[K]>;
}
