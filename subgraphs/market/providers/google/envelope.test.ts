import { decodeFReqBody, encodeBatchResponse } from '../../../../test/support/google-upstream';
import {
  buildEnvelope,
  decodePayload,
  matchRows,
  parseBatchResponse,
  sourcePathFor,
  type EnvelopeCall,
  type WrbRow,
} from './envelope';
import { buildRpcCall } from './rpc-calls';

const quote = buildRpcCall({ kind: 'quote', ticker: 'AAPL:NASDAQ' });
const company = buildRpcCall({ kind: 'company', ticker: 'AAPL:NASDAQ' });
const chart = buildRpcCall({ kind: 'chart', ticker: 'AAPL:NASDAQ', range: '5D' });
const msft = buildRpcCall({ kind: 'quote', ticker: 'MSFT:NASDAQ' });
const indices = buildRpcCall({ kind: 'indices' });

describe('envelope: building the request', () => {
  test('f.req is [[[rpcid, JSON.stringify(params), null, "n"], …]], URL-encoded after "f.req="', () => {
    const env = buildEnvelope([quote, chart, indices]);
    expect(env.body.startsWith('f.req=')).toBe(true);
    const freq = decodeURIComponent(env.body.slice('f.req='.length));
    expect(JSON.parse(freq)).toEqual([
      [
        ['xh8wxf', '[[[null,["AAPL","NASDAQ"]]],1]', null, '1'],
        ['AiCwsd', '[[[null,["AAPL","NASDAQ"]]],2]', null, '2'],
        ['Xhdx2e', '[null,1]', null, '3'],
      ],
    ]);
    // and form-decoding (what a server does) gives the same
    expect(new URLSearchParams(env.body).get('f.req')).toBe(freq);
    expect(env.calls.map((c) => c.seq)).toEqual(['1', '2', '3']);
  });

  test('special characters in params survive the encoding', () => {
    const odd = { rpcid: 'xh8wxf', params: ['a&b=c+d %20 "q" é'], ticker: null };
    const env = buildEnvelope([odd]);
    const decoded = decodeFReqBody(env.body);
    expect(decoded).toEqual([{ rpcid: 'xh8wxf', params: ['a&b=c+d %20 "q" é'], seq: '1' }]);
  });

  test('query: comma-joined distinct rpcids, escaped source-path, hl=en&gl=us&rt=c', () => {
    const env = buildEnvelope([quote, company, msft, indices]);
    expect(env.query).toBe('rpcids=xh8wxf,HqGpWd,Xhdx2e&source-path=%2Ffinance%2F&hl=en&gl=us&rt=c');
    const one = buildEnvelope([quote, company, chart]);
    expect(one.query).toBe(
      'rpcids=xh8wxf,HqGpWd,AiCwsd&source-path=%2Ffinance%2Fquote%2FAAPL%3ANASDAQ&hl=en&gl=us&rt=c',
    );
    const q = new URLSearchParams(one.query);
    expect(q.get('source-path')).toBe('/finance/quote/AAPL:NASDAQ');
    expect(q.get('rpcids')).toBe('xh8wxf,HqGpWd,AiCwsd');
  });

  test('source-path: the quote page when every ticker call is for one ticker, else /finance/', () => {
    expect(sourcePathFor([quote, company, chart])).toBe('/finance/quote/AAPL:NASDAQ');
    expect(sourcePathFor([quote, indices])).toBe('/finance/quote/AAPL:NASDAQ');
    expect(sourcePathFor([quote, msft])).toBe('/finance/');
    expect(sourcePathFor([indices])).toBe('/finance/');
    expect(sourcePathFor([buildRpcCall({ kind: 'news', ticker: 'BTC-USD' })])).toBe('/finance/quote/BTC-USD');
  });
});

describe('envelope: reading the answer', () => {
  const real = [
    ")]}'",
    '',
    '120',
    '[["wrb.fr","AiCwsd","[[[\\"x\\"]]]",null,null,null,"2"]]',
    '95',
    '[["wrb.fr","xh8wxf","[1,2]",null,null,null,"1"],["wrb.fr","Xhdx2e",null,null,null,[3],"3"]]',
    '58',
    '[["di",33],["af.httprm",32,"-1234",21]]',
    '25',
    '[["e",5,null,null,233]]',
    '',
  ].join('\n');

  test('keeps wrb.fr rows across chunks, skips di/af.httprm/e, reads rpcid, payload string and sequence', () => {
    const parsed = parseBatchResponse(real);
    expect(parsed).toEqual({
      ok: true,
      rows: [
        { rpcid: 'AiCwsd', payload: '[[["x"]]]', seq: '2' },
        { rpcid: 'xh8wxf', payload: '[1,2]', seq: '1' },
        { rpcid: 'Xhdx2e', payload: null, seq: '3' },
      ],
    });
  });

  test('maps rows back to calls by sequence string, whatever their order', () => {
    const calls: EnvelopeCall[] = buildEnvelope([quote, chart, indices]).calls;
    const parsed = parseBatchResponse(real);
    if (!parsed.ok) throw new Error('unexpected');
    const rows = matchRows(calls, parsed.rows);
    expect(rows.map((r) => r?.rpcid)).toEqual(['xh8wxf', 'AiCwsd', 'Xhdx2e']);
    expect(decodePayload(rows[0]!)).toEqual({ ok: true, payload: [1, 2] });
    expect(decodePayload(rows[1]!)).toEqual({ ok: true, payload: [[['x']]] });
    expect(decodePayload(rows[2]!)).toEqual({ ok: true, payload: null });
  });

  test('two calls with the same rpcid are told apart by sequence', () => {
    const calls = buildEnvelope([quote, msft]).calls;
    const text = encodeBatchResponse([
      { kind: 'wrb.fr', rpcid: 'xh8wxf', payload: ['msft'], seq: '2' },
      { kind: 'wrb.fr', rpcid: 'xh8wxf', payload: ['aapl'], seq: '1' },
    ]);
    const parsed = parseBatchResponse(text);
    if (!parsed.ok) throw new Error('unexpected');
    const rows = matchRows(calls, parsed.rows);
    expect(rows.map((r) => (r ? decodePayload(r) : undefined))).toEqual([
      { ok: true, payload: ['aapl'] },
      { ok: true, payload: ['msft'] },
    ]);
  });

  test('a row whose rpcid disagrees with the call of its sequence is not used; a missing row stays missing', () => {
    const calls = buildEnvelope([quote, company]).calls;
    const rows: WrbRow[] = [{ rpcid: 'HqGpWd', payload: '[]', seq: '1' }];
    expect(matchRows(calls, rows)).toEqual([undefined, undefined]);
    const good: WrbRow = { rpcid: 'HqGpWd', payload: '[]', seq: '2' };
    expect(matchRows(calls, [good])).toEqual([undefined, good]);
  });

  test('a "generic" sequence (single-call answers) is matched by rpcid when unambiguous', () => {
    const calls = buildEnvelope([quote, company]).calls;
    const row: WrbRow = { rpcid: 'HqGpWd', payload: '[9]', seq: 'generic' };
    expect(matchRows(calls, [row])).toEqual([undefined, row]);
    const twoQuotes = buildEnvelope([quote, msft]).calls;
    expect(matchRows(twoQuotes, [{ rpcid: 'xh8wxf', payload: '[9]', seq: 'generic' }])).toEqual([undefined, undefined]);
  });

  test('tolerates CRLF, a missing prefix and a single row instead of an array of rows', () => {
    const crlf = ')]}\'\r\n\r\n40\r\n[["wrb.fr","QKZUzd","[1]",null,null,null,"1"]]\r\n';
    expect(parseBatchResponse(crlf)).toEqual({ ok: true, rows: [{ rpcid: 'QKZUzd', payload: '[1]', seq: '1' }] });
    expect(parseBatchResponse('[["wrb.fr","QKZUzd","[1]",null,null,null,"1"]]')).toEqual({
      ok: true,
      rows: [{ rpcid: 'QKZUzd', payload: '[1]', seq: '1' }],
    });
    expect(parseBatchResponse(')]}\'\n\n12\n["wrb.fr","QKZUzd","[2]",null,null,null,"4"]\n')).toEqual({
      ok: true,
      rows: [{ rpcid: 'QKZUzd', payload: '[2]', seq: '4' }],
    });
  });

  test('a pretty-printed answer (one JSON value over several lines) is still read', () => {
    const pretty = `)]}'\n${JSON.stringify([['wrb.fr', 'lvVhof', '[]', null, null, null, '1']], null, 2)}`;
    expect(parseBatchResponse(pretty)).toEqual({ ok: true, rows: [{ rpcid: 'lvVhof', payload: '[]', seq: '1' }] });
  });

  test('an answer with only di/af.httprm rows is readable but has no rows', () => {
    expect(parseBatchResponse(encodeBatchResponse([]))).toEqual({ ok: true, rows: [] });
  });

  test.each([
    ['', /empty body/],
    ['<!doctype html><html>Sorry…</html>', /not a batchexecute answer/],
    [')]}\'\n\n12\n{"a":1}\n', /not a batchexecute answer/],
    [')]}\'\n\n99\n[["wrb.fr","xh8wxf","[1]"', /not a batchexecute answer/],
    ['[1,2,3]', /not a batchexecute answer/],
  ])('garbage %j is reported, not thrown', (text, reason) => {
    const parsed = parseBatchResponse(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.reason).toMatch(reason);
  });

  test('a payload string that is not JSON is an error; an inline array payload is accepted', () => {
    expect(decodePayload({ rpcid: 'x', payload: '[1,', seq: '1' })).toEqual({
      ok: false,
      reason: expect.stringMatching(/payload is not JSON/),
    });
    expect(decodePayload({ rpcid: 'x', payload: [1], seq: '1' })).toEqual({ ok: true, payload: [1] });
  });

  test('the fake encoder and this parser agree (length lines, di and e rows included)', () => {
    const text = encodeBatchResponse([
      { kind: 'wrb.fr', rpcid: 'xh8wxf', payload: [[['q\n"x"']]], seq: '1' },
      { kind: 'raw', row: ['er', null, null, null, 7] },
      { kind: 'wrb.fr', rpcid: 'HqGpWd', payload: null, seq: '2' },
    ]);
    expect(text.startsWith(")]}'\n\n")).toBe(true);
    expect(text).toMatch(/\n\d+\n\[\["di",/);
    expect(parseBatchResponse(text)).toEqual({
      ok: true,
      rows: [
        { rpcid: 'xh8wxf', payload: JSON.stringify([[['q\n"x"']]]), seq: '1' },
        { rpcid: 'HqGpWd', payload: null, seq: '2' },
      ],
    });
  });
});
