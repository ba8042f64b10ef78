import {
  getNamedType,
  getNullableType,
  isCompositeType,
  isListType,
  isUnionType,
  Kind,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';
import type { FieldCost } from './cost-directives';

/** List size taken for a list field the directives say nothing of (Apollo Router's default too). */
export const DEFAULT_LIST_SIZE = 10;

/** An operation's estimated cost, and whether it depends on the request's variables (else it holds for any). */
export interface Estimate {
  cost: number;
  usesVariables: boolean;
}

/** The size a page-like field hands down to its list fields (`@listSize(sizedFields:)`). */
interface Sized {
  fields: readonly string[];
  size: number;
}

/**
 * One estimate: the static cost of IBM's GraphQL Cost Directives as Apollo Router and Hive estimate it, with every
 * field costing 1 (or its `@cost` weight) and a list field costing its weight plus its size times its items' cost.
 * A list's size is its slicing argument (a literal, or a variable's value or default; null or absent: the argument's
 * default), else its assumed size, else DEFAULT_LIST_SIZE. Fragments are measured once per size they are spread under,
 * so documents of fragments spreading each other cost time linear in their size; costs may grow to Infinity, and
 * are only compared. Introspection fields count 1: the schema's size is fixed, and INTROSPECTION turns them off.
 */
class Walk {
  private readonly done = new Map<string, number>();
  private readonly inProgress = new Set<string>();
  usesVariables = false;

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly costs: ReadonlyMap<string, FieldCost>,
    private readonly fragments: ReadonlyMap<string, FragmentDefinitionNode>,
    private readonly operation: OperationDefinitionNode,
    private readonly variables: Readonly<Record<string, unknown>>,
  ) {}

  selectionSet(set: SelectionSetNode, parent: GraphQLCompositeType | undefined, sized?: Sized): number {
    let cost = 0;
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) cost += this.field(sel, parent, sized);
      else if (sel.kind === Kind.INLINE_FRAGMENT)
        cost += this.selectionSet(sel.selectionSet, this.typeNamed(sel.typeCondition?.name.value) ?? parent, sized);
      else cost += this.fragment(sel.name.value, sized);
    }
    return cost;
  }

  private field(node: FieldNode, parent: GraphQLCompositeType | undefined, sized: Sized | undefined): number {
    const name = node.name.value;
    if (name.startsWith('__')) return 1;
    const def = parent && !isUnionType(parent) ? parent.getFields()[name] : undefined;
    const named = def && getNamedType(def.type);
    const child = named && isCompositeType(named) ? named : undefined;
    const declared = def && parent ? this.costs.get(`${parent.name}.${name}`) : undefined;
    const weight = declared?.weight ?? 1;
    const size = () =>
      (sized?.fields.includes(name) ? sized.size : undefined) ??
      this.sliced(node, def, declared?.slicingArguments) ??
      declared?.assumedSize ??
      DEFAULT_LIST_SIZE;
    if (declared?.sizedFields) {
      // a page: the size is its items'
      const inner = { fields: declared.sizedFields, size: Math.max(0, size()) };
      return weight + (node.selectionSet ? this.selectionSet(node.selectionSet, child, inner) : 0);
    }
    const children = node.selectionSet ? this.selectionSet(node.selectionSet, child) : 0;
    if (!def || !isListType(getNullableType(def.type))) return weight + children;
    return weight + Math.max(0, size()) * (node.selectionSet ? children : 1); // a list of leaves: each item 1
  }

  /** The largest slicing argument given (or defaulted) on this field, if any is. */
  private sliced(
    node: FieldNode,
    def: GraphQLField<unknown, unknown> | undefined,
    names: readonly string[] | undefined,
  ): number | undefined {
    let size: number | undefined;
    for (const name of names ?? []) {
      const given = node.arguments?.find((a) => a.name.value === name)?.value;
      const value = (given ? this.intOf(given) : undefined) ?? def?.args.find((a) => a.name === name)?.defaultValue;
      if (typeof value === 'number' && Number.isFinite(value)) size = Math.max(size ?? 0, value);
    }
    return size;
  }

  private intOf(value: ValueNode): number | undefined {
    if (value.kind === Kind.INT) return Number(value.value);
    if (value.kind !== Kind.VARIABLE) return undefined;
    this.usesVariables = true;
    const name = value.name.value;
    const given = this.variables[name];
    if (typeof given === 'number') return given;
    if (given !== undefined) return undefined; // null: the argument's default
    const fallback = this.operation.variableDefinitions?.find((v) => v.variable.name.value === name)?.defaultValue;
    return fallback?.kind === Kind.INT ? Number(fallback.value) : undefined;
  }

  private fragment(name: string, sized: Sized | undefined): number {
    const key = sized ? `${name}\u0000${sized.fields.join(',')}\u0000${sized.size}` : name;
    const known = this.done.get(key);
    if (known !== undefined) return known;
    const fragment = this.fragments.get(name);
    // Unknown or cyclic spreads count as nothing: graphql-js's own rules report them.
    if (!fragment || this.inProgress.has(key)) return 0;
    this.inProgress.add(key);
    const cost = this.selectionSet(fragment.selectionSet, this.typeNamed(fragment.typeCondition.name.value), sized);
    this.inProgress.delete(key);
    this.done.set(key, cost);
    return cost;
  }

  private typeNamed(name: string | undefined): GraphQLCompositeType | undefined {
    const type = name === undefined ? undefined : this.schema.getType(name);
    return type && isCompositeType(type) ? type : undefined;
  }
}

/**
 * Estimates what operations of one schema cost, from its cost directives (see {@link Walk} for the rules). Not
 * graphql-query-complexity: it reads its own `@complexity` rather than the spec'd `@cost`/`@listSize` the subgraphs
 * and routers share, and measures a fragment again at each spread (a document of doubling fragments takes it
 * exponential time; our measurers are memoised per fragment).
 */
export class CostEstimator {
  constructor(
    private readonly schema: GraphQLSchema,
    private readonly costs: ReadonlyMap<string, FieldCost>,
  ) {}

  /** The cost of one operation of `document` with these variables. */
  estimate(
    document: DocumentNode,
    operation: OperationDefinitionNode,
    variables: Readonly<Record<string, unknown>> = {},
  ): Estimate {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
    const root = this.schema.getRootType(operation.operation) ?? undefined;
    const walk = new Walk(this.schema, this.costs, fragments, operation, variables);
    const cost = walk.selectionSet(operation.selectionSet, root);
    return { cost, usesVariables: walk.usesVariables };
  }
}
