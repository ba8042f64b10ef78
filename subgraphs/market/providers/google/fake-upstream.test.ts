/**
 * The fake upstream itself (test/support/google-upstream.ts): strict about requests, faithful answer format,
 * run-time behaviours, clean shutdown.
 */
import { request } from 'node:http';
import { startFakeUpstream, type FakeUpstream } from '../../../../test/support/google-upstream';
import { parseBatchResponse } from './envelope';

let fake: FakeUpstream;
beforeEach(async () => {
  fake = await startFakeUpstream();
});
afterEach(async () => {
  await fake.close();
});

const PATH = '/finance/_/GoogleFinanceUi/data/batchexecute';

function freq(calls: [string, unknown][]): string {
  return `f.req=${encodeURIComponent(JSON.stringify([calls.map(([id, p], i) => [id, JSON.stringify(p), null, String(i + 1)])]))}`;
}

async function post(
  body: string,
  query = 'rpcids=xh8wxf&source-path=%2Ffinance%2F&hl=en&gl=us&rt=c',
  path = PATH,
): Promise<{ status: number; text: string }> {
  const res = await fetch(`${fake.url}${path}?${query}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded;charset=UTF-8' },
    body,
  });
  return { status: res.status, text: await res.text() };
}

/** Decoded payloads of an answer, by sequence. */
function payloads(text: string): Record<string, unknown> {
  const parsed = parseBatchResponse(text);
  if (!parsed.ok) throw new Error(parsed.reason);
  return Object.fromEntries(
    parsed.rows.map((r) => [r.seq, r.payload === null ? null : JSON.parse(r.payload as string)]),
  );
}

describe('fake upstream', () => {
  test('listens on 127.0.0.1 only', () => {
    expect(fake.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  test('answer format: prefix, length lines, wrb.fr rows then di/af.httprm and e rows', async () => {
    const { status, text } = await post(freq([['xh8wxf', [[[null, ['AAPL', 'NASDAQ']]], 1]]]));
    expect(status).toBe(200);
    const lines = text.split('\n');
    expect(lines[0]).toBe(")]}'");
    expect(lines[1]).toBe('');
    expect(Number(lines[2])).toBe(lines[3]!.length + 1);
    expect(JSON.parse(lines[3]!)[0].slice(0, 2)).toEqual(['wrb.fr', 'xh8wxf']);
    expect(JSON.parse(lines[3]!)[0][6]).toBe('1');
    expect(JSON.parse(lines[5]!).map((r: unknown[]) => r[0])).toEqual(['di', 'af.httprm']);
    expect(JSON.parse(lines[7]!)[0][0]).toBe('e');
    expect(fake.requests).toBe(1);
  });

  test('strict params: wrong shapes get a null payload (so provider bugs show)', async () => {
    const aapl = [null, ['AAPL', 'NASDAQ']];
    const btc = [null, null, ['BTC', 'USD']];
    const { text } = await post(
      freq([
        ['xh8wxf', [[aapl], 1]], // ok
        ['xh8wxf', [[aapl]]], // quote without the trailing 1
        ['nBEQBc', [6, 3, [aapl]]], // news type 6 for an exchange ticker
        ['nBEQBc', [6, 3, [btc]]], // ok
        ['AiCwsd', [[aapl], 9]], // unknown chart mode
        ['YtbmEe', [['gainers'], 10, 0]], // category as a name
        ['xh8wxf', [[[null, ['NOPE', 'NASDAQ']]], 1]], // unknown ticker
      ]),
      'rpcids=xh8wxf,nBEQBc,AiCwsd,YtbmEe&source-path=%2Ffinance%2F&hl=en&gl=us&rt=c',
    );
    const p = payloads(text);
    expect(p['1']).not.toBeNull();
    expect([p['2'], p['3'], p['5'], p['6'], p['7']]).toEqual([null, null, null, null, null]);
    expect(p['4']).not.toBeNull();
  });

  test('400 for a malformed f.req or rpcids that do not match the body; 404 elsewhere', async () => {
    expect((await post('f.req=%5B')).status).toBe(400);
    expect((await post('nothing=1')).status).toBe(400);
    expect((await post(freq([['HqGpWd', []]]))).status).toBe(400); // query says xh8wxf
    expect((await post(freq([['xh8wxf', []]]), 'rpcids=xh8wxf')).status).toBe(400); // no source-path, no rt=c
    expect((await post(freq([['xh8wxf', []]]), undefined, '/other')).status).toBe(404);
  });

  test('status behaviour with times: N failures, then ok', async () => {
    fake.behaviour = { mode: 'status', status: 502, times: 2 };
    const body = freq([['xh8wxf', [[[null, ['AAPL', 'NASDAQ']]], 1]]]);
    expect((await post(body)).status).toBe(502);
    expect((await post(body)).status).toBe(502);
    expect((await post(body)).status).toBe(200);
    expect(fake.requests).toBe(3);
    expect(fake.behaviour).toEqual({ mode: 'status', status: 502, times: 2 });
  });

  test('garbage, nullPayload and dropRows behaviours', async () => {
    const body = freq([['xh8wxf', [[[null, ['AAPL', 'NASDAQ']]], 1]]]);
    fake.behaviour = { mode: 'garbage', times: 1 };
    expect(parseBatchResponse((await post(body)).text).ok).toBe(false);
    expect(parseBatchResponse((await post(body)).text).ok).toBe(true);
    fake.behaviour = { mode: 'nullPayload' };
    expect(payloads((await post(body)).text)).toEqual({ 1: null });
    fake.behaviour = { mode: 'dropRows' };
    expect(parseBatchResponse((await post(body)).text)).toEqual({ ok: true, rows: [] });
  });

  test('close() ends hanging requests and resolves promptly', async () => {
    fake.behaviour = { mode: 'hang' };
    const url = new URL(`${fake.url}${PATH}?rpcids=xh8wxf&source-path=%2Ffinance%2F&rt=c`);
    const outcome = new Promise<string>((resolve) => {
      const req = request(url, { method: 'POST' }, (res) => resolve(`answered ${res.statusCode}`));
      req.on('error', (e) => resolve(`error ${(e as NodeJS.ErrnoException).code}`));
      req.end(freq([['xh8wxf', []]]));
    });
    // the request has arrived (a busy machine may take a while: wait for it, bounded)
    for (let i = 0; i < 500 && fake.requests === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(fake.requests).toBe(1);
    // close() would wait for the hanging request forever if it did not end it: resolving at all is the check; the
    // bound is a backstop far above what it takes (milliseconds), so a loaded machine does not fail it
    const started = Date.now();
    await fake.close();
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await outcome).toBe('error ECONNRESET');
  });
});
