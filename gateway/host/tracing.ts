import type { Tracer } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type ReadableSpan,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { Logger } from '../../platform/log';
import { VERSION } from '../../platform/version';
import type { Config } from './config/schema';
import { parseOtlpHeaders, tracesProtocol, tracesUrl, type TRACE_SAMPLERS } from './config/tracing-settings';

export { tracesProtocol, tracesUrl };

type TracingConfig = Pick<
  Config,
  | 'otelExporterOtlpEndpoint'
  | 'otelExporterOtlpTracesEndpoint'
  | 'otelExporterOtlpProtocol'
  | 'otelExporterOtlpTracesProtocol'
  | 'otelExporterOtlpHeaders'
  | 'otelServiceName'
  | 'otelTracesSampler'
  | 'otelTracesSamplerArg'
  | 'otelBspMaxQueueSize'
>;

/** The SDK this process traces with: its tracer, and the shutdown that sends what is left. */
export interface Tracing {
  tracer: Tracer;
  /** Exports the spans ended so far now (tests; the batch processor otherwise sends every few seconds). */
  flush(): Promise<void>;
  /** Exports the spans still queued, then closes the exporter (bounded: never holds the shutdown past it). */
  shutdown(): Promise<void>;
}

/** The sampler OTEL_TRACES_SAMPLER names (OTEL_TRACES_SAMPLER_ARG the ratio of the ratio-based ones). */
export function samplerOf(name: (typeof TRACE_SAMPLERS)[number], arg = 1): Sampler {
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(arg);
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(arg) });
  }
}

/**
 * An exporter whose failures are logged, at most once per interval (with the number of spans lost since the last
 * line): a collector that is away costs one warning a minute, never an exception or a waiting request.
 */
export class LoggedExporter implements SpanExporter {
  private lastLogged = Number.NEGATIVE_INFINITY;
  private lost = 0;

  constructor(
    private readonly inner: SpanExporter,
    private readonly log: Logger,
    /** Where spans go, for the log line (origin and path only). */
    private readonly target: string,
    private readonly intervalMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    try {
      this.inner.export(spans, (result) => {
        if (result.code !== ExportResultCode.SUCCESS) this.failed(result.error, spans.length);
        done(result);
      });
    } catch (err) {
      this.failed(err, spans.length);
      done({ code: ExportResultCode.FAILED, error: err instanceof Error ? err : new Error(String(err)) });
    }
  }

  private failed(err: unknown, spans: number): void {
    this.lost += spans;
    const now = this.now();
    if (now - this.lastLogged < this.intervalMs) return;
    this.lastLogged = now;
    const reason = err instanceof Error ? err.message : typeof err === 'string' ? err : 'unknown';
    this.log.warn({ target: this.target, lostSpans: this.lost, reason }, 'trace export failed; spans dropped');
    this.lost = 0;
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

/** The OTLP endpoint without credentials or query (what a log line may show). */
function shown(url: string): string {
  const u = new URL(url);
  return `${u.origin}${u.pathname}`;
}

/**
 * The tracing SDK when an OTLP endpoint is configured, else undefined: nothing is built, and the graph does no
 * tracing work at all. Spans are batched (a bounded queue, dropped past it) and sent over OTLP/HTTP, as binary
 * protobuf (`application/x-protobuf`, OTel's default) or JSON (`application/json`) as the protocol setting says.
 */
export function startTracing(config: TracingConfig, log: Logger, shutdownBoundMs = 5_000): Tracing | undefined {
  const url = tracesUrl(config);
  if (!url) return undefined;
  const protocol = tracesProtocol(config);
  const options = { url, headers: parseOtlpHeaders(config.otelExporterOtlpHeaders) };
  const exporter = new LoggedExporter(
    protocol === 'http/json' ? new JsonTraceExporter(options) : new ProtobufTraceExporter(options),
    log,
    shown(url),
  );
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: config.otelServiceName, [ATTR_SERVICE_VERSION]: VERSION }),
    sampler: samplerOf(config.otelTracesSampler, config.otelTracesSamplerArg),
    spanProcessors: [
      new BatchSpanProcessor(exporter, {
        maxQueueSize: config.otelBspMaxQueueSize,
        maxExportBatchSize: Math.min(512, config.otelBspMaxQueueSize),
      }),
    ],
  });
  log.info({ target: shown(url), protocol, sampler: config.otelTracesSampler }, 'tracing on');
  let stopping: Promise<void> | undefined;
  return {
    tracer: provider.getTracer('onegraph-gateway', VERSION),
    flush: () => provider.forceFlush(),
    shutdown() {
      stopping ??= (async () => {
        let timer: NodeJS.Timeout | undefined;
        const bound = new Promise<'late'>((resolve) => {
          timer = setTimeout(() => resolve('late'), shutdownBoundMs);
        });
        try {
          const outcome = await Promise.race([provider.shutdown().then(() => 'done' as const), bound]);
          if (outcome === 'late') log.warn({ ms: shutdownBoundMs }, 'trace export did not finish before shutdown');
        } catch (err) {
          log.warn({ reason: err instanceof Error ? err.message : String(err) }, 'trace export failed at shutdown');
        } finally {
          clearTimeout(timer);
        }
      })();
      return stopping;
    },
  };
}
