import { ConfigError, loadConfig } from './load';
import { parseOtlpHeaders, tracesProtocol } from './tracing-settings';

test('tracing is off by default: no endpoint, the OpenTelemetry defaults for the rest', () => {
  const c = loadConfig({ env: {} });
  expect(c.otelExporterOtlpEndpoint).toBeUndefined();
  expect(c.otelExporterOtlpTracesEndpoint).toBeUndefined();
  expect(c.otelExporterOtlpTracesProtocol).toBeUndefined();
  expect(tracesProtocol(c)).toBe('http/protobuf'); // OTLP's default protocol
  expect(c).toMatchObject({
    otelExporterOtlpProtocol: 'http/protobuf',
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
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'edge',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
      OTEL_BSP_MAX_QUEUE_SIZE: '100',
    },
  });
  expect(c).toMatchObject({
    otelExporterOtlpEndpoint: 'http://collector:4318',
    otelExporterOtlpTracesEndpoint: 'https://traces.example/v1/traces',
    otelExporterOtlpProtocol: 'http/json',
    otelServiceName: 'edge',
    otelTracesSampler: 'parentbased_traceidratio',
    otelTracesSamplerArg: 0.25,
    otelBspMaxQueueSize: 100,
  });
  expect(parseOtlpHeaders(c.otelExporterOtlpHeaders)).toEqual({ 'api-key': 'abc', 'x-team': 'a b' });
});

test.each([
  [{}, 'http/protobuf'],
  [{ OTEL_EXPORTER_OTLP_PROTOCOL: '' }, 'http/protobuf'], // empty is unset, as OpenTelemetry says
  [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }, 'http/json'],
  [{ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' }, 'http/json'],
  [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' }, 'http/protobuf'],
  [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' }, 'http/json'],
])('the traces protocol of %j is %s: the traces variable wins over the general one', (env, protocol) => {
  expect(tracesProtocol(loadConfig({ env }))).toBe(protocol);
});

test.each([
  [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'HTTP/JSON' }, 'otelExporterOtlpProtocol', 'http/json'],
  [{ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'Http/Protobuf' }, 'otelExporterOtlpTracesProtocol', 'http/protobuf'],
  [{ OTEL_TRACES_SAMPLER: 'ParentBased_TraceIdRatio' }, 'otelTracesSampler', 'parentbased_traceidratio'],
  [{ OTEL_TRACES_SAMPLER: 'ALWAYS_OFF' }, 'otelTracesSampler', 'always_off'],
])('enumerated values are taken in any letter case, as OpenTelemetry says: %j', (env, key, value) => {
  expect(loadConfig({ env })[key as keyof ReturnType<typeof loadConfig>]).toBe(value);
});

const PROTOCOLS = 'must be one of: http/protobuf, http/json$';

test.each([
  // a valid OpenTelemetry value, but no gRPC exporter is built in
  [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, `OTEL_EXPORTER_OTLP_PROTOCOL (otelExporterOtlpProtocol) ${PROTOCOLS}`],
  [
    { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' },
    `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL (otelExporterOtlpTracesProtocol) ${PROTOCOLS}`,
  ],
  [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'http' }, `OTEL_EXPORTER_OTLP_PROTOCOL (otelExporterOtlpProtocol) ${PROTOCOLS}`],
  [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'json' }, `OTEL_EXPORTER_OTLP_PROTOCOL (otelExporterOtlpProtocol) ${PROTOCOLS}`],
  [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'GRPC' }, `OTEL_EXPORTER_OTLP_PROTOCOL (otelExporterOtlpProtocol) ${PROTOCOLS}`],
  [
    { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/proto' },
    `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL (otelExporterOtlpTracesProtocol) ${PROTOCOLS}`,
  ],
  // a bad general value is refused even when the traces one would win over it
  [
    { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' },
    `OTEL_EXPORTER_OTLP_PROTOCOL (otelExporterOtlpProtocol) ${PROTOCOLS}`,
  ],
])('a bad protocol %j stops start-up naming the key and the allowed values', (env, line) => {
  expect(() => loadConfig({ env })).toThrow(ConfigError);
  expect(() => loadConfig({ env })).toThrow(new RegExp(`^  - ${line.replace(/[()/]/g, '\\$&')}`, 'm'));
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
