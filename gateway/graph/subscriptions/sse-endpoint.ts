import type { ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GraphQLError } from 'graphql';
import {
  createHandler,
  TOKEN_HEADER_KEY,
  TOKEN_QUERY_KEY,
  type Request as SseRequest,
  type RequestParams,
  type Response as SseResponse,
} from 'graphql-sse';
import { cacheScopeOf, type TraceCarrier } from '../context';
import type { Logger } from '../../../platform/log';
import type { ConnectionLimiter, Refusal, StreamLimits } from './connection-limits';
import { nextMessageBytes } from './sse-message-size';
import type { StreamBuffer, StreamBuffers } from './stream-buffers';
import { createStreamOperations, type OperationSource } from './stream-operations';

/** Where subscriptions are served (on the gateway and on a subgraph served alone); `/graphql` answers the rest. */
export const STREAM_PATH = '/graphql/stream';

/** How graphql-sse's result messages begin (each went through onNext, which counted its bytes). */
const NEXT_MESSAGE = 'event: next\n';

/** What every operation of a stream request carries (a type alias: graphql-sse wants an index-signature type). */
type StreamContext = {
  requestId: string;
  /** The caller's Authorization header, passed on to the subgraphs (never logged). */
  authorization: string | undefined;
  /** The caller's network address. */
  address: string | undefined;
  /** The operation's text as sent (plans are cached by it). */
  query: string;
  /** Subscribers presenting the same credentials may share event executions. */
  shareKey: string;
  /** The single-connection-mode stream the operation runs on, if any. */
  token: string | null;
  /** The operation's id on a single-connection-mode stream (its messages carry it); null on a distinct stream. */
  operationId: string | null;
  /** The stream the operation's messages go to: each message waits for room in it. */
  buffer: StreamBuffer | undefined;
  /** The request's headers: the operation continues their trace (read only when tracing is on). */
  traceHeaders: TraceCarrier;
};

export interface SubscriptionStreamOptions extends OperationSource {
  /** The path the endpoint answers on (single-connection reservations expire by addressing it). */
  path: string;
  limits: StreamLimits;
  connections: ConnectionLimiter;
  /** Told when an event stream opens (+1) and closes (-1). */
  onConnection?: (delta: 1 | -1) => void;
  log: Logger;
  /** How long a single-connection-mode reservation (PUT) waits for its stream before it is dropped; default 10 s. */
  reservationTimeoutMs?: number;
  /** Bounds the bytes every open stream holds for its client (shared with the server's other streams). */
  buffers: StreamBuffers;
  /** The streams' kind in logs and metrics; default `graphql`. */
  kind?: string;
}

export interface SubscriptionStreamEndpoint {
  /**
   * The Fastify handler: route the endpoint's path (GET, POST, PUT, DELETE) to it. `request`: the body and query
   * string to take instead of the request's own (a trusted document's or persisted query's text put in).
   */
  serve(req: FastifyRequest, reply: FastifyReply, request?: { body: unknown; search: string }): Promise<void>;
  /** Ends every open stream (graceful shutdown). */
  closeStreams(): Promise<void>;
  /**
   * Open streams, reservations and operations (tests check that a disconnect frees everything), and the unsent
   * bytes of every stream of the server (these and the others sharing its StreamBuffers).
   */
  stats(): { streams: number; reservations: number; operations: number; bufferedBytes: number };
}

/** An error response in GraphQL's shape, naming the limit that refused the request. */
export function limitError(refusal: Refusal): {
  errors: Array<{ message: string; extensions: { code: string; limit: string } }>;
} {
  return { errors: [{ message: refusal.message, extensions: { code: 'LIMIT_EXCEEDED', limit: refusal.limit } }] };
}

/** The id graphql-sse's client gives an operation on a single-connection stream (a string or a number). */
function operationIdOf(params: RequestParams): string {
  const id = params.extensions?.operationId;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : '';
}

function tokenOf(req: SseRequest): string | null {
  const header = req.headers.get(TOKEN_HEADER_KEY);
  if (header) return header;
  return new URL(req.url, 'http://localhost/').searchParams.get(TOKEN_QUERY_KEY);
}

/**
 * Ends an event stream's response and its connection, once the end is written. A stream ends when the client went
 * away, at shutdown or on failure; a keep-alive socket left behind would hold the server's close() until the
 * client's idle timeout, and an event-stream client opens a new connection for its next stream anyway.
 */
export function endStream(raw: ServerResponse): void {
  const socket = raw.socket;
  if (raw.writableEnded) socket?.destroy();
  else raw.end(() => socket?.destroy());
}

/**
 * Writes a stream body to the socket, honouring back-pressure, until it ends or the client goes away. `next`
 * messages were counted in the stream's buffer when graphql-sse took them (onNext); pings and `complete` count now.
 */
async function pipeStream(
  raw: ServerResponse,
  body: AsyncGenerator<string, void, undefined>,
  buffer: StreamBuffer,
): Promise<void> {
  const stop = () => void body.return(undefined);
  raw.once('close', stop);
  try {
    for await (const chunk of body) {
      if (raw.destroyed || !raw.writable) break;
      if (!buffer.write(chunk, chunk.startsWith(NEXT_MESSAGE))) {
        await new Promise<void>((resolve) => {
          const done = () => {
            raw.off('drain', done);
            raw.off('close', done);
            resolve();
          };
          raw.once('drain', done);
          raw.once('close', done);
        });
      }
    }
  } finally {
    raw.off('close', stop);
    endStream(raw);
  }
}

/**
 * GraphQL over Server-Sent Events (graphql-sse; both its distinct-connections and single-connection modes) at
 * `path`: subscriptions run through the federated subscription engine, queries and mutations through the same
 * Apollo pipeline as /graphql. Bounded by the stream limits; graphql-sse pings idle streams every 12 s.
 */
export function createSubscriptionStream(options: SubscriptionStreamOptions): SubscriptionStreamEndpoint {
  const { limits, connections, log, buffers } = options;
  const kind = options.kind ?? 'graphql';
  const pipeline = createStreamOperations(options);
  const operationsPerStream = new Map<string, number>();
  const openBodies = new Set<AsyncGenerator<string, void, undefined>>();
  const reservations = new Map<string, { client: string; timer: NodeJS.Timeout }>();
  /** The open stream of each request with `accept: text/event-stream`, and of each single-connection token. */
  const streamOfRequest = new WeakMap<FastifyRequest, StreamBuffer>();
  const streamOfToken = new Map<string, StreamBuffer>();

  const contextOf = (req: SseRequest<FastifyRequest, undefined>, params: RequestParams): StreamContext => {
    const authorization = req.headers.get('authorization') ?? undefined;
    const token = tokenOf(req);
    // A request that accepts an event stream carries its own operation (distinct connections); any other runs its
    // operation on the token's stream (single connection), under the id graphql-sse gives it.
    const distinct = req.headers.get('accept') === 'text/event-stream';
    return {
      requestId: req.raw.id,
      authorization,
      address: req.raw.ip,
      query: params.query,
      shareKey: cacheScopeOf(authorization),
      token,
      operationId: distinct ? null : operationIdOf(params),
      buffer: distinct ? streamOfRequest.get(req.raw) : token ? streamOfToken.get(token) : undefined,
      traceHeaders: req.raw.headers,
    };
  };

  const handler = createHandler<FastifyRequest, undefined, StreamContext>({
    schema: options.schema,
    validate: (schema, document) => pipeline.validate(schema, document),
    context: contextOf,
    onNext: async (ctx, _req, part) => {
      // graphql-sse queues the message without bound once this returns: wait until the stream has room. While it
      // waits the operation's source is not pulled, so the source's own bounded queue drops its oldest events.
      const taken = await ctx.buffer?.reserve(nextMessageBytes(part, ctx.operationId));
      if (!taken) throw new Error('the event stream is closed'); // ends the operation (graphql-sse returns its source)
    },
    onSubscribe: (req, params) => {
      const token = tokenOf(req);
      if (token && (operationsPerStream.get(token) ?? 0) >= limits.maxSubscriptionsPerConnection) {
        // `data` must be there: graphql-sse takes an object without it for execution arguments, not a result.
        return {
          data: null,
          errors: [
            new GraphQLError(
              `too many operations on one stream: at most ${limits.maxSubscriptionsPerConnection} (liveMaxSubscriptionsPerConnection)`,
              { extensions: { code: 'LIMIT_EXCEEDED', limit: 'liveMaxSubscriptionsPerConnection' } },
            ),
          ],
        };
      }
      // One parsed document per operation text, shared by every subscriber of it (each subscription holds its
      // document as long as it runs: 10 000 copies of the same tree were most of a subscriber's memory).
      const document = pipeline.document(params.query);
      if (document instanceof GraphQLError) return undefined; // graphql-sse parses it again and answers the error
      return {
        schema: options.schema,
        document,
        operationName: params.operationName,
        variableValues: params.variables,
        contextValue: contextOf(req, params),
      };
    },
    subscribe: async (args) => {
      const ctx = args.contextValue;
      // Counted against its stream until it ends, whichever way it ends.
      const token = ctx.token;
      if (token) operationsPerStream.set(token, (operationsPerStream.get(token) ?? 0) + 1);
      return pipeline.subscribe(args, ctx, () => {
        if (!token) return;
        const left = (operationsPerStream.get(token) ?? 1) - 1;
        if (left > 0) operationsPerStream.set(token, left);
        else operationsPerStream.delete(token);
      });
    },
    execute: async (args) => pipeline.execute(args, args.contextValue),
  });

  /** Drops a single-connection reservation whose stream never came (graphql-sse keeps it until its stream ends). */
  function expireReservation(token: string, req: FastifyRequest): void {
    reservations.delete(token);
    void handler({
      method: 'GET',
      url: `${options.path}?${TOKEN_QUERY_KEY}=${encodeURIComponent(token)}`,
      headers: { get: (key) => (key === 'accept' ? 'text/event-stream' : undefined) },
      body: null,
      raw: req,
      context: undefined,
    }).then(([body]) => {
      if (body && typeof body !== 'string') void body.return(undefined);
    });
  }

  async function serve(
    req: FastifyRequest,
    reply: FastifyReply,
    request?: { body: unknown; search: string },
  ): Promise<void> {
    const accept = req.headers.accept;
    const sseRequest: SseRequest<FastifyRequest, undefined> = {
      method: req.method,
      url: request ? `${req.url.split('?')[0]}${request.search}` : req.url,
      headers: {
        get(key) {
          const value = req.headers[key.toLowerCase()];
          return Array.isArray(value) ? value.join(',') : value;
        },
      },
      body: ((request ? request.body : req.body) ?? null) as SseRequest['body'],
      raw: req,
      context: undefined,
    };
    const token = tokenOf(sseRequest);
    let release: (() => void) | undefined;
    if (accept === 'text/event-stream') {
      const slot = connections.tryOpen(req.ip);
      if ('refused' in slot) {
        log.warn({ reqId: req.id, client: req.ip, limit: slot.refused.limit }, 'live connection refused');
        await reply.status(slot.refused.limit === 'liveMaxConnections' ? 503 : 429).send(limitError(slot.refused));
        return;
      }
      release = slot.release;
      options.onConnection?.(1);
      // Counted from the start: in distinct-connections mode the operation runs before graphql-sse answers.
      const buffer = buffers.attach(reply.raw, req.ip, kind);
      streamOfRequest.set(req, buffer);
      const reservation = token ? reservations.get(token) : undefined;
      if (token && reservation) {
        clearTimeout(reservation.timer);
        reservations.delete(token);
        streamOfToken.set(token, buffer);
        reply.raw.once('close', () => {
          if (streamOfToken.get(token) === buffer) streamOfToken.delete(token);
        });
      }
    } else if (token && reservations.has(token) && (req.method === 'POST' || req.method === 'GET')) {
      // Operations on a reservation whose stream is not open would queue their results with nobody to take them.
      await reply.status(409).send({
        errors: [
          {
            message:
              'the event stream of this reservation is not open: open it first (GET with accept: text/event-stream and the token), then send operations',
            extensions: { code: 'CONFLICT' },
          },
        ],
      });
      return;
    } else if (req.method === 'PUT') {
      const mine = [...reservations.values()].filter((r) => r.client === req.ip).length;
      if (mine >= limits.maxConnectionsPerClient) {
        const refusal: Refusal = {
          limit: 'liveMaxConnectionsPerClient',
          message: `too many reserved streams from ${req.ip}: at most ${limits.maxConnectionsPerClient} per client address (liveMaxConnectionsPerClient)`,
        };
        await reply.status(429).send(limitError(refusal));
        return;
      }
    }

    reply.hijack();
    const raw = reply.raw;
    let response: SseResponse | undefined;
    try {
      response = await handler(sseRequest);
      const [body, init] = response;
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(reply.getHeaders()))
        if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : String(v);
      // A stream's connection is closed when the stream ends (endStream): say so, or a keep-alive client would
      // send its next request on a socket being closed.
      const streaming = body !== null && typeof body !== 'string';
      raw.writeHead(init.status, init.statusText, {
        ...headers,
        ...init.headers,
        ...(streaming ? { connection: 'close' } : {}),
      });
      if (req.method === 'PUT' && init.status === 201 && typeof body === 'string') {
        const timer = setTimeout(() => expireReservation(body, req), options.reservationTimeoutMs ?? 10_000);
        timer.unref();
        reservations.set(body, { client: req.ip, timer });
      }
      if (!body || typeof body === 'string') {
        raw.end(body ?? undefined);
        return;
      }
      const buffer = streamOfRequest.get(req);
      if (!buffer) throw new Error('an event stream without its buffer');
      openBodies.add(body);
      try {
        await pipeStream(raw, body, buffer);
      } finally {
        openBodies.delete(body);
      }
    } catch (err) {
      log.error({ err, reqId: req.id }, 'event stream failed');
      if (!raw.headersSent) raw.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
      if (!raw.writableEnded)
        raw.end(
          raw.headersSent
            ? undefined
            : JSON.stringify({
                errors: [{ message: 'internal error', extensions: { code: 'INTERNAL_SERVER_ERROR' } }],
              }),
        );
    } finally {
      if (release) {
        release();
        options.onConnection?.(-1);
      }
      log.info(
        {
          reqId: req.id,
          method: req.method,
          url: req.url.split('?')[0],
          status: raw.statusCode,
          ms: Math.round(reply.elapsedTime),
        },
        'request',
      );
    }
  }

  return {
    serve,
    async closeStreams() {
      for (const { timer } of reservations.values()) clearTimeout(timer);
      reservations.clear();
      await Promise.all([...openBodies].map((body) => body.return(undefined)));
    },
    stats: () => ({
      streams: openBodies.size,
      reservations: reservations.size,
      operations: pipeline.running,
      bufferedBytes: buffers.bytes,
    }),
  };
}
