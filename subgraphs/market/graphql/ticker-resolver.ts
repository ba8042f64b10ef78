import { Arg, Ctx, Query, Resolver } from 'type-graphql';
import { notFound } from '../../errors';
import { load, type MarketContext } from '../context';
import type * as M from '../model';
import { tickerArg } from './arguments';
import { ChartRange, FinancialsType } from './enums';
import { filterFinancials } from './quote-resolver';
import { ChartData, CompanyInfo, FinancialPeriod, NewsItem, RelatedStock } from './types';

function found<T>(value: T | null, what: string, ticker: string): T {
  if (value === null) throw notFound(`no ${what} for ticker ${ticker}`);
  return value;
}

/** Per-ticker data as root fields, as the REST paths have it; each is NOT_FOUND for an unknown ticker. */
@Resolver()
export class TickerResolver {
  @Query(() => CompanyInfo, { nullable: true })
  async company(@Arg('ticker', () => String) ticker: string, @Ctx() ctx: MarketContext): Promise<M.CompanyInfo> {
    const t = tickerArg(ticker);
    return found(await load(ctx, { kind: 'company', ticker: t }), 'company data', t);
  }

  @Query(() => ChartData, { nullable: true })
  async chart(
    @Arg('ticker', () => String) ticker: string,
    @Arg('range', () => ChartRange, { defaultValue: ChartRange.ONE_MONTH }) range: ChartRange,
    @Ctx() ctx: MarketContext,
  ): Promise<M.ChartData> {
    const t = tickerArg(ticker);
    return found(await load(ctx, { kind: 'chart', ticker: t, range }), 'chart', t);
  }

  @Query(() => [NewsItem], { nullable: true })
  async news(@Arg('ticker', () => String) ticker: string, @Ctx() ctx: MarketContext): Promise<M.NewsItem[]> {
    const t = tickerArg(ticker);
    return found(await load(ctx, { kind: 'news', ticker: t }), 'news', t);
  }

  @Query(() => [FinancialPeriod], { nullable: true })
  async financials(
    @Arg('ticker', () => String) ticker: string,
    @Arg('type', () => FinancialsType, { defaultValue: FinancialsType.ALL }) type: FinancialsType,
    @Ctx() ctx: MarketContext,
  ): Promise<M.FinancialPeriod[]> {
    const t = tickerArg(ticker);
    return filterFinancials(found(await load(ctx, { kind: 'financials', ticker: t }), 'financials', t), type);
  }

  @Query(() => [RelatedStock], { nullable: true })
  async related(@Arg('ticker', () => String) ticker: string, @Ctx() ctx: MarketContext): Promise<M.MarketListItem[]> {
    const t = tickerArg(ticker);
    return found(await load(ctx, { kind: 'related', ticker: t }), 'related instruments', t);
  }
}
