import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import { AggregatorRegistry, type Registry } from 'prom-client';
import type { Config } from './config/schema';
import type { Logger } from '../../platform/log';

/**
 * Several gateway processes behind one port (node:cluster): the primary accepts connections and hands each to a
 * worker in turn; every worker is a whole gateway over the same supergraph and remote subgraphs. Workers share no
 * state: each has its own plan cache and response cache (entries are per caller and bounded in time, so a worker
 * never serves what another would not), and subscriptions live on the worker holding their connection.
 * /metrics of any worker answers for all of them, aggregated by the primary.
 */

const METRICS_REQUEST = 'onegraph:metrics?';
const METRICS_REPLY = 'onegraph:metrics';

export function workerCount(config: Pick<Config, 'workers'>): number {
  return config.workers === 'auto' ? availableParallelism() : config.workers;
}

/** Runs the primary: starts `count` workers, restarts one that dies, passes SIGTERM/SIGINT on and waits for all. */
export function runPrimary(count: number, log: Logger, graceMs: number): void {
  const aggregator = new AggregatorRegistry();
  const started = new Set<Worker>();
  /** Workers that got as far as listening: one that dies before is a start-up failure, not worth another try. */
  const listening = new WeakSet<Worker>();
  let stopping = false;
  let exitCode = 0;
  const fork = (): void => {
    started.add(cluster.fork());
  };
  cluster.on('listening', (worker) => listening.add(worker));
  cluster.on('exit', (worker, code, signal) => {
    started.delete(worker);
    if (stopping) {
      if (started.size === 0) process.exit(exitCode);
      return;
    }
    if (!listening.has(worker)) {
      log.fatal({ pid: worker.process.pid, code, signal }, 'a gateway worker died before it could serve: stopping');
      exitCode = 1;
      stop('worker start-up failure');
      return;
    }
    log.error({ pid: worker.process.pid, code, signal }, 'a gateway worker died: starting another');
    fork();
  });
  cluster.on('message', (worker, message: unknown) => {
    if ((message as { type?: unknown } | null)?.type !== METRICS_REQUEST) return;
    const id = (message as { id?: unknown }).id;
    aggregator.clusterMetrics().then(
      (text) => worker.send({ type: METRICS_REPLY, id, text }),
      (err: unknown) => worker.send({ type: METRICS_REPLY, id, error: String(err) }),
    );
  });
  const stop = (reason: string): void => {
    if (stopping) return;
    stopping = true;
    log.info({ reason, workers: started.size }, 'stopping the gateway workers');
    for (const worker of started) worker.process.kill('SIGTERM');
    if (started.size === 0) process.exit(exitCode);
    setTimeout(() => process.exit(1), graceMs + 10_000).unref();
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  for (let i = 0; i < count; i++) fork();
  log.info({ workers: count }, `gateway: ${count} worker processes behind one port`);
}

/** In a worker: registers its metrics for the primary to gather. */
export function shareMetrics(registry: Registry): void {
  if (!cluster.isWorker) return;
  AggregatorRegistry.setRegistries([registry]);
  // prom-client answers the primary's requests only once an AggregatorRegistry exists in the worker too.
  new AggregatorRegistry();
}

let nextRequest = 0;

/** The metrics text /metrics serves: this process's, or in a worker every worker's, aggregated by the primary. */
export function metricsText(registry: Registry): Promise<string> {
  if (!cluster.isWorker || !process.send) return registry.metrics();
  const id = ++nextRequest;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      process.off('message', onMessage);
      reject(new Error('the primary did not send the aggregated metrics within 5 s'));
    }, 5_000);
    const onMessage = (message: unknown): void => {
      const m = message as { type?: unknown; id?: unknown; text?: unknown; error?: unknown } | null;
      if (m?.type !== METRICS_REPLY || m.id !== id) return;
      clearTimeout(timer);
      process.off('message', onMessage);
      if (typeof m.text === 'string') resolve(m.text);
      else reject(new Error(String(m.error)));
    };
    process.on('message', onMessage);
    process.send?.({ type: METRICS_REQUEST, id });
  });
}
