import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { backoffDelay, isRetryableStatus, postWithRetry, type RetryPolicy } from './http';

describe('retry policy', () => {
  test('retryable statuses: 429 and 5xx only', () => {
    expect([429, 500, 502, 503, 504, 599].every(isRetryableStatus)).toBe(true);
    expect([200, 204, 301, 400, 401, 403, 404, 413, 600].some(isRetryableStatus)).toBe(false);
  });

  test('backoff grows exponentially, stays within [half, full] of the step, and is capped', () => {
    expect([1, 2, 3, 4].map((a) => backoffDelay(a, 100, 10_000, () => 0.999999))).toEqual([100, 200, 400, 800]);
    expect([1, 2, 3, 4].map((a) => backoffDelay(a, 100, 10_000, () => 0))).toEqual([50, 100, 200, 400]);
    expect(backoffDelay(30, 100, 5000, () => 0.999999)).toBe(5000);
    for (let i = 0; i < 200; i++) {
      const d = backoffDelay(3, 100, 10_000);
      expect(d).toBeGreaterThanOrEqual(200);
      expect(d).toBeLessThanOrEqual(400);
    }
  });
});

describe('postWithRetry', () => {
  let server: Server;
  let url: string;
  let handler: (body: string, n: number) => { status: number; body: string; delay?: number; chunked?: boolean };
  let count = 0;

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const r = handler(body, ++count);
        const send = (): void => {
          if (r.chunked) {
            res.writeHead(r.status, { 'Content-Type': 'text/plain' });
            res.write(r.body.slice(0, 10));
            setTimeout(() => res.end(r.body.slice(10)), 300);
          } else {
            res.writeHead(r.status, { 'Content-Type': 'text/plain' }).end(r.body);
          }
        };
        if (r.delay) setTimeout(send, r.delay);
        else send();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  beforeEach(() => {
    count = 0;
  });

  const policy = (p: Partial<RetryPolicy> = {}): RetryPolicy => ({
    timeoutMs: 1000,
    retries: 2,
    backoffMs: 1,
    maxBackoffMs: 50,
    maxResponseBytes: 1 << 20,
    ...p,
  });

  test('returns the body of a 200 and sends body and headers', async () => {
    handler = (body) => ({ status: 200, body: `echo:${body}` });
    const out = await postWithRetry({ url, body: 'f.req=1', headers: { 'X-T': 'y' }, policy: policy() });
    expect(out).toEqual({ ok: true, status: 200, body: 'echo:f.req=1', attempts: 1 });
  });

  test('the timeout covers a body that arrives too slowly', async () => {
    handler = () => ({ status: 200, body: 'a'.repeat(100), chunked: true });
    const out = await postWithRetry({ url, body: '', headers: {}, policy: policy({ timeoutMs: 100, retries: 0 }) });
    expect(out).toMatchObject({
      ok: false,
      kind: 'timeout',
      attempts: 1,
      message: 'upstream did not answer within 100 ms',
    });
  });

  test('an answer above maxResponseBytes is refused without retry', async () => {
    handler = () => ({ status: 200, body: 'x'.repeat(5000) });
    const out = await postWithRetry({ url, body: '', headers: {}, policy: policy({ maxResponseBytes: 1000 }) });
    expect(out).toMatchObject({ ok: false, kind: 'too-large', attempts: 1 });
    expect(count).toBe(1);
  });

  test('waits between attempts (backoff), never more attempts than retries+1', async () => {
    handler = () => ({ status: 500, body: '' });
    const started = Date.now();
    const out = await postWithRetry({
      url,
      body: '',
      headers: {},
      policy: policy({ retries: 3, backoffMs: 40, maxBackoffMs: 1000 }),
      random: () => 0.999999,
    });
    const elapsed = Date.now() - started;
    expect(out).toMatchObject({
      ok: false,
      kind: 'status',
      status: 500,
      attempts: 4,
      message: 'upstream returned HTTP 500',
    });
    expect(count).toBe(4);
    expect(elapsed).toBeGreaterThanOrEqual(40 + 80 + 160 - 10);
  });
});
