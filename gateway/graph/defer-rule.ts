import {
  DirectiveLocation,
  GraphQLBoolean,
  GraphQLDirective,
  GraphQLError,
  GraphQLNonNull,
  GraphQLSchema,
  GraphQLString,
  Kind,
  OperationTypeNode,
  type ASTVisitor,
  type FragmentDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
} from 'graphql';

/** `@defer` as the incremental delivery proposal defines it (graphql-js 16 has no such directive of its own). */
export const GraphQLDeferDirective = new GraphQLDirective({
  name: 'defer',
  description:
    'Delivers the fragment after the rest of the response (multipart/mixed, deferSpec=20220824); inline when `if` is false or the client does not accept multipart/mixed.',
  locations: [DirectiveLocation.FRAGMENT_SPREAD, DirectiveLocation.INLINE_FRAGMENT],
  args: {
    if: { type: new GraphQLNonNull(GraphQLBoolean), defaultValue: true },
    label: { type: GraphQLString, description: 'Names the fragment in its payload; unique in the document.' },
  },
});

/** The schema with `@defer` added (unchanged when it has one). */
export function withDeferDirective(schema: GraphQLSchema): GraphQLSchema {
  if (schema.getDirective('defer')) return schema;
  const config = schema.toConfig();
  return new GraphQLSchema({ ...config, directives: [...config.directives, GraphQLDeferDirective] });
}

/**
 * `@defer` where it can be served: in queries only (a mutation's or a subscription's root is refused), with a label
 * that is a literal string, unique in the document.
 */
export function deferRule(context: ValidationContext): ASTVisitor {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of context.getDocument().definitions)
    if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const labels = new Set<string>();
  /** Whether a selection set uses @defer, named fragments followed once. */
  const defers = (set: SelectionSetNode, seen: Set<string>): boolean =>
    set.selections.some((s) => {
      if (s.directives?.some((d) => d.name.value === 'defer')) return true;
      if (s.kind === Kind.FIELD) return s.selectionSet ? defers(s.selectionSet, seen) : false;
      if (s.kind === Kind.INLINE_FRAGMENT) return defers(s.selectionSet, seen);
      const fragment = fragments.get(s.name.value);
      if (!fragment || seen.has(s.name.value)) return false;
      seen.add(s.name.value);
      return defers(fragment.selectionSet, seen);
    });
  return {
    OperationDefinition(node) {
      if (node.operation === OperationTypeNode.QUERY || !defers(node.selectionSet, new Set())) return;
      context.reportError(
        new GraphQLError(`@defer is not supported in a ${node.operation}: only queries may defer fragments`, {
          nodes: node,
          extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
        }),
      );
    },
    Directive(node) {
      if (node.name.value !== 'defer') return;
      const label = node.arguments?.find((a) => a.name.value === 'label')?.value;
      if (!label) return;
      if (label.kind !== Kind.STRING) {
        context.reportError(new GraphQLError('@defer: label must be a literal string', { nodes: label }));
        return;
      }
      if (labels.has(label.value))
        context.reportError(new GraphQLError(`@defer: the label "${label.value}" is used twice`, { nodes: label }));
      labels.add(label.value);
    },
  };
}
