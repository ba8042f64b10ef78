import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { AdmissionState } from './admission';

/** Prometheus metrics of one gateway process, served at /metrics. */
export class GatewayMetrics {
  readonly registry = new Registry();
  readonly httpRequests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by route, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
  });
  readonly httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by route',
    labelNames: ['route'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly operationDuration = new Histogram({
    name: 'graphql_operation_duration_seconds',
    help: 'GraphQL operation duration by operation name and type',
    labelNames: ['operation', 'type', 'cached'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly subgraphFetch = new Histogram({
    name: 'subgraph_fetch_duration_seconds',
    help: 'Subgraph fetch duration by subgraph and outcome',
    labelNames: ['subgraph', 'outcome'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly errors = new Counter({
    name: 'graphql_errors_total',
    help: 'GraphQL errors by extensions.code',
    labelNames: ['code'] as const,
    registers: [this.registry],
  });
  readonly liveConnections = new Gauge({
    name: 'live_connections',
    help: 'Open live streams by kind (graphql: subscriptions over SSE; rest: /v1/live)',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  readonly subscriptions = new Gauge({
    name: 'graphql_subscriptions',
    help: 'Active GraphQL subscriptions',
    registers: [this.registry],
  });
  readonly subscriptionEvents = new Counter({
    name: 'graphql_subscription_events_total',
    help: 'Subscription events delivered (before fan-out to identical subscriptions)',
    registers: [this.registry],
  });
  /** Where live_buffered_bytes is read from at each scrape (the server's StreamBuffers). */
  private bufferedBytes: () => number = () => 0;
  readonly liveBufferedBytes: Gauge = new Gauge({
    name: 'live_buffered_bytes',
    help: 'Bytes live streams hold for their clients, not yet sent (LIVE_MAX_BUFFERED_BYTES bounds them)',
    registers: [this.registry],
    collect: (): void => this.liveBufferedBytes.set(this.bufferedBytes()),
  });
  readonly liveSlowClientDisconnects = new Counter({
    name: 'live_slow_client_disconnects_total',
    help: 'Live streams disconnected for falling behind, by kind and the limit that did it',
    labelNames: ['kind', 'limit'] as const,
    registers: [this.registry],
  });
  /** Where the admission gauges are read from at each scrape (the graph's OperationAdmission). */
  private admission: AdmissionState = { limit: 0, running: 0, waiting: 0 };
  readonly operationsAdmitted: Gauge = new Gauge({
    name: 'graphql_operations',
    help: 'GraphQL operations (not subscriptions) executing and waiting their turn (GRAPHQL_CONCURRENCY)',
    labelNames: ['state'] as const,
    registers: [this.registry],
    collect: (): void => {
      this.operationsAdmitted.set({ state: 'running' }, this.admission.running);
      this.operationsAdmitted.set({ state: 'waiting' }, this.admission.waiting);
    },
  });
  readonly operationConcurrencyLimit: Gauge = new Gauge({
    name: 'graphql_operation_concurrency_limit',
    help: 'GraphQL operations allowed to execute at once now (adapted when GRAPHQL_CONCURRENCY=auto; +Inf: off)',
    registers: [this.registry],
    collect: (): void => this.operationConcurrencyLimit.set(this.admission.limit),
  });
  private readonly operationNames = new Set<string>();

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** Reads live_buffered_bytes from `source` from now on. */
  watchBufferedBytes(source: () => number): void {
    this.bufferedBytes = source;
  }

  /** Reads graphql_operations and graphql_operation_concurrency_limit from `source` from now on. */
  watchAdmission(source: AdmissionState): void {
    this.admission = source;
  }

  /** Operation names are client-chosen: keep the label set bounded. */
  operationLabel(name: string | null | undefined): string {
    if (!name) return 'anonymous';
    if (this.operationNames.has(name)) return name;
    if (this.operationNames.size >= 200 || !/^[_A-Za-z][_0-9A-Za-z]{0,63}$/.test(name)) return 'other';
    this.operationNames.add(name);
    return name;
  }
}
