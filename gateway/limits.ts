import { GraphQLError, Kind, type FragmentDefinitionNode, type SelectionSetNode, type ValidationRule } from 'graphql';

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
          if (figure > limit) {
            const shown = Number.isFinite(figure) ? String(figure) : 'beyond counting';
            context.reportError(
              new GraphQLError(`${what} ${shown} exceeds the limit of ${limit} (${key})`, {
                nodes: [node],
                extensions: { code: 'GRAPHQL_VALIDATION_FAILED', limit: key },
              }),
            );
          }
        };
        over(measured.depth, limits.maxQueryDepth, 'maxQueryDepth', 'query depth');
        over(measured.aliases, limits.maxAliases, 'maxAliases', 'number of aliases');
        over(measured.fields, limits.maxFields, 'maxFields', 'number of fields');
      },
    };
  };
}
