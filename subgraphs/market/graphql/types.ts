import { GraphQLSafeInt } from 'graphql-scalars';
import { Directive, Field, Float, ObjectType } from 'type-graphql';
import { InstrumentType } from './enums';

@ObjectType({
  simpleResolvers: true,
  description: 'Price outside regular trading hours, relative to the regular close.',
})
export class AfterHours {
  @Field(() => Float, { nullable: true }) price!: number | null;
  @Field(() => Float, { nullable: true }) change!: number | null;
  @Field(() => Float, { nullable: true, description: 'Percent, e.g. 1.25 for +1.25 %' }) changePercent!: number | null;
}

@Directive('@key(fields: "ticker")')
@ObjectType({
  simpleResolvers: true,
  description:
    'A quote for one instrument. Company data, chart, news, financials and related instruments hang off it, so a full view is one query.',
})
export class Quote {
  @Field(() => String, { description: 'Normalised ticker: SYMBOL:EXCHANGE or BASE-QUOTE' }) ticker!: string;
  @Field(() => String, { nullable: true, description: 'Exchange code; null for crypto and currency pairs' }) exchange!:
    string | null;
  @Field(() => String, { nullable: true }) name!: string | null;
  @Field(() => InstrumentType, { nullable: true }) type!: InstrumentType | null;
  @Field(() => String, { nullable: true, description: 'ISO 4217 currency of the price' }) currency!: string | null;
  @Field(() => String, { nullable: true, description: 'IANA time zone of the exchange' }) timezone!: string | null;
  @Field(() => Float, { nullable: true }) price!: number | null;
  @Field(() => Float, { nullable: true, description: 'price − previousClose' }) change!: number | null;
  @Field(() => Float, { nullable: true, description: 'Percent change from previousClose' }) changePercent!:
    number | null;
  @Field(() => Float, { nullable: true }) previousClose!: number | null;
  @Field(() => AfterHours, {
    nullable: true,
    description: 'Only for instruments that trade after hours, while they do',
  })
  afterHours!: AfterHours | null;
}

@ObjectType({ simpleResolvers: true, description: 'Company profile and the current session’s trading figures.' })
export class CompanyInfo {
  @Field(() => String, { nullable: true }) description!: string | null;
  @Field(() => String, { nullable: true }) ceo!: string | null;
  @Field(() => GraphQLSafeInt, { nullable: true }) employees!: number | null;
  @Field(() => Float, { nullable: true, description: 'In the quote currency' }) marketCap!: number | null;
  @Field(() => Float, { nullable: true }) open!: number | null;
  @Field(() => Float, { nullable: true }) high!: number | null;
  @Field(() => Float, { nullable: true }) low!: number | null;
  @Field(() => Float, { nullable: true }) fiftyTwoWeekHigh!: number | null;
  @Field(() => Float, { nullable: true }) fiftyTwoWeekLow!: number | null;
  @Field(() => Float, { nullable: true }) peRatio!: number | null;
  @Field(() => GraphQLSafeInt, { nullable: true }) volume!: number | null;
  @Field(() => String, { nullable: true }) sector!: string | null;
}

@ObjectType({ simpleResolvers: true })
export class ChartPoint {
  @Field(() => String, {
    description: 'YYYY-MM-DD for daily and coarser points; ISO 8601 date-time with UTC offset for intraday points',
  })
  date!: string;
  @Field(() => Float, { nullable: true }) price!: number | null;
  @Field(() => GraphQLSafeInt, { nullable: true }) volume!: number | null;
}

@ObjectType({ simpleResolvers: true })
export class ChartData {
  @Field(() => Float, { nullable: true, description: 'Close before the first point' }) previousClose!: number | null;
  @Field(() => [ChartPoint]) points!: ChartPoint[];
}

@ObjectType({ simpleResolvers: true })
export class NewsItem {
  @Field(() => String, { nullable: true }) title!: string | null;
  @Field(() => String, { nullable: true }) source!: string | null;
  @Field(() => String, { nullable: true }) url!: string | null;
  @Field(() => GraphQLSafeInt, {
    nullable: true,
    description: 'Publication time, Unix seconds (a SafeInt: past 2038 it needs more than 32 bits)',
  })
  timestamp!: number | null;
}

@ObjectType({ simpleResolvers: true })
export class FinancialPeriod {
  @Field(() => String, { nullable: true, description: '"2025-Q3" for a quarter, "2025" for a fiscal year' })
  fiscalEnd!: string | null;
  @Field(() => Boolean) isAnnual!: boolean;
  @Field(() => String, { nullable: true }) currency!: string | null;
  @Field(() => Float, { nullable: true }) revenue!: number | null;
  @Field(() => Float, { nullable: true }) netIncome!: number | null;
  @Field(() => Float, { nullable: true }) eps!: number | null;
  @Field(() => Float, { nullable: true }) epsDiluted!: number | null;
  @Field(() => Float, { nullable: true }) operatingMargin!: number | null;
  @Field(() => Float, { nullable: true }) peRatio!: number | null;
}

/** The shape shared by related stocks, indices and movers. */
/** Not reachable from any resolver, so type-graphql does not emit it; its fields are inherited. */
@ObjectType({ simpleResolvers: true })
abstract class MarketListEntry {
  @Field(() => String) ticker!: string;
  @Field(() => String, { nullable: true }) name!: string | null;
  @Field(() => Float, { nullable: true }) price!: number | null;
  @Field(() => Float, { nullable: true }) change!: number | null;
  @Field(() => Float, { nullable: true }) changePercent!: number | null;
}

@ObjectType({ simpleResolvers: true, description: 'An instrument related to a quote (same sector or kind).' })
export class RelatedStock extends MarketListEntry {}

@ObjectType({ simpleResolvers: true, description: 'A market index.' })
export class MarketIndex extends MarketListEntry {}

@ObjectType({ simpleResolvers: true, description: 'An entry of a movers or trending list.' })
export class MarketMover extends MarketListEntry {}

@ObjectType({ simpleResolvers: true, description: 'An upcoming earnings announcement.' })
export class EarningsEvent {
  @Field(() => String, { nullable: true }) ticker!: string | null;
  @Field(() => String, { nullable: true }) name!: string | null;
  @Field(() => String, {
    nullable: true,
    description: "Fiscal quarter reported, YYYY-Qn (the original service's field); the day itself is reportDate",
  })
  date!: string | null;
  @Field(() => String, { nullable: true }) exchange!: string | null;
  @Field(() => String, {
    nullable: true,
    description:
      "The day the results come out, ISO 8601 YYYY-MM-DD (the company's local date); null when the provider does not say (google)",
  })
  reportDate!: string | null;
}

@ObjectType({ simpleResolvers: true, description: 'The current top market headline.' })
export class Headline {
  @Field(() => String, { nullable: true }) title!: string | null;
  @Field(() => String, { nullable: true }) url!: string | null;
  @Field(() => String, { nullable: true }) source!: string | null;
}
