import './production-defaults';
import 'reflect-metadata';
import { Command, Option } from 'commander';
import { ConfigError, loadConfig } from './config/load';
import { SUBGRAPHS } from './federation/registry';
import { createLogger, resolveLogFormat } from './logger';
import { buildSubgraphServer, subgraphServerOptions } from './subgraph-server';
import { createSubgraph } from './subgraphs';

/** `npm run subgraph -- NAME --port N`: one subgraph alone as an HTTP service (GraphQL at /graphql). */
async function main(): Promise<void> {
  const names = SUBGRAPHS.map((s) => s.name);
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
  const entry = SUBGRAPHS.find((s) => s.name === name);
  if (!entry) throw new ConfigError(`unknown subgraph "${name}": use one of ${names.join(', ')}`);
  const o = program.opts<{ port?: string; host?: string; config?: string }>();
  const port = o.port ?? process.env.PORT ?? new URL(entry.defaultUrl).port;
  const config = loadConfig({ file: o.config, flags: { port, host: o.host } });
  const log = createLogger(config.logLevel, undefined, resolveLogFormat(config.logFormat)).child({ subgraph: name });
  const subgraph = await createSubgraph(name, config, log);
  const { app } = await buildSubgraphServer(subgraph, log, subgraphServerOptions(config));
  const address = await app.listen({ port: config.port, host: config.host });
  log.info({ address }, `subgraph ${name} listening: ${address}/graphql`);
  const stop = (signal: string): void => {
    log.info({ signal }, 'shutting down');
    app
      .close()
      .then(() => subgraph.close())
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
