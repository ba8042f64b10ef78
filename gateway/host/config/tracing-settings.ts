import { z } from 'zod';
import { anyCaseEnum, setting } from '../../../platform/settings';

/** The samplers of OTEL_TRACES_SAMPLER this gateway knows (the OpenTelemetry names). */
export const TRACE_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;

/**
 * The values of OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL this gateway exports with: OTLP/HTTP, binary protobuf (the
 * specification's default) or JSON. The specification's third value, `grpc`, is refused: no gRPC exporter is built in.
 */
export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

/** One `key=value` pair of OTEL_EXPORTER_OTLP_HEADERS (W3C baggage format: values may be percent-encoded). */
const HEADER_PAIR = /^\s*[!#$%&'*+.^_`|~0-9A-Za-z-]+\s*=\s*[^,]*$/;

/** Where spans go (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces); none: tracing off. */
export function tracesUrl(config: {
  otelExporterOtlpEndpoint?: string;
  otelExporterOtlpTracesEndpoint?: string;
}): string | undefined {
  if (config.otelExporterOtlpTracesEndpoint) return config.otelExporterOtlpTracesEndpoint;
  const base = config.otelExporterOtlpEndpoint;
  if (!base) return undefined;
  return `${base}${base.endsWith('/') ? '' : '/'}v1/traces`;
}

/** How spans are encoded: OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, else OTEL_EXPORTER_OTLP_PROTOCOL (as OTel says). */
export function tracesProtocol(config: {
  otelExporterOtlpProtocol: OtlpProtocol;
  otelExporterOtlpTracesProtocol?: OtlpProtocol;
}): OtlpProtocol {
  return config.otelExporterOtlpTracesProtocol ?? config.otelExporterOtlpProtocol;
}

/** `key=value,key2=value2` as a header map (keys lower-cased; values percent-decoded as the OTel spec says). */
export function parseOtlpHeaders(text: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (text ?? '').split(',')) {
    if (!pair.trim()) continue;
    const at = pair.indexOf('=');
    headers[pair.slice(0, at).trim().toLowerCase()] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  return headers;
}

function validHeaders(text: string): boolean {
  return text.split(',').every((pair) => {
    if (!pair.trim()) return true;
    if (!HEADER_PAIR.test(pair)) return false;
    try {
      decodeURIComponent(pair);
      return true;
    } catch {
      return false;
    }
  });
}

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' });

/**
 * OpenTelemetry tracing (docs/gateway.md, "Tracing"): the standard OTEL_* variables. Off unless an OTLP endpoint is
 * given; then every GraphQL operation, its planning and its subgraph fetches are spans sent over OTLP/HTTP (protobuf
 * unless told JSON).
 */
export const TracingSettings = z.object({
  otelExporterOtlpEndpoint: setting(httpUrl.optional(), {
    env: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    help: 'Base URL of an OTLP/HTTP collector: traces go to it with /v1/traces appended. Unset (and no traces endpoint): no tracing at all.',
  }),
  otelExporterOtlpTracesEndpoint: setting(httpUrl.optional(), {
    env: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
    help: 'Full URL traces are POSTed to, used as is; wins over OTEL_EXPORTER_OTLP_ENDPOINT.',
  }),
  otelExporterOtlpProtocol: setting(anyCaseEnum(OTLP_PROTOCOLS).default('http/protobuf'), {
    env: 'OTEL_EXPORTER_OTLP_PROTOCOL',
    help: "How spans are sent: http/protobuf (OTLP/HTTP with binary protobuf, OpenTelemetry's default: the collector must accept it) or http/json. grpc is not supported.",
  }),
  otelExporterOtlpTracesProtocol: setting(anyCaseEnum(OTLP_PROTOCOLS).optional(), {
    env: 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL',
    help: 'How spans are sent, as OTEL_EXPORTER_OTLP_PROTOCOL; wins over it.',
  }),
  otelExporterOtlpHeaders: setting(
    z
      .string()
      .refine(validHeaders, { error: 'must be key=value pairs separated by commas (values percent-encoded)' })
      .optional(),
    {
      env: 'OTEL_EXPORTER_OTLP_HEADERS',
      help: 'Headers sent with every export, `key=value` pairs separated by commas (e.g. a collector API key).',
      secret: true,
    },
  ),
  otelServiceName: setting(z.string().min(1).max(256).default('onegraph-gateway'), {
    env: 'OTEL_SERVICE_NAME',
    help: 'service.name of the spans this process sends.',
  }),
  otelTracesSampler: setting(anyCaseEnum(TRACE_SAMPLERS).default('parentbased_always_on'), {
    env: 'OTEL_TRACES_SAMPLER',
    help: "Which operations are traced: parentbased_* follow an incoming traceparent's sampled flag and apply the rest to new traces.",
  }),
  otelTracesSamplerArg: setting(z.coerce.number().min(0).max(1).optional(), {
    env: 'OTEL_TRACES_SAMPLER_ARG',
    help: 'The ratio of new traces kept by traceidratio and parentbased_traceidratio, from 0 to 1 (default 1).',
  }),
  otelBspMaxQueueSize: setting(z.coerce.number().int().min(1).max(1_000_000).default(2_048), {
    env: 'OTEL_BSP_MAX_QUEUE_SIZE',
    help: 'Spans waiting for export at most; past it new spans are dropped (requests never wait for the collector).',
  }),
});
