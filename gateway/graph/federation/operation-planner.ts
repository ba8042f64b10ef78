import { Supergraph } from '@apollo/federation-internals';
import { QueryPlanner } from '@graphql-hive/router-query-planner';
import {
  Kind,
  print,
  visit,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionNode,
  type SelectionSetNode,
} from 'graphql';
import { LRUCache } from 'lru-cache';
import { PlanCompiler, type CompiledPlan, type FetchStep, type PlanStep } from './query-plan';
import { ResponseShape } from './response-shape';

/** An operation ready to run: its compiled plan and the shape of its response. */
export interface PreparedOperation {
  operation: OperationDefinitionNode;
  plan: CompiledPlan;
  shape: ResponseShape;
  /** The operation's `__schema`/`__type` root fields alone, when it has any (answered from the API schema). */
  introspection?: DocumentNode;
}

/** How one subscription operation runs: the root field on its subgraph, then the rest of the plan per event. */
export interface SubscriptionPlan {
  /** The fetch that opens the subscription on the subgraph owning its root field. */
  primary: FetchStep;
  /** What completes each event with other subgraphs' fields; absent when the owning subgraph has everything. */
  rest?: PlanStep;
  prepared: PreparedOperation;
}

/** The subgraphs a supergraph names, with the URL each is served at. */
export interface SubgraphEndpoint {
  name: string;
  url?: string;
}

/**
 * Plans operations over the supergraph the gateway serves. Planning is Hive's router query planner (Rust, from
 * npm): faster than Apollo's planner, batching entity fetches of one subgraph across paths, and right on the
 * federation cases Apollo's gets wrong (see test/federation/audit). Each operation is planned and compiled once
 * (plan and response shape, cached by its text and name).
 */
export class OperationPlanner {
  /** The client-facing schema (what operations are validated against). */
  readonly apiSchema: GraphQLSchema;
  readonly subgraphs: readonly SubgraphEndpoint[];
  private readonly planner: QueryPlanner;
  private readonly compiler: PlanCompiler;
  private readonly prepared = new LRUCache<string, PreparedOperation | Error>({ max: 2_000 });
  private readonly pending = new Map<string, Promise<PreparedOperation | Error>>();

  constructor(readonly supergraphSdl: string) {
    const supergraph = Supergraph.build(supergraphSdl);
    this.apiSchema = supergraph.apiSchema().toGraphQLJSSchema();
    this.subgraphs = [...supergraph.subgraphs()].map((s) => ({ name: s.name, url: s.url || undefined }));
    this.planner = new QueryPlanner(supergraphSdl);
    this.compiler = new PlanCompiler(supergraph.schema.toGraphQLJSSchema());
  }

  /**
   * The prepared form of a validated operation. `key` identifies the document's text (its hash, or the text);
   * `source` is the text itself when the caller has it. Rejects when the operation cannot be planned (that answer
   * is cached too). Planning runs off the event loop (the planner's own thread), one at a time per operation.
   */
  async prepare(
    document: DocumentNode,
    operationName: string | null | undefined,
    key: string,
    source?: string,
  ): Promise<PreparedOperation> {
    const cacheKey = `${operationName ?? ''}\u0000${key}`;
    let prepared = this.prepared.get(cacheKey);
    if (!prepared) {
      let pending = this.pending.get(cacheKey);
      if (!pending) {
        pending = this.build(document, operationName ?? undefined, source ?? print(document)).catch((err: unknown) =>
          err instanceof Error ? err : new Error(String(err)),
        );
        this.pending.set(cacheKey, pending);
      }
      try {
        prepared = await pending;
      } finally {
        this.pending.delete(cacheKey);
      }
      this.prepared.set(cacheKey, prepared);
    }
    if (prepared instanceof Error) throw prepared;
    return prepared;
  }

  /** Plans a validated subscription document (cached by its text and operation name). */
  async planSubscription(
    document: DocumentNode,
    operationName: string | null | undefined,
    key = print(document),
  ): Promise<SubscriptionPlan> {
    const prepared = await this.prepare(document, operationName, key, key);
    const subscription = prepared.plan.subscription;
    if (!subscription) throw new Error('the operation is not a subscription');
    return { ...subscription, prepared };
  }

  private async build(
    document: DocumentNode,
    operationName: string | undefined,
    source: string,
  ): Promise<PreparedOperation> {
    const fragments = new Map<string, FragmentDefinitionNode>();
    let operation: OperationDefinitionNode | undefined;
    for (const d of document.definitions) {
      if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
      else if (d.kind === Kind.OPERATION_DEFINITION && (operationName === undefined || d.name?.value === operationName))
        operation ??= d;
    }
    if (!operation) throw new Error(operationName ? `Unknown operation named "${operationName}".` : 'No operation');
    const shape = new ResponseShape(this.apiSchema, operation, fragments);
    // The planner plans data, not the schema: `__schema`/`__type` (only ever on the query root) become `__typename`
    // for it, and are answered from the API schema.
    const planned = shape.hasIntrospection ? print(withoutIntrospection(document)) : source;
    const plan = this.compiler.compile(await this.planner.planAsync(planned, operationName ?? null, new Set(), 0));
    return {
      operation,
      plan,
      shape,
      introspection: shape.hasIntrospection ? introspectionOnly(operation, fragments) : undefined,
    };
  }
}

const isIntrospection = (s: SelectionNode): s is FieldNode =>
  s.kind === Kind.FIELD && (s.name.value === '__schema' || s.name.value === '__type');

function withoutIntrospection(document: DocumentNode): DocumentNode {
  return visit(document, {
    Field: (node) =>
      isIntrospection(node) ? { kind: Kind.FIELD, name: { kind: Kind.NAME, value: '__typename' } } : undefined,
  });
}

/** The introspection fields of a root selection set, fragments inlined; null when it has none. */
function introspectionSelections(
  set: SelectionSetNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  depth = 0,
): SelectionSetNode | null {
  const kept: SelectionNode[] = [];
  for (const s of set.selections) {
    if (s.kind === Kind.FIELD) {
      if (isIntrospection(s)) kept.push(s);
      continue;
    }
    const fragment = s.kind === Kind.FRAGMENT_SPREAD ? fragments.get(s.name.value) : s;
    if (!fragment || depth > fragments.size) continue;
    const inner = introspectionSelections(fragment.selectionSet, fragments, depth + 1);
    if (inner)
      kept.push({
        kind: Kind.INLINE_FRAGMENT,
        typeCondition: fragment.typeCondition,
        directives: s.directives,
        selectionSet: inner,
      });
  }
  return kept.length ? { kind: Kind.SELECTION_SET, selections: kept } : null;
}

/** A document of the operation's root `__schema` and `__type` fields alone (with the fragments they may spread). */
function introspectionOnly(
  operation: OperationDefinitionNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
): DocumentNode {
  const selectionSet = introspectionSelections(operation.selectionSet, fragments) ?? operation.selectionSet;
  return { kind: Kind.DOCUMENT, definitions: [{ ...operation, selectionSet }, ...fragments.values()] };
}
