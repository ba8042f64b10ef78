import { TraceFlags, type SpanContext } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR, EVENT_LINK_LIMIT, EventSpan, SPAN } from './tracing';

/** The opening span of subscription `n` (a context of its own trace). */
const opening = (n: number): SpanContext => ({
  traceId: n.toString(16).padStart(32, '0'),
  spanId: (n + 1).toString(16).padStart(16, '0'),
  traceFlags: TraceFlags.SAMPLED,
});

function tracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { tracer: provider.getTracer('test'), finished: () => exporter.getFinishedSpans() };
}

const linkedIds = (span: { links: { context: SpanContext }[] }) => span.links.map((l) => l.context.spanId);

test("an event's span links to every subscription it served while it ran, the first at its start", () => {
  const { tracer, finished } = tracing();
  const event = new EventSpan(tracer, 'Prices', 'req-1', opening(1));
  event.link(opening(2));
  event.link(undefined); // no opening span known: nothing to link
  event.link(opening(3));
  event.end(undefined);
  event.link(opening(4)); // took the result after the span ended: not linked, and no error
  const [span] = finished();
  expect(span).toMatchObject({
    name: SPAN.subscriptionEvent,
    attributes: { [ATTR.operationName]: 'Prices', [ATTR.requestId]: 'req-1' },
    droppedLinksCount: 0,
  });
  expect(linkedIds(span!)).toEqual([opening(1).spanId, opening(2).spanId, opening(3).spanId]);
  expect(span?.attributes[ATTR.linksDropped]).toBeUndefined();
  expect(event.span).toBeUndefined(); // a shared result that outlives its completion keeps no span
});

test(`past ${EVENT_LINK_LIMIT} subscriptions, the first ${EVENT_LINK_LIMIT} are linked and the rest counted`, () => {
  const { tracer, finished } = tracing();
  const event = new EventSpan(tracer, undefined, 'req-2', opening(1));
  for (let n = 2; n <= EVENT_LINK_LIMIT + 5; n++) event.link(opening(n));
  event.end([{ extensions: { code: 'BAD_USER_INPUT' } }]);
  const [span] = finished();
  expect(linkedIds(span!)).toEqual(Array.from({ length: EVENT_LINK_LIMIT }, (_, i) => opening(i + 1).spanId));
  expect(span?.attributes[ATTR.linksDropped]).toBe(5);
  expect(span?.droppedLinksCount).toBe(0); // within the SDK's own limit: it dropped none
  expect(span?.status).toMatchObject({ code: 2, message: 'BAD_USER_INPUT' });
});

test('exactly the limit: no link dropped, no count', () => {
  const { tracer, finished } = tracing();
  const event = new EventSpan(tracer, undefined, 'req-3', opening(1));
  for (let n = 2; n <= EVENT_LINK_LIMIT; n++) event.link(opening(n));
  event.end(undefined);
  const [span] = finished();
  expect(span?.links).toHaveLength(EVENT_LINK_LIMIT);
  expect(span?.attributes[ATTR.linksDropped]).toBeUndefined();
});
