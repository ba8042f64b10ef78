import { closeSync, openSync, readFileSync, unlinkSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join, resolve } from 'node:path';
import { autoWorkerCount, DnsEngine } from '../../dns/engine';
import { wireName, type Zone } from '../../dns/model';
import type { NotifyTarget, RrlOptions } from '../../dns/server';
import { openZoneStore, probeStore, StoreError, type ZoneStore } from '../../dns/store';
import { securePrivateDir, type Tightened } from '../../platform/files';
import { parseKeySpec, readKeyFile, type TsigKey } from '../../dns/tsig';
import { importZoneFile } from '../../dns/zonefile';
import type { SubgraphHealth } from '../../subgraphs/subgraph';
import { ConfigError } from './config/load';
import { signingPolicyOf, type Config } from './config/schema';
import type { Logger } from '../../platform/log';
import { MASTER_KEY_FILE, type KeyVault } from '../../dns/dnssec';
import { checkMasterKey, configuredMasterKey, openVault } from './master-key';
import { sharedToolKey, TOOL_KEY_NAME } from './tool-key';
import { secondaryZonesFor } from './secondary-zones';
import { settingName } from './config/flags';

export interface DnsPart {
  store: ZoneStore;
  engine: DnsEngine;
  /** The DNS tool's key for this server (generated into DATA_DIR on first start); absent when DNS is off. */
  toolKey?: TsigKey;
  /** Seals and opens the secrets kept in the store (master key from MASTER_KEY, MASTER_KEY_FILE or DATA_DIR/dnssec-master.key). */
  vault: KeyVault;
  health(): Promise<SubgraphHealth>;
  close(): Promise<void>;
}

/** A small zone so that a first start has something to query (`dig @127.0.0.1 -p 5353 www.example.test`). */
export const DEMO_ZONE = `$ORIGIN example.test.
$TTL 3600
@     IN SOA ns1.example.test. hostmaster.example.test. ( 1 10800 3600 604800 300 )
      IN NS  ns1.example.test.
      IN MX  10 mail.example.test.
      IN TXT "v=spf1 mx -all"
ns1   IN A   127.0.0.1
mail  IN A   192.0.2.25
www   IN A   192.0.2.10
      IN AAAA 2001:db8::10
api   IN CNAME www
`;

function parseTarget(text: string): NotifyTarget {
  const [, host, port] = /^\[?([^\]]+)\]?:(\d+)$/.exec(text) ?? [];
  if (host === undefined || port === undefined) throw new Error(`NOTIFY_TARGETS: ${text} is not host:port`);
  return { host, port: Number(port) };
}

/** An RRset over the limit in a zone file loaded at start: the error says which setting raises the limit. */
function withLimitHint(err: unknown, what: string): unknown {
  if (!(err instanceof StoreError) || !/^too many records/.test(err.message)) return err;
  return new StoreError(
    err.code,
    `${what}: ${err.message} (DNS_MAX_RECORDS_PER_RRSET / dnsMaxRecordsPerRrset raises it; 0 = no limit)`,
    err.index,
  );
}

/**
 * A `--zone` master file loaded into the store. Whatever is wrong with it (unreadable, a bad line, over a limit)
 * stops the start with a message naming the file, the line and the problem — a setting to fix, not a crash.
 */
async function loadZoneFile(store: ZoneStore, name: string, file: string): Promise<Zone> {
  try {
    return await importZoneFile(store, name, readFileSync(file, 'utf8'));
  } catch (err) {
    if (err instanceof StoreError && /^too many records/.test(err.message))
      throw withLimitHint(err, `zone file ${file}`);
    throw new ConfigError(`zone file ${file} (zone ${name || '.'}): ${(err as Error).message}`);
  }
}

export { TOOL_KEY_NAME } from './tool-key';

/** `root (uid 0)`: who this process runs as, for a message about what it may not do. */
function processUser(): string {
  const uid = process.getuid?.();
  try {
    return `${userInfo().username} (uid ${uid})`;
  } catch {
    return `uid ${uid}`; // a uid with no entry in /etc/passwd (containers)
  }
}

/**
 * DATA_DIR made private (0700, its files 0600) and shown writable by creating a file in it: what was tightened. A
 * directory that cannot be made or written is a setting to fix, said before SQLite's "unable to open database file".
 */
function securedDataDir(dataDir: string): Tightened[] {
  const fix = `give that user write permission on it, or set ${settingName('dataDir')} to a directory it can write`;
  let tightened: Tightened[];
  try {
    tightened = securePrivateDir(dataDir);
  } catch (err) {
    throw new ConfigError(`DATA_DIR: ${(err as Error).message} (the process runs as ${processUser()}): ${fix}`);
  }
  const probe = join(dataDir, `.write-check-${process.pid}`);
  try {
    closeSync(openSync(probe, 'w', 0o600));
    unlinkSync(probe);
  } catch (err) {
    const { code, message } = err as NodeJS.ErrnoException;
    throw new ConfigError(
      `DATA_DIR ${resolve(dataDir)}: this process's user, ${processUser()}, cannot write the directory ` +
        `(${code ?? message}): ${fix}`,
    );
  }
  return tightened;
}

/** The RRL settings as the engine takes them (false: off). */
function rrlOptions(config: Config): RrlOptions | false {
  if (config.dnsRrl === 'off') return false;
  const optional = (key: string, value: number | undefined): object => (value === undefined ? {} : { [key]: value });
  return {
    mode: config.dnsRrl,
    responsesPerSecond: config.dnsRrlResponsesPerSecond,
    ...optional('nxdomainsPerSecond', config.dnsRrlNxdomainsPerSecond),
    ...optional('nodataPerSecond', config.dnsRrlNodataPerSecond),
    ...optional('referralsPerSecond', config.dnsRrlReferralsPerSecond),
    ...optional('errorsPerSecond', config.dnsRrlErrorsPerSecond),
    windowS: config.dnsRrlWindowS,
    slip: config.dnsRrlSlip,
    ipv4Prefix: config.dnsRrlIpv4Prefix,
    ipv6Prefix: config.dnsRrlIpv6Prefix,
    exempt: config.dnsRrlExempt,
    tableSize: config.dnsRrlTableSize,
  };
}

/** Opens the zone store, loads `--zone` files and the demo zone on first start, and starts the DNS engine. */
export async function startDns(config: Config, log: Logger): Promise<DnsPart> {
  const dnsLog = log.child({ part: 'dns' });
  // Said once: an older version (or a loose umask) left secrets readable by other local users.
  for (const t of securedDataDir(config.dataDir))
    dnsLog.warn(t, 'data directory: permissions tightened (it holds keys and password hashes)');
  const store = await openZoneStore({
    dataDir: config.dataDir,
    databaseUrl: config.databaseUrl,
    maxRecordsPerRrset: config.dnsMaxRecordsPerRrset,
  });
  try {
    // Before anything is served or written: a master key that cannot open the store's secrets stops the start here.
    const masterKey = configuredMasterKey(config);
    const vault = openVault(config.dataDir, masterKey);
    await checkMasterKey(store, vault, config);
    if (store.kind === 'postgres' && masterKey === undefined)
      dnsLog.warn(
        { file: join(config.dataDir, MASTER_KEY_FILE) },
        'PostgreSQL store without MASTER_KEY: every other replica needs this same master key (give it as MASTER_KEY or MASTER_KEY_FILE)',
      );
    const existing = new Set((await store.listZones()).map((z) => z.name));
    for (const [rawName, file] of Object.entries(config.zoneFiles)) {
      const name = wireName(rawName);
      if (existing.has(name)) {
        dnsLog.warn(
          { zone: name, file },
          'zone already in the store: kept as it is (the store is the source of truth once loaded)',
        );
        continue;
      }
      const zone = await loadZoneFile(store, name, file);
      existing.add(name);
      dnsLog.info({ zone: name, file, records: zone.recordsCount }, 'zone loaded from master file');
    }
    // a server that is secondary for zones is no first start to seed: it has zones to serve
    if (existing.size === 0 && config.seedDemo && config.dnsSecondaryZones.length === 0) {
      const zone = await importZoneFile(store, 'example.test', DEMO_ZONE);
      dnsLog.info({ zone: zone.name, records: zone.recordsCount }, 'first start: demo zone example.test created');
    }
    const keys = config.tsigKeyFile ? readKeyFile(config.tsigKeyFile) : [];
    // The DNS tool manages this server over the wire, like any other: with a key of its own (unless one is named so).
    const toolKey =
      config.dnsPort === 0
        ? undefined
        : (keys.find((k) => k.name === TOOL_KEY_NAME) ??
          (await sharedToolKey(config.dataDir, { store, vault }, dnsLog)));
    if (toolKey && !keys.includes(toolKey)) keys.push(toolKey);
    const secondary = secondaryZonesFor(config.dnsSecondaryZones, {
      keys: keys.map((k) => k.name),
      storeZones: existing,
      workers: config.dnsWorkers,
    });
    const engine = await DnsEngine.start({
      store,
      dnssec: {
        vault,
        policy: signingPolicyOf(config),
        keptDir: join(config.dataDir, 'signed-zones'),
      },
      host: config.dnsHost,
      port: config.dnsPort,
      listen: config.dnsPort !== 0,
      keys,
      access: config.dnsAccess,
      notify: config.notifyTargets.map(parseTarget),
      ...(config.dnsCatalogZone ? { catalog: config.dnsCatalogZone } : {}),
      notifyKey: config.notifyKey?.includes(':') ? parseKeySpec(config.notifyKey) : config.notifyKey,
      log: dnsLog,
      workers: {
        count: secondary.workers === 'auto' ? autoWorkerCount() : secondary.workers,
        store: { dataDir: config.dataDir, databaseUrl: config.databaseUrl },
      },
      udpBatch: config.dnsUdpBatch === 'on',
      rrl: rrlOptions(config),
      ...(secondary.zones.length > 0
        ? { secondary: { zones: secondary.zones, dir: join(config.dataDir, 'secondary') } }
        : {}),
      ...(store.kind === 'postgres' ? { replicaCheck: { everyMs: config.dnsReplicaCheckMs } } : {}),
      tcp: {
        maxConnections: config.dnsTcpMaxConnections,
        idleMs: config.dnsTcpIdleMs,
        messageMs: config.dnsTcpMessageMs,
        maxBufferedBytes: config.dnsTcpMaxBufferedBytes,
      },
    });
    return {
      store,
      engine,
      vault,
      ...(toolKey ? { toolKey } : {}),
      health: () => dnsHealth(store, engine),
      async close() {
        await engine.close();
        await store.close();
      },
    };
  } catch (err) {
    await store.close();
    throw err;
  }
}

/**
 * The DNS part's health: the store answering (bounded), the listener, the zones served and, on a shared store, what
 * the replica check found. `degraded` (DNS keeps answering from what it has) when the store is slow or away, or a
 * zone stays behind it; `ready` false then (a load balancer should send writes and reads elsewhere).
 */
export async function dnsHealth(store: ZoneStore, engine: DnsEngine): Promise<SubgraphHealth> {
  const probe = await probeStore(store);
  const problems: string[] = probe.problem ? [probe.problem] : [];
  const replication = engine.replication();
  if (replication && !replication.current)
    problems.push(`zones not compared with the store since ${replication.lastCheckAt ?? 'start'}`);
  if (replication && replication.stale.length > 0)
    problems.push(
      `${replication.stale.length} zone(s) differ from the store: ${replication.stale.map((z) => z.zone).join(', ')}`,
    );
  // a secondary zone whose refresh fails still answers (until it expires): degraded, still ready; one that answers
  // SERVFAIL (expired, or not transferred yet) makes the server not ready as well
  // the listener bound and every zone loaded (the engine starts only so), and no answer thread being replaced
  if (!engine.answering) problems.push('the DNS server does not answer: its answer thread is being started again');
  let ready = problems.length === 0;
  const secondary = engine.secondaryStatus();
  for (const z of secondary) {
    if (z.expired) ready = false;
    if (z.expired || z.error !== undefined)
      problems.push(
        `secondary zone ${z.zone} ${z.expired ? 'answers SERVFAIL (expired, or not transferred yet)' : 'could not be refreshed'}` +
          (z.error === undefined ? '' : `: ${z.error}`),
      );
  }
  return {
    status: problems.length > 0 ? 'degraded' : 'ok',
    ready,
    ...(problems.length > 0 ? { problems } : {}),
    store: store.kind,
    zones: probe.zones,
    served: engine.index.size,
    listening: engine.server ? `${engine.server.host}:${engine.server.port}` : null,
    rrl: engine.rrlMode,
    ...(replication ? { replication } : {}),
    ...(secondary.length > 0 ? { secondary } : {}),
  };
}
