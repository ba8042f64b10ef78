import {
  getOperationAST,
  Kind,
  parse,
  type DocumentNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { LRUCache } from 'lru-cache';
import { LONG_RUNNING_SPEC } from '../../subgraphs/long-running';
import { linkedDirectiveNames } from './linked-directives';

/** The spec's URL without its version: any version of it names the same directive. */
const SPEC_PREFIX = LONG_RUNNING_SPEC.replace(/v\d+\.\d+$/, '');

/**
 * The fields of a (super)graph's SDL marked `@longRunning` (under whatever name its `@link` gives it), as
 * `Type.field`. A subgraph marks them, composition carries the mark into the supergraph: the gateway learns which
 * root fields may outlast the subgraph timeout without knowing any subgraph.
 */
export function longRunningFields(sdl: string): Set<string> {
  const document = parse(sdl, { noLocation: true });
  const names = linkedDirectiveNames(document, SPEC_PREFIX, ['longRunning']).get('longRunning') ?? new Set();
  const fields = new Set<string>();
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OBJECT_TYPE_DEFINITION && definition.kind !== Kind.OBJECT_TYPE_EXTENSION) continue;
    for (const field of definition.fields ?? [])
      if (field.directives?.some((d) => names.has(d.name.value)))
        fields.add(`${definition.name.value}.${field.name.value}`);
  }
  return fields;
}

/**
 * Which operations sent to a subgraph select a long-running root field (docs/gateway.md, "Limits"). Only root
 * fields count: the fetch of a mutation's root field is what waits for its work, while the fetches that complete its
 * result from other subgraphs are ordinary reads.
 */
export class LongRunningOperations {
  /** Whether a query text selects one, by text and operation name (the planner sends the same few texts). */
  private readonly byText = new LRUCache<string, boolean>({ max: 1_000 });
  private readonly roots: Record<'query' | 'mutation' | 'subscription', string>;

  constructor(
    private readonly fields: ReadonlySet<string>,
    schema: GraphQLSchema,
  ) {
    this.roots = {
      query: schema.getQueryType()?.name ?? 'Query',
      mutation: schema.getMutationType()?.name ?? 'Mutation',
      subscription: schema.getSubscriptionType()?.name ?? 'Subscription',
    };
  }

  get any(): boolean {
    return this.fields.size > 0;
  }

  /** Whether the operation selects a long-running root field: its document if given, else its text parsed once. */
  selects(query: string | undefined, operationName: string | undefined, document?: DocumentNode): boolean {
    if (this.fields.size === 0) return false;
    if (document) return this.inDocument(document, operationName);
    if (query === undefined) return false;
    const key = `${operationName ?? ''}\u0000${query}`;
    let found = this.byText.get(key);
    if (found === undefined) {
      try {
        found = this.inDocument(parse(query, { noLocation: true }), operationName);
      } catch {
        found = false; // not ours to report: the subgraph will
      }
      this.byText.set(key, found);
    }
    return found;
  }

  private inDocument(document: DocumentNode, operationName: string | undefined): boolean {
    const operation = getOperationAST(document, operationName);
    if (!operation) return false;
    const fragments = new Map<string, SelectionSetNode>();
    for (const d of document.definitions)
      if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d.selectionSet);
    return this.inSelection(this.roots[operation.operation], operation.selectionSet, fragments, new Set());
  }

  /** Root fields, through the fragments and inline fragments spread at the root. */
  private inSelection(
    root: string,
    selections: OperationDefinitionNode['selectionSet'],
    fragments: ReadonlyMap<string, SelectionSetNode>,
    seen: Set<string>,
  ): boolean {
    for (const selection of selections.selections) {
      if (selection.kind === Kind.FIELD) {
        if (this.fields.has(`${root}.${selection.name.value}`)) return true;
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        if (this.inSelection(root, selection.selectionSet, fragments, seen)) return true;
      } else {
        const name = selection.name.value;
        const fragment = fragments.get(name);
        if (seen.has(name) || !fragment) continue;
        seen.add(name);
        if (this.inSelection(root, fragment, fragments, seen)) return true;
      }
    }
    return false;
  }
}
