import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorShape } from '../../../platform/errors';
import { callerOf, type Graph } from '../../graph';
import { RestError, restErrorFromGraphQL, statusText } from '../errors';
import type { RestInterface } from '../interface';
import { registerMarketLive, type LiveRestOptions } from './live';
import { MARKET_ROUTES, type MarketRoute, type Query } from './routes';

/** The market REST interface's shape, also the default for paths no interface claims. */
export const marketErrorShape: ErrorShape = (status, message) => ({ error: statusText(status), message });

/**
 * Each `/v1/...` path of the market seed, registered from the route table (paths relative to `/v1`): a fixed GraphQL
 * operation through the gateway, rendered as the seed shows.
 */
function marketRoutes(app: FastifyInstance, graph: Graph): void {
  async function respond(
    req: FastifyRequest<{ Params: { ticker?: string }; Querystring: Query }>,
    reply: FastifyReply,
    route: MarketRoute,
  ): Promise<FastifyReply> {
    const ticker = req.params.ticker;
    const variables = { ...(ticker === undefined ? {} : { ticker }), ...route.variables(req.query) };
    const { result, cached } = await graph.run(route.operation, variables, req.id, callerOf(req));
    if (result.errors?.length) throw restErrorFromGraphQL(result.errors, 'market');
    const renderBody = () => JSON.stringify(route.render(result.data ?? {}));
    const body = cached ? graph.cache.derive(cached, 'rest', renderBody) : renderBody();
    if (cached) reply.header('cache-control', `public, max-age=${graph.cache.remaining(cached)}`);
    return reply.type('application/json; charset=utf-8').send(body);
  }

  for (const route of MARKET_ROUTES) {
    app.get(route.path, (req: FastifyRequest<{ Params: { ticker?: string }; Querystring: Query }>, reply) =>
      respond(req, reply, route),
    );
    // The path without a ticker is a request error, not an unknown route.
    if (route.path.endsWith('/:ticker'))
      app.get(route.path.replace(/:ticker$/, ''), async () => {
        throw new RestError(400, 'missing ticker: use SYMBOL:EXCHANGE (e.g. AAPL:NASDAQ) or BASE-QUOTE (e.g. BTC-USD)');
      });
  }
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
