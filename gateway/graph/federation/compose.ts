import { composeServices } from '@apollo/composition';
import { printSubgraphSchema } from '@apollo/subgraph';
import { parse } from 'graphql';
import type { SubgraphDefinition } from '../../../subgraphs/descriptor';

export type { SubgraphDefinition };

export class CompositionError extends Error {
  constructor(readonly messages: string[]) {
    super(`Supergraph composition failed:\n${messages.map((m) => `  - ${m}`).join('\n')}`);
    this.name = 'CompositionError';
  }
}

export interface Composed {
  subgraphSdl: Record<string, string>;
  supergraphSdl: string;
}

/** Composes the subgraphs with Apollo's composition library; its own error messages are passed through. */
export function composeSupergraph(subgraphs: SubgraphDefinition[]): Composed {
  const subgraphSdl: Record<string, string> = {};
  for (const s of subgraphs) subgraphSdl[s.name] = printSubgraphSchema(s.schema);
  const result = composeServices(
    subgraphs.map((s) => ({ name: s.name, url: s.url, typeDefs: parse(subgraphSdl[s.name] as string) })),
  );
  if (result.errors) throw new CompositionError(result.errors.map((e) => e.message));
  return { subgraphSdl, supergraphSdl: result.supergraphSdl };
}
