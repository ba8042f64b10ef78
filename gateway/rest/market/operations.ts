import { prepareOperation } from '../../graph';

/** The fixed GraphQL operations behind the market REST paths; field order is the REST body's key order. */
const QUOTE_FIELDS = `ticker exchange name type currency timezone price change changePercent previousClose
  afterHours { price change changePercent }`;
const COMPANY_FIELDS = `description ceo employees marketCap open high low fiftyTwoWeekHigh fiftyTwoWeekLow peRatio volume sector`;
const CHART_FIELDS = `previousClose points { date price volume }`;
const NEWS_FIELDS = `title source url timestamp`;
const FINANCIAL_FIELDS = `fiscalEnd isAnnual currency revenue netIncome eps epsDiluted operatingMargin peRatio`;
const LIST_FIELDS = `ticker name price change changePercent`;

export const MarketOperations = {
  quote: prepareOperation(
    'RestQuote',
    `query RestQuote($ticker: String!) { quote(ticker: $ticker) { ${QUOTE_FIELDS} } }`,
  ),
  company: prepareOperation(
    'RestCompany',
    `query RestCompany($ticker: String!) { company(ticker: $ticker) { ${COMPANY_FIELDS} } }`,
  ),
  chart: prepareOperation(
    'RestChart',
    `query RestChart($ticker: String!, $range: ChartRange!) { chart(ticker: $ticker, range: $range) { ${CHART_FIELDS} } }`,
  ),
  news: prepareOperation('RestNews', `query RestNews($ticker: String!) { news(ticker: $ticker) { ${NEWS_FIELDS} } }`),
  financials: prepareOperation(
    'RestFinancials',
    `query RestFinancials($ticker: String!, $type: FinancialsType!) { financials(ticker: $ticker, type: $type) { ${FINANCIAL_FIELDS} } }`,
  ),
  related: prepareOperation(
    'RestRelated',
    `query RestRelated($ticker: String!) { related(ticker: $ticker) { ${LIST_FIELDS} } }`,
  ),
  full: prepareOperation(
    'RestFull',
    `query RestFull($ticker: String!, $range: ChartRange!) { quote(ticker: $ticker) { ${QUOTE_FIELDS}
      company { ${COMPANY_FIELDS} } chart(range: $range) { ${CHART_FIELDS} } news { ${NEWS_FIELDS} } } }`,
  ),
  indices: prepareOperation('RestIndices', `query RestIndices { indices { ${LIST_FIELDS} } }`),
  movers: prepareOperation(
    'RestMovers',
    `query RestMovers($category: MoverCategory!, $count: Int!, $offset: Int!) {
      movers(category: $category, count: $count, offset: $offset) { ${LIST_FIELDS} } }`,
  ),
  trending: prepareOperation('RestTrending', `query RestTrending { trending { ${LIST_FIELDS} } }`),
  earnings: prepareOperation(
    'RestEarnings',
    `query RestEarnings { earnings { ticker name date exchange reportDate } }`,
  ),
  headline: prepareOperation('RestHeadline', `query RestHeadline { headline { title url source } }`),
} as const;
