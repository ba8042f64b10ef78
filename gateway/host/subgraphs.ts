import type { SubgraphDescriptor, Engines, GraphAccess } from '../../subgraphs/descriptor';
import type { Subgraph } from '../../subgraphs/subgraph';
import type { Config } from './config/schema';
import type { DnsPart } from './dns';
import type { Logger } from '../../platform/log';

/** Parts a test or an embedding program may supply instead of building them from the configuration. */
export interface SystemOverrides {
  /** Read by the subgraph descriptors, each its own keys (the market's: `marketProvider`). */
  [key: string]: unknown;
  /** More subgraphs to run beside ours (tests: a subgraph that extends Quote); their SDL must be in `supergraphSdl`. */
  extraSubgraphs?: Subgraph[];
  /** The supergraph to serve instead of schema/supergraph.graphql (composed with `extraSubgraphs`). */
  supergraphSdl?: string;
  /**
   * The DNS part, started already (tests serving DNS subgraphs over HTTP in this process share it with the system:
   * a second store on the same SQLite file would not hear of the first one's changes). The system closes it.
   */
  dns?: DnsPart;
}

/** Builds one subgraph from its descriptor, with the engines it declared it needs. */
export async function buildSubgraph(
  descriptor: SubgraphDescriptor,
  config: Config,
  log: Logger,
  engines: Engines,
  overrides: SystemOverrides = {},
  graph?: GraphAccess,
): Promise<Subgraph> {
  for (const need of descriptor.needs) {
    if (!engines[need]) throw new Error(`subgraph ${descriptor.name} needs the ${need} engine, which is not running`);
  }
  return descriptor.create({
    config,
    log: log.child({ subgraph: descriptor.name }),
    engines,
    overrides,
    ...(graph ? { graph } : {}),
  });
}
