import 'reflect-metadata';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { createClient } from 'graphql-sse';
import { createClient as createWsClient } from 'graphql-ws';
import WebSocket from 'ws';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../gateway/host/config/load';
import { buildSubgraphServer } from '../../gateway/host/subgraph-server';
import { createSystem, type System } from '../../gateway/host/system';
import { createLogger } from '../../platform/log';
import { callerEchoSubgraph, supergraphWithCallerEcho } from '../support/caller-echo';
import { OtlpCollector, type ReceivedSpan } from '../support/otlp-collector';
import { takeResults } from '../support/iterate-results';
import { TEST_ADMIN_PASSWORD } from '../support/system';

/**
 * Tracing over the real HTTP server (docs/gateway.md, "Tracing"): spans of operations, planning and subgraph fetches
 * reach an OTLP collector (one in this process), an incoming traceparent is continued, a remote subgraph receives
 * the fetch's traceparent, shutdown sends what is left, and without an endpoint nothing of it exists.
 */

// OTLP's enumerations (SPAN_KIND_*, STATUS_CODE_*)
const INTERNAL = 1;
const SERVER = 2;
const CLIENT = 3;
const ERROR = 2;
const SECRET = 'Bearer tracing-secret-credential-7c1f';
const log = createLogger('silent');

interface Running {
  system: System;
  url: string;
  close(): Promise<void>;
}

/** The echo subgraph served alone over HTTP: every request's headers kept; answers 503 while `failing`. */
const echo = {
  app: undefined as FastifyInstance | undefined,
  url: '',
  seen: [] as IncomingHttpHeaders[],
  failing: false,
};
let supergraphSdl: string;
const collector = new OtlpCollector();
let collectorUrl: string;

async function start(env: Record<string, string>, subgraphUrls: Record<string, string> = {}): Promise<Running> {
  const dataDir = mkdtempSync(join(tmpdir(), 'onegraph-tracing-'));
  const config = loadConfig({
    env: {
      PORT: '0',
      DNS_PORT: '0',
      DNS_API_PORT: '0',
      LOG_LEVEL: 'silent',
      DATA_DIR: dataDir,
      ADMIN_PASSWORD: TEST_ADMIN_PASSWORD,
      RESPONSE_CACHE: 'false',
      MARKET_CLOCK: '2026-11-20T18:00:00Z',
      ...env,
    },
    flags: { subgraphUrls: { callerecho: echo.url, ...subgraphUrls } },
  });
  const system = await createSystem(config, log, { supergraphSdl });
  const url = await system.app.listen({ port: 0, host: '127.0.0.1' });
  let closed: Promise<void> | undefined;
  return {
    system,
    url,
    close: () => (closed ??= system.close().then(() => rmSync(dataDir, { recursive: true, force: true }))),
  };
}

async function post(url: string, body: object, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { data?: unknown; errors?: unknown[] } };
}

const QUERY = 'query Traced { viewer quote(ticker: "AAPL:NASDAQ") { ticker seenBy } }';
const hashOf = (text: string) => createHash('sha256').update(text).digest('hex');

/** The operation span with this request id, once it and every span of its trace up to `count` arrived. */
function operationOf(spans: ReceivedSpan[], requestId: string): ReceivedSpan | undefined {
  return spans.find((s) => s.attributes['onegraph.request_id'] === requestId && s.kind !== CLIENT);
}
const childrenOf = (spans: ReceivedSpan[], parent: ReceivedSpan) =>
  spans.filter((s) => s.traceId === parent.traceId && s.parentSpanId === parent.spanId);
/** A W3C traceparent (sampled) of this trace and parent span. */
const traceparent = (traceId: string, parent: string) => `00-${traceId}-${parent}-01`;
/** The span named `name` in trace `traceId`. */
const spanIn = (traceId: string, name: string) => (spans: ReceivedSpan[]) =>
  spans.find((s) => s.traceId === traceId && s.name === name);

/** The first event of a subscription over graphql-ws; the upgrade carries `headers`, connection_init `params`. */
async function firstWsEvent(
  url: string,
  query: string,
  headers: Record<string, string>,
  params?: Record<string, unknown>,
): Promise<unknown> {
  const client = createWsClient({
    url: `${url.replace(/^http/, 'ws')}/graphql/ws`,
    webSocketImpl: class extends WebSocket {
      constructor(address: string, protocols?: string | string[]) {
        super(address, protocols, { headers });
      }
    },
    connectionParams: params,
    retryAttempts: 0,
    lazy: true,
  });
  try {
    const [first] = await takeResults(() => client.iterate({ query }), 1);
    return first;
  } finally {
    await client.dispose();
  }
}

beforeAll(async () => {
  collectorUrl = await collector.start();
  const subgraph = callerEchoSubgraph();
  supergraphSdl = await supergraphWithCallerEcho(subgraph);
  const { app } = await buildSubgraphServer(subgraph, log);
  app.addHook('onRequest', async (req, reply) => {
    if (req.url !== '/graphql') return;
    echo.seen.push(req.headers);
    if (echo.failing) await reply.code(503).send('down for the test');
  });
  echo.url = `${await app.listen({ port: 0, host: '127.0.0.1' })}/graphql`;
  echo.app = app;
}, 30_000);

afterAll(async () => {
  await echo.app?.close();
  await collector.stop();
});

describe('with an OTLP endpoint', () => {
  let sys: Running;
  beforeAll(async () => {
    sys = await start({
      OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl,
      OTEL_SERVICE_NAME: 'gateway-under-test',
      LIVE_INTERVAL_MS: '300',
    });
  }, 30_000);
  afterAll(async () => sys?.close());

  test('an operation is a span; its planning and each subgraph fetch are its children, with their attributes', async () => {
    echo.seen.length = 0;
    const requestId = 'trace-req-1';
    const res = await post(sys.url, { query: QUERY }, { authorization: SECRET, 'x-request-id': requestId });
    expect(res.body.errors).toBeUndefined();
    await sys.system.tracing?.flush();
    const op = await collector.waitFor((spans) => {
      const found = operationOf(spans, requestId);
      return found && childrenOf(spans, found).length >= 4 ? found : undefined;
    });
    expect(op).toMatchObject({
      name: 'query Traced',
      kind: SERVER,
      service: 'gateway-under-test',
      status: { code: 0 },
      attributes: {
        'graphql.operation.name': 'Traced',
        'graphql.operation.type': 'query',
        'graphql.document.hash': hashOf(QUERY),
      },
    });
    expect(op.parentSpanId).toBeUndefined();
    const children = childrenOf(collector.spans, op);
    expect(children.filter((s) => s.name === 'graphql.plan')).toHaveLength(1);
    const fetches = children.filter((s) => s.name === 'graphql.fetch');
    const bySubgraph = (name: string) => fetches.filter((s) => s.attributes['graphql.subgraph.name'] === name);
    // viewer, then seenBy of the quote: two fetches of the remote subgraph; the quote from the in-process market
    expect(bySubgraph('callerecho')).toHaveLength(2);
    for (const remote of bySubgraph('callerecho'))
      expect(remote).toMatchObject({
        kind: CLIENT,
        status: { code: 0 },
        attributes: {
          'graphql.operation.type': 'query',
          'onegraph.subgraph.transport': 'http',
          'http.response.status_code': 200,
          'server.address': '127.0.0.1',
        },
      });
    expect(bySubgraph('market')).toEqual([
      expect.objectContaining({
        kind: INTERNAL,
        attributes: expect.objectContaining({ 'onegraph.subgraph.transport': 'in-process' }),
      }),
    ]);
    // the remote subgraph was sent each fetch span's traceparent: same trace, that fetch as parent
    const sent = echo.seen.map((h) => h.traceparent);
    expect(sent).toHaveLength(2);
    for (const remote of bySubgraph('callerecho')) expect(sent).toContain(`00-${op.traceId}-${remote.spanId}-01`);
  });

  test('with no protocol set, spans go as binary protobuf (application/x-protobuf) and decode to what was recorded', async () => {
    const requestId = 'trace-protobuf';
    const traceId = '9f0e1d2c3b4a59680000000000000009';
    const parent = '9f0e1d2c3b4a5968';
    const res = await post(
      sys.url,
      { query: 'query Encoded { viewer quote(ticker: "AAPL:NASDAQ") { ticker } }' },
      { 'x-request-id': requestId, traceparent: traceparent(traceId, parent) },
    );
    expect(res.body.errors).toBeUndefined();
    await sys.system.tracing?.flush();
    const op = await collector.waitFor((spans) => {
      const found = operationOf(spans, requestId);
      return found && childrenOf(spans, found).length >= 3 ? found : undefined;
    });
    const trace = collector.spans.filter((s) => s.traceId === traceId);
    expect(new Set(trace.map((s) => s.contentType))).toEqual(new Set(['application/x-protobuf']));
    expect(op).toMatchObject({
      name: 'query Encoded',
      parentSpanId: parent,
      kind: SERVER,
      service: 'gateway-under-test',
      status: { code: 0 },
      attributes: {
        'graphql.operation.type': 'query',
        'graphql.operation.name': 'Encoded',
        'onegraph.request_id': requestId,
      },
    });
    const children = childrenOf(collector.spans, op);
    expect(children.map((s) => s.name).sort()).toEqual(['graphql.fetch', 'graphql.fetch', 'graphql.plan']);
    // integer attributes come through as numbers, string ones as text
    expect(children.find((s) => s.attributes['graphql.subgraph.name'] === 'callerecho')).toMatchObject({
      kind: CLIENT,
      attributes: {
        'http.response.status_code': 200,
        'server.address': '127.0.0.1',
        'server.port': expect.any(Number),
      },
    });
  });

  test('an operation planned before has no planning span', async () => {
    const requestId = 'trace-req-2';
    await post(sys.url, { query: QUERY }, { 'x-request-id': requestId });
    await sys.system.tracing?.flush();
    const op = await collector.waitFor((spans) => {
      const found = operationOf(spans, requestId);
      return found && childrenOf(spans, found).length >= 3 ? found : undefined;
    });
    const names = childrenOf(collector.spans, op).map((s) => s.name);
    expect(names).toEqual(['graphql.fetch', 'graphql.fetch', 'graphql.fetch']);
  });

  test('an incoming traceparent is continued: same trace, its span the parent; the subgraph gets that trace', async () => {
    echo.seen.length = 0;
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parent = '00f067aa0ba902b7';
    const requestId = 'trace-req-3';
    await post(
      sys.url,
      { query: '{ viewer }' },
      { traceparent: `00-${traceId}-${parent}-01`, tracestate: 'vendor=1', 'x-request-id': requestId },
    );
    await sys.system.tracing?.flush();
    const op = await collector.waitFor((spans) => operationOf(spans, requestId));
    expect(op).toMatchObject({ traceId, parentSpanId: parent, name: 'query' });
    expect(echo.seen.map((h) => h.traceparent?.slice(0, 35))).toEqual([`00-${traceId}`]);
    expect(echo.seen[0]?.tracestate).toBe('vendor=1');
  });

  test('a failing subgraph: its fetch span and the operation span are errors; the HTTP status is recorded', async () => {
    const requestId = 'trace-req-4';
    echo.failing = true;
    try {
      const res = await post(sys.url, { query: '{ viewer }' }, { 'x-request-id': requestId });
      expect(res.body.errors).toBeDefined();
    } finally {
      echo.failing = false;
    }
    await sys.system.tracing?.flush();
    const op = await collector.waitFor((spans) => {
      const found = operationOf(spans, requestId);
      return found && childrenOf(spans, found).some((s) => s.name === 'graphql.fetch') ? found : undefined;
    });
    expect(op.status.code).toBe(ERROR);
    const [fetchSpan] = childrenOf(collector.spans, op).filter((s) => s.name === 'graphql.fetch');
    expect(fetchSpan).toMatchObject({
      status: { code: ERROR },
      attributes: { 'graphql.subgraph.name': 'callerecho', 'http.response.status_code': 503 },
    });
    expect(fetchSpan?.status.message).toMatch(/503/);
  });

  test("the REST adapters' operations are traced too", async () => {
    const res = await fetch(`${sys.url}/v1/quote/AAPL:NASDAQ`, { headers: { 'x-request-id': 'trace-rest-1' } });
    expect(res.status).toBe(200);
    await sys.system.tracing?.flush();
    const op = await collector.waitFor((spans) => {
      const found = operationOf(spans, 'trace-rest-1');
      return found && childrenOf(spans, found).length > 0 ? found : undefined;
    });
    expect(op.attributes['graphql.operation.type']).toBe('query');
    expect(childrenOf(collector.spans, op).map((s) => s.attributes['graphql.subgraph.name'])).toContain('market');
  });

  test('no span carries a credential, a header or a variable', async () => {
    await post(
      sys.url,
      { query: 'query V($t: String!) { quote(ticker: $t) { ticker } }', variables: { t: 'MSFT:NASDAQ' } },
      { authorization: SECRET },
    );
    await sys.system.tracing?.flush();
    await collector.waitFor((spans) => spans.find((s) => s.attributes['graphql.operation.name'] === 'V'));
    const everything = collector.raw.join('\n');
    expect(everything).not.toContain('tracing-secret-credential');
    expect(everything).not.toContain('MSFT:NASDAQ');
    expect(everything.toLowerCase()).not.toContain('authorization');
    // the collector was sent no credential of ours either (only its own OTLP headers)
    for (const h of collector.headers) expect(JSON.stringify(h)).not.toContain('tracing-secret');
  });

  test("each subscription event's completion by another subgraph is a span, its fetch a child", async () => {
    const client = createClient({ url: `${sys.url}/graphql/stream`, retryAttempts: 0 });
    try {
      for await (const event of client.iterate({
        query: 'subscription Prices { prices(tickers: ["AAPL:NASDAQ"]) { ticker seenBy } }',
      })) {
        expect(event).toEqual({ data: { prices: { ticker: 'AAPL:NASDAQ', seenBy: null } } });
        break;
      }
    } finally {
      client.dispose();
    }
    await sys.system.tracing?.flush();
    const event = await collector.waitFor((spans) => {
      const found = spans.find((s) => s.name === 'graphql.subscription.event');
      return found && childrenOf(spans, found).length > 0 ? found : undefined;
    });
    expect(event.attributes).toMatchObject({
      'graphql.operation.type': 'subscription',
      'graphql.operation.name': 'Prices',
    });
    expect(childrenOf(collector.spans, event)).toEqual([
      expect.objectContaining({
        name: 'graphql.fetch',
        attributes: expect.objectContaining({ 'graphql.subgraph.name': 'callerecho' }),
      }),
    ]);
  });

  test.each([
    ['market', '/v1/quote/AAPL:NASDAQ', '1f0e1d2c3b4a5968'],
    ['DNS tool', '/api.php?action=get_version', '2f0e1d2c3b4a5968'],
    ['DNS API', '/api/v1/.well-known/jwks.json', '3f0e1d2c3b4a5968'],
  ])("the %s REST interface's operation continues an incoming traceparent", async (_name, path, parent) => {
    const traceId = `${parent}${'0'.repeat(15)}1`;
    const requestId = `trace-rest-${parent}`;
    const res = await fetch(`${sys.url}${path}`, {
      headers: { traceparent: traceparent(traceId, parent), 'x-request-id': requestId },
    });
    expect(res.status).toBe(200);
    await sys.system.tracing?.flush();
    const op = await collector.waitFor((spans) => operationOf(spans, requestId));
    expect(op).toMatchObject({
      traceId,
      parentSpanId: parent,
      kind: SERVER,
      status: { code: 0 },
      attributes: { 'graphql.operation.type': 'query' },
    });
    expect(op.name).toMatch(/^query \w+$/);
  });

  test("the market's live stream (/v1/live) opens its subscription in the caller's trace", async () => {
    const traceId = '4f0e1d2c3b4a59680000000000000004';
    const parent = '4f0e1d2c3b4a5968';
    const stop = new AbortController();
    const res = await fetch(`${sys.url}/v1/live?tickers=AAPL:NASDAQ`, {
      headers: { traceparent: traceparent(traceId, parent) },
      signal: stop.signal,
    });
    expect(res.status).toBe(200);
    stop.abort(); // the subscription was opened before the answer began
    await res.body?.cancel().catch(() => undefined);
    await sys.system.tracing?.flush();
    const opened = await collector.waitFor(spanIn(traceId, 'subscription RestLive'));
    expect(opened).toMatchObject({ parentSpanId: parent, kind: SERVER, status: { code: 0 } });
  });

  test.each([
    ['/graphql', 'not-a-traceparent'],
    ['/graphql', traceparent('0'.repeat(32), 'aaaaaaaaaaaaaaaa')], // an all-zero trace id is invalid
    ['/v1/quote/AAPL:NASDAQ', `00-${'c'.repeat(32)}-short-01`],
  ])('on %s a malformed traceparent (%s) starts a new trace, not an error', async (path, header) => {
    const requestId = `trace-bad-${header}`;
    const res =
      path === '/graphql'
        ? await post(sys.url, { query: '{ viewer }' }, { traceparent: header, 'x-request-id': requestId })
        : await fetch(`${sys.url}${path}`, { headers: { traceparent: header, 'x-request-id': requestId } });
    expect(res.status).toBe(200);
    await sys.system.tracing?.flush();
    const op = await collector.waitFor((spans) => operationOf(spans, requestId));
    expect(op.parentSpanId).toBeUndefined();
    expect(op.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(header).not.toContain(op.traceId);
    expect(op.traceId).not.toBe('0'.repeat(32));
  });

  test("a graphql-sse subscription's opening continues an incoming traceparent; its events link to it", async () => {
    const traceId = '5b8aa5a2d2c872e8321cf37308d69df2';
    const parent = '051581bf3cb55c13';
    const query = 'subscription OpenedOverSse { prices(tickers: ["MSFT:NASDAQ"]) { ticker seenBy } }';
    const client = createClient({
      url: `${sys.url}/graphql/stream`,
      retryAttempts: 0,
      headers: { traceparent: traceparent(traceId, parent), 'x-request-id': 'trace-sse-open' },
    });
    try {
      const [first] = await takeResults(() => client.iterate({ query }), 1);
      expect(first).toEqual({ data: { prices: { ticker: 'MSFT:NASDAQ', seenBy: null } } });
    } finally {
      client.dispose();
    }
    await sys.system.tracing?.flush();
    const opened = await collector.waitFor(spanIn(traceId, 'subscription OpenedOverSse'));
    expect(opened).toMatchObject({
      parentSpanId: parent,
      kind: SERVER,
      status: { code: 0 },
      attributes: {
        'graphql.operation.type': 'subscription',
        'graphql.operation.name': 'OpenedOverSse',
        'graphql.document.hash': hashOf(query),
        'onegraph.request_id': 'trace-sse-open',
      },
    });
    // first planned here: the planning is the opening's child
    expect(childrenOf(collector.spans, opened).map((s) => s.name)).toEqual(['graphql.plan']);
    // each event's completion is a trace of its own, linked to the opening of its subscription
    const event = await collector.waitFor((spans) =>
      spans.find(
        (s) => s.name === 'graphql.subscription.event' && s.attributes['graphql.operation.name'] === 'OpenedOverSse',
      ),
    );
    expect(event.traceId).not.toBe(traceId);
    expect(event.parentSpanId).toBeUndefined();
    expect(event.links).toEqual([{ traceId, spanId: opened.spanId }]);
  });

  test("an event shared by two identical subscriptions: its span links to both subscriptions' openings", async () => {
    const query = 'subscription SharedEvent { prices(tickers: ["AAPL:NASDAQ"]) { ticker seenBy } }';
    const traces = ['ab0e1d2c3b4a59680000000000000001', 'ab0e1d2c3b4a59680000000000000002'];
    const clients = traces.map((traceId, i) =>
      createClient({
        url: `${sys.url}/graphql/stream`,
        retryAttempts: 0,
        // the same caller (anonymous): one share key, so one completion of each event serves both
        headers: { traceparent: traceparent(traceId, `ab0e1d2c3b4a596${i}`) },
      }),
    );
    try {
      // both open at once; past the first (each its own current price), the ticks every 300 ms reach both
      const results = await Promise.all(clients.map((c) => takeResults(() => c.iterate({ query }), 3)));
      for (const r of results) expect(r).toHaveLength(3);
    } finally {
      for (const c of clients) c.dispose();
    }
    await sys.system.tracing?.flush();
    const openings = await Promise.all(
      traces.map((traceId) => collector.waitFor(spanIn(traceId, 'subscription SharedEvent'))),
    );
    const expected = openings.map((o) => ({ traceId: o.traceId, spanId: o.spanId }));
    expect(new Set(expected.map((l) => l.spanId)).size).toBe(2);
    const shared = await collector.waitFor((spans) =>
      spans.find(
        (s) =>
          s.name === 'graphql.subscription.event' &&
          s.attributes['graphql.operation.name'] === 'SharedEvent' &&
          s.links.length === 2,
      ),
    );
    // one link to each opening, in either order; a shared event's span is not a child of either
    expect(shared.links).toEqual(expect.arrayContaining(expected));
    expect(shared.parentSpanId).toBeUndefined();
    expect(shared.attributes['graphql.subscription.links_dropped']).toBeUndefined();
    // every event span of these subscriptions links to one or both openings, never elsewhere
    const events = collector.spans.filter(
      (s) => s.name === 'graphql.subscription.event' && s.attributes['graphql.operation.name'] === 'SharedEvent',
    );
    for (const e of events) expect(expected).toEqual(expect.arrayContaining(e.links));
  });

  test("a graphql-ws subscription continues the upgrade request's traceparent, and so do queries on the socket", async () => {
    const traceId = '6c9bb6b3e3d983f9432d048419e7aef3';
    const parent = '162692c04dc66d24';
    const headers = { traceparent: traceparent(traceId, parent) };
    const event = await firstWsEvent(
      sys.url,
      'subscription OpenedOverWs { prices(tickers: ["AAPL:NASDAQ"]) { ticker } }',
      headers,
    );
    expect(event).toEqual({ data: { prices: { ticker: 'AAPL:NASDAQ' } } });
    expect(await firstWsEvent(sys.url, 'query QueriedOverWs { viewer }', headers)).toMatchObject({ data: {} });
    await sys.system.tracing?.flush();
    const opened = await collector.waitFor(spanIn(traceId, 'subscription OpenedOverWs'));
    expect(opened).toMatchObject({
      parentSpanId: parent,
      attributes: { 'graphql.operation.type': 'subscription', 'graphql.operation.name': 'OpenedOverWs' },
    });
    const query = await collector.waitFor(spanIn(traceId, 'query QueriedOverWs'));
    expect(query).toMatchObject({ parentSpanId: parent, kind: SERVER });
  });

  test("a traceparent in graphql-ws's connection_init payload wins over the upgrade's", async () => {
    const traceId = '7dacc7c4f4ea9406543e159520f8bf04';
    const parent = '273703d15ed77e35';
    await firstWsEvent(
      sys.url,
      'subscription InitTraced { prices(tickers: ["AAPL:NASDAQ"]) { ticker } }',
      { traceparent: traceparent('e'.repeat(32), 'eeeeeeeeeeeeeeee') },
      { traceparent: traceparent(traceId, parent), tracestate: 'vendor=2' },
    );
    await sys.system.tracing?.flush();
    const opened = await collector.waitFor((spans) => spans.find((s) => s.name === 'subscription InitTraced'));
    expect(opened).toMatchObject({ traceId, parentSpanId: parent });
  });

  test("a malformed traceparent in connection_init's payload is passed over: the upgrade's trace continues", async () => {
    const traceId = '8dacc7c4f4ea9406543e159520f8bf04';
    const parent = '373703d15ed77e35';
    await firstWsEvent(
      sys.url,
      'subscription InitMalformed { prices(tickers: ["AAPL:NASDAQ"]) { ticker } }',
      { traceparent: traceparent(traceId, parent) },
      { traceparent: '00-not-a-trace-01' },
    );
    await sys.system.tracing?.flush();
    const opened = await collector.waitFor((spans) => spans.find((s) => s.name === 'subscription InitMalformed'));
    expect(opened).toMatchObject({ traceId, parentSpanId: parent });
  });

  test("on one graphql-ws socket, each subscribe message's extensions.traceparent is its operation's trace", async () => {
    const own = ['9a1b2c3d4e5f60718293a4b5c6d7e8f9', '0a1b2c3d4e5f60718293a4b5c6d7e8f9'];
    const ownParents = ['3a4b5c6d7e8f9a0b', '4a4b5c6d7e8f9a0b'];
    const initTrace = 'aa1b2c3d4e5f60718293a4b5c6d7e8f9';
    const initParent = '5a4b5c6d7e8f9a0b';
    const client = createWsClient({
      url: `${sys.url.replace(/^http/, 'ws')}/graphql/ws`,
      webSocketImpl: class extends WebSocket {
        constructor(address: string, protocols?: string | string[]) {
          // the upgrade's own trace loses to connection_init's
          super(address, protocols, {
            headers: { traceparent: traceparent('f'.repeat(32), 'ffffffffffffffff'), 'x-request-id': 'ws-per-op' },
          });
        }
      },
      connectionParams: { traceparent: traceparent(initTrace, initParent) },
      retryAttempts: 0,
      lazy: false, // one socket for every operation below
    });
    const subscribe = (name: string, extensions?: Record<string, unknown>) =>
      takeResults(
        () =>
          client.iterate({
            query: `subscription ${name} { prices(tickers: ["AAPL:NASDAQ"]) { ticker } }`,
            ...(extensions ? { extensions } : {}),
          }),
        1,
      );
    try {
      // both open at once on the same socket, each with a trace of its own
      const [first, second] = await Promise.all([
        subscribe('PerOpA', { traceparent: traceparent(own[0] as string, ownParents[0] as string) }),
        subscribe('PerOpB', {
          traceparent: traceparent(own[1] as string, ownParents[1] as string),
          tracestate: 'vendor=3',
        }),
      ]);
      expect(first).toEqual([{ data: { prices: { ticker: 'AAPL:NASDAQ' } } }]);
      expect(second).toEqual([{ data: { prices: { ticker: 'AAPL:NASDAQ' } } }]);
      // none, a malformed one and one that is not a string: the connection_init's trace, never an error
      for (const [name, extensions] of [
        ['PerOpNone', undefined],
        ['PerOpMalformed', { traceparent: 'not-a-traceparent' }],
        ['PerOpNotString', { traceparent: 42 }],
      ] as const)
        expect(await subscribe(name, extensions)).toEqual([{ data: { prices: { ticker: 'AAPL:NASDAQ' } } }]);
      // a query on the socket too
      const [answer] = await takeResults(
        () =>
          client.iterate({
            query: 'query PerOpQuery { viewer }',
            extensions: { traceparent: traceparent(own[0] as string, '6a4b5c6d7e8f9a0b') },
          }),
        1,
      );
      expect(answer).toMatchObject({ data: {} });
    } finally {
      await client.dispose();
    }
    await sys.system.tracing?.flush();
    const a = await collector.waitFor((spans) => spans.find((s) => s.name === 'subscription PerOpA'));
    const b = await collector.waitFor((spans) => spans.find((s) => s.name === 'subscription PerOpB'));
    expect(a).toMatchObject({ traceId: own[0], parentSpanId: ownParents[0], kind: SERVER });
    expect(b).toMatchObject({ traceId: own[1], parentSpanId: ownParents[1], kind: SERVER });
    const query = await collector.waitFor(spanIn(own[0] as string, 'query PerOpQuery'));
    expect(query).toMatchObject({ parentSpanId: '6a4b5c6d7e8f9a0b', kind: SERVER });
    for (const name of ['PerOpNone', 'PerOpMalformed', 'PerOpNotString']) {
      const opened = await collector.waitFor((spans) => spans.find((s) => s.name === `subscription ${name}`));
      expect(opened).toMatchObject({ traceId: initTrace, parentSpanId: initParent });
    }
    // one socket: its operations are numbered on the connection's request id
    const ids = ['PerOpA', 'PerOpB', 'PerOpNone', 'PerOpMalformed', 'PerOpNotString'].map(
      (name) => collector.spans.find((s) => s.name === `subscription ${name}`)?.attributes['onegraph.request_id'],
    );
    expect(new Set(ids.map((id) => String(id).replace(/:\d+$/, '')))).toEqual(new Set(['ws-per-op']));
    expect(new Set(ids).size).toBe(5);
  });

  test('a subscription that fails to open: its opening span is an error with the error codes', async () => {
    const requestId = 'trace-sse-refused';
    const client = createClient({
      url: `${sys.url}/graphql/stream`,
      retryAttempts: 0,
      headers: { 'x-request-id': requestId },
    });
    try {
      // the variable's value is not a list of strings: the subgraph refuses to open the subscription
      const results = await takeResults(
        () =>
          client.iterate({
            query: 'subscription BadTickers($t: [String!]!) { prices(tickers: $t) { ticker } }',
            variables: { t: [5] },
          }),
        1,
      );
      expect(results).toEqual([
        { errors: [expect.objectContaining({ extensions: expect.objectContaining({ code: 'BAD_USER_INPUT' }) })] },
      ]);
    } finally {
      client.dispose();
    }
    await sys.system.tracing?.flush();
    const opened = await collector.waitFor((spans) => spans.find((s) => s.name === 'subscription BadTickers'));
    expect(opened).toMatchObject({
      parentSpanId: undefined,
      kind: SERVER,
      status: { code: ERROR, message: 'BAD_USER_INPUT' },
      attributes: { 'onegraph.request_id': requestId, 'graphql.error.codes': ['BAD_USER_INPUT'] },
    });
  });

  test('shutdown sends the spans still queued', async () => {
    const requestId = 'trace-req-last';
    await post(sys.url, { query: '{ viewer }' }, { 'x-request-id': requestId });
    expect(operationOf(collector.spans, requestId)).toBeUndefined(); // still in the batch queue
    await sys.close();
    expect(operationOf(collector.spans, requestId)).toMatchObject({ name: 'query' });
  });
});

describe('the OTLP protocol', () => {
  let protocolCase = 0;
  test.each([
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }, 'application/json'],
    // the traces variable wins over the general one, either way
    [
      { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' },
      'application/x-protobuf',
    ],
    [
      { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' },
      'application/json',
    ],
  ])(
    '%j sends spans as %s',
    async (protocol, contentType) => {
      const sys = await start({ OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl, ...protocol });
      try {
        const requestId = `protocol-${(protocolCase += 1)}`;
        const res = await post(sys.url, { query: 'query Protocol { viewer }' }, { 'x-request-id': requestId });
        expect(res.body.errors).toBeUndefined();
        await sys.system.tracing?.flush();
        const op = await collector.waitFor((spans) => {
          const found = operationOf(spans, requestId);
          return found && childrenOf(spans, found).length >= 2 ? found : undefined;
        });
        expect(op).toMatchObject({ name: 'query Protocol', kind: SERVER, contentType });
        expect(childrenOf(collector.spans, op)).toEqual(
          expect.arrayContaining([
            expect.objectContaining({ name: 'graphql.fetch', contentType }),
            expect.objectContaining({ name: 'graphql.plan', contentType }),
          ]),
        );
      } finally {
        await sys.close();
      }
    },
    30_000,
  );
});

describe('with the market subgraph remote', () => {
  test("the request opening a subscription on it carries the opening span's traceparent", async () => {
    // stands in for the market subgraph: keeps each request's headers and refuses it
    const seen: IncomingHttpHeaders[] = [];
    const market = createServer((req, res) => {
      seen.push(req.headers);
      res.writeHead(503).end('down for the test');
    });
    await new Promise<void>((resolve) => market.listen(0, '127.0.0.1', resolve));
    const { port } = market.address() as AddressInfo;
    const sys = await start(
      { OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl },
      { market: `http://127.0.0.1:${port}/graphql` },
    );
    const traceId = '8ebdd8d5a5fba517654f26a631a9c015';
    const client = createClient({
      url: `${sys.url}/graphql/stream`,
      retryAttempts: 0,
      headers: { traceparent: traceparent(traceId, '384814e26fe88f46') },
    });
    try {
      const [first] = await takeResults(
        () => client.iterate({ query: 'subscription RemoteOpen { prices(tickers: ["AAPL:NASDAQ"]) { ticker } }' }),
        1,
      );
      // the refusal arrives as the subscription's first result, after its opening ended
      expect(first?.errors).toBeDefined();
      await sys.system.tracing?.flush();
      const opened = await collector.waitFor(spanIn(traceId, 'subscription RemoteOpen'));
      expect(seen.map((h) => h.traceparent)).toEqual([traceparent(traceId, opened.spanId)]);
    } finally {
      client.dispose();
      await sys.close();
      await new Promise<void>((resolve) => market.close(() => resolve()));
    }
  }, 30_000);
});

describe('with the response cache on', () => {
  test('a query answered from the cache is a span too, marked cached, with no fetch', async () => {
    const sys = await start({ OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl, RESPONSE_CACHE: 'true' });
    try {
      const query = 'query Cached { viewer }';
      // the cache's fast path does not parse the document: the span is named from the request's operationName
      await post(sys.url, { query, operationName: 'Cached' }, { 'x-request-id': 'cache-miss' });
      await post(sys.url, { query, operationName: 'Cached' }, { 'x-request-id': 'cache-hit' }); // viewer is cacheable
      await sys.system.tracing?.flush();
      const hit = await collector.waitFor((spans) => operationOf(spans, 'cache-hit'));
      expect(hit).toMatchObject({
        name: 'query Cached',
        kind: SERVER,
        attributes: { 'onegraph.cached': true, 'graphql.document.hash': hashOf(query) },
      });
      expect(childrenOf(collector.spans, hit)).toEqual([]);
    } finally {
      await sys.close();
    }
  }, 30_000);
});

describe('without an OTLP endpoint', () => {
  test('nothing of tracing is built: no SDK, no span in the context, no traceparent to subgraphs', async () => {
    const before = collector.raw.length;
    const sys = await start({});
    try {
      expect(sys.system.tracing).toBeUndefined();
      expect(sys.system.graph.context('r').trace).toBeUndefined();
      echo.seen.length = 0;
      const res = await post(
        sys.url,
        { query: '{ viewer }' },
        { traceparent: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01` },
      );
      expect(res.body.errors).toBeUndefined();
      expect(echo.seen).toHaveLength(1);
      expect(echo.seen[0]?.traceparent).toBeUndefined();
      const rest = await fetch(`${sys.url}/v1/quote/AAPL:NASDAQ`, {
        headers: { traceparent: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01` },
      });
      expect(rest.status).toBe(200);
    } finally {
      await sys.close();
    }
    expect(collector.raw.length).toBe(before);
  }, 30_000);
});
