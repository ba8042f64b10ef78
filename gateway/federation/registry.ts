import type { GraphQLSchema } from 'graphql';
import { buildMarketSchema } from '../../subgraphs/market';
import type { SubgraphDefinition } from './compose';

/** Every subgraph of the product, the port it listens on when run alone, and how to build its schema. */
export const SUBGRAPHS: ReadonlyArray<{ name: string; defaultUrl: string; buildSchema: () => Promise<GraphQLSchema> }> =
  [{ name: 'market', defaultUrl: 'http://127.0.0.1:4101/graphql', buildSchema: buildMarketSchema }];

export async function subgraphDefinitions(): Promise<SubgraphDefinition[]> {
  return Promise.all(SUBGRAPHS.map(async (s) => ({ name: s.name, url: s.defaultUrl, schema: await s.buildSchema() })));
}
