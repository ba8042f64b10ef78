import type { GraphQLDataSource } from '@apollo/gateway';
import { GraphQLDataSourceRequestKind } from '@apollo/gateway/dist/datasources/types';
import type { GatewayGraphQLRequestContext, GatewayGraphQLResponse } from '@apollo/server-gateway-interface';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import type { GatewayContext } from '../context';
import type {
  EntityLookup,
  FetchStep,
  PathStep,
  PlanStep,
  RequiredSelection,
  Rewrite,
  RewriteStep,
} from './query-plan';
import { withService } from './subgraph-errors';

/** A JSON object of response data (what subgraphs send and the plan assembles). */
export type DataObject = Record<string, unknown>;
type Path = (string | number)[];

/** What one execution of a plan works with and produces. */
export interface PlanRun {
  sources: ReadonlyMap<string, GraphQLDataSource<GatewayContext>>;
  requestContext: GatewayGraphQLRequestContext<GatewayContext>;
  /** The variables as the client sent them (passed on to subgraphs as they are). */
  variables: Readonly<Record<string, unknown>>;
  /** The variables with the operation's defaults (what `@skip`/`@include` conditions read). */
  conditions: Readonly<Record<string, unknown>>;
  /** Everything fetched so far, merged: the response before it is shaped. */
  data: DataObject;
  errors: GraphQLError[];
}

/**
 * Runs a compiled plan: sequences in order, parallel branches at once, each fetch once with every representation
 * it needs (equal representations sent once, their answer merged into every entity they stand for), each answer
 * merged in place into the data fetched before it. Fetch failures become errors at the paths they concern; the
 * plan goes on without that fetch's data.
 */
export function runPlan(step: PlanStep, run: PlanRun): Promise<void> | void {
  switch (step.kind) {
    case 'sequence':
      return runSequence(step.nodes, run);
    case 'parallel': {
      const pending: Promise<void>[] = [];
      for (const node of step.nodes) {
        const p = runPlan(node, run);
        if (p) pending.push(p);
      }
      if (pending.length === 0) return;
      return Promise.all(pending).then(() => undefined);
    }
    case 'condition': {
      const branch = run.conditions[step.variable] === true ? step.ifClause : step.elseClause;
      return branch && runPlan(branch, run);
    }
    case 'fetch':
      return step.entities ? fetchEntities(step, step.entities, run) : fetchRoot(step, run);
  }
}

async function runSequence(nodes: readonly PlanStep[], run: PlanRun): Promise<void> {
  for (const node of nodes) await runPlan(node, run);
}

function fetchVariables(step: FetchStep, run: PlanRun): Record<string, unknown> {
  const variables: Record<string, unknown> = {};
  for (const name of step.variableUsages) {
    const value = Object.hasOwn(run.variables, name) ? run.variables[name] : undefined;
    if (value !== undefined) variables[name] = value;
  }
  return variables;
}

async function send(
  step: FetchStep,
  variables: Record<string, unknown>,
  run: PlanRun,
): Promise<GatewayGraphQLResponse> {
  const source = run.sources.get(step.serviceName);
  if (!source) throw new Error(`Couldn't find service with name "${step.serviceName}"`);
  return source.process({
    kind: GraphQLDataSourceRequestKind.INCOMING_OPERATION,
    request: { query: step.operation, variables, operationName: step.operationName },
    incomingRequestContext: run.requestContext,
    context: run.requestContext.context,
  });
}

/** A subgraph error as the client sees it: the subgraph named, at `path` in the client's response. */
function downstreamError(error: GraphQLFormattedError, serviceName: string, path: Path | undefined): GraphQLError {
  const formatted = withService(error, serviceName);
  return new GraphQLError(formatted.message || `Error while fetching subquery from service "${serviceName}"`, {
    path,
    extensions: formatted.extensions,
  });
}

function internalError(err: unknown): GraphQLError {
  return err instanceof GraphQLError ? err : new GraphQLError(err instanceof Error ? err.message : String(err));
}

async function fetchRoot(step: FetchStep, run: PlanRun): Promise<void> {
  try {
    const response = await send(step, fetchVariables(step, run), run);
    for (const error of response.errors ?? [])
      run.errors.push(downstreamError(error, step.serviceName, error.path ? [...error.path] : undefined));
    const data = response.data as DataObject | null | undefined;
    if (!data) return;
    if (step.outputRewrites) applyRewrites(data, step.outputRewrites);
    deepMerge(run.data, data);
  } catch (err) {
    run.errors.push(internalError(err));
  }
}

/** The entities of one lookup and the representation each stands for. */
interface Gathered {
  lookup: EntityLookup;
  entities: DataObject[];
  /** Index into the lookup's representations variable, per entity. */
  representationOf: number[];
}

async function fetchEntities(step: FetchStep, lookups: readonly EntityLookup[], run: PlanRun): Promise<void> {
  const lists = new Map<string, RepresentationList>();
  const gathered: Gathered[] = [];
  let total = 0;
  for (const lookup of lookups) {
    let reps = lists.get(lookup.variableName);
    if (!reps) {
      reps = new RepresentationList();
      lists.set(lookup.variableName, reps);
    }
    const entities: DataObject[] = [];
    const representationOf: number[] = [];
    const found: DataObject[] = [];
    for (const path of lookup.paths) collectEntities(run.data, path, 0, found);
    for (const entity of found) {
      const representation = represent(entity, lookup, run.conditions);
      if (!representation) continue;
      entities.push(entity);
      representationOf.push(reps.add(representation));
    }
    total += entities.length;
    gathered.push({ lookup, entities, representationOf });
  }
  if (total === 0) return;
  const variables = fetchVariables(step, run);
  for (const [name, reps] of lists) variables[name] = reps.list;
  try {
    const response = await send(step, variables, run);
    if (response.errors?.length)
      for (const e of response.errors) run.errors.push(...entityErrors(e, step, gathered, run));
    const data = response.data as DataObject | null | undefined;
    if (!data) return;
    for (const { lookup, entities, representationOf } of gathered) {
      if (entities.length === 0) continue;
      const received = data[lookup.responseKey];
      if (!Array.isArray(received)) throw new Error(`Expected "data.${lookup.responseKey}" in response to be an array`);
      const expected = lists.get(lookup.variableName)?.list.length ?? 0;
      if (received.length !== expected)
        throw new Error(`Expected "data.${lookup.responseKey}" to contain ${expected} elements`);
      if (lookup.outputRewrites)
        for (const entity of received) if (isObject(entity)) applyRewrites(entity, lookup.outputRewrites);
      // An answer standing for several entities goes whole to the first and as a copy to the others: entities that
      // shared objects would see each other's later fetches (the same entity at two paths may be completed with
      // different arguments under one response name).
      const taken = new Uint8Array(received.length);
      for (let i = 0; i < entities.length; i++) {
        const target = entities[i] as DataObject;
        const index = representationOf[i] as number;
        const entity: unknown = received[index];
        if (!isObject(entity)) continue;
        if (entity.__typename === undefined && target.__typename !== undefined) entity.__typename = target.__typename;
        deepMerge(target, taken[index] ? (copyJson(entity) as DataObject) : entity);
        taken[index] = 1;
      }
    }
  } catch (err) {
    run.errors.push(internalError(err));
  }
}

/**
 * A subgraph error of an entity fetch, at the path of every entity its `[alias, index]` prefix stands for (the
 * paths are found again only when there is an error to place: the common case never builds them).
 */
function entityErrors(error: GraphQLFormattedError, step: FetchStep, gathered: readonly Gathered[], run: PlanRun) {
  const [key, index, ...rest] = error.path ?? [];
  const hit = gathered.find((g) => g.lookup.responseKey === key);
  if (!hit || typeof index !== 'number') {
    const at = gathered[0]?.lookup.paths[0]?.flatMap((s) => ('field' in s ? [s.field] : [])) ?? [];
    return [downstreamError(error, step.serviceName, error.path ? [...at, ...error.path] : undefined)];
  }
  // The walk of fetchEntities again, with paths: entities that produced a representation are those kept, in order.
  const paths: Path[] = [];
  const found: DataObject[] = [];
  for (const path of hit.lookup.paths) collectEntities(run.data, path, 0, found, [], paths);
  const kept = new Set(hit.entities);
  const errors: GraphQLError[] = [];
  let k = 0;
  found.forEach((entity, i) => {
    if (!kept.has(entity)) return;
    if (hit.representationOf[k++] === index) {
      const at = paths[i];
      if (at) errors.push(downstreamError(error, step.serviceName, [...at, ...rest]));
    }
  });
  return errors.length ? errors : [downstreamError(error, step.serviceName, undefined)];
}

/** Where representation objects' values are keyed by their JSON text (apart from primitives, which key by value). */
const OBJECT_VALUES = Symbol('object values');
/** The index of a representation, at the end of its path through the trie. */
const INDEX = Symbol('index');
type TrieNode = Map<unknown, TrieNode | number>;

/**
 * The representations sent in one variable, each once: equal representations (same fields in the same order, equal
 * values) find one index. A trie keyed by field name then value, because Map lookups of the values themselves are
 * several times cheaper than building and hashing one string key per entity (thousands per request).
 */
export class RepresentationList {
  readonly list: DataObject[] = [];
  private readonly root: TrieNode = new Map();

  /** The index of `representation` in `list`, adding it when no equal one is there. */
  add(representation: DataObject): number {
    let node = this.root;
    for (const name in representation) {
      const value = representation[name];
      let byName = node.get(name) as TrieNode | undefined;
      if (!byName) node.set(name, (byName = new Map()));
      let key: unknown = value;
      if (value !== null && typeof value === 'object') {
        let objects = byName.get(OBJECT_VALUES) as TrieNode | undefined;
        if (!objects) byName.set(OBJECT_VALUES, (objects = new Map()));
        byName = objects;
        key = JSON.stringify(value);
      }
      let next = byName.get(key) as TrieNode | undefined;
      if (!next) byName.set(key, (next = new Map()));
      node = next;
    }
    let index = node.get(INDEX) as number | undefined;
    if (index === undefined) {
      index = this.list.length;
      this.list.push(representation);
      node.set(INDEX, index);
    }
    return index;
  }
}

/**
 * Every object at `path` (lists are walked through; null and non-objects are skipped). With `paths`, the response
 * path of each is pushed there too, in the same order (`at` is the path so far); without, no path is ever built.
 */
export function collectEntities(
  value: unknown,
  path: readonly PathStep[],
  i: number,
  out: DataObject[],
  at?: Path,
  paths?: Path[],
): void {
  if (value === null || value === undefined) return;
  if (Array.isArray(value)) {
    const next = i < path.length && 'list' in (path[i] as PathStep) ? i + 1 : i;
    for (let n = 0; n < value.length; n++)
      collectEntities(value[n], path, next, out, paths && [...(at ?? []), n], paths);
    return;
  }
  if (typeof value !== 'object') return;
  const step = path[i];
  if (!step) {
    out.push(value as DataObject);
    paths?.push(at ?? []);
    return;
  }
  if ('field' in step)
    collectEntities((value as DataObject)[step.field], path, i + 1, out, paths && [...(at ?? []), step.field], paths);
  else if ('types' in step) {
    const typename = (value as DataObject).__typename;
    if (typeof typename !== 'string' || step.types.has(typename)) collectEntities(value, path, i + 1, out, at, paths);
  }
}

/** The representation of an entity for a lookup, or null when it has none to send (keys missing, wrong type). */
function represent(entity: DataObject, lookup: EntityLookup, conditions: Readonly<Record<string, unknown>>) {
  const representation = select(entity, lookup.requires, conditions);
  if (!representation) return null;
  if (representation.__typename === undefined) {
    if (typeof entity.__typename !== 'string') return null;
    representation.__typename = entity.__typename;
  }
  let fields = 0;
  for (const key in representation) if (key !== '__typename') fields++;
  if (fields === 0) return null;
  if (lookup.inputRewrites) applyRewrites(representation, lookup.inputRewrites);
  return representation;
}

/** `selections` of `source`; null when a field is missing from it (the data to send is not all there). */
function select(
  source: DataObject,
  selections: readonly RequiredSelection[],
  conditions: Readonly<Record<string, unknown>>,
): DataObject | null {
  const result: DataObject = {};
  for (const s of selections) {
    if (s.kind === 'fragment') {
      if (s.skipIf !== undefined && conditions[s.skipIf] === true) continue;
      if (s.includeIf !== undefined && conditions[s.includeIf] !== true) continue;
      const typename = source.__typename;
      if (typeof typename !== 'string' || !s.types.has(typename)) continue;
      const inner = select(source, s.selections, conditions);
      if (inner) deepMerge(result, inner);
      continue;
    }
    let value = Object.hasOwn(source, s.name) ? source[s.name] : undefined;
    if (value === undefined && s.responseName !== s.name && Object.hasOwn(source, s.responseName))
      value = source[s.responseName];
    if (value === undefined) return null;
    if (s.selections && value !== null) value = selectValue(value, s.selections, conditions);
    result[s.responseName] = value;
  }
  return result;
}

function selectValue(
  value: unknown,
  selections: readonly RequiredSelection[],
  conditions: Readonly<Record<string, unknown>>,
): unknown {
  if (Array.isArray(value)) return value.map((v) => (v === null ? null : selectValue(v, selections, conditions)));
  return isObject(value) ? select(value, selections, conditions) : value;
}

/** Applies rewrites in place (values set, keys renamed) on objects whose type matches each path. */
export function applyRewrites(target: DataObject, rewrites: readonly Rewrite[]): void {
  for (const rewrite of rewrites) rewriteAt(target, rewrite.path, 0, rewrite);
}

function rewriteAt(value: unknown, path: readonly RewriteStep[], i: number, rewrite: Rewrite): void {
  if (Array.isArray(value)) {
    for (const item of value) rewriteAt(item, path, i, rewrite);
    return;
  }
  if (!isObject(value)) return;
  const step = path[i];
  if (!step) return;
  if ('types' in step) {
    const typename = value.__typename;
    if (typeof typename === 'string' && !step.types.has(typename)) return;
    rewriteAt(value, path, i + 1, rewrite);
    return;
  }
  if (i === path.length - 1) {
    if (rewrite.kind === 'setValue') value[step.key] = rewrite.value;
    else if (Object.hasOwn(value, step.key)) {
      value[rewrite.to] = value[step.key];
      delete value[step.key];
    }
    return;
  }
  rewriteAt(value[step.key], path, i + 1, rewrite);
}

/** A deep copy of parsed JSON (lists and plain objects; `__proto__` keys left out, as deepMerge does). */
export function copyJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyJson);
  if (!isObject(value)) return value;
  const copy: DataObject = {};
  for (const key in value) if (key !== '__proto__') copy[key] = copyJson(value[key]);
  return copy;
}

export function isObject(value: unknown): value is DataObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Merges `source` into `target` in place, as Apollo's executor does: objects merged key by key, lists of the same
 * length element by element, anything else replaced. `__proto__` keys (JSON.parse makes them own properties) are
 * never merged.
 */
export function deepMerge(target: DataObject, source: DataObject): void {
  for (const key in source) {
    const value = source[key];
    if (value === undefined || key === '__proto__') continue;
    const current = target[key];
    if (current === value) continue;
    if (current && isObject(value) && typeof current === 'object') {
      deepMerge(current as DataObject, value);
    } else if (Array.isArray(value) && Array.isArray(current) && value.length === current.length) {
      for (let i = 0; i < value.length; i++) {
        const a: unknown = current[i];
        const b: unknown = value[i];
        if (isObject(a) && isObject(b)) {
          if (a !== b) deepMerge(a, b);
        } else current[i] = b;
      }
    } else {
      target[key] = value;
    }
  }
}
