import {
  GraphQLError,
  isAbstractType,
  isCompositeType,
  isEnumType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  typeFromAST,
  valueFromAST,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLNamedType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type DirectiveNode,
} from 'graphql';
import type { DataObject } from './plan-executor';

/**
 * The client's operation compiled once, and applied to the data a plan fetched: only the fields the client asked
 * for, under its aliases and in its order, `__typename` filled in, values checked against their types, and nulls
 * in non-null positions bubbling up — what Apollo's gateway computes in its post-processing pass (the same results
 * and the same errors), done by walking precompiled selections instead of the operation's AST.
 */

type Condition = { skip: boolean; value: boolean } | { skip: boolean; variable: string };

type TypeShape =
  | { kind: 'nonNull'; of: TypeShape }
  | { kind: 'list'; of: TypeShape }
  | { kind: 'composite'; type: GraphQLCompositeType }
  | { kind: 'leaf'; name: string; valid: (value: unknown) => boolean };

interface FieldShape {
  kind: 'field';
  responseName: string;
  /** A name plain objects inherit (`constructor`, `__proto__`…): read as an own property only. */
  inherited: boolean;
  /** `__typename` asked for (under any alias). */
  typename: boolean;
  /** `__schema` / `__type`: answered by the gateway, not by the plan. */
  introspection: boolean;
  type: TypeShape;
  selections?: Shape[];
  conditions?: Condition[];
}

interface FragmentShape {
  kind: 'fragment';
  /** Absent: no type condition. */
  on?: GraphQLCompositeType;
  selections: Shape[];
  conditions?: Condition[];
  /** Set on a fragment marked `@defer`: left out of the response while it is delivered apart. */
  defer?: DeferredFragment;
}

/** One `@defer` fragment of the operation, where it stands (each spread of a named fragment is one of its own). */
export interface DeferredFragment {
  id: number;
  label?: string;
  /** `if:` false (literal, or the variable's value) inlines it. */
  when: { value: boolean } | { variable: string };
  /** Response names of the fields from the root to the object the fragment applies to. */
  path: string[];
  /** The deferred fragment it stands in, if any. */
  parent?: DeferredFragment;
  /** The type of the object it applies to, and its selections. */
  parentType: GraphQLCompositeType;
  shape: FragmentShape;
}

/** The client's fields by response name, and which part of a deferred response each belongs to. */
export interface FieldTree {
  fields: Map<string, FieldTree>;
  /** Asked for outside every active deferred fragment. */
  primary: boolean;
  /** The innermost active deferred fragments asking for it. */
  defers: Set<number>;
}

/** Where compile() stands: the fields' response names so far and the deferred fragment enclosing them. */
interface Scope {
  path: string[];
  defer?: DeferredFragment;
}

type Shape = FieldShape | FragmentShape;

/** Fetched data shaped as the operation asked for it. */
export interface ShapedResult {
  data: DataObject | null;
  /** Values that did not fit their types (Apollo reports these apart, as `valueCompletion`). */
  errors: GraphQLError[];
}

/** A whole number JSON writes in plain digits (under 1e21), checked without making its text. */
const isInteger = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && Math.abs(v) < 1e21;

function leafCheck(type: GraphQLNamedType): (value: unknown) => boolean {
  if (isEnumType(type)) return (v) => typeof v === 'string' && type.getValue(v) !== undefined;
  switch (type.name) {
    case 'Boolean':
      return (v) => typeof v === 'boolean';
    case 'Int':
      return isInteger;
    case 'ID':
      return (v) => typeof v === 'string' || isInteger(v);
    case 'Float':
      return (v) => typeof v === 'number' && Number.isFinite(v);
    case 'String':
      return (v) => typeof v === 'string';
    default:
      return () => true; // a custom scalar may be any value
  }
}

function conditionsOf(directives: readonly DirectiveNode[] | undefined): Condition[] | undefined {
  const out: Condition[] = [];
  for (const d of directives ?? []) {
    if (d.name.value !== 'skip' && d.name.value !== 'include') continue;
    const arg = d.arguments?.find((a) => a.name.value === 'if')?.value;
    const skip = d.name.value === 'skip';
    if (arg?.kind === Kind.VARIABLE) out.push({ skip, variable: arg.name.value });
    else if (arg?.kind === Kind.BOOLEAN) out.push({ skip, value: arg.value });
  }
  return out.length ? out : undefined;
}

export class ResponseShape {
  private readonly selections: Shape[];
  private readonly root: GraphQLCompositeType;
  private readonly defaults: Record<string, unknown> = {};
  /** Whether the operation asks for `__schema` or `__type` anywhere at its root. */
  readonly hasIntrospection: boolean;
  private readonly subtypes = new Map<GraphQLCompositeType, Map<string, boolean>>();
  /** The operation's `@defer` fragments, in document order (empty for most operations). */
  readonly defers: DeferredFragment[] = [];

  constructor(
    private readonly schema: GraphQLSchema,
    operation: OperationDefinitionNode,
    private readonly fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  ) {
    const root = schema.getRootType(operation.operation);
    if (!root) throw new Error(`the schema has no ${operation.operation} type`);
    this.root = root;
    for (const v of operation.variableDefinitions ?? []) {
      if (!v.defaultValue) continue;
      const type = typeFromAST(schema, v.type);
      const value = type && 'parseValue' in type ? valueFromAST(v.defaultValue, type) : undefined;
      if (value !== undefined) this.defaults[v.variable.name.value] = value;
    }
    let introspection = false;
    this.selections = this.compile(operation.selectionSet, root, new Set(), () => (introspection = true), { path: [] });
    this.hasIntrospection = introspection;
  }

  /** The variables `@skip`/`@include` and plan conditions read: the operation's defaults, then the client's. */
  conditionValues(variables: Readonly<Record<string, unknown>> | undefined): Record<string, unknown> {
    return { ...this.defaults, ...variables };
  }

  /**
   * Shapes `input` (null when nothing was fetched). `introspection(responseName)` answers the root `__schema` /
   * `__type` fields.
   */
  apply(
    input: DataObject | null | undefined,
    conditions: Readonly<Record<string, unknown>>,
    introspection?: (responseName: string) => unknown,
    deferred?: ReadonlySet<number>,
  ): ShapedResult {
    if (!input) return { data: input ?? null, errors: [] };
    const run: Run = { conditions, errors: [], marks: 0, introspection, path: [], deferred };
    const data: DataObject = {};
    const ok = this.applySelections(input, this.selections, data, run, this.root);
    return { data: ok ? data : null, errors: run.errors };
  }

  private compile(
    set: SelectionSetNode,
    parent: GraphQLCompositeType,
    visiting: Set<string>,
    onIntrospection: () => void,
    scope: Scope,
  ): Shape[] {
    const shapes: Shape[] = [];
    for (const sel of set.selections) {
      const conditions = conditionsOf(sel.directives);
      if (sel.kind === Kind.FIELD) {
        const name = sel.name.value;
        const responseName = sel.alias?.value ?? name;
        if (name === '__typename') {
          shapes.push({
            kind: 'field',
            responseName,
            inherited: responseName in Object.prototype,
            typename: true,
            introspection: false,
            type: { kind: 'leaf', name: 'String', valid: () => true },
            conditions,
          });
          continue;
        }
        if (name === '__schema' || name === '__type') {
          onIntrospection();
          shapes.push({
            kind: 'field',
            responseName,
            inherited: responseName in Object.prototype,
            typename: false,
            introspection: true,
            type: { kind: 'leaf', name, valid: () => true },
            conditions,
          });
          continue;
        }
        if (isObjectType(parent) || isInterfaceType(parent)) {
          const def = parent.getFields()[name];
          if (!def) throw new Error(`${parent.name}.${name} is not in the schema`);
          const named = unwrap(def.type);
          shapes.push({
            kind: 'field',
            responseName,
            inherited: responseName in Object.prototype,
            typename: false,
            introspection: false,
            type: this.typeShape(def.type),
            selections:
              sel.selectionSet && isCompositeType(named)
                ? this.compile(sel.selectionSet, named, visiting, onIntrospection, {
                    path: [...scope.path, responseName],
                    defer: scope.defer,
                  })
                : undefined,
            conditions,
          });
        } else {
          throw new Error(`${parent.name}.${name}: a union has no fields but __typename`);
        }
        continue;
      }
      let on: GraphQLCompositeType | undefined;
      let selectionSet: SelectionSetNode;
      if (sel.kind === Kind.INLINE_FRAGMENT) {
        on = sel.typeCondition ? this.compositeType(sel.typeCondition.name.value) : undefined;
        selectionSet = sel.selectionSet;
      } else {
        const fragment = this.fragments.get(sel.name.value);
        if (!fragment) throw new Error(`Unknown fragment "${sel.name.value}".`);
        if (visiting.has(fragment.name.value)) throw new Error(`fragment ${fragment.name.value} spreads itself`);
        on = this.compositeType(fragment.typeCondition.name.value);
        selectionSet = fragment.selectionSet;
      }
      const inner = sel.kind === Kind.FRAGMENT_SPREAD ? new Set(visiting).add(sel.name.value) : visiting;
      const fragment: FragmentShape = { kind: 'fragment', on, selections: [], conditions };
      const defer = deferOf(sel.directives);
      if (defer) {
        fragment.defer = {
          id: this.defers.length,
          ...defer,
          path: scope.path,
          parent: scope.defer,
          parentType: parent,
          shape: fragment,
        };
        this.defers.push(fragment.defer);
      }
      const innerScope = fragment.defer ? { path: scope.path, defer: fragment.defer } : scope;
      fragment.selections = this.compile(selectionSet, on ?? parent, inner, onIntrospection, innerScope);
      shapes.push(fragment);
    }
    return shapes;
  }

  private compositeType(name: string): GraphQLCompositeType {
    const type = this.schema.getType(name);
    if (!type || !isCompositeType(type)) throw new Error(`Unknown type "${name}".`);
    return type;
  }

  private typeShape(type: GraphQLOutputType): TypeShape {
    if (isNonNullType(type)) return { kind: 'nonNull', of: this.typeShape(type.ofType) };
    if (isListType(type)) return { kind: 'list', of: this.typeShape(type.ofType) };
    if (isCompositeType(type)) return { kind: 'composite', type };
    return { kind: 'leaf', name: type.name, valid: leafCheck(type) };
  }

  /** Whether `type` is `condition` or one of its subtypes (Apollo's isSubtype). */
  private isSubtype(condition: GraphQLCompositeType, type: GraphQLNamedType): boolean {
    if (condition === type) return true;
    let byName = this.subtypes.get(condition);
    if (!byName) {
      byName = new Map();
      this.subtypes.set(condition, byName);
    }
    let answer = byName.get(type.name);
    if (answer === undefined) {
      answer =
        isAbstractType(condition) &&
        (isObjectType(type) || isInterfaceType(type)) &&
        this.schema.isSubType(condition, type);
      byName.set(type.name, answer);
    }
    return answer;
  }

  private skipped(conditions: readonly Condition[] | undefined, run: Run): boolean {
    if (!conditions) return false;
    for (const c of conditions) {
      const value = 'variable' in c ? run.conditions[c.variable] === true : c.value;
      if (c.skip ? value : !value) return true;
    }
    return false;
  }

  /** False when a non-null field is null here: the caller nulls this object (null bubbling). */
  private applySelections(
    input: DataObject,
    shapes: readonly Shape[],
    output: DataObject,
    run: Run,
    parent: GraphQLCompositeType,
  ): boolean {
    for (const shape of shapes) {
      if (shape.conditions && this.skipped(shape.conditions, run)) continue;
      if (shape.kind === 'fragment') {
        if (shape.defer && run.deferred?.has(shape.defer.id)) continue;
        const typename = input.__typename;
        if (shape.on) {
          const type = typeof typename === 'string' && typename ? this.schema.getType(typename) : parent;
          if (!type || !this.isSubtype(shape.on, type)) continue;
        }
        if (!this.applySelections(input, shape.selections, output, run, shape.on ?? parent)) return false;
        continue;
      }
      const name = shape.responseName;
      const outputValue = shape.inherited ? (Object.hasOwn(output, name) ? output[name] : undefined) : output[name];
      if (shape.introspection) {
        if (outputValue === undefined) setField(output, name, run.introspection?.(name) ?? null);
        continue;
      }
      let inputValue = (shape.inherited ? (Object.hasOwn(input, name) ? input[name] : null) : input[name]) ?? null;
      if (shape.typename) {
        if (outputValue === undefined) {
          if (inputValue === null && name !== '__typename') inputValue = input.__typename ?? null;
          const type = typeof inputValue === 'string' ? (this.schema.getType(inputValue) ?? parent) : parent;
          if (!isObjectType(type)) return false;
          setField(output, name, type.name);
        }
        continue;
      }
      run.path.push(name);
      const value = this.complete(outputValue, shape.type, inputValue, shape.selections, run, parent);
      run.path.pop();
      if (value === BUBBLE) {
        setField(output, name, null);
        return false;
      }
      setField(output, name, value);
    }
    return true;
  }

  /** The completed value, or BUBBLE: null here, and the enclosing object must be null too. */
  private complete(
    outputValue: unknown,
    type: TypeShape,
    inputValue: unknown,
    selections: readonly Shape[] | undefined,
    run: Run,
    parent: GraphQLCompositeType,
  ): unknown {
    if (outputValue === null || (outputValue !== undefined && !selections)) return outputValue;
    switch (type.kind) {
      case 'nonNull': {
        const mark = run.marks;
        const value = this.complete(outputValue, type.of, inputValue, selections, run, parent);
        if (value !== null && value !== BUBBLE) return value;
        // One error per null: none when what made it null was reported already.
        if (run.marks === mark)
          run.errors.push(
            invalid(`Cannot return null for non-nullable ${describe(run.path, describeType(type.of), parent)}.`, run),
          );
        run.marks++;
        return BUBBLE;
      }
      case 'list': {
        if (inputValue === null) return null;
        if (!Array.isArray(inputValue)) return this.badValue(run, type, parent);
        const current = Array.isArray(outputValue) ? (outputValue as unknown[]) : undefined;
        const out: unknown[] = current ?? new Array<unknown>(inputValue.length);
        let nullify = false;
        for (let i = 0; i < inputValue.length; i++) {
          run.path.push(i);
          const item = this.complete(current?.[i], type.of, inputValue[i] ?? null, selections, run, parent);
          run.path.pop();
          if (item === BUBBLE) {
            nullify = true;
            out[i] = null;
          } else out[i] = item;
        }
        return nullify ? null : out;
      }
      case 'composite': {
        if (inputValue === null) return null;
        if (typeof inputValue !== 'object' || Array.isArray(inputValue)) return this.badValue(run, type, parent);
        const input = inputValue as DataObject;
        let objType: GraphQLCompositeType = type.type;
        const typename = input.__typename;
        if (typeof typename === 'string' && typename) {
          const named = this.schema.getType(typename);
          if (!named || !isCompositeType(named)) {
            run.errors.push(
              invalid(`Invalid __typename found for object at ${describe(run.path, type.type.name, parent)}.`, run),
            );
            run.marks++;
            return null;
          }
          objType = named;
        }
        const out = (outputValue as DataObject | undefined) ?? {};
        if (this.applySelections(input, selections ?? [], out, run, objType)) return out;
        run.marks++;
        return null;
      }
      case 'leaf': {
        if (inputValue === null || type.valid(inputValue)) return inputValue;
        run.errors.push(invalid(`Invalid value found for ${describe(run.path, type.name, parent)}.`, run));
        run.marks++;
        return null;
      }
    }
  }

  /** The deferred fragments `if:` leaves deferred for these variable values. */
  activeDefers(conditions: Readonly<Record<string, unknown>>): Set<number> {
    const active = new Set<number>();
    for (const d of this.defers)
      if ('value' in d.when ? d.when.value : conditions[d.when.variable] !== false) active.add(d.id);
    return active;
  }

  /** The nearest active deferred fragment enclosing `defer`, if any (inlined ones are part of their parent). */
  activeParent(defer: DeferredFragment, active: ReadonlySet<number>): DeferredFragment | undefined {
    let p = defer.parent;
    while (p && !active.has(p.id)) p = p.parent;
    return p;
  }

  /**
   * A deferred fragment's data for one object it applies to (`at`: the object's path), nested active fragments
   * left out; undefined when it does not apply (type condition, `@skip`/`@include`). Data null: a non-null field
   * in it was null.
   */
  applyDeferred(
    defer: DeferredFragment,
    input: DataObject,
    at: readonly (string | number)[],
    conditions: Readonly<Record<string, unknown>>,
    deferred: ReadonlySet<number>,
    /** The root `__schema` / `__type` answers, as `apply` takes them (a fragment deferred at the root may ask). */
    introspection?: (responseName: string) => unknown,
  ): ShapedResult | undefined {
    const run: Run = { conditions, errors: [], marks: 0, introspection, path: [...at], deferred };
    const { shape } = defer;
    if (shape.conditions && this.skipped(shape.conditions, run)) return undefined;
    const typename = input.__typename;
    const type = typeof typename === 'string' && typename ? this.schema.getType(typename) : defer.parentType;
    if (shape.on && (!type || !this.isSubtype(shape.on, type))) return undefined;
    const data: DataObject = {};
    const ok = this.applySelections(input, shape.selections, data, run, shape.on ?? defer.parentType);
    return { data: ok ? data : null, errors: run.errors };
  }

  /** The client's fields by response name, each marked primary or with the active deferred fragments asking for it. */
  fieldTree(active: ReadonlySet<number>): FieldTree {
    const root: FieldTree = { fields: new Map(), primary: true, defers: new Set() };
    const walk = (shapes: readonly Shape[], node: FieldTree, owner: number | undefined): void => {
      for (const shape of shapes) {
        if (shape.kind === 'fragment') {
          const id = shape.defer?.id;
          walk(shape.selections, node, id !== undefined && active.has(id) ? id : owner);
          continue;
        }
        let child = node.fields.get(shape.responseName);
        if (!child)
          node.fields.set(shape.responseName, (child = { fields: new Map(), primary: false, defers: new Set() }));
        if (owner === undefined) child.primary = true;
        else child.defers.add(owner);
        if (shape.selections) walk(shape.selections, child, owner);
      }
    };
    walk(this.selections, root, undefined);
    return root;
  }

  private badValue(run: Run, type: TypeShape, parent: GraphQLCompositeType): null {
    run.errors.push(invalid(`Invalid value found for ${describe(run.path, describeType(type), parent)}.`, run));
    run.marks++;
    return null;
  }
}

/** Sets an output field; as an own property even where the name is inherited (`__proto__` would set the prototype). */
function setField(output: DataObject, name: string, value: unknown): void {
  if (name === '__proto__') Object.defineProperty(output, name, { value, enumerable: true, writable: true });
  else output[name] = value;
}

/** What complete() returns for a null in a non-null position. */
const BUBBLE = Symbol('null bubbles up');

interface Run {
  conditions: Readonly<Record<string, unknown>>;
  errors: GraphQLError[];
  /** Counts errors reported and nulls bubbled: a non-null position reports its null only if nothing did yet. */
  marks: number;
  introspection?: (responseName: string) => unknown;
  path: (string | number)[];
  /** Deferred fragments left out (delivered apart). */
  deferred?: ReadonlySet<number>;
}

/** A fragment's `@defer`: its label and `if:` (true when absent). */
function deferOf(
  directives: readonly DirectiveNode[] | undefined,
): Pick<DeferredFragment, 'label' | 'when'> | undefined {
  const d = directives?.find((x) => x.name.value === 'defer');
  if (!d) return undefined;
  const arg = (name: string) => d.arguments?.find((a) => a.name.value === name)?.value;
  const when = arg('if');
  const label = arg('label');
  return {
    label: label?.kind === Kind.STRING ? label.value : undefined,
    when:
      when?.kind === Kind.VARIABLE
        ? { variable: when.name.value }
        : { value: when?.kind !== Kind.BOOLEAN || when.value },
  };
}

function unwrap(type: GraphQLOutputType): GraphQLNamedType {
  let t: GraphQLOutputType = type;
  while (isNonNullType(t) || isListType(t)) t = t.ofType;
  return t;
}

function describeType(type: TypeShape): string {
  switch (type.kind) {
    case 'nonNull':
      return `${describeType(type.of)}!`;
    case 'list':
      return `[${describeType(type.of)}]`;
    case 'composite':
      return type.type.name;
    case 'leaf':
      return type.name;
  }
}

function describe(path: readonly (string | number)[], type: string, parent: GraphQLCompositeType): string {
  const last = path[path.length - 1];
  return typeof last === 'string' ? `field ${parent.name}.${last}` : `array element of type ${type} at index ${last}`;
}

function invalid(message: string, run: Run): GraphQLError {
  return new GraphQLError(message, { path: [...run.path], extensions: { code: 'INVALID_GRAPHQL' } });
}
