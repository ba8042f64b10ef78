import './production-defaults';
import 'reflect-metadata';
import cluster from 'node:cluster';
import { Command, Option } from 'commander';
import { StoreError } from '../dns/store/types';
import { runPrimary, workerCount } from './cluster';
import { ConfigError, loadConfig } from './config/load';
import type { Config } from './config/schema';
import { createLogger, resolveLogFormat } from './logger';
import { createSystem } from './system';
import { VERSION } from '../platform/version';

function pairs(flag: string, what: string) {
  return (value: string, previous: Record<string, string> = {}): Record<string, string> => {
    const eq = value.indexOf('=');
    if (eq <= 0) throw new ConfigError(`${flag} expects ${what} (got "${value}")`);
    return { ...previous, [value.slice(0, eq)]: value.slice(eq + 1) };
  };
}

function parseFlags(argv: string[]): Partial<Record<keyof Config, unknown>> & { config?: string } {
  const program = new Command()
    .name('npm start --')
    .description(
      'One GraphQL API over market data and DNS, plus the REST interfaces of each service.\n' +
        'Every flag has an environment variable (shown in brackets); flags win over the environment, which wins over the config file.',
    )
    .version(VERSION)
    .addOption(new Option('--port <n>', 'gateway HTTP port [PORT, default 4000]'))
    .addOption(new Option('--host <addr>', 'address to listen on [HOST, default 127.0.0.1]'))
    .addOption(new Option('--config <file>', 'YAML or JSON config file [CONFIG]'))
    .addOption(new Option('--data-dir <dir>', 'data directory [DATA_DIR, default ./data]'))
    .addOption(
      new Option('--market-provider <name>', 'market data provider [MARKET_PROVIDER]').choices(['simulated', 'google']),
    )
    .addOption(new Option('--market-seed <seed>', 'seed of the simulated market [MARKET_SEED]'))
    .addOption(new Option('--market-clock <iso>', 'freeze the simulated market at this instant [MARKET_CLOCK]'))
    .addOption(new Option('--google-finance-url <url>', 'base URL of the upstream RPC [GOOGLE_FINANCE_URL]'))
    .addOption(new Option('--redis-url <url>', 'Redis for the shared market cache [REDIS_URL, default: in memory]'))
    .addOption(new Option('--live-interval-ms <ms>', 'live price interval [LIVE_INTERVAL_MS, default 15000]'))
    .addOption(new Option('--cors-origins <list>', 'allowed CORS origins, comma-separated or * [CORS_ORIGINS]'))
    .addOption(new Option('--no-response-cache', 'disable the whole-response cache [RESPONSE_CACHE=false]'))
    .addOption(new Option('--dns-host <addr>', 'embedded DNS server address [DNS_HOST, default 127.0.0.1]'))
    .addOption(
      new Option('--dns-port <n>', 'embedded DNS server port, UDP and TCP; 0 turns it off [DNS_PORT, default 5353]'),
    )
    .addOption(
      new Option(
        '--database-url <url>',
        'postgres:// URL for the zone store [DATABASE_URL, default SQLite in the data dir]',
      ),
    )
    .addOption(
      new Option(
        '--zone <name=file>',
        'load a zone from an RFC 1035 master file at start, if the store lacks it (repeatable)',
      ).argParser(pairs('--zone', 'NAME=FILE')),
    )
    .addOption(
      new Option(
        '--tsig-keyfile <file>',
        'TSIG keys in BIND key-file format, for dynamic update and transfer [TSIG_KEYFILE]',
      ),
    )
    .addOption(
      new Option('--notify <host:port>', 'secondary to NOTIFY after changes, comma-separated [NOTIFY_TARGETS]'),
    )
    .addOption(
      new Option(
        '--supergraph <file>',
        'serve this Federation 2 supergraph (remote subgraphs, URLs from the file) as a general gateway',
      ),
    )
    .addOption(
      new Option(
        '--workers <n|auto>',
        'gateway processes sharing the port, auto: one per core; more than one only with --supergraph [WORKERS, default 1]',
      ),
    )
    .addOption(
      new Option('--subgraph <name=url>', 'use a remote subgraph instead of the in-process one (repeatable)').argParser(
        pairs('--subgraph', 'NAME=URL'),
      ),
    )
    .addOption(new Option('--log-level <level>', 'fatal, error, warn, info, debug, trace or silent [LOG_LEVEL]'))
    .addOption(
      new Option(
        '--log-format <format>',
        'auto (readable on a terminal, JSON otherwise), json or pretty [LOG_FORMAT]',
      ).choices(['auto', 'json', 'pretty']),
    )
    .parse(argv);
  const o = program.opts<Record<string, unknown>>();
  return {
    config: o.config as string | undefined,
    port: o.port,
    host: o.host,
    dataDir: o.dataDir,
    marketProvider: o.marketProvider,
    marketSeed: o.marketSeed,
    marketClock: o.marketClock,
    googleFinanceUrl: o.googleFinanceUrl,
    redisUrl: o.redisUrl,
    liveIntervalMs: o.liveIntervalMs,
    corsOrigins: o.corsOrigins,
    logLevel: o.logLevel,
    logFormat: o.logFormat,
    responseCache: o.responseCache === false ? false : undefined,
    subgraphUrls: o.subgraph,
    supergraphFile: o.supergraph,
    workers: o.workers,
    dnsHost: o.dnsHost,
    dnsPort: o.dnsPort,
    databaseUrl: o.databaseUrl,
    zoneFiles: o.zone,
    tsigKeyFile: o.tsigKeyfile,
    notifyTargets: o.notify,
  };
}

async function main(): Promise<void> {
  const { config: file, ...flags } = parseFlags(process.argv);
  const config = loadConfig({ flags, file });
  const log = createLogger(config.logLevel, undefined, resolveLogFormat(config.logFormat));
  const workers = workerCount(config);
  if (workers > 1 && cluster.isPrimary) {
    runPrimary(workers, log, config.shutdownGraceMs);
    return;
  }
  const system = await createSystem(config, log);
  const address = await system.app.listen({ port: config.port, host: config.host });
  const apiAddress = await system.apiApp?.listen({ port: config.dnsApiPort, host: config.host });
  if (apiAddress) log.info({ address: apiAddress }, `DNS API also on ${apiAddress}/api/v1`);
  log.info(
    { address, marketProvider: config.marketProvider },
    `gateway listening: GraphQL ${address}/graphql, market REST ${address}/v1/…, DNS API ${address}/api/v1/…, DNS tool ${address}/api.php`,
  );
  if (system.dns?.engine.server) {
    const { host, port } = system.dns.engine.server;
    log.info(
      { host, port },
      `DNS server answering on ${host}:${port} (UDP and TCP): dig @${host} -p ${port} www.example.test`,
    );
  }

  const shutdown = (signal: string): void => {
    log.info({ signal }, 'shutting down');
    // close() cuts what is left after the grace period; this is the last resort should anything else hang.
    const force = setTimeout(() => process.exit(1), config.shutdownGraceMs + 5_000).unref();
    system.close().then(
      () => {
        clearTimeout(force);
        process.exit(0);
      },
      (err: unknown) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

main().catch((err: unknown) => {
  // A bad setting or an unreachable store is the user's to fix: its message says what, a stack trace adds nothing.
  console.error(err instanceof ConfigError || err instanceof StoreError ? `cannot start: ${err.message}` : err);
  process.exit(1);
});
