import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig } from '../../gateway/host/config/load';
import { createSystem, type System } from '../../gateway/host/system';
import { createLogger } from '../../platform/log';
import { TEST_ADMIN_PASSWORD } from '../support/system';
import { waitFor } from '../support/sse';

/**
 * One request id per request, under one name: an incoming `x-request-id` that is short and safe is the request's id,
 * anything else gets a new one; the id goes back in `x-request-id` on every answer (GraphQL, each REST interface,
 * streams, errors, 404s) and is `reqId` on every log line about the request, stream lines included.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('request ids', () => {
  let system: System;
  let url: string;
  let dataDir: string;
  const lines: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'request-id-'));
    const config = loadConfig({
      env: {
        PORT: '0',
        DNS_PORT: '0',
        DNS_API_PORT: '0',
        LOG_LEVEL: 'info',
        DATA_DIR: dataDir,
        ADMIN_PASSWORD: TEST_ADMIN_PASSWORD,
        LIVE_INTERVAL_MS: '200',
      },
    });
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of chunk.toString().split('\n'))
          if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    system = await createSystem(config, createLogger('info', sink));
    url = await system.app.listen({ port: 0, host: '127.0.0.1' });
  }, 60_000);
  afterAll(async () => {
    await system?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const linesOf = (id: string) => lines.filter((l) => l.reqId === id);

  test('a safe incoming x-request-id is the id: echoed, and reqId on the request line and the GraphQL line', async () => {
    const id = 'edge-7f3a.trace:42';
    const res = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': id },
      body: JSON.stringify({ query: '{ quote(ticker: "AAPL:NASDAQ") { ticker } }' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe(id);
    await waitFor(() => linesOf(id).some((l) => l.msg === 'request'), 5_000, 'the request line');
    expect(linesOf(id).map((l) => l.msg)).toEqual(expect.arrayContaining(['graphql', 'request']));
  });

  test.each([
    ['too long', 'a'.repeat(129)],
    ['a space', 'two words'],
    ['a quote and angle brackets', '"><script>'],
    ['a line break escape', 'x%0d%0aSet-Cookie:y'],
  ])('an x-request-id with %s is not taken: a new id is made and echoed', async (_what, given) => {
    const res = await fetch(`${url}/healthz`, { headers: { 'x-request-id': given } });
    expect(res.headers.get('x-request-id')).toMatch(UUID);
  });

  test('without x-request-id every answer still carries its generated id', async () => {
    const res = await fetch(`${url}/livez`);
    const id = res.headers.get('x-request-id') ?? '';
    expect(id).toMatch(UUID);
    await waitFor(() => linesOf(id).some((l) => l.msg === 'request'), 5_000, 'the request line');
  });

  test.each([
    ['GraphQL error', 'POST', '/graphql', 400],
    ['market REST', 'GET', '/v1/quote/AAPL:NASDAQ', 200],
    ['market REST bad input', 'GET', '/v1/quote/AAPL', 400],
    ['DNS tool help page', 'GET', '/api.php', 200],
    ['DNS tool error', 'GET', '/api.php?action=list_records&zone=example.test', 400],
    ['DNS API without a token', 'GET', '/api/v1/zones', 401],
    ['DNS API 404', 'GET', '/api/v1/nothing-here', 404],
    ['404 elsewhere', 'GET', '/no/such/path', 404],
    ['a URL refused before routing', 'GET', '/v1/quote/%zz', 400],
    ['playground', 'GET', '/', 200],
  ])('%s: %s %s echoes the id', async (_what, method, path, status) => {
    const id = `route-${path.length}-${status}-${method}`;
    const res = await fetch(`${url}${path}`, {
      method,
      headers: {
        'x-request-id': id,
        accept: path === '/' ? 'text/html' : 'application/json',
        'content-type': 'application/json',
      },
      ...(method === 'POST' ? { body: '{"query": "{ nope }"}' } : {}),
    });
    expect(res.status).toBe(status);
    expect(res.headers.get('x-request-id')).toBe(id);
  });

  test('streams: /v1/live and /graphql/stream echo the id, and their log lines say reqId, never requestId', async () => {
    for (const [path, init] of [
      ['/v1/live?tickers=AAPL:NASDAQ', {}],
      [
        '/graphql/stream',
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: 'subscription { priceTicks(tickers: ["AAPL:NASDAQ"]) { ticker } }' }),
        },
      ],
    ] as const) {
      const id = `stream${path.replace(/[^a-z]/g, '-')}`;
      const abort = new AbortController();
      const res = await fetch(`${url}${path}`, {
        ...init,
        signal: abort.signal,
        headers: { ...('headers' in init ? init.headers : {}), accept: 'text/event-stream', 'x-request-id': id },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(res.headers.get('x-request-id')).toBe(id);
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      await reader.read(); // the stream is open
      abort.abort();
      await waitFor(() => linesOf(id).some((l) => l.msg === 'request' || l.msg === 'live stream closed'), 5_000, path);
    }
    expect(lines.filter((l) => 'requestId' in l)).toEqual([]);
  });
});
