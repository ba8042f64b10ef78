import { getArgumentValues } from 'graphql/execution/values';
import { isObjectType, Kind, type FieldNode, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

export interface SelectedField {
  name: string;
  args: Record<string, unknown>;
}

/**
 * The fields selected on `typeName` under the current field (through fragments and inline fragments), with their
 * arguments coerced. Resolvers use it to ask for everything a request needs in one tick, so the loader sends it
 * to the provider as a single batch instead of one round trip per level of the query.
 */
export function selectedFields(info: GraphQLResolveInfo, typeName: string): SelectedField[] {
  const type = info.schema.getType(typeName);
  if (!isObjectType(type)) return [];
  const defs = type.getFields();
  const out: SelectedField[] = [];
  const visit = (set: SelectionSetNode | undefined): void => {
    for (const sel of set?.selections ?? []) {
      if (sel.kind === Kind.FIELD) {
        const def = defs[sel.name.value];
        if (def) out.push({ name: sel.name.value, args: argsOf(def, sel, info) });
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        if (!sel.typeCondition || sel.typeCondition.name.value === typeName) visit(sel.selectionSet);
      } else {
        const fragment = info.fragments[sel.name.value];
        if (fragment?.typeCondition.name.value === typeName) visit(fragment.selectionSet);
      }
    }
  };
  for (const node of info.fieldNodes) visit(node.selectionSet);
  return out;
}

function argsOf(
  def: Parameters<typeof getArgumentValues>[0],
  node: FieldNode,
  info: GraphQLResolveInfo,
): Record<string, unknown> {
  try {
    return getArgumentValues(def, node, info.variableValues);
  } catch {
    return {}; // a bad argument is reported by the field's own resolver; prefetching just skips it
  }
}
