import { ConfigError, loadConfig } from './load';
import { parseOtlpHeaders } from './tracing-settings';

test('tracing is off by default: no endpoint, the OpenTelemetry defaults for the rest', () => {
  const c = loadConfig({ env: {} });
  expect(c.otelExporterOtlpEndpoint).toBeUndefined();
  expect(c.otelExporterOtlpTracesEndpoint).toBeUndefined();
  expect(c).toMatchObject({
    otelServiceName: 'onegraph-gateway',
    otelTracesSampler: 'parentbased_always_on',
    otelBspMaxQueueSize: 2048,
  });
});

test('the standard OTEL_* variables set it', () => {
  const c = loadConfig({
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/v1/traces',
      OTEL_EXPORTER_OTLP_HEADERS: 'api-key=abc,x-team=a%20b',
      OTEL_SERVICE_NAME: 'edge',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
      OTEL_BSP_MAX_QUEUE_SIZE: '100',
    },
  });
  expect(c).toMatchObject({
    otelExporterOtlpEndpoint: 'http://collector:4318',
    otelExporterOtlpTracesEndpoint: 'https://traces.example/v1/traces',
    otelServiceName: 'edge',
    otelTracesSampler: 'parentbased_traceidratio',
    otelTracesSamplerArg: 0.25,
    otelBspMaxQueueSize: 100,
  });
  expect(parseOtlpHeaders(c.otelExporterOtlpHeaders)).toEqual({ 'api-key': 'abc', 'x-team': 'a b' });
});

test.each([
  [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, /OTEL_EXPORTER_OTLP_ENDPOINT \(otelExporterOtlpEndpoint\)/],
  [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'grpc://collector:4317' }, /OTEL_EXPORTER_OTLP_ENDPOINT .*http:\/\/ or https:\/\//],
  [
    { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'ftp://x/v1/traces' },
    /OTEL_EXPORTER_OTLP_TRACES_ENDPOINT \(otelExporterOtlpTracesEndpoint\)/,
  ],
  [
    { OTEL_EXPORTER_OTLP_HEADERS: 'api-key' },
    /OTEL_EXPORTER_OTLP_HEADERS \(otelExporterOtlpHeaders\): must be key=value/,
  ],
  [{ OTEL_EXPORTER_OTLP_HEADERS: 'bad key=1' }, /OTEL_EXPORTER_OTLP_HEADERS \(otelExporterOtlpHeaders\)/],
  [{ OTEL_EXPORTER_OTLP_HEADERS: 'k=%E0%A4%A' }, /OTEL_EXPORTER_OTLP_HEADERS \(otelExporterOtlpHeaders\)/],
  [{ OTEL_SERVICE_NAME: 'x'.repeat(257) }, /OTEL_SERVICE_NAME \(otelServiceName\)/],
  [
    { OTEL_TRACES_SAMPLER: 'sometimes' },
    /OTEL_TRACES_SAMPLER \(otelTracesSampler\) must be one of: always_on, always_off/,
  ],
  [{ OTEL_TRACES_SAMPLER_ARG: '1.5' }, /OTEL_TRACES_SAMPLER_ARG \(otelTracesSamplerArg\)/],
  [{ OTEL_TRACES_SAMPLER_ARG: '-0.1' }, /OTEL_TRACES_SAMPLER_ARG \(otelTracesSamplerArg\)/],
  [{ OTEL_TRACES_SAMPLER_ARG: 'half' }, /OTEL_TRACES_SAMPLER_ARG \(otelTracesSamplerArg\)/],
  [{ OTEL_BSP_MAX_QUEUE_SIZE: '0' }, /OTEL_BSP_MAX_QUEUE_SIZE \(otelBspMaxQueueSize\)/],
  [{ OTEL_BSP_MAX_QUEUE_SIZE: 'many' }, /OTEL_BSP_MAX_QUEUE_SIZE \(otelBspMaxQueueSize\)/],
])('bad tracing value %j stops start-up naming the key', (env, message) => {
  expect(() => loadConfig({ env })).toThrow(ConfigError);
  expect(() => loadConfig({ env })).toThrow(message);
});
