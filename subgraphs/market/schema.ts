import type { GraphQLResolveInfo, GraphQLSchema } from 'graphql';
import { buildFederatedSchema, type ReferenceResolvers } from '../federation';
import type { MarketContext } from './context';
import { tickerArg } from './graphql/arguments';
import { LiveResolver } from './graphql/live-resolver';
import { MarketResolver } from './graphql/market-resolver';
import { QuoteResolver, resolveQuote } from './graphql/quote-resolver';
import { TickerResolver } from './graphql/ticker-resolver';
import type * as M from './model';

let built: Promise<GraphQLSchema> | undefined;

/** The market subgraph schema; static, so built once per process. */
export function buildMarketSchema(): Promise<GraphQLSchema> {
  built ??= buildFederatedSchema(
    { resolvers: [QuoteResolver, TickerResolver, MarketResolver, LiveResolver], validate: false },
    {
      Quote: {
        // Another subgraph hands us { ticker }; we answer with the whole quote, prefetching the selected fields.
        // A copy: @apollo/subgraph writes __typename into what this returns, and cached quotes are frozen.
        async __resolveReference(
          ref: { ticker: string },
          ctx: MarketContext,
          info: GraphQLResolveInfo,
        ): Promise<M.Quote> {
          return { ...(await resolveQuote(ctx, info, tickerArg(ref.ticker))) };
        },
      },
    } as unknown as ReferenceResolvers, // @apollo/subgraph calls __resolveReference(reference, context, info)
  );
  return built;
}
