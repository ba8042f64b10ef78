import {
  Kind,
  parse,
  type ConstDirectiveNode,
  type DocumentNode,
  type SelectionSetNode,
  type StringValueNode,
} from 'graphql';

/**
 * Progressive `@override` (Federation 2.7): a field moved with `@override(from: "X", label: "percent(N)")` is served by
 * its new subgraph on N % of requests. In the supergraph the label is `overrideLabel` on the field's `@join__field`s.
 *
 * Hive's planner knows percent labels itself, but rolls one number per request for all of them (every label with
 * N above it is on), so the labels of a request are not independent and a plan depends on a real number. We hand
 * it a supergraph in which each percent label is a plain flag (`~percent(N)`: the `~` keeps it apart from any
 * valid custom label), roll each label on its own (active with probability N/100, as Apollo Router does) and pass
 * the active flags: a plan then depends on a finite label set, which is what the plan cache keys on.
 *
 * Other labels (Apollo Router turns them on through coprocessors) are never active here: those fields stay with
 * the subgraph they are overridden from.
 */

/** Thrown for a supergraph whose override labels are not valid; names the field and the label. */
export class SupergraphError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SupergraphError';
  }
}

/** `percent(N)`: N from 0 to 100, at most 8 decimals (what composition accepts). */
const PERCENT = /^percent\((\d{1,3}(?:\.\d{1,8})?)\)$/;
/** A custom label (composition's rule). */
const CUSTOM = /^[a-zA-Z][a-zA-Z0-9_\-:.]*$/;
const FLAG_PREFIX = '~';
const JOIN_URL = /^https:\/\/specs\.apollo\.dev\/join\/v\d+\.\d+$/;

export type Random = () => number;

const stringArg = (directive: ConstDirectiveNode, name: string): StringValueNode | undefined => {
  const value = directive.arguments?.find((a) => a.name.value === name)?.value;
  return value?.kind === Kind.STRING ? value : undefined;
};

/** The names of the fields a field set (`"id variant { id }"`, with inline fragments) selects, at any depth. */
function fieldSetNames(fields: string, into: Set<string>): void {
  let set: SelectionSetNode;
  try {
    const doc = parse(`{ ${fields} }`, { noLocation: true });
    const [op] = doc.definitions;
    if (op?.kind !== Kind.OPERATION_DEFINITION) return;
    set = op.selectionSet;
  } catch {
    return; // not ours to judge: the planner reports a broken field set
  }
  collectNames(set, into);
}

function collectNames(set: SelectionSetNode, into: Set<string>): void {
  for (const s of set.selections) {
    if (s.kind === Kind.FIELD) into.add(s.name.value);
    if (s.kind !== Kind.FRAGMENT_SPREAD && s.selectionSet) collectNames(s.selectionSet, into);
  }
}

/** The percent labels of a supergraph, what they are attached to, and the supergraph the planner gets. */
export class ProgressiveOverrides {
  /** Percent label → N. */
  readonly percentLabels: ReadonlyMap<string, number>;
  /** The supergraph with each percent label turned into its flag (the original when there is none). */
  readonly plannerSdl: string;
  /** Field name → the percent labels on fields of that name (any type). */
  private readonly labelsByField: ReadonlyMap<string, ReadonlySet<string>>;
  /** Field name → names in the `@requires` / context selections of fields of that name: planning those needs them. */
  private readonly needs: ReadonlyMap<string, ReadonlySet<string>>;
  /** Names every plan may go through: entity keys. */
  private readonly keyNames: ReadonlySet<string>;

  constructor(supergraphSdl: string) {
    const document = parse(supergraphSdl);
    const join = joinPrefix(document);
    const fieldDirective = `${join}__field`;
    const typeDirective = `${join}__type`;
    const percents = new Map<string, number>();
    const labelsByField = new Map<string, Set<string>>();
    const needs = new Map<string, Set<string>>();
    const keyNames = new Set<string>();
    const splices: Array<{ start: number; end: number; text: string }> = [];

    for (const def of document.definitions) {
      if (
        def.kind !== Kind.OBJECT_TYPE_DEFINITION &&
        def.kind !== Kind.OBJECT_TYPE_EXTENSION &&
        def.kind !== Kind.INTERFACE_TYPE_DEFINITION &&
        def.kind !== Kind.INTERFACE_TYPE_EXTENSION
      )
        continue;
      for (const d of def.directives ?? []) {
        const key = d.name.value === typeDirective ? stringArg(d, 'key') : undefined;
        if (key) fieldSetNames(key.value, keyNames);
      }
      for (const field of def.fields ?? []) {
        for (const d of field.directives ?? []) {
          if (d.name.value !== fieldDirective) continue;
          const requires = stringArg(d, 'requires');
          if (requires) fieldSetNames(requires.value, mapSet(needs, field.name.value));
          for (const selection of contextSelections(d)) fieldSetNames(selection, mapSet(needs, field.name.value));
          const label = stringArg(d, 'overrideLabel');
          if (!label) continue;
          const percent = parseLabel(label.value, `${def.name.value}.${field.name.value}`, d);
          if (percent === undefined) continue;
          percents.set(label.value, percent);
          mapSet(labelsByField, field.name.value).add(label.value);
          if (label.loc)
            splices.push({ start: label.loc.start, end: label.loc.end, text: JSON.stringify(flagOf(label.value)) });
        }
      }
    }
    this.percentLabels = percents;
    this.labelsByField = labelsByField;
    this.needs = needs;
    this.keyNames = keyNames;
    this.plannerSdl = splice(supergraphSdl, splices);
  }

  /** Whether the supergraph has any percent label (when not, nothing here costs anything). */
  get any(): boolean {
    return this.percentLabels.size > 0;
  }

  /** One roll for a request: each percent label on with probability N/100. */
  roll(random: Random): ReadonlySet<string> {
    const active = new Set<string>();
    for (const [label, percent] of this.percentLabels) if (random() * 100 < percent) active.add(label);
    return active;
  }

  /**
   * The percent labels whose state can change the plan of `document`, sorted: those on fields named as any field
   * the document selects, or that the planner may need to plan them (their `@requires`, every entity key). Matching
   * by name alone, whatever the type, may count a label that does not matter (one more cached plan) but never misses
   * one that does (a plan of the wrong owner).
   */
  relevant(document: DocumentNode): readonly string[] {
    if (!this.any) return [];
    const names = new Set<string>(this.keyNames);
    for (const def of document.definitions)
      if (def.kind === Kind.OPERATION_DEFINITION || def.kind === Kind.FRAGMENT_DEFINITION)
        collectNames(def.selectionSet, names);
    const queue = [...names];
    for (let name = queue.pop(); name !== undefined; name = queue.pop())
      for (const needed of this.needs.get(name) ?? [])
        if (!names.has(needed)) {
          names.add(needed);
          queue.push(needed);
        }
    const labels = new Set<string>();
    for (const name of names) for (const label of this.labelsByField.get(name) ?? []) labels.add(label);
    return [...labels].sort();
  }

  /** The planner's flags for a set of active percent labels. */
  flags(active: Iterable<string>): Set<string> {
    const flags = new Set<string>();
    for (const label of active) flags.add(flagOf(label));
    return flags;
  }
}

/** No labels (a plan or a cached response that depends on none). */
export const NO_LABELS: readonly string[] = [];

/** The labels of `relevant` (sorted) that are active: what a plan, and a cached response, depend on. */
export function activeOf(relevant: readonly string[], active: ReadonlySet<string>): readonly string[] {
  return relevant.length === 0 || active.size === 0 ? NO_LABELS : relevant.filter((label) => active.has(label));
}

const flagOf = (label: string): string => `${FLAG_PREFIX}${label}`;

function mapSet<K, V>(map: Map<K, Set<V>>, key: K): Set<V> {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  return set;
}

/** The percentage of a percent label; undefined for a custom label; throws for anything else. */
function parseLabel(label: string, coordinate: string, directive: ConstDirectiveNode): number | undefined {
  const subgraph = directive.arguments?.find((a) => a.name.value === 'graph')?.value;
  const where = `@override label "${label}" on ${coordinate}${subgraph?.kind === Kind.ENUM ? ` (graph ${subgraph.value})` : ''}`;
  if (label.startsWith('percent(')) {
    const m = PERCENT.exec(label);
    const n = m?.[1] === undefined ? NaN : Number(m[1]);
    if (!(n >= 0 && n <= 100))
      throw new SupergraphError(`${where}: a percent label is percent(N), N from 0 to 100 with at most 8 decimals`);
    return n;
  }
  if (!CUSTOM.test(label))
    throw new SupergraphError(
      `${where}: a label is percent(N) or a name of letters, digits, _ - : . starting with a letter`,
    );
  return undefined;
}

/** `@join__field(contextArguments: [{ selection: "…" }])` (join v0.5): the selections the field's context needs. */
function contextSelections(directive: ConstDirectiveNode): string[] {
  const value = directive.arguments?.find((a) => a.name.value === 'contextArguments')?.value;
  const items = value?.kind === Kind.LIST ? value.values : value ? [value] : [];
  const out: string[] = [];
  for (const item of items) {
    if (item.kind !== Kind.OBJECT) continue;
    const selection = item.fields.find((f) => f.name.value === 'selection')?.value;
    if (selection?.kind === Kind.STRING) out.push(selection.value);
  }
  return out;
}

/** The name the join spec has in this supergraph (`join`, unless its `@link` says `as:`). */
function joinPrefix(document: DocumentNode): string {
  for (const def of document.definitions) {
    if (def.kind !== Kind.SCHEMA_DEFINITION && def.kind !== Kind.SCHEMA_EXTENSION) continue;
    for (const d of def.directives ?? []) {
      if (d.name.value !== 'link' && d.name.value !== 'core') continue;
      const url = stringArg(d, 'url') ?? stringArg(d, 'feature');
      if (url && JOIN_URL.test(url.value)) return stringArg(d, 'as')?.value ?? 'join';
    }
  }
  return 'join';
}

function splice(text: string, splices: ReadonlyArray<{ start: number; end: number; text: string }>): string {
  if (splices.length === 0) return text;
  const sorted = [...splices].sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  for (const s of sorted) {
    out += text.slice(at, s.start) + s.text;
    at = s.end;
  }
  return out + text.slice(at);
}
