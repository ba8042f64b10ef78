import { registerEnumType } from 'type-graphql';

/** GraphQL enums whose internal values are the REST interface's strings (so providers and REST share them). */
export enum ChartRange {
  ONE_DAY = '1D',
  FIVE_DAYS = '5D',
  ONE_MONTH = '1M',
  SIX_MONTHS = '6M',
  YEAR_TO_DATE = 'YTD',
  ONE_YEAR = '1Y',
  FIVE_YEARS = '5Y',
  MAX = 'MAX',
}

export enum InstrumentType {
  STOCK = 'stock',
  INDEX = 'index',
  CRYPTO = 'crypto',
  ETF = 'etf',
  UNKNOWN = 'unknown',
}

export enum FinancialsType {
  QUARTERLY = 'quarterly',
  ANNUAL = 'annual',
  ALL = 'all',
}

export enum MoverCategory {
  MOST_ACTIVE = 'most-active',
  GAINERS = 'gainers',
  LOSERS = 'losers',
}

registerEnumType(ChartRange, {
  name: 'ChartRange',
  description:
    'Time span of a chart. Intraday ranges (ONE_DAY, FIVE_DAYS) have timestamped points; the others one point per day, week or month.',
  valuesConfig: {
    ONE_DAY: { description: '1D: the current or last trading session, intraday' },
    FIVE_DAYS: { description: '5D: the last five sessions, intraday' },
    ONE_MONTH: { description: '1M: one month, daily' },
    SIX_MONTHS: { description: '6M: six months, daily' },
    YEAR_TO_DATE: { description: 'YTD: since 1 January, daily' },
    ONE_YEAR: { description: '1Y: one year, daily' },
    FIVE_YEARS: { description: '5Y: five years, weekly' },
    MAX: { description: 'MAX: the whole history, monthly' },
  },
});
registerEnumType(InstrumentType, { name: 'InstrumentType', description: 'Kind of instrument a ticker names.' });
registerEnumType(FinancialsType, { name: 'FinancialsType', description: 'Which financial periods to return.' });
registerEnumType(MoverCategory, {
  name: 'MoverCategory',
  description: 'Market movers list: most traded by volume, top gainers or top losers by percent change.',
});
