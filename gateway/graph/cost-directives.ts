import { Kind, parse, type ConstDirectiveNode, type DefinitionNode, type DocumentNode } from 'graphql';
import { argument, linkedDirectiveNames } from './linked-directives';

/** What the cost directives (IBM's GraphQL Cost Directives, as Apollo's cost spec) say of one field. */
export interface FieldCost {
  /** `@cost(weight:)`: what the field itself costs (1 without it). */
  weight?: number;
  /** `@listSize(assumedSize:)`: how many items its list is taken to hold when no slicing argument says. */
  assumedSize?: number;
  /** `@listSize(slicingArguments:)`: integer arguments that bound its list (the largest given counts). */
  slicingArguments?: readonly string[];
  /** `@listSize(sizedFields:)`: child list fields the slicing arguments bound (a page object's items). */
  sizedFields?: readonly string[];
}

/** The directives' names: the spec's own, and what a `@link` of the cost spec imports them as or prefixes them with. */
function directiveNames(document: DocumentNode): { cost: Set<string>; listSize: Set<string> } {
  const names = linkedDirectiveNames(document, 'https://specs.apollo.dev/cost/', ['cost', 'listSize']);
  return { cost: names.get('cost') ?? new Set(), listSize: names.get('listSize') ?? new Set() };
}

function intArg(directive: ConstDirectiveNode, name: string): number | undefined {
  const value = argument(directive, name);
  return value?.kind === Kind.INT ? Number(value.value) : undefined;
}

function stringsArg(directive: ConstDirectiveNode, name: string): string[] | undefined {
  const value = argument(directive, name);
  if (value?.kind !== Kind.LIST) return undefined;
  return value.values.flatMap((v) => (v.kind === Kind.STRING ? [v.value] : []));
}

function fieldsOf(definition: DefinitionNode) {
  switch (definition.kind) {
    case Kind.OBJECT_TYPE_DEFINITION:
    case Kind.OBJECT_TYPE_EXTENSION:
    case Kind.INTERFACE_TYPE_DEFINITION:
    case Kind.INTERFACE_TYPE_EXTENSION:
      return { type: definition.name.value, fields: definition.fields ?? [] };
    default:
      return undefined;
  }
}

/**
 * The cost directives on the fields of a (super)graph's SDL, by `Type.field`. Subgraphs declare them and composition
 * carries them into the supergraph, so the gateway learns weights and list sizes without knowing any subgraph.
 * Only field definitions count (the spec also allows `@cost` on types, arguments and scalars: none of ours has them).
 */
export function costDirectives(sdl: string): Map<string, FieldCost> {
  const document = parse(sdl, { noLocation: true });
  const names = directiveNames(document);
  const costs = new Map<string, FieldCost>();
  for (const definition of document.definitions) {
    const holder = fieldsOf(definition);
    for (const field of holder?.fields ?? []) {
      const found: FieldCost = {};
      for (const directive of field.directives ?? []) {
        if (names.cost.has(directive.name.value)) {
          const weight = intArg(directive, 'weight');
          if (weight !== undefined) found.weight = weight;
        } else if (names.listSize.has(directive.name.value)) {
          const assumedSize = intArg(directive, 'assumedSize');
          const slicingArguments = stringsArg(directive, 'slicingArguments');
          const sizedFields = stringsArg(directive, 'sizedFields');
          if (assumedSize !== undefined) found.assumedSize = assumedSize;
          if (slicingArguments?.length) found.slicingArguments = slicingArguments;
          if (sizedFields?.length) found.sizedFields = sizedFields;
        }
      }
      if (Object.keys(found).length > 0) costs.set(`${holder?.type ?? ''}.${field.name.value}`, found);
    }
  }
  return costs;
}
