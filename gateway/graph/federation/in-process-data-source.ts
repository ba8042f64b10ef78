import type { GraphQLDataSource, GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { GraphQLDataSourceRequestKind } from '@apollo/gateway/dist/datasources/types';
import type { GatewayGraphQLResponse } from '@apollo/server-gateway-interface';
import { execute, getOperationAST, OperationTypeNode, type DocumentNode } from 'graphql';
import { CacheHint, type Subgraph, type SubgraphContext } from '../../../subgraphs/subgraph';
import type { GatewayContext } from '../context';
import type { Stop } from '../request-signal';
import { fetchStop } from './fetch-signal';
import { PreparedDocuments } from './prepared-documents';

/**
 * Runs subgraph fetches in this process. Unlike @apollo/gateway's LocalGraphQLDataSource it parses and validates
 * each distinct subgraph operation once (the query planner sends the same few operation strings over and over),
 * and gives each incoming request one subgraph context, so loaders batch across all fetches of that request.
 */
export class InProcessDataSource implements GraphQLDataSource<GatewayContext> {
  private readonly prepared: PreparedDocuments;
  private readonly contexts = new WeakMap<object, SubgraphContext>();

  constructor(readonly subgraph: Subgraph) {
    this.prepared = new PreparedDocuments(subgraph.schema);
  }

  async process(options: GraphQLDataSourceProcessOptions<GatewayContext>): Promise<GatewayGraphQLResponse> {
    const { request } = options;
    const prepared = this.prepared.get(request.query ?? '');
    if ('errors' in prepared) return { errors: prepared.errors };
    const incoming = options.kind === GraphQLDataSourceRequestKind.INCOMING_OPERATION ? options.context : undefined;
    const context = incoming
      ? this.contextFor(incoming)
      : this.subgraph.createContext({ requestId: 'internal', cacheHint: new CacheHint() });
    const result = await execute({
      schema: this.subgraph.schema,
      document: prepared.document,
      variableValues: request.variables,
      operationName: request.operationName,
      contextValue: this.withStop(context, prepared.document, request.operationName, fetchStop(options)),
    });
    // Whatever did not declare itself cacheable makes the whole response uncacheable.
    incoming?.cachePolicy.restrict(context.cacheHint.maxAge ?? 0);
    return result;
  }

  /**
   * The request's context as this fetch sees it: with the fetch's signal (its deadline, its client), so reads stop
   * when nobody awaits them. The request's context itself is shared by its fetches (loaders batch across them).
   * A mutation gets no signal: its writes run to their end whoever waits.
   */
  private withStop(
    context: SubgraphContext,
    document: DocumentNode,
    operationName: string | undefined,
    stop: Stop | undefined,
  ): SubgraphContext {
    if (!stop || getOperationAST(document, operationName)?.operation === OperationTypeNode.MUTATION) return context;
    const view = Object.create(context) as SubgraphContext;
    // A getter: the AbortSignal is made only by a resolver that reads it (most never do).
    Object.defineProperty(view, 'signal', { get: () => stop.signal, enumerable: true });
    return view;
  }

  private contextFor(incoming: GatewayContext): SubgraphContext {
    let context = this.contexts.get(incoming);
    if (!context) {
      context = this.subgraph.createContext({
        requestId: incoming.requestId,
        cacheHint: new CacheHint(),
        authorization: incoming.authorization,
        clientAddress: incoming.clientAddress,
      });
      this.contexts.set(incoming, context);
    }
    return context;
  }
}
