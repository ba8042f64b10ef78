import { buildOperationContext } from '@apollo/gateway';
import { operationFromDocument, Supergraph, type Schema } from '@apollo/federation-internals';
import { QueryPlanner, type FetchNode, type PlanNode, type QueryPlan } from '@apollo/query-planner';
import { print, type DocumentNode, type GraphQLSchema } from 'graphql';
import { LRUCache } from 'lru-cache';

type OperationContext = ReturnType<typeof buildOperationContext>;

/** How one subscription operation runs: the root field on its subgraph, then the rest of the plan per event. */
export interface SubscriptionPlan {
  /** The fetch that opens the subscription on the subgraph owning its root field. */
  primary: FetchNode;
  /** What completes each event with other subgraphs' fields; absent when the owning subgraph has everything. */
  rest?: PlanNode;
  operationContext: OperationContext;
}

/**
 * Apollo's query planner over the supergraph the gateway serves, for what Apollo's Node gateway does not do itself:
 * executing subscriptions (it plans them but refuses to run them; see subscriptions/federated-subscriptions.ts) and
 * telling when a whole operation is one fetch of one subgraph (see single-subgraph-executor.ts).
 */
export class OperationPlanner {
  /** The supergraph as GraphQL-js sees it (for executing plan fetches). */
  readonly supergraphSchema: GraphQLSchema;
  /** The client-facing schema (what operations are validated against). */
  readonly apiSchema: GraphQLSchema;
  readonly api: Schema;
  private readonly planner: QueryPlanner;
  private readonly subscriptions = new LRUCache<string, SubscriptionPlan>({ max: 1_000 });

  constructor(supergraphSdl: string) {
    const supergraph = Supergraph.build(supergraphSdl);
    this.supergraphSchema = supergraph.schema.toGraphQLJSSchema();
    this.api = supergraph.apiSchema();
    this.apiSchema = this.api.toGraphQLJSSchema();
    this.planner = new QueryPlanner(supergraph);
  }

  /** The query plan of a validated operation (not cached: callers keep what they derive from it). */
  plan(document: DocumentNode, operationName: string | null | undefined): QueryPlan {
    return this.planner.buildQueryPlan(
      operationFromDocument(this.api, document, { operationName: operationName ?? undefined }),
    );
  }

  /** Plans a validated subscription document (cached by its text and operation name). */
  planSubscription(
    document: DocumentNode,
    operationName: string | null | undefined,
    key = print(document),
  ): SubscriptionPlan {
    const cacheKey = `${operationName ?? ''}\u0000${key}`;
    const cached = this.subscriptions.get(cacheKey);
    if (cached) return cached;
    const node = this.plan(document, operationName).node;
    if (node?.kind !== 'Subscription') throw new Error('the operation is not a subscription');
    const plan: SubscriptionPlan = {
      primary: node.primary,
      rest: node.rest,
      operationContext: buildOperationContext({
        schema: this.apiSchema,
        operationDocument: document,
        operationName: operationName ?? undefined,
      }),
    };
    this.subscriptions.set(cacheKey, plan);
    return plan;
  }
}
