import type { GraphQLDataSource, GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { GraphQLDataSourceRequestKind } from '@apollo/gateway/dist/datasources/types';
import type { GatewayGraphQLResponse } from '@apollo/server-gateway-interface';
import { STATUS_CODES } from 'node:http';
import { Pool, type Dispatcher } from 'undici';
import type { GatewayContext } from '../context';
import type { Stop } from '../request-signal';
import { ATTR, injectTraceHeaders } from '../tracing';
import { fetchSpan, fetchStop } from './fetch-signal';

/** `max-age` of a Cache-Control header; private, no-store, no-cache or none at all mean 0 (not shareable). */
export function sharedMaxAge(header: string | null | undefined): number {
  if (!header || /(^|,)\s*(private|no-store|no-cache)\s*(,|$)/i.test(header)) return 0;
  const m = /(^|,)\s*max-age\s*=\s*(\d+)/i.exec(header);
  return m ? Number(m[2]) : 0;
}

/** A subgraph's answer as received: its body, its status and what its Cache-Control allows. */
interface Answer {
  text: string;
  status: number;
  cacheControl?: string;
}

/** A non-2xx answer (its status kept for the fetch's span). */
class StatusError extends Error {
  constructor(readonly status: number) {
    super(`${status}: ${STATUS_CODES[status] ?? 'Unknown'}`);
  }
}

/**
 * Ends one fetch in flight. Not an AbortController: an AbortSignal (an EventTarget) and its listener cost about 1 %
 * of the gateway's CPU on gwbench, made for every fetch when almost none is ever abandoned.
 */
class Abandon {
  private controller: Dispatcher.DispatchController | undefined;
  private reason: Error | undefined;

  /** The fetch has started: abandoned at once if it already was. */
  started(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.reason) controller.abort(this.reason);
  }

  abort(reason: unknown): void {
    this.reason ??= reason instanceof Error ? reason : new Error('the answer is no longer awaited', { cause: reason });
    this.controller?.abort(this.reason);
  }
}

/** A query in flight, shared by the callers waiting for it; abandoned when the last of them stops waiting. */
interface Shared {
  answer: Promise<Answer>;
  waiting: number;
  settled: boolean;
  abandon: Abandon;
}

/** `promise`, or a rejection with the stop's reason as soon as it fires. */
function awaited<T>(promise: Promise<T>, stop: Stop | undefined): Promise<T> {
  if (!stop) return promise;
  return new Promise<T>((resolve, reject) => {
    const unfollow = stop.onStop((reason) =>
      reject(reason instanceof Error ? reason : new Error('the answer is no longer awaited', { cause: reason })),
    );
    promise.then(resolve, reject).finally(unfollow);
  });
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * A subgraph over HTTP: each fetch one POST on a pool of kept-alive connections (undici), the request id, the
 * caller's address and Authorization header passed on, and the subgraph's Cache-Control fed into the response
 * cache policy, so a remote subgraph's data is cached exactly as long as an in-process one's. A non-2xx status or
 * a body that is not a JSON object is an error of the fetch (the timed source above reports it naming the subgraph).
 */
export class RemoteSubgraphDataSource implements GraphQLDataSource<GatewayContext> {
  private readonly pool: Pool;
  private readonly path: string;
  private readonly host: string;
  private readonly port: number;
  /** Queries in flight, by caller and request body. */
  private readonly inFlight = new Map<string, Shared>();

  constructor(
    readonly url: string,
    /** Largest answer taken (SUBGRAPH_MAX_RESPONSE_BYTES); undici stops reading past it. */
    private readonly maxResponseBytes = 64 * 1024 * 1024,
  ) {
    const parsed = new URL(url);
    // No headers timeout of undici's own (300 s): the timed source above bounds each fetch, and a long-running
    // field's fetch waits as long as SUBGRAPH_LONG_TIMEOUT_MS allows (none by default) for the subgraph to answer.
    this.pool = new Pool(parsed.origin, {
      keepAliveTimeout: 10_000,
      maxResponseSize: maxResponseBytes,
      headersTimeout: 0,
    });
    this.path = `${parsed.pathname}${parsed.search}`;
    this.host = parsed.hostname;
    this.port = Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80));
  }

  async process(options: GraphQLDataSourceProcessOptions<GatewayContext>): Promise<GatewayGraphQLResponse> {
    const { request } = options;
    if (!request.query) throw new Error('Missing query');
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    const incoming = options.kind === GraphQLDataSourceRequestKind.INCOMING_OPERATION ? options.context : undefined;
    if (incoming?.requestId) headers['x-request-id'] = incoming.requestId;
    if (incoming?.clientAddress) headers['x-forwarded-for'] = incoming.clientAddress;
    if (incoming?.authorization) headers.authorization = incoming.authorization; // the caller, passed on as sent
    const span = fetchSpan(options);
    if (span) {
      injectTraceHeaders(span, headers); // not part of the sharing key below: a shared fetch carries its first trace
      span.setAttributes({ [ATTR.httpMethod]: 'POST', [ATTR.serverAddress]: this.host, [ATTR.serverPort]: this.port });
    }
    const body = JSON.stringify({
      query: request.query,
      operationName: request.operationName,
      variables: request.variables,
      extensions: request.extensions,
    });
    // A query the same caller already has in flight with the same body shares that fetch's answer (its text: each
    // request parses its own copy, since execution merges into what it parses). Mutations are never shared, and
    // never abandoned: the subgraph writes all or nothing, whoever still waits.
    const key = `${headers.authorization ?? ''}\u0000${headers['x-forwarded-for'] ?? ''}\u0000${body}`;
    let answer: Answer;
    try {
      answer = /^\s*mutation\b/.test(request.query)
        ? await this.send(headers, body)
        : await this.shared(key, headers, body, fetchStop(options));
    } catch (err) {
      if (span && err instanceof StatusError) span.setAttribute(ATTR.httpStatus, err.status);
      throw err;
    }
    span?.setAttribute(ATTR.httpStatus, answer.status);
    const parsed: unknown = JSON.parse(answer.text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new Error(`Expected JSON response body, but received: ${answer.text.slice(0, 200)}`);
    incoming?.cachePolicy.restrict(sharedMaxAge(answer.cacheControl));
    return parsed;
  }

  /**
   * The answer to a query, fetched once for every caller asking the same at the same time. A caller whose stop
   * fires stops waiting; when the last one has, the fetch is abandoned (its connection closed: a subgraph served
   * alone stops its work on it, as the gateway does when its own client goes away).
   */
  private shared(key: string, headers: Record<string, string>, body: string, stop: Stop | undefined): Promise<Answer> {
    let entry = this.inFlight.get(key);
    if (!entry) {
      const abandon = new Abandon();
      const fresh: Shared = { answer: this.send(headers, body, abandon), waiting: 0, settled: false, abandon };
      const forget = () => {
        fresh.settled = true;
        if (this.inFlight.get(key) === fresh) this.inFlight.delete(key);
      };
      fresh.answer.then(forget, forget);
      this.inFlight.set(key, fresh);
      entry = fresh;
    }
    const shared = entry;
    shared.waiting++;
    let reason: unknown;
    return awaited(shared.answer, stop)
      .catch((err: unknown) => {
        reason = err;
        throw err;
      })
      .finally(() => {
        if (--shared.waiting > 0 || shared.settled) return;
        if (this.inFlight.get(key) === shared) this.inFlight.delete(key);
        shared.abandon.abort(reason);
      });
  }

  /**
   * One POST, its answer gathered from undici's dispatch handler: the request API's body stream (a Readable per
   * fetch, its events and its text consumer) cost about 2 % of the gateway's CPU on gwbench for bytes that are
   * only ever read whole.
   */
  private send(headers: Record<string, string>, body: string, abandon?: Abandon): Promise<Answer> {
    return new Promise<Answer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let length = 0;
      let status = 0;
      let type = '';
      let cacheControl: string | undefined;
      this.pool.dispatch(
        { path: this.path, method: 'POST', headers, body },
        {
          onRequestStart: (controller) => abandon?.started(controller),
          onResponseStart: (_c, statusCode, responseHeaders) => {
            status = statusCode;
            type = header(responseHeaders['content-type']) ?? '';
            cacheControl = header(responseHeaders['cache-control']);
          },
          onResponseData: (_c, chunk) => {
            chunks.push(chunk);
            length += chunk.length;
          },
          onResponseEnd: () => {
            const bytes = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, length);
            // a UTF-8 byte order mark is skipped, as undici's text() does
            const bom = bytes.length > 2 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
            const text = bytes.toString('utf8', bom ? 3 : 0);
            if (status < 200 || status > 299) reject(new StatusError(status));
            else if (!/^application\/(graphql-response\+)?json/i.test(type))
              reject(new Error(`Expected JSON response body, but received: ${text.slice(0, 200)}`));
            else resolve({ text, status, cacheControl });
          },
          onResponseError: (_c, err) => {
            if ((err as { code?: unknown }).code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE')
              // No cause: clients see the deepest cause's message (errorReason), and this one names the bound.
              reject(
                new Error(`its answer is larger than ${this.maxResponseBytes} bytes (SUBGRAPH_MAX_RESPONSE_BYTES)`),
              );
            else reject(err);
          },
        },
      );
    });
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
