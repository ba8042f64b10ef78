import type { GraphQLDataSource, GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { GraphQLDataSourceRequestKind } from '@apollo/gateway/dist/datasources/types';
import type { GatewayGraphQLResponse } from '@apollo/server-gateway-interface';
import { execute, GraphQLError, parse, validate, type DocumentNode } from 'graphql';
import { LRUCache } from 'lru-cache';
import { CacheHint, type Subgraph, type SubgraphContext } from '../../subgraphs/subgraph';
import type { GatewayContext } from '../context';

type Prepared = { document: DocumentNode } | { errors: readonly GraphQLError[] };

/**
 * Runs subgraph fetches in this process. Unlike @apollo/gateway's LocalGraphQLDataSource it parses and validates
 * each distinct subgraph operation once (the query planner sends the same few operation strings over and over),
 * and gives each incoming request one subgraph context, so loaders batch across all fetches of that request.
 */
export class InProcessDataSource implements GraphQLDataSource<GatewayContext> {
  private readonly prepared = new LRUCache<string, Prepared>({ max: 2_000 });
  private readonly contexts = new WeakMap<object, SubgraphContext>();

  constructor(readonly subgraph: Subgraph) {}

  async process(options: GraphQLDataSourceProcessOptions<GatewayContext>): Promise<GatewayGraphQLResponse> {
    const { request } = options;
    const prepared = this.prepare(request.query ?? '');
    if ('errors' in prepared) return { errors: prepared.errors };
    const incoming = options.kind === GraphQLDataSourceRequestKind.INCOMING_OPERATION ? options.context : undefined;
    const context = incoming ? this.contextFor(incoming) : this.subgraph.createContext({ requestId: 'internal', cacheHint: new CacheHint() });
    const result = await execute({
      schema: this.subgraph.schema,
      document: prepared.document,
      variableValues: request.variables,
      operationName: request.operationName,
      contextValue: context,
    });
    // Whatever did not declare itself cacheable makes the whole response uncacheable.
    incoming?.cachePolicy.restrict(context.cacheHint.maxAge ?? 0);
    return result as GatewayGraphQLResponse;
  }

  private prepare(query: string): Prepared {
    let prepared = this.prepared.get(query);
    if (!prepared) {
      try {
        const document = parse(query);
        const errors = validate(this.subgraph.schema, document);
        prepared = errors.length ? { errors } : { document };
      } catch (err) {
        prepared = { errors: [err instanceof GraphQLError ? err : new GraphQLError(String(err))] };
      }
      this.prepared.set(query, prepared);
    }
    return prepared;
  }

  private contextFor(incoming: GatewayContext): SubgraphContext {
    let context = this.contexts.get(incoming);
    if (!context) {
      context = this.subgraph.createContext({ requestId: incoming.requestId, cacheHint: new CacheHint() });
      this.contexts.set(incoming, context);
    }
    return context;
  }
}
