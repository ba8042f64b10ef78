import type * as Hive from '@graphql-hive/router-query-planner';
import { isAbstractType, type GraphQLSchema } from 'graphql';

/**
 * Query plans as our executor runs them: the planner's JSON (Hive's router planner, an Apollo-style plan with
 * batched entity fetches and key rewrites) compiled once per operation into nodes that carry what execution needs
 * precomputed — type conditions as sets of object type names, paths as segments, rewrites normalised.
 */

/** Type names an entity's `__typename` must be one of (a type condition, abstract types expanded). */
export type TypeSet = ReadonlySet<string>;

/** One step of a path into the response data. */
export type PathStep = { field: string } | { list: true } | { types: TypeSet };

/** What an entity fetch needs of each entity (its representation), as the planner selects it. */
export type RequiredSelection =
  | { kind: 'field'; name: string; responseName: string; selections?: RequiredSelection[] }
  | { kind: 'fragment'; types: TypeSet; selections: RequiredSelection[]; skipIf?: string; includeIf?: string };

/** A rewrite of a representation or a fetched entity (`TypenameEquals` steps filter by type). */
export type Rewrite =
  { kind: 'setValue'; path: RewriteStep[]; value: string } | { kind: 'renameKey'; path: RewriteStep[]; to: string };
export type RewriteStep = { key: string } | { types: TypeSet };

/** One subgraph operation: a root fetch, or (with `entities`) the `_entities` lookups of one or more aliases. */
export interface FetchStep {
  kind: 'fetch';
  serviceName: string;
  operation: string;
  operationName?: string;
  operationKind: 'query' | 'mutation' | 'subscription';
  variableUsages: readonly string[];
  /** Absent for a root fetch; one entry per `_entities` selection of the operation otherwise. */
  entities?: EntityLookup[];
  /** Rewrites of a root fetch's data. */
  outputRewrites?: Rewrite[];
}

/** Entities gathered at some paths, sent as one representations variable, answered under one response key. */
export interface EntityLookup {
  /** Where the subgraph answers: `_entities`, or the batch's alias. */
  responseKey: string;
  variableName: string;
  /** Paths from the response root to the entities (relative to the enclosing Flatten's for a plain Fetch). */
  paths: PathStep[][];
  requires: RequiredSelection[];
  inputRewrites?: Rewrite[];
  outputRewrites?: Rewrite[];
}

export type PlanStep =
  | FetchStep
  | { kind: 'sequence'; nodes: PlanStep[] }
  | { kind: 'parallel'; nodes: PlanStep[] }
  | { kind: 'condition'; variable: string; ifClause?: PlanStep; elseClause?: PlanStep };

export interface CompiledPlan {
  /** Absent when nothing needs fetching (e.g. only `__typename` or introspection). */
  root?: PlanStep;
  /** For subscriptions: the fetch opening the stream, and what completes each event. */
  subscription?: { primary: FetchStep; rest?: PlanStep };
}

/** Compiles Hive planner output against the supergraph schema (which knows every type a condition names). */
export class PlanCompiler {
  private readonly typeSets = new Map<string, TypeSet>();

  constructor(private readonly schema: GraphQLSchema) {}

  compile(plan: Hive.QueryPlan): CompiledPlan {
    const node = plan.node;
    if (!node) return {};
    if (node.kind === 'Subscription') return { subscription: { primary: this.rootFetch(node.primary) } };
    if (node.kind === 'Sequence' && node.nodes[0]?.kind === 'Subscription') {
      const [first, ...rest] = node.nodes;
      const primary = this.rootFetch(first.primary);
      if (rest.length === 0) return { subscription: { primary } };
      return { subscription: { primary, rest: { kind: 'sequence', nodes: rest.map((n) => this.step(n, [])) } } };
    }
    return { root: this.step(node, []) };
  }

  /** The type names a type condition (or several) covers: the names, and the object types of abstract ones. */
  types(names: string | readonly string[]): TypeSet {
    const list = typeof names === 'string' ? [names] : names;
    const key = list.join('|');
    let set = this.typeSets.get(key);
    if (!set) {
      // The names themselves too: an @interfaceObject subgraph answers with the interface's name as __typename.
      const names = new Set<string>(list);
      for (const name of list) {
        const type = this.schema.getType(name);
        if (isAbstractType(type)) for (const t of this.schema.getPossibleTypes(type)) names.add(t.name);
      }
      set = names;
      this.typeSets.set(key, set);
    }
    return set;
  }

  private step(node: Hive.PlanNode, at: PathStep[]): PlanStep {
    switch (node.kind) {
      case 'Sequence':
        return { kind: 'sequence', nodes: node.nodes.map((n) => this.step(n, at)) };
      case 'Parallel':
        return { kind: 'parallel', nodes: node.nodes.map((n) => this.step(n, at)) };
      case 'Flatten':
        return this.step(node.node, [...at, ...node.path.map((s) => this.pathStep(s))]);
      case 'Condition':
        return {
          kind: 'condition',
          variable: node.condition,
          ifClause: node.ifClause && this.step(node.ifClause, at),
          elseClause: node.elseClause && this.step(node.elseClause, at),
        };
      case 'Fetch':
        if (!node.requires?.length) {
          if (at.length > 0) throw new Error(`a fetch of ${node.serviceName} under a path has no requires`);
          return this.rootFetch(node);
        }
        return {
          ...this.fetchBase(node),
          entities: [
            {
              responseKey: '_entities',
              variableName: 'representations',
              paths: [at],
              requires: this.requires(node.requires),
              inputRewrites: this.rewrites(node.inputRewrites),
              outputRewrites: this.rewrites(node.outputRewrites),
            },
          ],
        };
      case 'BatchFetch':
        return {
          ...this.fetchBase(node),
          entities: node.entityBatch.aliases.map((alias) => ({
            responseKey: alias.alias,
            variableName: alias.representationsVariableName,
            paths: alias.paths.map((path) => [...at, ...path.map((s) => this.pathStep(s))]),
            requires: this.requires(alias.requires),
            inputRewrites: this.rewrites(alias.inputRewrites),
            outputRewrites: this.rewrites(alias.outputRewrites),
          })),
        };
      case 'Subscription':
        throw new Error('a subscription node inside a plan');
      case 'Defer': {
        // Hive's planner (0.0.x) plans @defer as if it were not there and emits no Defer node; should one come, its
        // parts run in their order (each deferred part after the primary it depends on) and the executor sorts
        // their fetches into the initial payload's and the deferred fragments' as it does for every plan
        // (deferred-execution.ts).
        const primary = node.primary.node && this.step(node.primary.node, at);
        const deferred = node.deferred.flatMap((d) => (d.node ? [this.step(d.node, at)] : []));
        const rest: PlanStep[] = deferred.length > 1 ? [{ kind: 'parallel', nodes: deferred }] : deferred;
        const nodes = primary ? [primary, ...rest] : rest;
        return nodes.length === 1 ? (nodes[0] as PlanStep) : { kind: 'sequence', nodes };
      }
    }
  }

  private rootFetch(node: Hive.FetchNode): FetchStep {
    return { ...this.fetchBase(node), outputRewrites: this.rewrites(node.outputRewrites) };
  }

  private fetchBase(node: Hive.FetchNode | Hive.BatchFetchNode): FetchStep {
    return {
      kind: 'fetch',
      serviceName: node.serviceName,
      operation: node.operation,
      operationName: node.operationName,
      operationKind: node.operationKind ?? 'query',
      variableUsages: node.variableUsages ?? [],
    };
  }

  private pathStep(segment: Hive.FlattenNodePathSegment): PathStep {
    if (segment === '@') return { list: true };
    if ('Field' in segment) return { field: segment.Field };
    return { types: this.types(segment.TypeCondition) };
  }

  private requires(selections: readonly Hive.RequiresSelection[]): RequiredSelection[] {
    return selections.map((s): RequiredSelection => {
      switch (s.kind) {
        case 'Field':
          return {
            kind: 'field',
            name: s.name,
            responseName: s.alias ?? s.name,
            selections: s.selections && this.requires(s.selections),
          };
        case 'InlineFragment':
          return {
            kind: 'fragment',
            types: this.types(s.typeCondition),
            selections: this.requires(s.selections),
            skipIf: s.skipIf,
            includeIf: s.includeIf,
          };
        case 'FragmentSpread':
          throw new Error(`a named fragment (${s.value}) in the requirements of an entity fetch`);
      }
    });
  }

  private rewrites(list: readonly Hive.FetchRewrite[] | undefined): Rewrite[] | undefined {
    if (!list?.length) return undefined;
    return list.map((r): Rewrite => {
      if ('KeyRenamer' in r)
        return { kind: 'renameKey', path: this.rewritePath(r.KeyRenamer.path), to: r.KeyRenamer.renameKeyTo };
      const setter = 'ValueSetter' in r ? r.ValueSetter : r;
      return { kind: 'setValue', path: this.rewritePath(setter.path), value: setter.setValueTo };
    });
  }

  private rewritePath(path: readonly Hive.FetchNodePathSegment[]): RewriteStep[] {
    return path.map((s) => ('Key' in s ? { key: s.Key } : { types: this.types(s.TypenameEquals) }));
  }
}
