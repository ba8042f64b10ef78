import './host/production-defaults';
import 'reflect-metadata';
import cluster from 'node:cluster';
import { StoreError } from '../dns/store';
import { runPrimary, workerCount } from './host/cluster';
import { ConfigError, loadConfig } from './host/config/load';
import { configCommand, flagValues } from './host/config/flags';
import { createLogger, resolveLogFormat } from '../platform/log';
import { createSystem, type Served } from './host/system';
import { checkListeners, listenError, listenersOf } from './host/listeners';
import { VERSION } from '../platform/version';

function parseFlags(argv: string[]): ReturnType<typeof flagValues> {
  const program = configCommand(
    'npm start --',
    'One GraphQL API over market data and DNS, plus the REST interfaces of each service.\n' +
      'Every flag has an environment variable (shown in brackets); flags win over the environment, which wins over the config file.',
    VERSION,
  );
  return flagValues(program.parse(argv));
}

/** The start-up line of an HTTP listener: its address and the URL of everything it serves. */
function listenText(name: string, serves: readonly Served[]): (address: string) => string {
  return (address) => `${name} listening at ${address}: ${serves.map((s) => servedText(s, address)).join(', ')}`;
}

/** `GraphQL http://…/graphql`; a WebSocket endpoint with its ws:// URLs (`WebSocket ws://…/graphql/ws and ws://…/graphql`). */
function servedText(served: Served, address: string): string {
  const base = served.webSocket ? address.replace(/^http/, 'ws') : address;
  return `${served.what} ${[served.path, ...(served.also ?? [])].map((p) => `${base}${p}`).join(' and ')}`;
}

async function main(): Promise<void> {
  const { config: file, ...flags } = parseFlags(process.argv);
  const config = loadConfig({ flags, file });
  const log = createLogger(config.logLevel, undefined, resolveLogFormat(config.logFormat));
  const workers = workerCount(config);
  const listeners = listenersOf(config);
  // Every port tried before anything is opened or written (a cluster's workers listen through their primary).
  if (cluster.isPrimary) await checkListeners(listeners);
  if (workers > 1 && cluster.isPrimary) {
    runPrimary(workers, log, config.shutdownGraceMs);
    return;
  }
  const system = await createSystem(config, log);
  // Taken between the check and now (a race): the same one line, once the system is closed again. One start-up line
  // per listener, naming what it serves (Fastify's own "Server listening at" line carries this text).
  const listen = async (
    key: 'port' | 'dnsApiPort',
    app: typeof system.app,
    text: (address: string) => string,
  ): Promise<string> => {
    try {
      return await app.listen({ port: config[key], host: config.host, listenTextResolver: text });
    } catch (err) {
      await system.close();
      const listener = listeners.find((l) => l.key === key);
      throw listener ? listenError(err, listener) : err;
    }
  };
  await listen('port', system.app, listenText('gateway', system.serves));
  if (system.apiApp) await listen('dnsApiPort', system.apiApp, listenText('DNS API listener', system.apiServes));

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
