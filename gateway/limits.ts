import {
  GraphQLError, Kind, type FragmentDefinitionNode, type SelectionSetNode, type ValidationRule,
} from 'graphql';

export interface OperationLimits {
  /** Deepest field nesting allowed (the root fields are depth 1). */
  maxQueryDepth: number;
  /** Aliased fields allowed in one operation (aliases multiply work cheaply). */
  maxAliases: number;
  /** Field selections allowed in one operation, fragments expanded: a simple cost bound. */
  maxFields: number;
}

interface Measure {
  depth: number;
  aliases: number;
  fields: number;
}

function measure(set: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>, depth: number, seen: Set<string>, acc: Measure): void {
  for (const sel of set.selections) {
    if (sel.kind === Kind.FIELD) {
      acc.fields++;
      if (sel.alias) acc.aliases++;
      acc.depth = Math.max(acc.depth, depth);
      if (sel.selectionSet) measure(sel.selectionSet, fragments, depth + 1, seen, acc);
    } else if (sel.kind === Kind.INLINE_FRAGMENT) {
      measure(sel.selectionSet, fragments, depth, seen, acc);
    } else {
      const fragment = fragments.get(sel.name.value);
      if (!fragment || seen.has(sel.name.value)) continue; // unknown or cyclic: other rules report those
      seen.add(sel.name.value);
      measure(fragment.selectionSet, fragments, depth, seen, acc);
      seen.delete(sel.name.value);
    }
  }
}

/**
 * A validation rule bounding what one operation may ask for. Over a limit, the request is refused before any
 * subgraph is asked, with an error that names the limit, its value and the measured figure.
 */
export function operationLimitsRule(limits: OperationLimits): ValidationRule {
  return (context) => {
    const fragments = new Map(
      context.getDocument().definitions
        .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
        .map((d) => [d.name.value, d]),
    );
    return {
      OperationDefinition(node) {
        const acc: Measure = { depth: 0, aliases: 0, fields: 0 };
        measure(node.selectionSet, fragments, 1, new Set(), acc);
        const over = (figure: number, limit: number, key: keyof OperationLimits, what: string): void => {
          if (figure > limit) {
            context.reportError(new GraphQLError(`${what} ${figure} exceeds the limit of ${limit} (${key})`, {
              nodes: [node], extensions: { code: 'GRAPHQL_VALIDATION_FAILED', limit: key },
            }));
          }
        };
        over(acc.depth, limits.maxQueryDepth, 'maxQueryDepth', 'query depth');
        over(acc.aliases, limits.maxAliases, 'maxAliases', 'number of aliases');
        over(acc.fields, limits.maxFields, 'maxFields', 'number of fields');
      },
    };
  };
}
