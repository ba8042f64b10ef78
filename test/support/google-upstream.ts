/**
 * A fake of the finance site's internal batchexecute RPC, for tests and benchmarks of the `google` provider.
 *
 * `POST /finance/_/GoogleFinanceUi/data/batchexecute`: decodes `f.req`, answers every call with a `wrb.fr` row
 * whose payload is built from the documented layouts (google-payloads.ts) for a small fixed catalog; unknown
 * tickers and malformed params get a row with a null payload. The answer has the `)]}'` prefix, (length line,
 * JSON line) chunks and the `di` / `af.httprm` / `e` rows of the real thing. Strict about what it is sent (a
 * malformed `f.req`, or `rpcids` in the query that do not match the body, is a 400), so that a provider bug shows.
 *
 * Bound to 127.0.0.1 only. `behaviour` can be changed at run time to inject failures.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  chartPayload,
  companyPayload,
  earningsPayload,
  FAKE_CHART_MODES,
  FAKE_MARKET,
  FAKE_MOVER_CODES,
  FAKE_TICKERS,
  fakeChart,
  financialsPayload,
  headlinePayload,
  listPayload,
  newsPayload,
  quotePayload,
  tickerOfTuple,
} from './google-payloads';

export const FAKE_BATCHEXECUTE_PATH = '/finance/_/GoogleFinanceUi/data/batchexecute';

export type FakeBehaviour =
  | { mode: 'ok' }
  /** Answers HTTP `status` to the next `times` requests (all when absent), then behaves as `ok`. */
  | { mode: 'status'; status: number; times?: number }
  /** Never answers the next `times` requests (all when absent); the sockets stay open until the client gives up. */
  | { mode: 'hang'; times?: number }
  /** Answers 200 with a body that is no batchexecute envelope, `times` times (always when absent). */
  | { mode: 'garbage'; times?: number }
  /** Every `wrb.fr` row has a null payload. */
  | { mode: 'nullPayload' }
  /** Leaves out the `wrb.fr` rows (of the listed rpcids only, when given); the `di`/`af.httprm` rows stay. */
  | { mode: 'dropRows'; rpcids?: string[] };

export interface FakeUpstream {
  /** `http://127.0.0.1:PORT`: the provider's `baseUrl`. */
  url: string;
  /** HTTP requests received on the batchexecute path: upstream round trips. Tests may reset it. */
  requests: number;
  /** Raw bodies of the most recent requests (at most 100), oldest first. */
  lastBodies: string[];
  /** Request URLs (path and query) of the same requests. */
  lastUrls: string[];
  /** Request headers of the same requests. */
  lastHeaders: IncomingMessage['headers'][];
  behaviour: FakeBehaviour;
  /**
   * A test's own payload for a call (e.g. values the catalog does not have); `undefined` → the catalog's answer.
   * `tickerOfCall` tells which ticker a call is about.
   */
  payloadFor?: (call: DecodedCall) => unknown;
  close(): Promise<void>;
}

export interface FakeUpstreamOptions {
  /** Delay before every answer, for benchmarks. */
  latencyMs?: number;
  /** Every answer waits until this settles: requests stay in flight until a test lets them go. */
  answerAfter?: Promise<unknown>;
}

// ------------------------------------------------------------------------------------------------ the wire

/** One call decoded from `f.req`. */
export interface DecodedCall {
  rpcid: string;
  params: unknown;
  seq: string;
}

/** Decodes a form body `f.req=[[[rpcid, paramsJson, null, seq], …]]`; a string says what is wrong. */
export function decodeFReqBody(body: string): DecodedCall[] | string {
  const freq = new URLSearchParams(body).get('f.req');
  if (freq === null) return 'no f.req field';
  let outer: unknown;
  try {
    outer = JSON.parse(freq);
  } catch {
    return 'f.req is not JSON';
  }
  if (!Array.isArray(outer) || outer.length !== 1 || !Array.isArray(outer[0]) || outer[0].length === 0) {
    return 'f.req is not [[call, …]]';
  }
  const calls: DecodedCall[] = [];
  for (const c of outer[0] as unknown[]) {
    if (
      !Array.isArray(c) ||
      c.length !== 4 ||
      typeof c[0] !== 'string' ||
      typeof c[1] !== 'string' ||
      c[2] !== null ||
      typeof c[3] !== 'string'
    ) {
      return `bad call ${JSON.stringify(c)}`;
    }
    let params: unknown;
    try {
      params = JSON.parse(c[1]);
    } catch {
      return `params of ${c[0]} are not JSON`;
    }
    calls.push({ rpcid: c[0], params, seq: c[3] });
  }
  if (new Set(calls.map((c) => c.seq)).size !== calls.length) return 'duplicate sequence strings';
  return calls;
}

/** A row of an answer: `wrb.fr` (with its payload, or null) or another kind. */
export type FakeRow =
  { kind: 'wrb.fr'; rpcid: string; payload: unknown; seq: string } | { kind: 'raw'; row: unknown[] };

function chunk(json: string): string {
  // length line, then the JSON line; the length counts the JSON line with its newline
  return `${json.length + 1}\n${json}\n`;
}

/** Encodes an answer like the real endpoint with `rt=c`: prefix, one chunk per `wrb.fr` row, then `di`/`af.httprm`, then `e`. */
export function encodeBatchResponse(rows: readonly FakeRow[]): string {
  let out = ")]}'\n\n";
  let n = 0;
  for (const r of rows) {
    if (r.kind === 'raw') {
      out += chunk(JSON.stringify([r.row]));
      continue;
    }
    n++;
    const payload = r.payload === null ? null : JSON.stringify(r.payload);
    out += chunk(JSON.stringify([['wrb.fr', r.rpcid, payload, null, null, null, r.seq]]));
  }
  out += chunk(
    JSON.stringify([
      ['di', 42 + n],
      ['af.httprm', 41 + n, '-4123456789012345678', 17],
    ]),
  );
  out += chunk(JSON.stringify([['e', 4 + n, null, null, 123 + 97 * n]]));
  return out;
}

// ---------------------------------------------------------------------------------------------- answering

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

/** Ticker of `[[tuple], …]` params. */
function tickerOfList(v: unknown): string | null {
  return Array.isArray(v) && v.length === 1 ? tickerOfTuple(v[0]) : null;
}

/** The ticker a per-ticker call is about (quote, company, financials, chart, news, related), else null. */
export function tickerOfCall(call: Pick<DecodedCall, 'rpcid' | 'params'>): string | null {
  const p = call.params;
  if (!Array.isArray(p)) return null;
  switch (call.rpcid) {
    case 'xh8wxf':
    case 'HqGpWd':
    case 'Pr8h2e':
    case 'AiCwsd':
      return tickerOfList(p[0]);
    case 'nBEQBc':
      return tickerOfList(p[2]);
    case 'SICF5d':
      return tickerOfTuple(p[0]);
    default:
      return null;
  }
}

/** The payload for one call, or null (unknown ticker, malformed params, unknown rpcid). */
export function answerCall(rpcid: string, params: unknown): unknown {
  if (!Array.isArray(params)) return null;
  const p: unknown[] = params;
  switch (rpcid) {
    case 'xh8wxf': {
      // quote: [[tuple], 1]
      const t = p.length === 2 && p[1] === 1 ? tickerOfList(p[0]) : null;
      const f = t === null ? undefined : FAKE_TICKERS[t];
      return f ? quotePayload(f.quote) : null;
    }
    case 'HqGpWd': {
      // company: [[tuple]]
      const t = p.length === 1 ? tickerOfList(p[0]) : null;
      const f = t === null ? undefined : FAKE_TICKERS[t];
      return f?.company ? companyPayload(f.company) : null;
    }
    case 'Pr8h2e': {
      // financials: [[tuple]]
      const t = p.length === 1 ? tickerOfList(p[0]) : null;
      const f = t === null ? undefined : FAKE_TICKERS[t];
      return f?.financials ? financialsPayload(f.financials) : null;
    }
    case 'AiCwsd': {
      // chart: [[tuple], mode]
      const t = p.length === 2 ? tickerOfList(p[0]) : null;
      const range = isInt(p[1]) ? FAKE_CHART_MODES[p[1]] : undefined;
      const f = t === null ? undefined : FAKE_TICKERS[t];
      if (!f || !range || t === null) return null;
      const data = fakeChart(t, range)!;
      const s = f.session;
      return chartPayload(data, {
        ticker: t,
        closeTime: { hour: s.closeHour, minute: 0, offsetSeconds: s.offsetSeconds },
      });
    }
    case 'nBEQBc': {
      // news: [5 (6 for BASE-QUOTE), 3, [tuple]]
      const t = p.length === 3 && p[1] === 3 ? tickerOfList(p[2]) : null;
      const f = t === null ? undefined : FAKE_TICKERS[t];
      if (!f || t === null || p[0] !== (t.includes(':') ? 5 : 6)) return null;
      return newsPayload(f.news);
    }
    case 'SICF5d': {
      // related: [tuple, 18]
      const t = p.length === 2 && p[1] === 18 ? tickerOfTuple(p[0]) : null;
      const f = t === null ? undefined : FAKE_TICKERS[t];
      return f ? listPayload(f.related) : null;
    }
    case 'Xhdx2e':
      // indices: [null, 1]
      return p.length === 2 && p[0] === null && p[1] === 1 ? listPayload(FAKE_MARKET.indices, 3) : null;
    case 'YtbmEe': {
      // movers: [[category], count, offset]
      const cat = Array.isArray(p[0]) && p[0].length === 1 && isInt(p[0][0]) ? FAKE_MOVER_CODES[p[0][0]] : undefined;
      if (p.length !== 3 || !cat || !isInt(p[1]) || !isInt(p[2]) || p[1] < 0 || p[2] < 0) return null;
      return listPayload(FAKE_MARKET.movers[cat].slice(p[2], p[2] + p[1]), 5);
    }
    case 'lvVhof':
      // trending: [18]
      return p.length === 1 && p[0] === 18 ? listPayload(FAKE_MARKET.trending) : null;
    case 'JFUMjd':
      // earnings: []
      return p.length === 0 ? earningsPayload(FAKE_MARKET.earnings) : null;
    case 'QKZUzd':
      // headline: [1]
      return p.length === 1 && p[0] === 1 ? headlinePayload(FAKE_MARKET.headline) : null;
    default:
      return null;
  }
}

// ------------------------------------------------------------------------------------------------- server

const MAX_KEPT = 100;
const MAX_BODY = 1024 * 1024;

class FakeUpstreamServer implements FakeUpstream {
  url = '';
  requests = 0;
  lastBodies: string[] = [];
  lastUrls: string[] = [];
  lastHeaders: IncomingMessage['headers'][] = [];
  payloadFor?: (call: DecodedCall) => unknown;
  private current: FakeBehaviour = { mode: 'ok' };
  /** Requests left for the current `times`-limited behaviour; undefined = unlimited. */
  private remaining: number | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly server: Server;
  private closed = false;

  constructor(private readonly options: FakeUpstreamOptions) {
    this.server = createServer((req, res) => this.handle(req, res));
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
  }

  get behaviour(): FakeBehaviour {
    return this.current;
  }

  set behaviour(b: FakeBehaviour) {
    this.current = b;
    this.remaining = 'times' in b && b.times !== undefined ? b.times : undefined;
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = this.server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}`;
  }

  /** The behaviour for this request, consuming one of its `times`. */
  private take(): FakeBehaviour {
    const b = this.current;
    if (b.mode === 'status' || b.mode === 'hang' || b.mode === 'garbage') {
      if (this.remaining === undefined) return b;
      if (this.remaining <= 0) return { mode: 'ok' };
      this.remaining--;
    }
    return b;
  }

  private keep<T>(list: T[], value: T): void {
    list.push(value);
    if (list.length > MAX_KEPT) list.shift();
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'POST' || url.pathname !== FAKE_BATCHEXECUTE_PATH) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
      return;
    }
    this.requests++;
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      this.keep(this.lastBodies, body);
      this.keep(this.lastUrls, req.url ?? '');
      this.keep(this.lastHeaders, req.headers);
      const behaviour = this.take();
      if (behaviour.mode === 'hang') return; // the socket stays open; close() or the client ends it
      const answer = (): void => {
        if (res.destroyed) return;
        if (size > MAX_BODY) {
          res.writeHead(413, { 'Content-Type': 'text/plain' }).end('too large');
          return;
        }
        this.answer(behaviour, url, body, res);
      };
      const delayed = (): void => {
        if (this.options.latencyMs) setTimeout(answer, this.options.latencyMs);
        else answer();
      };
      if (this.options.answerAfter) void this.options.answerAfter.finally(delayed);
      else delayed();
    });
  }

  private answer(behaviour: FakeBehaviour, url: URL, body: string, res: ServerResponse): void {
    if (behaviour.mode === 'status') {
      res
        .writeHead(behaviour.status, { 'Content-Type': 'text/html; charset=utf-8' })
        .end(`<html>fake error ${behaviour.status}</html>`);
      return;
    }
    if (behaviour.mode === 'garbage') {
      res
        .writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' })
        .end('<!doctype html><html><body>Our systems have detected unusual traffic</body></html>');
      return;
    }
    const calls = decodeFReqBody(body);
    if (typeof calls === 'string') {
      res.writeHead(400, { 'Content-Type': 'text/plain' }).end(`bad request: ${calls}`);
      return;
    }
    const query = url.searchParams;
    const expectedIds = [...new Set(calls.map((c) => c.rpcid))].sort().join(',');
    const sentIds = (query.get('rpcids') ?? '').split(',').filter(Boolean).sort().join(',');
    if (sentIds !== expectedIds || !query.get('source-path') || query.get('rt') !== 'c') {
      res.writeHead(400, { 'Content-Type': 'text/plain' }).end('bad request: query does not match f.req');
      return;
    }
    const rows: FakeRow[] = [];
    for (const c of calls) {
      if (behaviour.mode === 'dropRows' && (!behaviour.rpcids || behaviour.rpcids.includes(c.rpcid))) continue;
      const own = this.payloadFor?.(c);
      const payload = behaviour.mode === 'nullPayload' ? null : own !== undefined ? own : answerCall(c.rpcid, c.params);
      rows.push({ kind: 'wrb.fr', rpcid: c.rpcid, payload, seq: c.seq });
    }
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' }).end(encodeBatchResponse(rows));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const done = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    for (const s of this.sockets) s.destroy();
    await done;
  }
}

/** Starts the fake on 127.0.0.1 with an ephemeral port. */
export async function startFakeUpstream(options: FakeUpstreamOptions = {}): Promise<FakeUpstream> {
  const fake = new FakeUpstreamServer(options);
  await fake.listen();
  return fake;
}
