import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Graph, PreparedOperation } from '../graph';
import { callerOf } from '../context';
import type { ErrorShape } from '../../platform/errors';
import { RestError, restErrorFromGraphQL, statusText } from './errors';
import type { RestInterface } from './interface';
import { registerMarketLive, type LiveRestOptions } from './market-live';
import { MarketOperations as Ops } from './market-operations';
import { MAX_MOVERS_COUNT, MAX_MOVERS_OFFSET } from '../../subgraphs/market/graphql/market-resolver';

/** The market REST interface's shape, also the default for paths no interface claims. */
export const marketErrorShape: ErrorShape = (status, message) => ({ error: statusText(status), message });

type Data = Record<string, unknown>;
type Query = Record<string, string | string[] | undefined>;

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
function restQuote(quote: Data): Data {
  return { ...quote, type: typeof quote.type === 'string' ? quote.type.toLowerCase() : null };
}

function renderFull(data: Data): Data {
  const { company, chart, news, ...quote } = data.quote as Data;
  return { quote: restQuote(quote), company, chart, news };
}

/**
 * Each `/v1/...` path of the market seed (paths here are relative to `/v1`): a fixed GraphQL operation through the
 * gateway, rendered as the seed shows.
 */
function marketRoutes(app: FastifyInstance, graph: Graph): void {
  async function respond(
    req: FastifyRequest,
    reply: FastifyReply,
    op: PreparedOperation,
    variables: Record<string, unknown>,
    render: (data: Data) => unknown,
  ): Promise<FastifyReply> {
    const { result, cached } = await graph.run(op, variables, req.id, callerOf(req));
    if (result.errors?.length) throw restErrorFromGraphQL(result.errors, 'market');
    const renderBody = () => JSON.stringify(render(result.data ?? {}));
    const body = cached ? graph.cache.derive(cached, 'rest', renderBody) : renderBody();
    if (cached) reply.header('cache-control', `public, max-age=${graph.cache.remaining(cached)}`);
    return reply.type('application/json; charset=utf-8').send(body);
  }

  type TickerRequest = FastifyRequest<{ Params: { ticker: string }; Querystring: Query }>;
  const byTicker = (
    path: string,
    op: PreparedOperation,
    vars: (q: Query) => Record<string, unknown>,
    render: (data: Data) => unknown,
  ): void => {
    app.get(`/${path}/:ticker`, (req: TickerRequest, reply) =>
      respond(req, reply, op, { ticker: req.params.ticker, ...vars(req.query) }, render),
    );
    // The path without a ticker is a request error, not an unknown route.
    app.get(`/${path}/`, async () => {
      throw new RestError(400, 'missing ticker: use SYMBOL:EXCHANGE (e.g. AAPL:NASDAQ) or BASE-QUOTE (e.g. BTC-USD)');
    });
  };
  const none = (): Record<string, unknown> => ({});
  const range = (q: Query): Record<string, unknown> => ({ range: choice(q, 'range', RANGES, '1M') });

  byTicker('quote', Ops.quote, none, (d) => restQuote(d.quote as Data));
  byTicker('company', Ops.company, none, (d) => d.company);
  byTicker('chart', Ops.chart, range, (d) => d.chart);
  byTicker('news', Ops.news, none, (d) => d.news);
  byTicker(
    'financials',
    Ops.financials,
    (q) => ({ type: choice(q, 'type', FINANCIALS_TYPES, 'all') }),
    (d) => d.financials,
  );
  byTicker('related', Ops.related, none, (d) => d.related);
  byTicker('full', Ops.full, range, renderFull);

  type ListRequest = FastifyRequest<{ Querystring: Query }>;
  app.get('/market/indices', (req: ListRequest, reply) => respond(req, reply, Ops.indices, {}, (d) => d.indices));
  app.get('/market/movers', (req: ListRequest, reply) =>
    respond(
      req,
      reply,
      Ops.movers,
      {
        category: choice(req.query, 'category', CATEGORIES, 'most-active'),
        count: integer(req.query, 'count', 10, 1, MAX_MOVERS_COUNT),
        offset: integer(req.query, 'offset', 0, 0, MAX_MOVERS_OFFSET),
      },
      (d) => d.movers,
    ),
  );
  app.get('/market/trending', (req: ListRequest, reply) => respond(req, reply, Ops.trending, {}, (d) => d.trending));
  app.get('/market/earnings', (req: ListRequest, reply) => respond(req, reply, Ops.earnings, {}, (d) => d.earnings));
  app.get('/market/headlines', (req: ListRequest, reply) =>
    respond(req, reply, Ops.headline, {}, (d) => {
      if (d.headline == null) throw new RestError(404, 'no current headline');
      return d.headline;
    }),
  );
}

/** The market's REST interface at `/v1`: the seed's paths and the live stream, errors as `{error, message}`. */
export function marketRestInterface(graph: Graph, live?: LiveRestOptions): RestInterface {
  let liveRest: { closeStreams(): void } | undefined;
  return {
    name: 'market',
    prefix: '/v1',
    shape: marketErrorShape,
    routes(scope) {
      marketRoutes(scope, graph);
      if (live) liveRest = registerMarketLive(scope, live);
    },
    close: () => liveRest?.closeStreams(),
  };
}
