import type { SubgraphDescriptor, Engines, GraphAccess, SharedSettings } from '../../subgraphs/descriptor';
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
  /** The planner's source of progressive-override rolls instead of `Math.random` (tests choose the labels). */
  plannerRandom?: () => number;
  /**
   * The DNS part, started already (tests serving DNS subgraphs over HTTP in this process share it with the system:
   * a second store on the same SQLite file would not hear of the first one's changes). The system closes it.
   */
  dns?: DnsPart;
}

/** The product-wide settings a subgraph may read besides its own section. */
function sharedSettings(config: Config): SharedSettings {
  return {
    dataDir: config.dataDir,
    databaseUrl: config.databaseUrl,
    redisUrl: config.redisUrl,
    redisPrefix: config.redisPrefix,
    redisConnectTimeoutMs: config.redisConnectTimeoutMs,
    redisCommandTimeoutMs: config.redisCommandTimeoutMs,
    dnsHost: config.dnsHost,
    tsigKeyFile: config.tsigKeyFile,
    dnsApiIssuer: config.dnsApiIssuer,
    dnsApiAudience: config.dnsApiAudience,
    dnsApiLoginFailuresPerUser: config.dnsApiLoginFailuresPerUser,
    dnsApiLoginFailuresPerAddress: config.dnsApiLoginFailuresPerAddress,
    dnsApiLoginWindowS: config.dnsApiLoginWindowS,
  };
}

/** A subgraph's own section: the keys its config schema declares (the host's schema composed and validated them). */
function sectionOf(descriptor: SubgraphDescriptor, config: Config): Record<string, unknown> {
  return Object.fromEntries(
    Object.keys(descriptor.configSchema.shape).map((key) => [key, (config as Record<string, unknown>)[key]]),
  );
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
    config: sectionOf(descriptor, config),
    shared: sharedSettings(config),
    log: log.child({ subgraph: descriptor.name }),
    engines,
    overrides,
    ...(graph ? { graph } : {}),
  });
}
