import { GraphQLError, Kind, parse, type FieldNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';
import { formatError } from '../format-error';
import { copyJson, deepMerge, isObject, runPlan, type DataObject, type PlanRun } from './plan-executor';
import type { EntityLookup, FetchStep, PathStep, PlanStep, RequiredSelection } from './query-plan';
import type { DeferredFragment, FieldTree, ResponseShape } from './response-shape';
import type { Delivery, IncrementalItem, PendingFragment, ResponsePath } from '../incremental';

/**
 * `@defer` over a plan that does not know it: Hive's router planner ignores the directive and plans the whole
 * operation, so each fetch of that plan is classified by the client fields it brings (outside every active deferred
 * fragment: the initial payload's; else the deferred fragments asking for them). The initial payload waits for its
 * fetches only; each deferred fragment for its own, run as soon as the fetches before them in the plan are done
 * (shared fetches run once), and is delivered once its enclosing deferred fragment has been.
 */

/** Which parts of the response a fetch brings client fields of. */
interface Feeds {
  primary: boolean;
  defers: Set<number>;
}

/** A fetch's subgraph operation, parsed: its selection set and its named fragments. */
interface ParsedFetch {
  selectionSet?: SelectionSetNode;
  fragments: Map<string, FragmentDefinitionNode>;
}

const parsedOperations = new WeakMap<FetchStep, ParsedFetch>();

function operationOf(step: FetchStep): ParsedFetch {
  let parsed = parsedOperations.get(step);
  if (!parsed) {
    parsed = { fragments: new Map() };
    for (const d of parse(step.operation).definitions) {
      if (d.kind === Kind.FRAGMENT_DEFINITION) parsed.fragments.set(d.name.value, d);
      else if (d.kind === Kind.OPERATION_DEFINITION) parsed.selectionSet ??= d.selectionSet;
    }
    parsedOperations.set(step, parsed);
  }
  return parsed;
}

/** The field of the operation an entity lookup is answered under (`_entities` or its alias). */
function lookupField(parsed: ParsedFetch, lookup: EntityLookup): FieldNode | undefined {
  return parsed.selectionSet?.selections.find(
    (s): s is FieldNode => s.kind === Kind.FIELD && (s.alias?.value ?? s.name.value) === lookup.responseKey,
  );
}

/** The client fields a fetch's subgraph operation brings, found by response name where its data lands. */
function feedsOf(step: FetchStep, tree: FieldTree): Feeds {
  const feeds: Feeds = { primary: false, defers: new Set() };
  const parsed = operationOf(step);
  const { fragments, selectionSet } = parsed;
  const walk = (set: SelectionSetNode, node: FieldTree, depth: number): void => {
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) {
        const child = node.fields.get(sel.alias?.value ?? sel.name.value);
        if (!child) continue; // keys, __typename and requirements the planner added
        if (child.primary) feeds.primary = true;
        for (const id of child.defers) feeds.defers.add(id);
        if (sel.selectionSet) walk(sel.selectionSet, child, depth);
      } else if (sel.kind === Kind.INLINE_FRAGMENT) walk(sel.selectionSet, node, depth);
      else {
        const fragment = fragments.get(sel.name.value);
        if (fragment && depth < fragments.size) walk(fragment.selectionSet, node, depth + 1);
      }
    }
  };
  if (!selectionSet) return feeds;
  if (!step.entities) {
    walk(selectionSet, tree, 0);
    return feeds;
  }
  for (const lookup of step.entities) {
    const field = lookupField(parsed, lookup);
    if (!field?.selectionSet) continue;
    for (const path of lookup.paths) {
      let node: FieldTree | undefined = tree;
      for (const s of path) if ('field' in s) node = node?.fields.get(s.field);
      if (node) walk(field.selectionSet, node, 0);
    }
  }
  return feeds;
}

function fetchesOf(step: PlanStep, out: FetchStep[]): FetchStep[] {
  if (step.kind === 'fetch') out.push(step);
  else if (step.kind === 'condition') {
    if (step.ifClause) fetchesOf(step.ifClause, out);
    if (step.elseClause) fetchesOf(step.elseClause, out);
  } else for (const n of step.nodes) fetchesOf(n, out);
  return out;
}

/** The field names of a path (list and type steps left out: a dependency is judged by names, conservatively). */
function fieldsOf(path: readonly PathStep[]): string[] {
  const names: string[] = [];
  for (const s of path) if ('field' in s) names.push(s.field);
  return names;
}

/** The response names a selection set puts on its object, through inline fragments and fragment spreads. */
function namesOf(
  set: SelectionSetNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  out: Set<string>,
  depth = 0,
): Set<string> {
  for (const sel of set.selections) {
    if (sel.kind === Kind.FIELD) out.add(sel.alias?.value ?? sel.name.value);
    else if (sel.kind === Kind.INLINE_FRAGMENT) namesOf(sel.selectionSet, fragments, out, depth);
    else if (depth < fragments.size) {
      const fragment = fragments.get(sel.name.value);
      if (fragment) namesOf(fragment.selectionSet, fragments, out, depth + 1);
    }
  }
  return out;
}

/** What an entity fetch writes: per lookup, its paths (field names) and the names it puts on those entities. */
interface Writes {
  paths: string[][];
  names: ReadonlySet<string>;
}

const writesCache = new WeakMap<FetchStep, Writes[]>();

function writesOf(step: FetchStep): Writes[] {
  let writes = writesCache.get(step);
  if (writes) return writes;
  const parsed = operationOf(step);
  writes = (step.entities ?? []).map((lookup) => {
    const field = lookupField(parsed, lookup);
    const names = field?.selectionSet ? namesOf(field.selectionSet, parsed.fragments, new Set()) : new Set<string>();
    for (const r of lookup.outputRewrites ?? []) if (r.kind === 'renameKey') names.add(r.to);
    return { paths: lookup.paths.map(fieldsOf), names };
  });
  writesCache.set(step, writes);
  return writes;
}

/** The names an entity lookup requires of each entity (its representation's fields, `__typename` aside). */
function requiredNames(selections: readonly RequiredSelection[], out = new Set<string>()): Set<string> {
  for (const s of selections)
    if (s.kind === 'fragment') requiredNames(s.selections, out);
    else if (s.responseName !== '__typename') out.add(s.responseName);
  return out;
}

const startsWith = (path: readonly string[], prefix: readonly string[]) => prefix.every((name, i) => path[i] === name);

/**
 * Whether `later` may need what `earlier` fetches, judged by field names where the data lands: `earlier` brings the
 * objects on `later`'s entity paths, or fields its entities require, or fields under them it requires. A root
 * fetch on either side is always a dependency (a mutation's order, a root field's objects).
 */
export function mayNeed(later: FetchStep, earlier: FetchStep): boolean {
  if (!later.entities || !earlier.entities) return true;
  const writes = writesOf(earlier);
  for (const lookup of later.entities) {
    const required = requiredNames(lookup.requires);
    for (const target of lookup.paths.map(fieldsOf))
      for (const { paths, names } of writes)
        for (const written of paths) {
          if (written.length === target.length && startsWith(target, written)) {
            for (const name of required) if (names.has(name)) return true;
          } else if (written.length < target.length && startsWith(target, written)) {
            if (names.has(target[written.length] as string)) return true;
          } else if (target.length < written.length && startsWith(written, target)) {
            if (required.has(written[target.length] as string)) return true;
          }
        }
  }
  return false;
}

/**
 * The part of a plan that brings what `keep` wants: its fetches, and of what comes before them in a sequence, the
 * fetches they may need (`mayNeed`, and what those need in turn). Undefined when nothing is wanted.
 */
export function prunePlan(step: PlanStep, keep: (fetch: FetchStep) => boolean): PlanStep | undefined {
  switch (step.kind) {
    case 'fetch':
      return keep(step) ? step : undefined;
    case 'parallel': {
      const nodes = step.nodes.map((n) => prunePlan(n, keep)).filter((n): n is PlanStep => n !== undefined);
      return nodes.length ? { kind: 'parallel', nodes } : undefined;
    }
    case 'sequence': {
      const nodes: PlanStep[] = [];
      const kept: FetchStep[] = [];
      for (let i = step.nodes.length - 1; i >= 0; i--) {
        const pruned = prunePlan(step.nodes[i] as PlanStep, (f) => keep(f) || kept.some((k) => mayNeed(k, f)));
        if (!pruned) continue;
        nodes.unshift(pruned);
        fetchesOf(pruned, kept);
      }
      if (nodes.length === 0) return undefined;
      return nodes.length === 1 ? nodes[0] : { kind: 'sequence', nodes };
    }
    case 'condition': {
      const ifClause = step.ifClause && prunePlan(step.ifClause, keep);
      const elseClause = step.elseClause && prunePlan(step.elseClause, keep);
      return ifClause || elseClause ? { ...step, ifClause, elseClause } : undefined;
    }
  }
}

/** One run of an operation with active deferred fragments. */
export class DeferredExecution {
  private readonly feeds = new Map<FetchStep, Feeds>();
  private readonly started = new Map<FetchStep, Promise<void>>();
  private readonly errorsOf = new Map<number, GraphQLError[]>();
  private readonly done = new Map<number, Promise<void>>();
  private stopped = false;
  /** The client's fields and the parts asking for each (where a fetch's errors belong). */
  private tree: FieldTree | undefined;

  constructor(
    private readonly shape: ResponseShape,
    private readonly root: PlanStep | undefined,
    private readonly run: PlanRun,
    private readonly active: ReadonlySet<number>,
  ) {
    if (!root) return;
    this.tree = shape.fieldTree(active);
    for (const fetch of fetchesOf(root, []))
      if (!this.feeds.has(fetch)) this.feeds.set(fetch, feedsOf(fetch, this.tree));
  }

  private get defers(): DeferredFragment[] {
    return this.shape.defers.filter((d) => this.active.has(d.id));
  }

  /** Starts every part at once; resolves when the initial payload's fetches are done (errors in `run.errors`). */
  async primary(): Promise<void> {
    for (const d of this.defers) {
      const errors: GraphQLError[] = [];
      this.errorsOf.set(d.id, errors);
      const plan = this.root && prunePlan(this.root, (f) => this.feeds.get(f)?.defers.has(d.id) === true);
      this.done.set(d.id, this.settle(plan, errors));
    }
    const plan = this.root && prunePlan(this.root, (f) => this.feeds.get(f)?.primary === true);
    await this.settle(plan, this.run.errors);
  }

  /** Stops starting fetches (those running stop with the request's own stop). */
  stop(): void {
    this.stopped = true;
  }

  /** The fragments pending with the initial result (`initial`, as sent): those no active fragment encloses. */
  initialPending(initial: DataObject): PendingFragment[] {
    return this.defers.filter((d) => !this.shape.activeParent(d, this.active)).map((d) => this.pendingOf(d, initial));
  }

  /**
   * The deliveries after the initial result, whose data (`initial`, as sent) the deferred fragments' paths are found
   * in. Each carries every deferred fragment ready by then (and, pending, those its delivered fragments enclose);
   * the last says `hasNext: false`.
   */
  async *deliveries(
    initial: DataObject,
    introspection?: (responseName: string) => unknown,
  ): AsyncGenerator<Delivery, void, undefined> {
    const pending = new Map(this.defers.map((d) => [d.id, d]));
    const finished = new Set<number>();
    let wake: (() => void) | undefined;
    for (const [id, done] of this.done)
      void done.then(() => {
        finished.add(id);
        wake?.();
      });
    try {
      while (pending.size > 0) {
        const step: Delivery = { hasNext: true, pending: [], items: [], completed: [] };
        for (let progress = true; progress;) {
          progress = false;
          for (const d of pending.values()) {
            const parent = this.shape.activeParent(d, this.active);
            if (!finished.has(d.id) || (parent && pending.has(parent.id))) continue;
            pending.delete(d.id);
            for (const item of this.items(d, initial, introspection)) step.items.push({ fragment: d.id, item });
            step.completed.push(d.id);
            // what it encloses is pending from now on, at the objects its data just put in
            for (const inner of this.defers)
              if (this.shape.activeParent(inner, this.active) === d) step.pending.push(this.pendingOf(inner, initial));
            progress = true;
          }
        }
        step.hasNext = pending.size > 0;
        if (step.completed.length > 0 || !step.hasNext) yield step;
        else await new Promise<void>((resolve) => (wake = resolve));
      }
    } finally {
      this.stop();
    }
  }

  /** A deferred fragment as pending: the objects at its path in the data sent so far. */
  private pendingOf(d: DeferredFragment, sent: DataObject): PendingFragment {
    const paths: ResponsePath[] = [];
    const visit = (value: unknown, i: number, at: ResponsePath): void => {
      if (Array.isArray(value)) return value.forEach((v, n) => visit(v, i, [...at, n]));
      if (!isObject(value)) return;
      if (i === d.path.length) return void paths.push(at);
      const name = d.path[i] as string;
      if (Object.hasOwn(value, name)) visit(value[name], i + 1, [...at, name]);
    };
    visit(sent, 0, []);
    return { fragment: d.id, ...(d.label !== undefined ? { label: d.label } : {}), paths };
  }

  private async settle(plan: PlanStep | undefined, errors: GraphQLError[]): Promise<void> {
    if (!plan) return;
    try {
      await this.exec(plan, errors);
    } catch (err) {
      errors.push(err instanceof GraphQLError ? err : new GraphQLError(String(err)));
    }
  }

  private async exec(step: PlanStep, errors: GraphQLError[]): Promise<void> {
    switch (step.kind) {
      case 'sequence':
        for (const node of step.nodes) await this.exec(node, errors);
        return;
      case 'parallel':
        await Promise.all(step.nodes.map((n) => this.exec(n, errors)));
        return;
      case 'condition': {
        const branch = this.run.conditions[step.variable] === true ? step.ifClause : step.elseClause;
        if (branch) await this.exec(branch, errors);
        return;
      }
      case 'fetch': {
        let started = this.started.get(step);
        if (!started) {
          started = this.fetch(step, errors);
          this.started.set(step, started);
        }
        await started;
      }
    }
  }

  /** A fetch, once: its errors go to the part it brings fields of (the initial payload first). */
  private async fetch(step: FetchStep, fallback: GraphQLError[]): Promise<void> {
    if (this.stopped || this.run.requestContext.context.stop?.stopped) return;
    const feeds = this.feeds.get(step);
    let owner = fallback;
    if (feeds?.primary) owner = this.run.errors;
    else if (feeds?.defers.size) owner = this.errorsOf.get(Math.min(...feeds.defers)) ?? fallback;
    if (!feeds || feeds.defers.size === 0) return runPlan(step, { ...this.run, errors: owner });
    const errors: GraphQLError[] = [];
    await runPlan(step, { ...this.run, errors });
    for (const error of errors) for (const list of this.partsOf(error, feeds) ?? [owner]) list.push(error);
  }

  /**
   * The parts a fetch's error belongs to, by the response names of its path: the initial payload if it asks for the
   * field the error stands at, else the deferred fragments asking for it, among those the fetch brings fields of. Undefined when its path
   * says nothing (no path, or a field no such part asks for): the fetch's first part takes it.
   */
  private partsOf(error: GraphQLError, feeds: Feeds): GraphQLError[][] | undefined {
    let node = this.tree;
    let asked: FieldTree | undefined;
    for (const step of error.path ?? []) {
      if (typeof step !== 'string') continue;
      node = node?.fields.get(step);
      if (!node) break;
      asked = node;
    }
    if (!asked) return undefined;
    // a field the initial payload asks for is delivered there: so is its error, once
    if (asked.primary && feeds.primary) return [this.run.errors];
    const parts: GraphQLError[][] = [];
    for (const id of asked.defers) {
      const list = feeds.defers.has(id) ? this.errorsOf.get(id) : undefined;
      if (list) parts.push(list);
    }
    return parts.length > 0 ? parts : undefined;
  }

  /** The deferred fragment's items: one per object of the sent data at its path; each merged into that data. */
  private items(
    d: DeferredFragment,
    initial: DataObject,
    introspection: ((responseName: string) => unknown) | undefined,
  ): IncrementalItem[] {
    const items: IncrementalItem[] = [];
    const visit = (output: unknown, input: unknown, i: number, at: (string | number)[]): void => {
      if (Array.isArray(output)) {
        if (Array.isArray(input)) output.forEach((o, n) => visit(o, input[n], i, [...at, n]));
        return;
      }
      if (!isObject(output) || !isObject(input)) return;
      if (i < d.path.length) {
        const name = d.path[i] as string;
        if (Object.hasOwn(output, name)) visit(output[name], input[name], i + 1, [...at, name]);
        return;
      }
      const shaped = this.shape.applyDeferred(d, input, at, this.run.conditions, this.active, introspection);
      if (!shaped) return;
      // a copy: what nested deferred fragments merge later must not change this item before it is written
      if (shaped.data) deepMerge(output, copyJson(shaped.data) as DataObject);
      const item: IncrementalItem = { data: shaped.data, path: at };
      if (d.label !== undefined) item.label = d.label;
      if (shaped.errors.length) item.errors = shaped.errors.map((e) => formatError(e.toJSON()));
      items.push(item);
    };
    visit(initial, this.run.data, 0, []);
    // The fetches' errors go to the item whose path they fall under (else the first).
    for (const error of this.errorsOf.get(d.id) ?? []) {
      const path = error.path ?? [];
      const item =
        items.find((it) => it.path.every((step, n) => path[n] === step) && path.length >= it.path.length) ?? items[0];
      if (item) (item.errors ??= []).push(formatError(error.toJSON()));
    }
    return items;
  }
}
