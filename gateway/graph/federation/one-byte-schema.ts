import { printSchema, type Schema } from '@apollo/federation-internals';
import { buildASTSchema, parse, visit, type GraphQLSchema } from 'graphql';

/** `text` as a one-byte string (a copy) when every character is Latin-1; otherwise `text` itself. */
export function oneByteText(text: string): string {
  return /[\u0100-\uffff]/.test(text) ? text : Buffer.from(text, 'latin1').toString('latin1');
}

/**
 * A federation-internals schema as a graphql-js schema, as `Schema.toGraphQLJSSchema()` makes it (its printed SDL
 * parsed and built), but parsed from one-byte text. federation-internals prints a supergraph (with its link and join
 * definitions) as a two-byte string even when every character is ASCII; the names parsed from it were interned
 * two-byte and, V8 keeping one interned string per name, every key named alike became two-byte too — in subgraph
 * answers and in responses. A response holding one two-byte string is serialised two-byte: on gwbench's 87 kB answer,
 * 175 kB in the large-object space on every request, flattened and encoded to UTF-8 the slow way.
 */
export function graphqlJsSchema(schema: Schema): GraphQLSchema {
  try {
    return buildASTSchema(parse(oneByteText(printSchema(schema)), { noLocation: true }));
  } catch {
    // what toGraphQLJSSchema adds for extensions of types the schema never defines
    return schema.toGraphQLJSSchema();
  }
}

/**
 * Every name of `sdl` interned one-byte, held for as long as the result is. V8 keeps one interned string per name and
 * the first interned wins: federation-internals builds graphql-js schemas from its two-byte prints while it reads a
 * supergraph (to validate it), and whatever interns a name while one of those is alive gets the two-byte one. Interned
 * first from the supergraph's own text, and held, the one-byte names are the ones everything finds.
 */
export function internedNames(sdl: string): Readonly<Record<string, true>> {
  const names: Record<string, true> = Object.create(null) as Record<string, true>;
  visit(parse(oneByteText(sdl), { noLocation: true }), {
    Name(node) {
      names[node.value] = true;
    },
  });
  return names;
}
