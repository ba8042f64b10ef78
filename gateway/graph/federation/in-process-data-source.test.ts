import type { GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { GraphQLDataSourceRequestKind } from '@apollo/gateway/dist/datasources/types';
import { buildSchema, type GraphQLSchema } from 'graphql';
import type { Subgraph, SubgraphContext } from '../../../subgraphs/subgraph';
import { createGatewayContext, type GatewayContext } from '../context';
import { createLogger } from '../../../platform/log';
import { stopOf } from '../request-signal';
import { withStop } from './fetch-signal';
import { InProcessDataSource } from './in-process-data-source';

/** What each resolver saw of its context: the signal it was given, and the request's own context object. */
const seen: Array<{ field: string; signal: AbortSignal | undefined; requestId: string }> = [];

const schema: GraphQLSchema = buildSchema('type Query { listing: Int } type Mutation { write: Int }');
const resolve =
  (field: string) =>
  (_root: unknown, _args: unknown, ctx: SubgraphContext): number => {
    seen.push({ field, signal: ctx.signal, requestId: ctx.requestId });
    return 1;
  };
(schema.getQueryType()?.getFields().listing as { resolve?: unknown }).resolve = resolve('listing');
(schema.getMutationType()?.getFields().write as { resolve?: unknown }).resolve = resolve('write');

const subgraph: Subgraph = {
  name: 'test',
  schema,
  createContext: (base) => ({ ...base }),
  health: async () => ({ status: 'ok' }),
  close: async () => {},
};

function fetch(source: InProcessDataSource, context: GatewayContext, query: string, signal: AbortSignal) {
  const options = {
    kind: GraphQLDataSourceRequestKind.INCOMING_OPERATION,
    request: { query },
    incomingRequestContext: { context },
    context,
  } as unknown as GraphQLDataSourceProcessOptions<GatewayContext>;
  return source.process(withStop(options, stopOf(signal)));
}

test('a query’s resolvers get the fetch’s signal; a mutation’s get none, so its writes run to their end', async () => {
  const source = new InProcessDataSource(subgraph);
  const context = createGatewayContext('req-7', createLogger('silent'));
  const gone = new AbortController();
  gone.abort(new Error('nobody waits'));
  expect(await fetch(source, context, '{ listing }', gone.signal)).toEqual({ data: { listing: 1 } });
  expect(await fetch(source, context, 'mutation { write }', gone.signal)).toEqual({ data: { write: 1 } });
  expect(seen).toEqual([
    { field: 'listing', signal: gone.signal, requestId: 'req-7' },
    { field: 'write', signal: undefined, requestId: 'req-7' },
  ]);
});
