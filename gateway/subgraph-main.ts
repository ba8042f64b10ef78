import './host/production-defaults';
import 'reflect-metadata';
import { Command, Option } from 'commander';
import { ConfigError, envSetting, loadConfig } from './host/config/load';
import { createLogger, resolveLogFormat } from '../platform/log';
import { buildSubgraphServer, subgraphServerOptions } from './host/subgraph-server';
import { buildSubgraph } from './host/subgraphs';
import { descriptorOf, SUBGRAPH_DESCRIPTORS } from '../subgraphs';
import { startDns } from './host/dns';

/** `npm run subgraph -- NAME --port N`: one subgraph alone as an HTTP service (GraphQL at /graphql). */
async function main(): Promise<void> {
  const names = SUBGRAPH_DESCRIPTORS.map((s) => s.name);
  const program = new Command()
    .name('npm run subgraph --')
    .description(
      `Runs one subgraph alone; point the gateway at it with --subgraph NAME=http://HOST:PORT/graphql.\nSubgraphs: ${names.join(', ')}. The configuration (file, environment) is the gateway's.`,
    )
    .argument('<name>', `subgraph to run: ${names.join(', ')}`)
    .addOption(new Option('--port <n>', 'HTTP port [PORT, default: the one in the supergraph, e.g. 4101 for market]'))
    .addOption(new Option('--host <addr>', 'address to listen on [HOST, default 127.0.0.1]'))
    .addOption(new Option('--config <file>', 'YAML or JSON config file [CONFIG]'))
    .parse(process.argv);
  const [name] = program.args as [string];
  const entry = descriptorOf(name);
  if (!entry) throw new ConfigError(`unknown subgraph "${name}": use one of ${names.join(', ')}`);
  const o = program.opts<{ port?: string; host?: string; config?: string }>();
  // PORT wins over the supergraph's port, but the config file's port (the gateway's) does not apply here.
  const port = o.port ?? envSetting('port') ?? new URL(entry.defaultUrl).port;
  const config = loadConfig({ file: o.config, flags: { port, host: o.host } });
  const log = createLogger(config.logLevel, undefined, resolveLogFormat(config.logFormat));
  if (entry.needs.includes('dns') && !config.databaseUrl) {
    throw new ConfigError(
      `subgraph ${name} served alone needs the zone store on PostgreSQL (DATABASE_URL): on SQLite the DNS server of ` +
        'the gateway process would never hear of its changes. Set DATABASE_URL=postgres://… for both processes, or ' +
        'run it inside the gateway (npm start).',
    );
  }
  // The engines it needs, without a DNS listener of its own (the DNS server runs with the gateway).
  const dns = entry.needs.includes('dns') ? await startDns({ ...config, dnsPort: 0, seedDemo: false }, log) : undefined;
  const subgraph = await buildSubgraph(
    entry,
    config,
    log,
    dns ? { dns: { store: dns.store, engine: dns.engine, vault: dns.vault } } : {},
  );
  const { app } = await buildSubgraphServer(subgraph, log, subgraphServerOptions(config));
  // One line for the listener (Fastify's own, with this text), naming what it serves.
  await app.listen({
    port: config.port,
    host: config.host,
    listenTextResolver: (address) => `subgraph ${name} listening at ${address}: GraphQL ${address}/graphql`,
  });
  const stop = (signal: string): void => {
    log.info({ signal }, 'shutting down');
    app
      .close()
      .then(() => subgraph.close())
      .then(() => dns?.close())
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
