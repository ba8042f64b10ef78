import { buildOperationContext } from '@apollo/gateway';
import { operationFromDocument, Supergraph, type Schema } from '@apollo/federation-internals';
import { QueryPlanner, type FetchNode, type PlanNode } from '@apollo/query-planner';
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
 * Plans subscriptions with Apollo's query planner over the same supergraph the gateway serves. Apollo's Node
 * gateway plans them too but refuses to execute them; executing is ours (see federated-subscriptions.ts).
 */
export class SubscriptionPlanner {
  /** The supergraph as GraphQL-js sees it (for executing plan fetches). */
  readonly supergraphSchema: GraphQLSchema;
  /** The client-facing schema (what operations are validated against). */
  readonly apiSchema: GraphQLSchema;
  readonly api: Schema;
  private readonly planner: QueryPlanner;
  private readonly plans = new LRUCache<string, SubscriptionPlan>({ max: 1_000 });

  constructor(supergraphSdl: string) {
    const supergraph = Supergraph.build(supergraphSdl);
    this.supergraphSchema = supergraph.schema.toGraphQLJSSchema();
    this.api = supergraph.apiSchema();
    this.apiSchema = this.api.toGraphQLJSSchema();
    this.planner = new QueryPlanner(supergraph);
  }

  /** True when the supergraph has a subscription root type. */
  get hasSubscriptions(): boolean {
    return this.apiSchema.getSubscriptionType() !== null && this.apiSchema.getSubscriptionType() !== undefined;
  }

  /** Plans a validated subscription document (cached by its text and operation name). */
  plan(document: DocumentNode, operationName: string | null | undefined, key = print(document)): SubscriptionPlan {
    const cacheKey = `${operationName ?? ''}\u0000${key}`;
    const cached = this.plans.get(cacheKey);
    if (cached) return cached;
    const operation = operationFromDocument(this.api, document, { operationName: operationName ?? undefined });
    const queryPlan = this.planner.buildQueryPlan(operation);
    const node = queryPlan.node;
    if (node?.kind !== 'Subscription') throw new Error('the operation is not a subscription');
    const plan: SubscriptionPlan = {
      primary: node.primary,
      rest: node.rest,
      operationContext: buildOperationContext({ schema: this.apiSchema, operationDocument: document, operationName: operationName ?? undefined }),
    };
    this.plans.set(cacheKey, plan);
    return plan;
  }
}
