import type { KeyVault } from '../../dns/dnssec';
import type { Admission } from '../../platform/async';
import type { DnsEngine } from '../../dns/engine';
import { probeStore, type ZoneStore } from '../../dns/store';
import type { SubgraphLogger } from '../descriptor';
import type { Subgraph, SubgraphContext } from '../subgraph';
import { createDnsApiContext, type DnsApiContext, type DnsApiServices } from './context';
import type { Identity, UserStore } from './identity';
import { buildDnsApiSchema } from './schema';
import { ChangeFeed } from './service/changes';
import { DEFAULT_DNSSEC_POLICY, DnssecService, type DnssecPolicy } from './service/dnssec';
import { ExportService } from './service/exports';
import { RolloverDriver, type RolloverDriverOptions } from './service/rollover-driver';
import { OPERATION_LIMITS, Operations, type OperationLimits, type SharedOperations } from './service/operations';
import { KeyedQueue, servingOf } from './service/serving';
import { RECORD_DEFAULTS, RecordService, type RecordServiceOptions } from './service/records';
import { SecondaryZoneService } from './service/secondary-zones';
import { ZONE_DEFAULTS, ZoneService, type ZoneDefaults } from './service/zones';

export { buildDnsApiSchema };

export interface DnsApiSubgraphOptions {
  store: ZoneStore;
  engine: DnsEngine;
  identity: Identity;
  /** The identity's user store (closed with the subgraph). */
  users: UserStore;
  zoneDefaults?: Partial<ZoneDefaults>;
  records?: Partial<RecordServiceOptions>;
  /** Seals the private DNSSEC keys the API makes (the DNS engine opens them with the same master key). */
  vault: KeyVault;
  /** The rollover policy's timings (defaults: DEFAULT_DNSSEC_POLICY). */
  dnssec?: Partial<DnssecPolicy>;
  /** The scheduled part of rollovers (DS checks, CDS of child zones, rollovers at a key's lifetime); off unless given. */
  rollovers?: Omit<RolloverDriverOptions, 'log'>;
  /** The DNSSEC clock in seconds since the epoch (tests move it). */
  now?: () => number;
  /** The cap on whole-zone reads of this process (default: its own, DNS_API_WHOLE_ZONE_READS' defaults). */
  wholeZoneReads?: Admission;
  /** Bounds of the background operations (defaults: OPERATION_LIMITS). */
  operations?: Partial<OperationLimits>;
  /** Where a background operation's unexpected failure is logged. */
  log?: SubgraphLogger;
  /** Where replicas show each other their background operations (none: each sees its own). */
  sharedOperations?: SharedOperations;
  /** Runs last when the subgraph closes (what its builder opened for it, e.g. the login throttle's Redis link). */
  onClose?: () => Promise<void>;
}

export interface DnsApiSubgraph extends Subgraph<DnsApiContext> {
  readonly api: DnsApiServices;
  /** The scheduled part of rollovers (`tick` runs one check). */
  readonly rollovers: RolloverDriver;
}

/**
 * The DNS server API as a subgraph: zones and records of the embedded authoritative server (every write answered
 * over DNS before it returns), users and tokens, and the change feed. Identity is its own: it issues the tokens.
 */
export async function createDnsApiSubgraph(options: DnsApiSubgraphOptions): Promise<DnsApiSubgraph> {
  const schema = await buildDnsApiSchema();
  const feed = new ChangeFeed(options.store);
  const serving = servingOf(options.engine);
  // One queue of writes per zone for all services: a zone's If-Match check and its write are never interleaved
  // with another write of that zone (a record write, an update, a deletion, a DNSSEC change).
  const writes = new KeyedQueue();
  const zones = new ZoneService(options.store, serving, feed, { ...ZONE_DEFAULTS, ...options.zoneDefaults }, writes);
  const api: DnsApiServices = {
    zones,
    records: new RecordService(options.store, serving, feed, { ...RECORD_DEFAULTS, ...options.records }, writes),
    dnssec: new DnssecService(
      options.store,
      serving,
      feed,
      options.vault,
      writes,
      { ...DEFAULT_DNSSEC_POLICY, ...options.dnssec },
      options.now,
    ),
    secondaryZones: new SecondaryZoneService(options.store, options.engine),
    exports: new ExportService(zones, options.store, options.wholeZoneReads),
    identity: options.identity,
    feed,
    operations: new Operations(
      { ...OPERATION_LIMITS, ...options.operations },
      options.log,
      undefined,
      options.sharedOperations,
    ),
  };
  const rollovers = new RolloverDriver(
    options.store,
    api.dnssec,
    serving,
    feed,
    {
      everyMs: 0,
      autoRollover: false,
      dsCheck: { servers: [], timeoutMs: 3000 },
      ...options.rollovers,
      ...(options.log ? { log: options.log } : {}),
    },
    options.now,
  );
  rollovers.start();
  return {
    name: 'dns-api',
    schema,
    api,
    rollovers,
    createContext: (base: SubgraphContext) => createDnsApiContext(base, api),
    async health() {
      const probe = await probeStore(options.store);
      return {
        status: probe.problem ? 'degraded' : 'ok',
        ready: !probe.problem,
        ...(probe.problem ? { problems: [probe.problem] } : {}),
        store: options.store.kind,
        users: options.users.kind,
        zones: probe.zones,
        changeSubscribers: feed.size,
        operationsRunning: api.operations.active,
      };
    },
    async close() {
      // Background writes end before the stores close (each is committed whole or not at all).
      await rollovers.close();
      await api.operations.drain();
      feed.close();
      await options.users.close();
      await options.onClose?.();
    },
  };
}
