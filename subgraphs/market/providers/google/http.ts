/**
 * One POST of a batchexecute envelope with a per-attempt timeout and bounded retries (exponential backoff with
 * jitter) on network errors, timeouts, 429 and 5xx only. Uses Node's built-in fetch. Never throws: the outcome
 * says what happened.
 */

/** Headers the finance site's own front end sends (unofficial; see the provider's index.ts). */
export const BROWSER_USER_AGENT =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

export function batchexecuteHeaders(origin: string, sourcePath: string): Record<string, string> {
  return {
    'User-Agent': BROWSER_USER_AGENT,
    'Content-Type': 'application/x-www-form-urlencoded;charset=UTF-8',
    Cookie: 'CONSENT=YES+cb',
    Origin: origin,
    Referer: `${origin}${sourcePath}`,
    Accept: '*/*',
    'Accept-Language': 'en-US,en;q=0.9',
  };
}

export interface RetryPolicy {
  /** Per attempt, covering the response headers and the whole body. */
  timeoutMs: number;
  /** Extra attempts after the first. */
  retries: number;
  /** Base of the exponential backoff. */
  backoffMs: number;
  /** Upper bound of one backoff wait. */
  maxBackoffMs: number;
  /** Larger answers are refused (not retried). */
  maxResponseBytes: number;
}

export interface AttemptInfo {
  attempt: number;
  /** HTTP status, or null when no response arrived (network error, timeout). */
  status: number | null;
  ms: number;
}

export type PostOutcome =
  | { ok: true; status: number; body: string; attempts: number }
  | {
      ok: false;
      /** `status`: non-200 answer; `timeout`, `network`: no answer; `too-large`; `aborted`: the provider was closed. */
      kind: 'status' | 'timeout' | 'network' | 'too-large' | 'aborted';
      status: number | null;
      attempts: number;
      /** What failed, e.g. `upstream returned HTTP 503`, `upstream did not answer within 5000 ms`. */
      message: string;
    };

export function isRetryableStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599);
}

/**
 * Wait before attempt `attempt + 1` (attempt counts from 1): `min(max, base·2^(attempt−1))` scaled by a random
 * factor in [0.5, 1) ("equal jitter"), so concurrent clients do not retry in lockstep.
 */
export function backoffDelay(
  attempt: number,
  baseMs: number,
  maxMs: number,
  random: () => number = Math.random,
): number {
  const exp = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.max(0, Math.round(exp * (0.5 + r / 2)));
}

class TooLargeError extends Error {}

async function readLimited(res: Response, limit: number): Promise<string> {
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) {
    await res.body?.cancel().catch(() => undefined);
    throw new TooLargeError(`upstream answer of ${declared} bytes exceeds ${limit}`);
  }
  if (!res.body) return '';
  const reader: ReadableStreamDefaultReader<Uint8Array> = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw new TooLargeError(`upstream answer exceeds ${limit} bytes`);
    }
    chunks.push(value);
  }
  return new TextDecoder('utf-8').decode(Buffer.concat(chunks));
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function describeNetworkError(e: unknown): string {
  const cause = (e as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (cause && typeof cause.code === 'string') return cause.code;
  if (cause && typeof cause.message === 'string') return cause.message;
  return e instanceof Error ? e.message : String(e);
}

export interface PostOptions {
  url: string;
  body: string;
  headers: Record<string, string>;
  policy: RetryPolicy;
  /** Aborts everything (provider closed). */
  signal?: AbortSignal;
  onAttempt?: (info: AttemptInfo) => void;
  random?: () => number;
}

type AttemptResult =
  | { kind: 'ok'; status: number; body: string }
  | { kind: 'status'; status: number }
  | { kind: 'timeout' | 'network' | 'too-large' | 'aborted'; detail: string };

async function attemptOnce(o: PostOptions): Promise<AttemptResult> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, o.policy.timeoutMs);
  const onOuterAbort = (): void => controller.abort();
  o.signal?.addEventListener('abort', onOuterAbort, { once: true });
  try {
    const res = await globalThis.fetch(o.url, {
      method: 'POST',
      headers: o.headers,
      body: o.body,
      signal: controller.signal,
      redirect: 'manual',
    });
    if (res.status !== 200) {
      await res.body?.cancel().catch(() => undefined);
      return { kind: 'status', status: res.status };
    }
    const body = await readLimited(res, o.policy.maxResponseBytes);
    return { kind: 'ok', status: res.status, body };
  } catch (e) {
    if (e instanceof TooLargeError) return { kind: 'too-large', detail: e.message };
    if (timedOut) return { kind: 'timeout', detail: `upstream did not answer within ${o.policy.timeoutMs} ms` };
    if (o.signal?.aborted) return { kind: 'aborted', detail: 'request cancelled: provider closed' };
    return { kind: 'network', detail: `upstream unreachable (${describeNetworkError(e)})` };
  } finally {
    clearTimeout(timer);
    o.signal?.removeEventListener('abort', onOuterAbort);
  }
}

/** POSTs with retries; at most `retries + 1` attempts. */
export async function postWithRetry(o: PostOptions): Promise<PostOutcome> {
  const maxAttempts = Math.max(1, Math.floor(o.policy.retries) + 1);
  let attempt = 0;
  for (;;) {
    attempt++;
    const started = performance.now();
    const r = await attemptOnce(o);
    const status = r.kind === 'ok' || r.kind === 'status' ? r.status : null;
    try {
      o.onAttempt?.({ attempt, status, ms: performance.now() - started });
    } catch {
      // a metrics callback must not break the request
    }
    if (r.kind === 'ok') return { ok: true, status: r.status, body: r.body, attempts: attempt };
    const retryable =
      r.kind === 'timeout' || r.kind === 'network' || (r.kind === 'status' && isRetryableStatus(r.status));
    if (!retryable || attempt >= maxAttempts || o.signal?.aborted) {
      if (r.kind === 'status') {
        return {
          ok: false,
          kind: 'status',
          status: r.status,
          attempts: attempt,
          message: `upstream returned HTTP ${r.status}`,
        };
      }
      return { ok: false, kind: r.kind, status: null, attempts: attempt, message: r.detail };
    }
    await sleep(backoffDelay(attempt, o.policy.backoffMs, o.policy.maxBackoffMs, o.random), o.signal);
  }
}
