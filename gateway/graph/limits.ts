import {
  GraphQLError,
  Kind,
  type ASTNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationRule,
} from 'graphql';
import type { CostEstimator } from './cost';

export interface OperationLimits {
  /** Deepest field nesting allowed (the root fields are depth 1). */
  maxQueryDepth: number;
  /** Aliased fields allowed in one operation (aliases multiply work cheaply). */
  maxAliases: number;
  /** Field selections allowed in one operation, fragments expanded: a simple cost bound. */
  maxFields: number;
}

/** What a selection set asks for, fragments expanded. `depth` is relative: a set of leaf fields has depth 1. */
interface Measure {
  depth: number;
  aliases: number;
  fields: number;
}

const EMPTY: Measure = { depth: 0, aliases: 0, fields: 0 };

/**
 * Measures selection sets with each fragment measured once (memoised), so a document of fragments that spread
 * each other twice (`F_i = ...F_{i-1} ...F_{i-1}`) costs time linear in its size, not exponential in its depth.
 * Counts may grow past any limit (to Infinity): they are only compared, never used to allocate.
 */
class Measurer {
  private readonly done = new Map<string, Measure>();
  private readonly inProgress = new Set<string>();

  constructor(private readonly fragments: ReadonlyMap<string, FragmentDefinitionNode>) {}

  selectionSet(set: SelectionSetNode): Measure {
    const acc: Measure = { depth: 0, aliases: 0, fields: 0 };
    for (const sel of set.selections) {
      let inner: Measure;
      if (sel.kind === Kind.FIELD) {
        const child = sel.selectionSet ? this.selectionSet(sel.selectionSet) : EMPTY;
        inner = { depth: child.depth + 1, aliases: child.aliases + (sel.alias ? 1 : 0), fields: child.fields + 1 };
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        inner = this.selectionSet(sel.selectionSet);
      } else {
        inner = this.fragment(sel.name.value);
      }
      acc.depth = Math.max(acc.depth, inner.depth);
      acc.aliases += inner.aliases;
      acc.fields += inner.fields;
    }
    return acc;
  }

  private fragment(name: string): Measure {
    const known = this.done.get(name);
    if (known) return known;
    const fragment = this.fragments.get(name);
    // Unknown or cyclic spreads count as nothing: graphql-js's own rules report them.
    if (!fragment || this.inProgress.has(name)) return EMPTY;
    this.inProgress.add(name);
    const measured = this.selectionSet(fragment.selectionSet);
    this.inProgress.delete(name);
    this.done.set(name, measured);
    return measured;
  }
}

/** A limit's error: it names the limit's key, its value and the measured figure (a figure may be beyond counting). */
function overLimit(what: string, figure: number, limit: number, key: string, node: ASTNode): GraphQLError {
  const shown = Number.isFinite(figure) ? String(figure) : 'beyond counting';
  return new GraphQLError(`${what} ${shown} exceeds the limit of ${limit} (${key})`, {
    nodes: [node],
    extensions: { code: 'GRAPHQL_VALIDATION_FAILED', limit: key },
  });
}

/**
 * A validation rule bounding what one operation may ask for. Over a limit, the request is refused before any
 * subgraph is asked, with an error that names the limit, its value and the measured figure.
 */
export function operationLimitsRule(limits: OperationLimits): ValidationRule {
  return (context) => {
    const fragments = new Map(
      context
        .getDocument()
        .definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
        .map((d) => [d.name.value, d]),
    );
    const measurer = new Measurer(fragments); // shared by the document's operations: fragments are measured once
    return {
      OperationDefinition(node) {
        const measured = measurer.selectionSet(node.selectionSet);
        const over = (figure: number, limit: number, key: keyof OperationLimits, what: string): void => {
          if (figure > limit) context.reportError(overLimit(what, figure, limit, key, node));
        };
        over(measured.depth, limits.maxQueryDepth, 'maxQueryDepth', 'query depth');
        over(measured.aliases, limits.maxAliases, 'maxAliases', 'number of aliases');
        over(measured.fields, limits.maxFields, 'maxFields', 'number of fields');
      },
    };
  };
}

/**
 * The bound of an operation's estimated cost (cost.ts: each field 1, lists by their page or assumed size, weights
 * from the schema's cost directives). Not a validation rule: a page size may come from the variables, which
 * validation (cached per document) never sees, so it is checked for each request after validation. An estimate that
 * does not depend on variables is kept per operation.
 */
export class OperationCostLimit {
  private readonly known = new WeakMap<OperationDefinitionNode, number>();

  constructor(
    private readonly estimator: CostEstimator,
    /** Largest estimated cost of one operation (maxQueryCost). */
    readonly maxQueryCost: number,
  ) {}

  /** The error refusing the operation, or undefined when it is within the limit. */
  check(
    document: DocumentNode,
    operation: OperationDefinitionNode,
    variables?: Readonly<Record<string, unknown>> | null,
  ): GraphQLError | undefined {
    let cost = this.known.get(operation);
    if (cost === undefined) {
      const estimate = this.estimator.estimate(document, operation, variables ?? {});
      cost = estimate.cost;
      if (!estimate.usesVariables) this.known.set(operation, cost);
    }
    return cost > this.maxQueryCost
      ? overLimit('estimated cost', cost, this.maxQueryCost, 'maxQueryCost', operation)
      : undefined;
  }
}
