import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, FieldResolver, Info, Query, Resolver, Root } from 'type-graphql';
import { badUserInput, notFound } from '../../errors';
import { load, type MarketContext } from '../context';
import type * as M from '../model';
import type { MarketRequest } from '../providers/provider';
import { tickerArg } from './arguments';
import { ChartRange, FinancialsType } from './enums';
import { selectedFields } from './lookahead';
import { ChartData, CompanyInfo, FinancialPeriod, NewsItem, Quote, RelatedStock } from './types';

/** Loads of the Quote fields selected under `info`, started now so they join the quote's own batch. */
function prefetchQuoteFields(ctx: MarketContext, info: GraphQLResolveInfo, ticker: M.Ticker): void {
  for (const field of selectedFields(info, 'Quote')) {
    let request: MarketRequest | undefined;
    switch (field.name) {
      case 'company':
      case 'news':
      case 'financials':
      case 'related':
        request = { kind: field.name, ticker };
        break;
      case 'chart':
        request = {
          kind: 'chart',
          ticker,
          range: (field.args.range as M.ChartRange | undefined) ?? ChartRange.ONE_MONTH,
        };
        break;
    }
    if (request) ctx.market.load(request).catch(() => undefined); // the field's resolver reports any failure
  }
}

/** The quote of a valid ticker, or NOT_FOUND. */
export async function resolveQuote(ctx: MarketContext, info: GraphQLResolveInfo, ticker: M.Ticker): Promise<M.Quote> {
  prefetchQuoteFields(ctx, info, ticker);
  const quote = await load(ctx, { kind: 'quote', ticker });
  if (!quote) throw notFound(`no data for ticker ${ticker}`);
  return quote;
}

export function filterFinancials(periods: M.FinancialPeriod[], type: FinancialsType): M.FinancialPeriod[] {
  if (type === FinancialsType.ALL) return periods;
  const annual = type === FinancialsType.ANNUAL;
  return periods.filter((p) => p.isAnnual === annual);
}

@Resolver(() => Quote)
export class QuoteResolver {
  @Query(() => Quote, {
    nullable: true,
    description: 'Quote of one ticker (SYMBOL:EXCHANGE or BASE-QUOTE); NOT_FOUND if unknown.',
  })
  quote(
    @Arg('ticker', () => String) ticker: string,
    @Ctx() ctx: MarketContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<M.Quote> {
    return resolveQuote(ctx, info, tickerArg(ticker));
  }

  @Query(() => [Quote], {
    nullable: 'items',
    description:
      'Quotes of many tickers in one request, in the order asked; an unknown ticker is null with a NOT_FOUND error at its index.',
  })
  quotes(
    @Arg('tickers', () => [String]) tickers: string[],
    @Ctx() ctx: MarketContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<M.Quote>[] {
    const max = ctx.limits.maxQuotesPerRequest;
    if (tickers.length > max)
      throw badUserInput('tickers', `tickers may hold at most ${max} tickers (got ${tickers.length})`);
    const valid = tickers.map((t, i) => tickerArg(t, `tickers[${i}]`));
    return valid.map((ticker) => resolveQuote(ctx, info, ticker));
  }

  @FieldResolver(() => CompanyInfo, {
    nullable: true,
    description: 'Null when the provider has no company data for it.',
  })
  company(@Root() quote: M.Quote, @Ctx() ctx: MarketContext): Promise<M.CompanyInfo | null> {
    return load(ctx, { kind: 'company', ticker: quote.ticker });
  }

  @FieldResolver(() => ChartData, { nullable: true })
  chart(
    @Root() quote: M.Quote,
    @Arg('range', () => ChartRange, { defaultValue: ChartRange.ONE_MONTH }) range: ChartRange,
    @Ctx() ctx: MarketContext,
  ): Promise<M.ChartData | null> {
    return load(ctx, { kind: 'chart', ticker: quote.ticker, range });
  }

  @FieldResolver(() => [NewsItem], { nullable: true })
  news(@Root() quote: M.Quote, @Ctx() ctx: MarketContext): Promise<M.NewsItem[] | null> {
    return load(ctx, { kind: 'news', ticker: quote.ticker });
  }

  @FieldResolver(() => [FinancialPeriod], { nullable: true })
  async financials(
    @Root() quote: M.Quote,
    @Arg('type', () => FinancialsType, { defaultValue: FinancialsType.ALL }) type: FinancialsType,
    @Ctx() ctx: MarketContext,
  ): Promise<M.FinancialPeriod[] | null> {
    const periods = await load(ctx, { kind: 'financials', ticker: quote.ticker });
    return periods && filterFinancials(periods, type);
  }

  @FieldResolver(() => [RelatedStock], { nullable: true })
  related(@Root() quote: M.Quote, @Ctx() ctx: MarketContext): Promise<M.MarketListItem[] | null> {
    return load(ctx, { kind: 'related', ticker: quote.ticker });
  }
}
