import { Arg, Ctx, Int, Query, Resolver } from 'type-graphql';
import { upstreamUnavailable } from '../../errors';
import { load, type MarketContext } from '../context';
import type * as M from '../model';
import { intInRange } from './arguments';
import { MoverCategory } from './enums';
import { EarningsEvent, Headline, MarketIndex, MarketMover } from './types';

export const MAX_MOVERS_COUNT = 100;
export const MAX_MOVERS_OFFSET = 10_000;

function list<T>(value: T[] | null, what: string): T[] {
  if (value === null) throw upstreamUnavailable(`the market data provider returned no ${what}`);
  return value;
}

/** Market-wide lists. */
@Resolver()
export class MarketResolver {
  @Query(() => [MarketIndex], { description: 'Major world indices.' })
  async indices(@Ctx() ctx: MarketContext): Promise<M.MarketListItem[]> {
    return list(await load(ctx, { kind: 'indices' }), 'indices');
  }

  @Query(() => [MarketMover], { description: 'Top movers of a category, paged by count and offset.' })
  async movers(
    @Ctx() ctx: MarketContext,
    @Arg('category', () => MoverCategory, { defaultValue: MoverCategory.MOST_ACTIVE }) category: MoverCategory,
    @Arg('count', () => Int, { defaultValue: 10, description: `1 to ${MAX_MOVERS_COUNT}` }) count: number,
    @Arg('offset', () => Int, { defaultValue: 0, description: `0 to ${MAX_MOVERS_OFFSET}` }) offset: number,
  ): Promise<M.MarketListItem[]> {
    intInRange('count', count, 1, MAX_MOVERS_COUNT);
    intInRange('offset', offset, 0, MAX_MOVERS_OFFSET);
    return list(await load(ctx, { kind: 'movers', category, count, offset }), 'movers');
  }

  @Query(() => [MarketMover], { description: 'Instruments drawing the most attention now.' })
  async trending(@Ctx() ctx: MarketContext): Promise<M.MarketListItem[]> {
    return list(await load(ctx, { kind: 'trending' }), 'trending list');
  }

  @Query(() => [EarningsEvent], { description: 'Upcoming earnings announcements.' })
  async earnings(@Ctx() ctx: MarketContext): Promise<M.EarningsEvent[]> {
    return list(await load(ctx, { kind: 'earnings' }), 'earnings calendar');
  }

  @Query(() => Headline, { nullable: true, description: 'The single current top market headline.' })
  headline(@Ctx() ctx: MarketContext): Promise<M.Headline | null> {
    return load(ctx, { kind: 'headline' });
  }
}
