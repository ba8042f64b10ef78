/**
 * The `google` market data provider: a client of the finance site's internal batchexecute RPC
 * (`POST /finance/_/GoogleFinanceUi/data/batchexecute`).
 *
 * THIS IS AN UNOFFICIAL, UNDOCUMENTED RPC. It is not a public API, it has no contract and it changes without
 * notice (rpcids, parameter shapes, payload index paths, headers it wants). Everything this project knows about it
 * is isolated in this folder: `rpc-calls.ts` (ids and params), `envelope.ts` (wire format), `parsers.ts` (payload
 * layouts), `http.ts` (transport). Nothing outside this folder may depend on its details; the rest of the system
 * sees only `MarketProvider`. Tests run it against the local fake in `test/support/google-upstream.ts`.
 *
 * Batching: one `fetch(requests)` sends all distinct calls of the batch in one envelope (one HTTP round trip)
 * when there are at most `maxCallsPerEnvelope` of them, else in several envelopes sent concurrently. Identical
 * requests (same `requestKey`) are sent once.
 */
import type { MarketProvider, MarketRequest, MarketResult } from '../provider';
import { requestKey, UpstreamError } from '../provider';
import { BATCHEXECUTE_PATH, buildEnvelope, decodePayload, matchRows, parseBatchResponse } from './envelope';
import { batchexecuteHeaders, postWithRetry, type RetryPolicy } from './http';
import { parsePayload } from './parsers';
import { buildRpcCall, describeRequest, type RpcCall } from './rpc-calls';

export interface GoogleProviderOptions {
  /** Default `https://www.google.com`; tests point it at the fake (`http://127.0.0.1:PORT`). */
  baseUrl?: string;
  /** Per attempt, default 5000. */
  timeoutMs?: number;
  /** Extra attempts, default 2. */
  retries?: number;
  /** Base of exponential backoff with jitter, default 200. */
  backoffMs?: number;
  /** Default 20; a larger batch is split into several envelopes sent concurrently. */
  maxCallsPerEnvelope?: number;
  /** Called after every HTTP attempt, for metrics and logs. Exceptions it throws are ignored. */
  onRoundTrip?: (info: { rpcids: string[]; status: number | null; ms: number; attempt: number }) => void;
  /** Told about upstream values the parsers had to drop (out of range, misplaced rows). */
  log?: { warn(obj: object, msg: string): void };
}

export const GOOGLE_PROVIDER_DEFAULTS = {
  baseUrl: 'https://www.google.com',
  timeoutMs: 5000,
  retries: 2,
  backoffMs: 200,
  maxCallsPerEnvelope: 20,
} as const;

/** Upper bounds that keep a misconfiguration from turning into an endless retry loop. */
const MAX_RETRIES = 10;
const MAX_BACKOFF_MS = 10_000;
const MAX_RESPONSE_BYTES = 20 * 1024 * 1024;

function checkNumber(
  name: string,
  value: number | undefined,
  fallback: number,
  min: number,
  max: number,
  integer: boolean,
): number {
  if (value === undefined) return fallback;
  if (
    typeof value !== 'number' ||
    !Number.isFinite(value) ||
    value < min ||
    value > max ||
    (integer && !Number.isInteger(value))
  ) {
    throw new RangeError(
      `google provider option ${name} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}, got ${String(value)}`,
    );
  }
  return value;
}

function normaliseBaseUrl(value: string | undefined): { base: string; origin: string } {
  const raw = value ?? GOOGLE_PROVIDER_DEFAULTS.baseUrl;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new RangeError(`google provider option baseUrl must be an absolute http(s) URL, got ${JSON.stringify(raw)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new RangeError(`google provider option baseUrl must be an absolute http(s) URL, got ${JSON.stringify(raw)}`);
  }
  return { base: raw.replace(/\/+$/, ''), origin: url.origin };
}

/** One distinct call of a batch and the positions of the requests it answers. */
interface Pending {
  request: MarketRequest;
  call: RpcCall;
  positions: number[];
}

function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Keeps the calls of one ticker next to each other so that envelopes tend to have a precise `source-path`. */
function groupByTicker(items: Pending[]): Pending[] {
  const groups = new Map<string | null, Pending[]>();
  for (const p of items) {
    const g = groups.get(p.call.ticker);
    if (g) g.push(p);
    else groups.set(p.call.ticker, [p]);
  }
  return [...groups.values()].flat();
}

export function createGoogleProvider(options: GoogleProviderOptions = {}): MarketProvider {
  const { base, origin } = normaliseBaseUrl(options.baseUrl);
  const policy: RetryPolicy = {
    timeoutMs: checkNumber('timeoutMs', options.timeoutMs, GOOGLE_PROVIDER_DEFAULTS.timeoutMs, 1, 600_000, false),
    retries: checkNumber('retries', options.retries, GOOGLE_PROVIDER_DEFAULTS.retries, 0, MAX_RETRIES, true),
    backoffMs: checkNumber(
      'backoffMs',
      options.backoffMs,
      GOOGLE_PROVIDER_DEFAULTS.backoffMs,
      0,
      MAX_BACKOFF_MS,
      false,
    ),
    maxBackoffMs: MAX_BACKOFF_MS,
    maxResponseBytes: MAX_RESPONSE_BYTES,
  };
  const maxCalls = checkNumber(
    'maxCallsPerEnvelope',
    options.maxCallsPerEnvelope,
    GOOGLE_PROVIDER_DEFAULTS.maxCallsPerEnvelope,
    1,
    1000,
    true,
  );
  const onRoundTrip = options.onRoundTrip;
  const lifetime = new AbortController();

  /** Sends one envelope; answers every pending call of it. Never throws. */
  async function runEnvelope(pending: Pending[]): Promise<MarketResult[]> {
    const fail = (why: (p: Pending) => string): MarketResult[] =>
      pending.map((p) => ({ ok: false, error: new UpstreamError(why(p)) }));
    try {
      const envelope = buildEnvelope(pending.map((p) => p.call));
      const outcome = await postWithRetry({
        url: `${base}${BATCHEXECUTE_PATH}?${envelope.query}`,
        body: envelope.body,
        headers: batchexecuteHeaders(origin, envelope.sourcePath),
        policy,
        signal: lifetime.signal,
        onAttempt: onRoundTrip && ((a) => onRoundTrip({ rpcids: envelope.rpcids, ...a })),
      });
      if (!outcome.ok) {
        const tries = `${outcome.attempts} attempt${outcome.attempts === 1 ? '' : 's'}`;
        return fail((p) => `${outcome.message} for ${describeRequest(p.request)} after ${tries}`);
      }
      const parsed = parseBatchResponse(outcome.body);
      if (!parsed.ok) {
        return fail((p) => `upstream answer for ${describeRequest(p.request)} could not be parsed: ${parsed.reason}`);
      }
      const rows = matchRows(envelope.calls, parsed.rows);
      return pending.map((p, i): MarketResult => {
        const what = describeRequest(p.request);
        const row = rows[i];
        if (!row) {
          const c = envelope.calls[i];
          return {
            ok: false,
            error: new UpstreamError(
              `upstream answer has no row for ${what} (rpc ${c?.rpcid ?? '?'}, sequence ${c?.seq ?? '?'})`,
            ),
          };
        }
        const decoded = decodePayload(row);
        if (!decoded.ok) return { ok: false, error: new UpstreamError(`upstream ${decoded.reason} for ${what}`) };
        try {
          const warn = (message: string) =>
            options.log?.warn({ request: what }, `upstream payload for ${what}: ${message}`);
          return { ok: true, value: parsePayload(p.request, decoded.payload, warn) };
        } catch (e) {
          return {
            ok: false,
            error: new UpstreamError(`upstream payload for ${what} could not be read: ${errorMessage(e)}`, e),
          };
        }
      });
    } catch (e) {
      return fail((p) => `google provider failed for ${describeRequest(p.request)}: ${errorMessage(e)}`);
    }
  }

  async function fetchBatch(requests: readonly MarketRequest[]): Promise<MarketResult[]> {
    const results: (MarketResult | undefined)[] = new Array<MarketResult | undefined>(requests.length).fill(undefined);
    try {
      if (lifetime.signal.aborted) {
        return requests.map(() => ({ ok: false, error: new UpstreamError('google provider is closed') }));
      }
      const unique = new Map<string, Pending>();
      requests.forEach((request, position) => {
        let key: string | undefined;
        try {
          key = requestKey(request);
          if (typeof key !== 'string') throw new Error('unsupported request kind');
          const known = unique.get(key);
          if (known) {
            known.positions.push(position);
            return;
          }
          unique.set(key, { request, call: buildRpcCall(request), positions: [position] });
        } catch (e) {
          results[position] = {
            ok: false,
            error: new UpstreamError(`cannot ask upstream for ${describeRequest(request)}: ${errorMessage(e)}`, e),
          };
        }
      });
      const ordered = groupByTicker([...unique.values()]);
      const envelopes: Pending[][] = [];
      for (let i = 0; i < ordered.length; i += maxCalls) envelopes.push(ordered.slice(i, i + maxCalls));
      const answered = await Promise.all(envelopes.map(runEnvelope));
      envelopes.forEach((pending, e) => {
        pending.forEach((p, i) => {
          for (const position of p.positions) results[position] = answered[e]![i];
        });
      });
    } catch (e) {
      const error = new UpstreamError(`google provider failed: ${errorMessage(e)}`, e);
      return results.map((r) => r ?? { ok: false, error });
    }
    return results.map((r) => r ?? { ok: false, error: new UpstreamError('google provider produced no result') });
  }

  return {
    name: 'google',
    fetch: fetchBatch,
    async close(): Promise<void> {
      lifetime.abort();
    },
  };
}
