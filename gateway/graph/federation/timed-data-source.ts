import type { GraphQLDataSource, GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { GraphQLDataSourceRequestKind } from '@apollo/gateway/dist/datasources/types';
import type { GatewayGraphQLResponse } from '@apollo/server-gateway-interface';
import { getOperationAST, OperationTypeNode, parse, type DocumentNode } from 'graphql';
import type { GatewayContext } from '../context';
import type { LongRunningOperations } from '../long-running';
import type { GatewayMetrics } from '../metrics';
import { SpanKind } from '@opentelemetry/api';
import { ATTR, childSpan, endFailed, fetchSpanAttributes, SPAN } from '../tracing';
import { FetchStop, withStop } from './fetch-signal';
import { subgraphTimeout, subgraphUnavailable } from './subgraph-errors';

type ProcessOptions = GraphQLDataSourceProcessOptions<GatewayContext>;

/**
 * Whether the operation sent to the subgraph is a mutation: its own document (the client's on the direct path, a
 * plan's fetch otherwise, parsed only when a fetch times out), else the client's operation.
 */
export function sendsMutation(options: ProcessOptions): boolean {
  const { query, operationName } = options.request;
  const incoming = options.kind === GraphQLDataSourceRequestKind.INCOMING_OPERATION ? options : undefined;
  let document: DocumentNode | undefined = incoming?.document;
  try {
    document ??= query === undefined ? undefined : parse(query);
  } catch {
    document = undefined; // not ours to report: the subgraph would have
  }
  const operation = document && getOperationAST(document, operationName);
  const kind = operation?.operation ?? incoming?.incomingRequestContext.operation?.operation;
  return kind === OperationTypeNode.MUTATION;
}

/** How long a subgraph fetch may take (docs/gateway.md, "Limits"). */
export interface FetchBounds {
  /** SUBGRAPH_TIMEOUT_MS: every fetch but those below. */
  timeoutMs: number;
  /** SUBGRAPH_LONG_TIMEOUT_MS: a fetch that selects a long-running root field; 0: as long as the subgraph works. */
  longTimeoutMs: number;
  /** Which fetches select a long-running root field (`@longRunning` in the supergraph). */
  long: LongRunningOperations;
}

/**
 * Wraps a subgraph data source: bounds each fetch by the subgraph timeout, or a long-running field's fetch by the long
 * one (the request goes on with the other subgraphs' data and an error naming this one; a mutation's says its outcome
 * is unknown), and records the fetch in the metrics and the request's log line.
 */
export class TimedDataSource implements GraphQLDataSource<GatewayContext> {
  constructor(
    private readonly name: string,
    private readonly inner: GraphQLDataSource<GatewayContext>,
    private readonly bounds: FetchBounds,
    private readonly metrics?: GatewayMetrics,
    /** How the subgraph is reached (recorded on fetch spans). */
    private readonly transport: 'http' | 'in-process' = 'in-process',
  ) {}

  /** A fetch that failed outright (connection refused, reset, bad answer) as an error naming the subgraph. */
  private unavailable(err: unknown): GatewayGraphQLResponse {
    return { errors: [subgraphUnavailable(this.name, err)] };
  }

  /** The fetch's bound in milliseconds (0: none) and the setting that gives it. */
  private boundOf(options: ProcessOptions): [number, 'subgraphTimeoutMs' | 'subgraphLongTimeoutMs'] {
    const { query, operationName } = options.request;
    const document = options.kind === GraphQLDataSourceRequestKind.INCOMING_OPERATION ? options.document : undefined;
    return this.bounds.long.selects(query, operationName, document)
      ? [this.bounds.longTimeoutMs, 'subgraphLongTimeoutMs']
      : [this.bounds.timeoutMs, 'subgraphTimeoutMs'];
  }

  async process(options: ProcessOptions): Promise<GatewayGraphQLResponse> {
    const started = performance.now();
    const [bound, setting] = this.boundOf(options);
    let timer: NodeJS.Timeout | undefined;
    const timeout =
      bound > 0
        ? new Promise<GatewayGraphQLResponse>((resolve) => {
            timer = setTimeout(
              () => resolve({ errors: [subgraphTimeout(this.name, bound, sendsMutation(options), setting)] }),
              bound,
            );
          })
        : undefined;
    // The subgraph's work on it stops at the deadline too, or sooner when the request's client goes away.
    const stop = new FetchStop(options);
    void timeout?.then(() => stop.expire(new Error(`no answer from subgraph ${this.name} is awaited any more`)));
    const traced = options.kind === GraphQLDataSourceRequestKind.INCOMING_OPERATION ? options.context.trace : undefined;
    const span =
      traced &&
      childSpan(
        traced,
        SPAN.fetch,
        {
          ...fetchSpanAttributes(this.name, options.request.query, options.request.operationName),
          [ATTR.transport]: this.transport,
        },
        this.transport === 'http' ? SpanKind.CLIENT : SpanKind.INTERNAL,
      );
    let ok = false;
    let failure: string | undefined;
    try {
      const answer = this.inner.process(withStop(options, stop, span)).catch((err: unknown) => this.unavailable(err));
      const result = await (timeout ? Promise.race([answer, timeout]) : answer);
      ok = !result.errors?.length;
      if (!ok) failure = result.errors?.[0]?.message;
      return result;
    } catch (err) {
      failure = err instanceof Error ? err.message : String(err);
      throw err;
    } finally {
      clearTimeout(timer);
      stop.release();
      const ms = performance.now() - started;
      this.metrics?.subgraphFetch.observe({ subgraph: this.name, outcome: ok ? 'ok' : 'error' }, ms / 1000);
      if (options.kind === GraphQLDataSourceRequestKind.INCOMING_OPERATION) {
        options.context.fetches?.push({ subgraph: this.name, ms: Math.round(ms * 10) / 10, ok });
      }
      if (span) {
        if (ok) span.end();
        else endFailed(span, failure ?? `subgraph ${this.name} failed`);
      }
    }
  }
}
