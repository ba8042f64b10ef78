/**
 * The batchexecute envelope of the finance site's internal RPC: building the request (`f.req` body and query
 * string) and reading the answer back into one row per call.
 *
 * Unofficial and undocumented (docs/market.md, "The upstream RPC"); it changes without
 * notice, and this provider folder is the only place that knows it.
 *
 * Answer format (`rt=c`): the line `)]}'`, then a sequence of (length line, JSON line) pairs. Each JSON line is an
 * array of rows; a row `["wrb.fr", rpcid, payloadJsonString|null, …, "<sequence>"]` carries the answer of one call,
 * rows `"di"`, `"af.httprm"` and `"e"` carry no data. The length lines are not trusted (their unit differs
 * between implementations): JSON lines are recognised by their shape instead.
 */
import type { RpcCall } from './rpc-calls';

export const BATCHEXECUTE_PATH = '/finance/_/GoogleFinanceUi/data/batchexecute';
export const RESPONSE_PREFIX = ")]}'";

/** A call with its sequence string, as it travels in the envelope. */
export interface EnvelopeCall extends RpcCall {
  seq: string;
}

export interface Envelope {
  calls: EnvelopeCall[];
  /** Distinct rpcids in order of first use. */
  rpcids: string[];
  sourcePath: string;
  /** Query string without the leading `?`. */
  query: string;
  /** `application/x-www-form-urlencoded` body: `f.req=…`. */
  body: string;
}

/** `/finance/quote/<TICKER>` when every ticker call is for the same ticker, else `/finance/`. */
export function sourcePathFor(calls: readonly RpcCall[]): string {
  const tickers = new Set<string>();
  for (const c of calls) if (c.ticker !== null) tickers.add(c.ticker);
  if (tickers.size === 1) return `/finance/quote/${[...tickers][0]}`;
  return '/finance/';
}

/** The `f.req` value: `[[[rpcid, JSON.stringify(params), null, "<n>"], …]]`. */
export function buildFReq(calls: readonly EnvelopeCall[]): string {
  return JSON.stringify([calls.map((c) => [c.rpcid, JSON.stringify(c.params), null, c.seq])]);
}

export function buildEnvelope(calls: readonly RpcCall[]): Envelope {
  const withSeq: EnvelopeCall[] = calls.map((c, i) => ({ ...c, seq: String(i + 1) }));
  const rpcids: string[] = [];
  for (const c of withSeq) if (!rpcids.includes(c.rpcid)) rpcids.push(c.rpcid);
  const sourcePath = sourcePathFor(withSeq);
  const query = [
    `rpcids=${rpcids.map(encodeURIComponent).join(',')}`,
    `source-path=${encodeURIComponent(sourcePath)}`,
    'hl=en',
    'gl=us',
    'rt=c',
  ].join('&');
  const body = `f.req=${encodeURIComponent(buildFReq(withSeq))}`;
  return { calls: withSeq, rpcids, sourcePath, query, body };
}

/** One `wrb.fr` row of an answer. */
export interface WrbRow {
  rpcid: string | null;
  /**
   * Element 2 of the row: normally a JSON string, null when the upstream has no data. Anything else is kept as
   * is (some answers inline the payload).
   */
  payload: unknown;
  /** Last element of the row when it is a string (`"1"`, `"2"`, … or `"generic"`), else null. */
  seq: string | null;
}

export type ParsedResponse = { ok: true; rows: WrbRow[] } | { ok: false; reason: string };

function rowFrom(value: unknown): WrbRow | null {
  if (!Array.isArray(value) || value[0] !== 'wrb.fr') return null;
  const last: unknown = value.length > 3 ? value[value.length - 1] : undefined;
  return {
    rpcid: typeof value[1] === 'string' ? value[1] : null,
    payload: value.length > 2 ? value[2] : null,
    seq: typeof last === 'string' ? last : null,
  };
}

/** Adds the rows of one parsed JSON chunk; returns false when the chunk is not an array of rows. */
function collectRows(chunk: unknown, rows: WrbRow[]): boolean {
  if (!Array.isArray(chunk)) return false;
  if (typeof chunk[0] === 'string') {
    // a single row instead of an array of rows
    const row = rowFrom(chunk);
    if (row) rows.push(row);
    return true;
  }
  let sawRow = false;
  for (const item of chunk) {
    if (Array.isArray(item) && typeof item[0] === 'string') {
      sawRow = true;
      const row = rowFrom(item);
      if (row) rows.push(row);
    }
  }
  return sawRow || chunk.length === 0;
}

function tryJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/**
 * Reads an answer into its `wrb.fr` rows. Never throws. `ok: false` when nothing in the text is a batchexecute
 * chunk (HTML error page, truncated body, junk).
 */
export function parseBatchResponse(text: string): ParsedResponse {
  try {
    if (typeof text !== 'string') return { ok: false, reason: 'answer is not text' };
    let rest = text.replace(/^\uFEFF/, '');
    const hadPrefix = rest.startsWith(RESPONSE_PREFIX);
    if (hadPrefix) rest = rest.slice(RESPONSE_PREFIX.length);
    const rows: WrbRow[] = [];
    let chunks = 0;
    for (const rawLine of rest.split('\n')) {
      const line = rawLine.trim();
      if (!line.startsWith('[')) continue; // blank lines, length lines
      const parsed = tryJson(line);
      if (parsed.ok && collectRows(parsed.value, rows)) chunks++;
    }
    if (chunks === 0) {
      // not line-delimited: the whole remainder may be one (possibly pretty-printed) JSON array
      const whole = rest.trim();
      const parsed = whole.startsWith('[') ? tryJson(whole) : { ok: false as const };
      if (parsed.ok && collectRows(parsed.value, rows)) chunks++;
    }
    if (chunks === 0) {
      const shown = text.length === 0 ? 'empty body' : `starts with ${JSON.stringify(text.slice(0, 40))}`;
      return { ok: false, reason: `not a batchexecute answer (${shown})` };
    }
    return { ok: true, rows };
  } catch (e) {
    return { ok: false, reason: `unreadable answer (${e instanceof Error ? e.message : String(e)})` };
  }
}

/**
 * The row answering each call, by sequence string (the row's rpcid must agree). A row without a usable sequence
 * (`"generic"`, as single-call answers have) is given to the one remaining call of its rpcid, if exactly one.
 */
export function matchRows(calls: readonly EnvelopeCall[], rows: readonly WrbRow[]): (WrbRow | undefined)[] {
  const out: (WrbRow | undefined)[] = new Array<WrbRow | undefined>(calls.length).fill(undefined);
  const bySeq = new Map<string, number>();
  calls.forEach((c, i) => bySeq.set(c.seq, i));
  const leftovers: WrbRow[] = [];
  for (const row of rows) {
    const i = row.seq === null ? undefined : bySeq.get(row.seq);
    if (i !== undefined && out[i] === undefined && (row.rpcid === null || row.rpcid === calls[i]!.rpcid)) {
      out[i] = row;
    } else {
      leftovers.push(row);
    }
  }
  for (const row of leftovers) {
    if (row.rpcid === null || (row.seq !== null && bySeq.has(row.seq))) continue;
    const open = calls.flatMap((c, i) => (out[i] === undefined && c.rpcid === row.rpcid ? [i] : []));
    const [only] = open;
    if (open.length === 1 && only !== undefined) out[only] = row;
  }
  return out;
}

export type DecodedPayload = { ok: true; payload: unknown } | { ok: false; reason: string };

/** Element 2 of a row: JSON string → value; null stays null (no data). */
export function decodePayload(row: WrbRow): DecodedPayload {
  const p = row.payload;
  if (p === null || p === undefined) return { ok: true, payload: null };
  if (typeof p !== 'string') return { ok: true, payload: p };
  const parsed = tryJson(p);
  if (!parsed.ok) return { ok: false, reason: `payload is not JSON (starts with ${JSON.stringify(p.slice(0, 40))})` };
  return { ok: true, payload: parsed.value };
}
