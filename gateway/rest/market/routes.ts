import type { PreparedOperation } from '../../graph';
import { RestError } from '../errors';
import type { RouteDoc } from '../route-docs';
import { MarketOperations as Ops } from './operations';

type Data = Record<string, unknown>;
export type Query = Record<string, string | string[] | undefined>;

/**
 * The bounds of `/v1/market/movers` paging: the market subgraph's own (test/market/rest-bounds.test.ts holds them
 * equal), checked here too so that a bad value gets this interface's message.
 */
export const MOVERS_COUNT_MAX = 100;
export const MOVERS_OFFSET_MAX = 10_000;

/** REST strings of the seed → GraphQL enum values. */
const RANGES: Record<string, string> = {
  '1D': 'ONE_DAY',
  '5D': 'FIVE_DAYS',
  '1M': 'ONE_MONTH',
  '6M': 'SIX_MONTHS',
  YTD: 'YEAR_TO_DATE',
  '1Y': 'ONE_YEAR',
  '5Y': 'FIVE_YEARS',
  MAX: 'MAX',
};
const FINANCIALS_TYPES: Record<string, string> = { quarterly: 'QUARTERLY', annual: 'ANNUAL', all: 'ALL' };
const CATEGORIES: Record<string, string> = { 'most-active': 'MOST_ACTIVE', gainers: 'GAINERS', losers: 'LOSERS' };

/** A query parameter given at most once; given empty, it is a bad value like any other (not the default). */
function param(query: Query, name: string): string | undefined {
  const value = query[name];
  if (Array.isArray(value)) throw new RestError(400, `${name} may be given only once`);
  return value;
}

/** A query parameter restricted to a fixed list of strings (matched case-insensitively). */
function choice(query: Query, name: string, allowed: Record<string, string>, fallback: string): string {
  const raw = param(query, name) ?? fallback;
  const hit = Object.keys(allowed).find((k) => k.toLowerCase() === raw.toLowerCase());
  if (!hit) throw new RestError(400, `invalid ${name}: use ${Object.keys(allowed).join(', ')}`);
  return allowed[hit] as string;
}

/** An integer query parameter within [min, max]; the error says the allowed range whatever was wrong. */
function integer(query: Query, name: string, fallback: number, min: number, max: number): number {
  const raw = param(query, name);
  if (raw === undefined) return fallback;
  const value = /^[-+]?\d{1,300}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(value))
    throw new RestError(400, `${name} must be an integer from ${min} to ${max} (got "${raw.slice(0, 40)}")`);
  if (value < min || value > max)
    throw new RestError(400, `${name} must be an integer from ${min} to ${max} (got ${raw.slice(0, 40)})`);
  return value;
}

/** The seed's `type` is a lower-case string; GraphQL has an enum. */
export function restQuote(quote: Data): Data {
  return { ...quote, type: typeof quote.type === 'string' ? quote.type.toLowerCase() : null };
}

function renderFull(data: Data): Data {
  const { company, chart, news, ...quote } = data.quote as Data;
  return { quote: restQuote(quote), company, chart, news };
}

/** One `GET /v1/...` path: its fixed GraphQL operation, the variables from the request, and the body it renders. */
export interface MarketRoute {
  /** Relative to `/v1`; `:ticker` is the instrument (the path without it is a 400, not an unknown path). */
  readonly path: string;
  readonly summary: string;
  readonly operation: PreparedOperation;
  /** Query parameters, as the docs show them. */
  readonly query?: string;
  variables(query: Query): Record<string, unknown>;
  render(data: Data): unknown;
  readonly statuses: readonly number[];
}

/** What every path answered through the graph may also say: a bug, the provider, the subgraph away or late. */
const THROUGH_GRAPH = [500, 502, 503, 504] as const;
const BY_TICKER = [200, 400, 404, ...THROUGH_GRAPH] as const;
const LIST = [200, 400, ...THROUGH_GRAPH] as const;

const none = (): Record<string, unknown> => ({});
const range = (q: Query): Record<string, unknown> => ({ range: choice(q, 'range', RANGES, '1M') });
const RANGE_DOC = `range: ${Object.keys(RANGES).join(', ')} (default 1M)`;

/** The market interface's route table (`/v1`), in the order of the seed. */
export const MARKET_ROUTES: readonly MarketRoute[] = [
  {
    path: '/quote/:ticker',
    summary: 'The quote of an instrument (SYMBOL:EXCHANGE or BASE-QUOTE)',
    operation: Ops.quote,
    variables: none,
    render: (d) => restQuote(d.quote as Data),
    statuses: BY_TICKER,
  },
  {
    path: '/company/:ticker',
    summary: 'Company facts',
    operation: Ops.company,
    variables: none,
    render: (d) => d.company,
    statuses: BY_TICKER,
  },
  {
    path: '/chart/:ticker',
    summary: 'Price points over a range',
    operation: Ops.chart,
    query: RANGE_DOC,
    variables: range,
    render: (d) => d.chart,
    statuses: BY_TICKER,
  },
  {
    path: '/news/:ticker',
    summary: 'News about the instrument',
    operation: Ops.news,
    variables: none,
    render: (d) => d.news,
    statuses: BY_TICKER,
  },
  {
    path: '/financials/:ticker',
    summary: 'Quarterly and annual results',
    operation: Ops.financials,
    query: `type: ${Object.keys(FINANCIALS_TYPES).join(', ')} (default all)`,
    variables: (q) => ({ type: choice(q, 'type', FINANCIALS_TYPES, 'all') }),
    render: (d) => d.financials,
    statuses: BY_TICKER,
  },
  {
    path: '/related/:ticker',
    summary: 'Related instruments',
    operation: Ops.related,
    variables: none,
    render: (d) => d.related,
    statuses: BY_TICKER,
  },
  {
    path: '/full/:ticker',
    summary: 'Quote, company, chart and news in one answer',
    operation: Ops.full,
    query: RANGE_DOC,
    variables: range,
    render: renderFull,
    statuses: BY_TICKER,
  },
  {
    path: '/market/indices',
    summary: 'Major world indices',
    operation: Ops.indices,
    variables: none,
    render: (d) => d.indices,
    statuses: LIST,
  },
  {
    path: '/market/movers',
    summary: 'Top movers of a category, paged',
    operation: Ops.movers,
    query:
      `category: ${Object.keys(CATEGORIES).join(', ')} (default most-active); count: 1 to ${MOVERS_COUNT_MAX} ` +
      `(default 10); offset: 0 to ${MOVERS_OFFSET_MAX} (default 0)`,
    variables: (q) => ({
      category: choice(q, 'category', CATEGORIES, 'most-active'),
      count: integer(q, 'count', 10, 1, MOVERS_COUNT_MAX),
      offset: integer(q, 'offset', 0, 0, MOVERS_OFFSET_MAX),
    }),
    render: (d) => d.movers,
    statuses: LIST,
  },
  {
    path: '/market/trending',
    summary: 'Instruments drawing the most attention now',
    operation: Ops.trending,
    variables: none,
    render: (d) => d.trending,
    statuses: LIST,
  },
  {
    path: '/market/earnings',
    summary: 'Upcoming earnings',
    operation: Ops.earnings,
    variables: none,
    render: (d) => d.earnings,
    statuses: LIST,
  },
  {
    path: '/market/headlines',
    summary: 'The current headline (404 when there is none)',
    operation: Ops.headline,
    variables: none,
    render: (d) => {
      if (d.headline == null) throw new RestError(404, 'no current headline');
      return d.headline;
    },
    statuses: [200, 404, ...THROUGH_GRAPH],
  },
];

/** The live paths, served by live.ts (a subscription and a snapshot); listed here so the docs show every path. */
export const MARKET_LIVE_ROUTES: readonly RouteDoc[] = [
  {
    method: 'GET',
    path: '/v1/live',
    summary: 'Server-Sent Events: a frame of quotes per tick, heartbeat comments between',
    operation: 'RestLive',
    input: 'tickers: comma-separated (default: the eight of the seed)',
    statuses: [200, 400, 500, 502, 503, 504],
  },
  {
    method: 'GET',
    path: '/v1/live/snapshot',
    summary: 'The latest quotes of the live stream, once',
    operation: 'RestLiveSnapshot',
    input: 'tickers: comma-separated (default: the eight of the seed)',
    statuses: [200, 400, 500, 502, 503, 504],
  },
];

export function marketRouteDocs(): RouteDoc[] {
  return [
    ...MARKET_ROUTES.map((r) => ({
      method: 'GET',
      path: `/v1${r.path.replace(':ticker', '{ticker}')}`,
      summary: r.summary,
      operation: r.operation.name,
      ...(r.query ? { input: r.query } : {}),
      statuses: r.statuses,
    })),
    ...MARKET_LIVE_ROUTES,
  ];
}
