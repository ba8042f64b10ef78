import { GraphQLDateTimeISO } from 'graphql-scalars';
import { Arg, Ctx, Field, Int, ObjectType, Query, Resolver, Root, Subscription } from 'type-graphql';
import { badUserInput, notFound, upstreamUnavailable } from '../../errors';
import type { MarketContext } from '../context';
import { LiveOpenError, type OpenOptions, type PriceEvent, type PriceTickEvent } from '../live/price-hub';
import type * as M from '../model';
import { tickerArg } from './arguments';
import { Quote } from './types';

/** The original /v1/live stream's fixed list, and our default when a client names none. */
export const DEFAULT_LIVE_TICKERS: readonly M.Ticker[] = [
  'GOOGL:NASDAQ',
  'AAPL:NASDAQ',
  'MSFT:NASDAQ',
  'BTC-USD',
  'THYAO:IST',
  'USD-TRY',
  'EUR-TRY',
  'EUR-USD',
];

@ObjectType({ description: 'One poll of the live prices: every ticker of the subscription, in the order asked.' })
export class PriceTick {
  @Field(() => Int, {
    description:
      'Rises with each poll. The first event of a subscription repeats the latest poll’s number when its quotes are that poll’s; quotes read for the subscription itself (after an idle spell, or a ticker nobody watched) get a number never used before.',
  })
  sequence!: number;
  @Field(() => GraphQLDateTimeISO, {
    description: 'When the poll ran, or, for quotes read for the subscription itself, when they were read.',
  })
  at!: Date;
  @Field(() => [Quote]) quotes!: M.Quote[];
}

/**
 * Validated, de-duplicated tickers of a live operation (order kept); `fallback` when the list is absent or empty,
 * BAD_USER_INPUT when a ticker is malformed or the list is longer than the limit.
 */
function liveTickers(
  ctx: MarketContext,
  tickers: readonly string[] | null | undefined,
  fallback?: readonly M.Ticker[],
): M.Ticker[] {
  if (!tickers || tickers.length === 0) {
    if (fallback) return [...fallback];
    throw badUserInput('tickers', 'tickers must name at least one ticker');
  }
  const max = ctx.limits.maxTickersPerSubscription;
  if (tickers.length > max)
    throw badUserInput(
      'tickers',
      `tickers may hold at most ${max} tickers per subscription (got ${tickers.length}; liveMaxTickersPerSubscription)`,
    );
  return [...new Set(tickers.map((t, i) => tickerArg(t, `tickers[${i}]`)))];
}

/**
 * Without tickers the default list is used, and a ticker of it without data is left out (logged) rather than
 * refusing the whole stream, as the original did; tickers the client named must all have data (else NOT_FOUND).
 */
function openOptions(tickers: readonly string[] | null | undefined): OpenOptions {
  return { skipMissing: !tickers || tickers.length === 0 };
}

/** The hub's failures as the subgraph's errors (NOT_FOUND, UPSTREAM_UNAVAILABLE). */
async function opening<T>(open: Promise<T>): Promise<T> {
  try {
    return await open;
  } catch (err) {
    if (!(err instanceof LiveOpenError)) throw err;
    throw err.failure.kind === 'not-found' ? notFound(err.message) : upstreamUnavailable(err.message);
  }
}

interface TickersArgs {
  args: { tickers?: string[] | null };
  context: MarketContext;
}

/** Live prices from the price hub: two subscriptions, and the latest snapshot as a query. */
@Resolver()
export class LiveResolver {
  @Subscription(() => Quote, {
    description:
      'Live quotes: first the current quote of each ticker at once, then one event per ticker per poll ' +
      '(LIVE_INTERVAL_MS). Each event is a Quote entity, so any Quote field of any subgraph can be selected.',
    subscribe: ({ args, context }: TickersArgs) => opening(context.live.prices(liveTickers(context, args.tickers))),
  })
  prices(
    @Root() event: PriceEvent,
    @Arg('tickers', () => [String], { description: 'At most LIVE_MAX_TICKERS_PER_SUBSCRIPTION (50)' })
    _tickers: string[],
  ): M.Quote {
    return event.quote;
  }

  @Subscription(() => PriceTick, {
    description:
      'Live quotes, one event per poll with every ticker of the list (the /v1/live stream runs on it); ' +
      "the first event at once. Without tickers: the original stream's eight (those with data).",
    subscribe: ({ args, context }: TickersArgs) =>
      opening(
        context.live.priceTicks(liveTickers(context, args.tickers, DEFAULT_LIVE_TICKERS), openOptions(args.tickers)),
      ),
  })
  priceTicks(
    @Root() event: PriceTickEvent,
    @Arg('tickers', () => [String], { nullable: true }) _tickers?: string[] | null,
  ): PriceTickEvent {
    return event;
  }

  @Query(() => [Quote], {
    description:
      "The latest live quotes of the tickers (default: those of the original stream's eight with data): the live poll's own for " +
      'tickers somebody watches, current ones for the others.',
  })
  liveSnapshot(
    @Arg('tickers', () => [String], { nullable: true }) tickers: string[] | null | undefined,
    @Ctx() ctx: MarketContext,
  ): Promise<M.Quote[]> {
    return opening(ctx.live.snapshot(liveTickers(ctx, tickers, DEFAULT_LIVE_TICKERS), openOptions(tickers)));
  }
}
