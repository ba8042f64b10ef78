import type { GraphQLDataSource, GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { GraphQLDataSourceRequestKind } from '@apollo/gateway/dist/datasources/types';
import type { GatewayGraphQLResponse } from '@apollo/server-gateway-interface';
import type { GatewayContext } from '../context';
import type { GatewayMetrics } from '../metrics';
import { FetchStop, withSignal } from './fetch-signal';
import { subgraphUnavailable } from './subgraph-errors';

/**
 * Wraps a subgraph data source: bounds each fetch by the subgraph timeout (the request goes on with the other
 * subgraphs' data and an error naming this one), and records the fetch in the metrics and the request's log line.
 */
export class TimedDataSource implements GraphQLDataSource<GatewayContext> {
  constructor(
    private readonly name: string,
    private readonly inner: GraphQLDataSource<GatewayContext>,
    private readonly timeoutMs: number,
    private readonly metrics?: GatewayMetrics,
  ) {}

  /** A fetch that failed outright (connection refused, reset, bad answer) as an error naming the subgraph. */
  private unavailable(err: unknown): GatewayGraphQLResponse {
    return { errors: [subgraphUnavailable(this.name, err)] };
  }

  async process(options: GraphQLDataSourceProcessOptions<GatewayContext>): Promise<GatewayGraphQLResponse> {
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<GatewayGraphQLResponse>((resolve) => {
      timer = setTimeout(
        () =>
          resolve({
            errors: [
              {
                message: `subgraph ${this.name} did not answer within ${this.timeoutMs} ms (subgraphTimeoutMs)`,
                extensions: { code: 'SUBGRAPH_TIMEOUT', serviceName: this.name },
              },
            ],
          }),
        this.timeoutMs,
      );
    });
    // The subgraph's work on it stops at the deadline too, or sooner when the request's client goes away.
    const stop = new FetchStop(options);
    void timeout.then(() => stop.expire(new Error(`no answer from subgraph ${this.name} is awaited any more`)));
    let ok = false;
    try {
      const result = await Promise.race([
        this.inner.process(withSignal(options, stop.signal)).catch((err: unknown) => this.unavailable(err)),
        timeout,
      ]);
      ok = !result.errors?.length;
      return result;
    } finally {
      clearTimeout(timer);
      stop.release();
      const ms = performance.now() - started;
      this.metrics?.subgraphFetch.observe({ subgraph: this.name, outcome: ok ? 'ok' : 'error' }, ms / 1000);
      if (options.kind === GraphQLDataSourceRequestKind.INCOMING_OPERATION) {
        options.context.fetches?.push({ subgraph: this.name, ms: Math.round(ms * 10) / 10, ok });
      }
    }
  }
}
