import { buildSubgraphSchema } from '@apollo/subgraph';
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper';
import { printSchemaWithDirectives } from '@graphql-tools/utils';
import { parse, type GraphQLSchema } from 'graphql';
import { buildSchema, createResolversMap, type BuildSchemaOptions } from 'type-graphql';

/** Federation 2 directives a subgraph may use; imported once here so every subgraph links the same spec. */
const FEDERATION_LINK =
  'extend schema @link(url: "https://specs.apollo.dev/federation/v2.7", ' +
  'import: ["@key", "@shareable", "@external", "@requires", "@provides", "@override", "@inaccessible", "@interfaceObject"])';

export type ReferenceResolvers = GraphQLResolverMap<unknown>;

/**
 * Turns type-graphql resolver classes into a Federation 2 subgraph schema: type-graphql builds the executable
 * schema, its SDL (with `@key` and other directives set by `@Directive`) becomes the subgraph's type definitions,
 * and its resolvers plus the `__resolveReference` functions are attached by @apollo/subgraph.
 */
export async function buildFederatedSchema(
  options: Omit<BuildSchemaOptions, 'skipCheck'>,
  referenceResolvers: ReferenceResolvers = {},
): Promise<GraphQLSchema> {
  const schema = await buildSchema({ ...options, skipCheck: true });
  const typeDefs = parse(`${FEDERATION_LINK}\n${printSchemaWithDirectives(schema)}`);
  const resolvers = createResolversMap(schema) as GraphQLResolverMap<unknown>;
  for (const [typeName, fields] of Object.entries(referenceResolvers)) {
    resolvers[typeName] = { ...(resolvers[typeName] as object), ...(fields as object) } as GraphQLResolverMap<unknown>[string];
  }
  return buildSubgraphSchema({ typeDefs, resolvers });
}
