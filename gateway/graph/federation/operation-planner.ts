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
import { activeOf, NO_LABELS, ProgressiveOverrides, type Random } from './progressive-override';
import type { GatewayGraphQLRequestContext } from '@apollo/server-gateway-interface';
import type { GatewayContext, OperationTrace } from '../context';
import { ATTR, childSpan, endFailed, SPAN } from '../tracing';
import { PlanCompiler, type CompiledPlan, type FetchStep, type PlanStep } from './query-plan';
import { graphqlJsSchema, internedNames } from './one-byte-schema';
import { ResponseShape } from './response-shape';
import { withDeferDirective } from '../defer-rule';

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

export interface OperationPlannerOptions {
  /** The source of the per-request rolls of percent override labels (`Math.random`; tests inject their own). */
  random?: Random;
}

const NOTHING_ACTIVE: ReadonlySet<string> = new Set();

/**
 * Plans operations over the supergraph the gateway serves. Planning is Hive's router query planner (Rust, from
 * npm): faster than Apollo's planner, batching entity fetches of one subgraph across paths, and right on the
 * federation cases Apollo's gets wrong (see test/federation/audit). Each operation is planned and compiled once
 * per set of active progressive-override labels that matter to it (plan and response shape, cached by its text,
 * name and those labels; see progressive-override.ts).
 */
export class OperationPlanner {
  /** The client-facing schema (what operations are validated against). */
  readonly apiSchema: GraphQLSchema;
  readonly subgraphs: readonly SubgraphEndpoint[];
  /** The supergraph's `percent(N)` override labels (read and checked once, here). */
  readonly overrides: ProgressiveOverrides;
  /** Plans made by the query planner (a cached plan is not counted). */
  readonly stats = { plans: 0 };
  private readonly planner: QueryPlanner;
  private readonly compiler: PlanCompiler;
  private readonly random: Random;
  private readonly prepared = new LRUCache<string, PreparedOperation | Error>({ max: 2_000 });
  private readonly pending = new Map<string, Promise<PreparedOperation | Error>>();
  /** The supergraph's names, interned one-byte (one-byte-schema.ts): held here so they stay the interned ones. */
  readonly names: Readonly<Record<string, true>>;
  /** Per document: the percent labels that can change its plan (only with any in the supergraph). */
  private readonly relevantByDocument = new LRUCache<string, readonly string[]>({ max: 2_000 });

  /** Throws SupergraphError for an override label that is not valid (naming the field and the label). */
  constructor(
    readonly supergraphSdl: string,
    options: OperationPlannerOptions = {},
  ) {
    this.names = internedNames(supergraphSdl); // before anything reads the supergraph
    this.overrides = new ProgressiveOverrides(supergraphSdl);
    this.random = options.random ?? Math.random;
    const supergraph = Supergraph.build(supergraphSdl);
    // @defer is served by the gateway (federated-executor.ts), whatever the supergraph says
    this.apiSchema = withDeferDirective(graphqlJsSchema(supergraph.apiSchema()));
    this.subgraphs = [...supergraph.subgraphs()].map((s) => ({ name: s.name, url: s.url || undefined }));
    this.planner = new QueryPlanner(this.overrides.plannerSdl);
    this.compiler = new PlanCompiler(graphqlJsSchema(supergraph.schema));
  }

  /** A new roll of the percent labels, or undefined when the supergraph has none (nothing to roll). */
  rollLabels(): ReadonlySet<string> | undefined {
    return this.overrides.any ? this.overrides.roll(this.random) : undefined;
  }

  /**
   * The percent labels active for the request of `context`: its `overrideLabels`, rolled here on first use when the
   * request came without them. The response cache (its key) and planning (the direct path, the federated executor)
   * read them from the one context, so a request rolls once and is cached under the labels it was planned with.
   */
  contextLabels(context: Pick<GatewayContext, 'overrideLabels'>): ReadonlySet<string> {
    if (!this.overrides.any) return NOTHING_ACTIVE;
    return (context.overrideLabels ??= this.overrides.roll(this.random));
  }

  /**
   * The percent labels that can change the plan of an operation (`ProgressiveOverrides.relevant`), sorted; cached by
   * operation name and `key` (the text's hash, or the text). `document` is parsed only when not known yet.
   */
  relevantLabels(
    operationName: string | null | undefined,
    key: string,
    document: DocumentNode | (() => DocumentNode),
  ): readonly string[] {
    if (!this.overrides.any) return NO_LABELS;
    const documentKey = `${operationName ?? ''}\u0000${key}`;
    let relevant = this.relevantByDocument.get(documentKey);
    if (!relevant) {
      relevant = this.overrides.relevant(typeof document === 'function' ? document() : document);
      this.relevantByDocument.set(documentKey, relevant);
    }
    return relevant;
  }

  /**
   * The labels an operation's plan (and its cached response) depends on for a request whose active labels are
   * `active`: those of them that can change its plan, sorted.
   */
  planLabels(
    operationName: string | null | undefined,
    key: string,
    document: DocumentNode | (() => DocumentNode),
    active: ReadonlySet<string>,
  ): readonly string[] {
    return active.size === 0 ? NO_LABELS : activeOf(this.relevantLabels(operationName, key, document), active);
  }

  /** The prepared form of a request's operation, with the request's override labels and under its trace. */
  prepareRequest(rc: GatewayGraphQLRequestContext<GatewayContext>): Promise<PreparedOperation> {
    return this.prepare(
      rc.document,
      rc.operationName,
      rc.queryHash,
      rc.source,
      this.contextLabels(rc.context),
      rc.context.trace,
    );
  }

  /**
   * The prepared form of a validated operation. `key` identifies the document's text (its hash, or the text);
   * `source` is the text itself when the caller has it; `active` the request's percent labels (`contextLabels`).
   * Rejects when the operation cannot be planned (that answer is cached too). Planning runs off the event loop
   * (the planner's own thread), one at a time per operation and label set. With `traced`, a planning that happens
   * (a miss, not a wait for another request's) is a span of the operation's.
   */
  async prepare(
    document: DocumentNode,
    operationName: string | null | undefined,
    key: string,
    source?: string,
    active: ReadonlySet<string> = NOTHING_ACTIVE,
    traced?: OperationTrace,
  ): Promise<PreparedOperation> {
    const documentKey = `${operationName ?? ''}\u0000${key}`;
    const labels = this.planLabels(operationName, key, document, active);
    const cacheKey = labels.length ? `${documentKey}\u0000${labels.join('\u0000')}` : documentKey;
    let prepared = this.prepared.get(cacheKey);
    if (!prepared) {
      let pending = this.pending.get(cacheKey);
      if (!pending) {
        pending = this.build(document, operationName ?? undefined, source ?? print(document), labels).catch(
          (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
        );
        if (traced) {
          const span = childSpan(traced, SPAN.plan, operationName ? { [ATTR.operationName]: operationName } : {});
          void pending.then((p) => (p instanceof Error ? endFailed(span, p.message) : span.end()));
        }
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

  /**
   * Plans a validated subscription document (cached by its text, operation name and active labels); with `traced`,
   * a planning that happens is a span of the subscription's opening.
   */
  async planSubscription(
    document: DocumentNode,
    operationName: string | null | undefined,
    key = print(document),
    active: ReadonlySet<string> = NOTHING_ACTIVE,
    traced?: OperationTrace,
  ): Promise<SubscriptionPlan> {
    const prepared = await this.prepare(document, operationName, key, key, active, traced);
    const subscription = prepared.plan.subscription;
    if (!subscription) throw new Error('the operation is not a subscription');
    return { ...subscription, prepared };
  }

  private async build(
    document: DocumentNode,
    operationName: string | undefined,
    source: string,
    labels: readonly string[],
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
    // Percent labels reach the planner as flags (its third argument); no custom label is ever active, and the
    // fourth argument, its own percentage roll, is unused (no percent label is left in the planner's supergraph).
    this.stats.plans++;
    const flags = this.overrides.flags(labels);
    const plan = this.compiler.compile(await this.planner.planAsync(planned, operationName ?? null, flags, 0));
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
