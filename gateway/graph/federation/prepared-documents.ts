import { GraphQLError, parse, validate, type DocumentNode, type GraphQLSchema } from 'graphql';
import { LRUCache } from 'lru-cache';

export type Prepared = { document: DocumentNode } | { errors: readonly GraphQLError[] };

/**
 * Operation texts parsed and validated against one schema, once each: the query planner sends a subgraph the same
 * few operation strings over and over, and every subscriber of an operation sends the same text.
 */
export class PreparedDocuments {
  private readonly prepared = new LRUCache<string, Prepared>({ max: 2_000 });

  constructor(private readonly schema: GraphQLSchema) {}

  get(query: string): Prepared {
    let prepared = this.prepared.get(query);
    if (!prepared) {
      try {
        const document = parse(query);
        const errors = validate(this.schema, document);
        prepared = errors.length ? { errors } : { document };
      } catch (err) {
        prepared = { errors: [err instanceof GraphQLError ? err : new GraphQLError(String(err))] };
      }
      this.prepared.set(query, prepared);
    }
    return prepared;
  }
}
