import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { SamplingDecision } from '@opentelemetry/sdk-trace-base';
import { ROOT_CONTEXT, SpanKind, trace, TraceFlags } from '@opentelemetry/api';
import type { Logger } from '../../platform/log';
import { LoggedExporter, samplerOf, startTracing, tracesUrl } from './tracing';

const none = {
  otelExporterOtlpEndpoint: undefined,
  otelExporterOtlpTracesEndpoint: undefined,
  otelExporterOtlpProtocol: 'http/protobuf' as const,
  otelExporterOtlpTracesProtocol: undefined,
  otelExporterOtlpHeaders: undefined,
  otelServiceName: 'onegraph-gateway',
  otelTracesSampler: 'parentbased_always_on' as const,
  otelTracesSamplerArg: undefined,
  otelBspMaxQueueSize: 2048,
};

test('the traces URL: the traces endpoint as is, else the base endpoint with /v1/traces appended', () => {
  expect(tracesUrl(none)).toBeUndefined();
  expect(tracesUrl({ ...none, otelExporterOtlpEndpoint: 'http://c:4318' })).toBe('http://c:4318/v1/traces');
  expect(tracesUrl({ ...none, otelExporterOtlpEndpoint: 'http://c:4318/base/' })).toBe('http://c:4318/base/v1/traces');
  expect(
    tracesUrl({ ...none, otelExporterOtlpEndpoint: 'http://c:4318', otelExporterOtlpTracesEndpoint: 'http://t/x' }),
  ).toBe('http://t/x');
});

test('without an endpoint nothing is built', () => {
  expect(startTracing(none, silentLog().log)).toBeUndefined();
});

describe('samplers', () => {
  // near the top of the ratio sampler's range: kept by a ratio of 1, by none of 0.5
  const traceId = 'fffffffe000000000000000000000000';
  const decide = (name: Parameters<typeof samplerOf>[0], arg?: number, parentSampled?: boolean) => {
    const context =
      parentSampled === undefined
        ? ROOT_CONTEXT
        : trace.setSpanContext(ROOT_CONTEXT, {
            traceId,
            spanId: '00f067aa0ba902b7',
            traceFlags: parentSampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
            isRemote: true,
          });
    return samplerOf(name, arg).shouldSample(context, traceId, 'op', SpanKind.SERVER, {}, []).decision;
  };
  const kept = SamplingDecision.RECORD_AND_SAMPLED;
  const dropped = SamplingDecision.NOT_RECORD;

  test('always_on, always_off and traceidratio ignore the parent', () => {
    expect(decide('always_on', undefined, false)).toBe(kept);
    expect(decide('always_off', undefined, true)).toBe(dropped);
    expect(decide('traceidratio', 0.5, true)).toBe(dropped);
    expect(decide('traceidratio', 1)).toBe(kept);
  });

  test('parentbased_* follow a parent, and apply their root sampler to new traces', () => {
    expect(decide('parentbased_always_on', undefined, false)).toBe(dropped);
    expect(decide('parentbased_always_on')).toBe(kept);
    expect(decide('parentbased_always_off', undefined, true)).toBe(kept);
    expect(decide('parentbased_always_off')).toBe(dropped);
    expect(decide('parentbased_traceidratio', 0.5, true)).toBe(kept);
    expect(decide('parentbased_traceidratio', 0.5)).toBe(dropped);
  });
});

function silentLog() {
  const warnings: Array<Record<string, unknown>> = [];
  const log = { warn: (fields: Record<string, unknown>) => warnings.push(fields) } as unknown as Logger;
  return { log, warnings };
}

class FailingExporter implements SpanExporter {
  export(_spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    done({ code: ExportResultCode.FAILED, error: new Error('connect ECONNREFUSED 127.0.0.1:4318') });
  }
  shutdown = () => Promise.resolve();
}

test('export failures are logged once per interval with the spans lost, and never thrown', () => {
  const { log, warnings } = silentLog();
  let now = 0;
  const exporter = new LoggedExporter(new FailingExporter(), log, 'http://c/v1/traces', 60_000, () => now);
  const results: ExportResult[] = [];
  const spans = (n: number) => new Array<ReadableSpan>(n);
  exporter.export(spans(3), (r) => results.push(r));
  now = 30_000;
  exporter.export(spans(4), (r) => results.push(r));
  exporter.export(spans(5), (r) => results.push(r));
  expect(warnings).toEqual([
    { target: 'http://c/v1/traces', lostSpans: 3, reason: 'connect ECONNREFUSED 127.0.0.1:4318' },
  ]);
  now = 60_000;
  exporter.export(spans(1), (r) => results.push(r));
  expect(warnings[1]).toMatchObject({ lostSpans: 10 });
  expect(results.map((r) => r.code)).toEqual(new Array(4).fill(ExportResultCode.FAILED));
});

test('an exporter that throws is a failed export, logged', () => {
  const { log, warnings } = silentLog();
  const throwing: SpanExporter = {
    export: () => {
      throw new Error('boom');
    },
    shutdown: () => Promise.resolve(),
  };
  const results: ExportResult[] = [];
  new LoggedExporter(throwing, log, 'x').export([], (r) => results.push(r));
  expect(results[0]?.code).toBe(ExportResultCode.FAILED);
  expect(warnings[0]).toMatchObject({ reason: 'boom' });
});
