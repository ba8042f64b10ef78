import type { SubgraphDefinition, SubgraphDescriptor } from './descriptor';
import { dnsApiDescriptor } from './dns-api/descriptor';
import { dnsToolDescriptor } from './dns-tool/descriptor';
import { marketDescriptor } from './market/descriptor';

/** Every subgraph of the product, in composition order. */
export const SUBGRAPH_DESCRIPTORS: readonly SubgraphDescriptor[] = [
  marketDescriptor,
  dnsApiDescriptor,
  dnsToolDescriptor,
];

export function descriptorOf(name: string): SubgraphDescriptor | undefined {
  return SUBGRAPH_DESCRIPTORS.find((d) => d.name === name);
}

/** Each subgraph's schema and URL, for composition (nothing is started). */
export async function subgraphDefinitions(): Promise<SubgraphDefinition[]> {
  return Promise.all(
    SUBGRAPH_DESCRIPTORS.map(async (d) => ({ name: d.name, url: d.defaultUrl, schema: await d.buildSchema() })),
  );
}
