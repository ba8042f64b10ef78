import { rmSync } from 'node:fs';
import { gatewayStarted, launchGateway, stopGateway, type GatewayProcess } from '../support/gateway-process';
import { OtlpCollector } from '../support/otlp-collector';

/**
 * The built program with tracing on (docs/gateway.md, "Tracing"): SIGTERM sends the spans still queued before the
 * process ends, and a start with a bad tracing setting stops naming it.
 */
const collector = new OtlpCollector();
let gateway: GatewayProcess | undefined;

afterAll(async () => {
  if (gateway) {
    await stopGateway(gateway);
    rmSync(gateway.dataDir, { recursive: true, force: true });
  }
  await collector.stop();
});

test('SIGTERM exports the spans of the last requests, then the process exits 0', async () => {
  const endpoint = await collector.start();
  gateway = await gatewayStarted(
    await launchGateway({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SERVICE_NAME: 'process-under-test' }),
  );
  const res = await fetch(`${gateway.base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': 'before-sigterm' },
    body: JSON.stringify({ query: 'query Last { quote(ticker: "AAPL:NASDAQ") { ticker } }' }),
  });
  expect(res.status).toBe(200);
  expect(collector.spans).toEqual([]); // queued: the batch is sent every 5 s, or at shutdown
  expect(await stopGateway(gateway)).toBe(0);
  const op = collector.spans.find((s) => s.attributes['onegraph.request_id'] === 'before-sigterm');
  // no protocol set: OTLP/HTTP protobuf, OpenTelemetry's default
  expect(op).toMatchObject({
    name: 'query Last',
    service: 'process-under-test',
    contentType: 'application/x-protobuf',
  });
}, 60_000);

test.each([
  [{ OTEL_TRACES_SAMPLER: 'sometimes' }, /OTEL_TRACES_SAMPLER \(otelTracesSampler\) must be one of/],
  // a valid OpenTelemetry value, but no gRPC exporter is built in
  [
    { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
    /OTEL_EXPORTER_OTLP_PROTOCOL \(otelExporterOtlpProtocol\) must be one of: http\/protobuf, http\/json/,
  ],
])(
  'a bad tracing setting (%j) stops the start naming its variable',
  async (env, message) => {
    const bad = await launchGateway(env);
    try {
      expect(await bad.exited).toBe(1);
      expect(bad.output()).toMatch(new RegExp(`cannot start: .*${message.source}`, 's'));
    } finally {
      rmSync(bad.dataDir, { recursive: true, force: true });
    }
  },
  60_000,
);
