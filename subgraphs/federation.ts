import { buildSubgraphSchema } from '@apollo/subgraph';
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper';
import { printSchemaWithDirectives } from '@graphql-tools/utils';
import { getNamedType, isEnumType, isInputObjectType, isObjectType, parse, type GraphQLSchema } from 'graphql';
import { buildSchema, createResolversMap, type BuildSchemaOptions, type PubSub } from 'type-graphql';
import { LONG_RUNNING_SPEC } from './long-running';

/**
 * Federation 2 directives a subgraph may use; imported once here so every subgraph links the same spec. `@cost` and
 * `@listSize` (IBM's GraphQL Cost Directives, federation 2.9) compose into the supergraph, where the gateway's cost
 * limit reads them: what a field weighs and how long a list is assumed to be, told by the subgraph that knows.
 *
 * `@longRunning` is ours (LONG_RUNNING_SPEC): a root field whose work may outlast the gateway's subgraph timeout (an
 * import, a zone signed). `@composeDirective` carries it into the supergraph, where the gateway reads it and bounds
 * fetches of such a field by SUBGRAPH_LONG_TIMEOUT_MS instead (docs/gateway.md, "Limits").
 */
const FEDERATION_LINK =
  'extend schema @link(url: "https://specs.apollo.dev/federation/v2.9", ' +
  'import: ["@key", "@shareable", "@external", "@requires", "@provides", "@override", "@inaccessible", ' +
  '"@interfaceObject", "@cost", "@listSize", "@composeDirective"]) ' +
  `@link(url: "${LONG_RUNNING_SPEC}", import: ["@longRunning"]) @composeDirective(name: "@longRunning")\n` +
  'directive @longRunning on FIELD_DEFINITION';

export type ReferenceResolvers = GraphQLResolverMap<unknown>;

/**
 * type-graphql insists on a PubSub as soon as a schema has a subscription, even when every subscription brings its
 * own `subscribe` function (ours do: they open streams on the subgraph's own event source). This one refuses use.
 */
const NO_TOPICS: PubSub = {
  publish: () => {
    throw new Error('subscriptions here use their own subscribe function, not topics');
  },
  subscribe: () => {
    throw new Error('subscriptions here use their own subscribe function, not topics');
  },
};

/**
 * Turns type-graphql resolver classes into a Federation 2 subgraph schema: type-graphql builds the executable
 * schema, its SDL (with `@key` and other directives set by `@Directive`) becomes the subgraph's type definitions,
 * and its resolvers plus the `__resolveReference` functions are attached by @apollo/subgraph.
 */
export async function buildFederatedSchema(
  options: Omit<BuildSchemaOptions, 'skipCheck'>,
  referenceResolvers: ReferenceResolvers = {},
): Promise<GraphQLSchema> {
  const schema = await buildSchema({ pubSub: NO_TOPICS, ...options, skipCheck: true });
  const typeDefs = parse(`${FEDERATION_LINK}\n${printSchemaWithDirectives(schema)}`);
  const resolvers = createResolversMap(schema) as GraphQLResolverMap<unknown>;
  for (const [typeName, fields] of Object.entries(referenceResolvers)) {
    resolvers[typeName] = {
      ...(resolvers[typeName] as object),
      ...(fields as object),
    };
  }
  return remapEnumDefaults(buildSubgraphSchema({ typeDefs, resolvers }));
}

/**
 * A schema built from SDL reads `arg: E = VALUE_NAME` defaults as the enum value's NAME, and @apollo/subgraph
 * does not remap them when it attaches enum resolvers: a resolver would get "ONE_MONTH" instead of "1M" whenever
 * the client leaves the argument out. Defaults (arguments and input fields) are turned into internal values here.
 */
function remapEnumDefaults(schema: GraphQLSchema): GraphQLSchema {
  const remap = (holder: { type: Parameters<typeof getNamedType>[0]; defaultValue?: unknown }): void => {
    const named = getNamedType(holder.type);
    if (!isEnumType(named) || holder.defaultValue === undefined) return;
    const toInternal = (v: unknown): unknown => (typeof v === 'string' ? (named.getValue(v)?.value ?? v) : v);
    holder.defaultValue = Array.isArray(holder.defaultValue)
      ? holder.defaultValue.map(toInternal)
      : toInternal(holder.defaultValue);
  };
  for (const type of Object.values(schema.getTypeMap())) {
    if (isObjectType(type)) for (const field of Object.values(type.getFields())) field.args.forEach(remap);
    if (isInputObjectType(type)) Object.values(type.getFields()).forEach(remap);
  }
  return schema;
}
