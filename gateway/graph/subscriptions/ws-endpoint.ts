import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { GraphQLError } from 'graphql';
import { CloseCode, GRAPHQL_TRANSPORT_WS_PROTOCOL, makeServer } from 'graphql-ws';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { cacheScopeOf, type TraceCarrier } from '../context';
import { validTraceCarrier } from '../tracing';
import type { Logger } from '../../../platform/log';
import type { ConnectionLimiter, StreamLimits } from './connection-limits';
import type { BufferLimitName, StreamBuffer, StreamBuffers, StreamSink } from './stream-buffers';
import { createStreamOperations, type OperationCaller, type OperationSource } from './stream-operations';

/** Where GraphQL over WebSocket is served: `/graphql` (as Apollo Router and Hive Gateway do) and `/graphql/ws`. */
export const WS_PATHS: readonly string[] = ['/graphql', '/graphql/ws'];

/** WebSocket close codes of our own (the graphql-transport-ws protocol's are in graphql-ws's CloseCode). */
export const WS_CLOSE = {
  /** RFC 6455 "going away": the server is shutting down. */
  shuttingDown: 1001,
  /** RFC 6455 "try again later": a connection limit refused the socket, or it fell too far behind. */
  tryAgainLater: 1013,
} as const;

/** How long a socket being closed may take to answer the close before it is cut (a stuck client never answers). */
const CLOSE_GRACE_MS = 2_000;

export interface WebSocketEndpointOptions extends OperationSource {
  limits: StreamLimits;
  /** Shared with the SSE endpoint and /v1/live: a socket holds one slot of its client's. */
  connections: ConnectionLimiter;
  /** Shared with every other live stream of the server: bounds each socket's unsent bytes, and all of them. */
  buffers: StreamBuffers;
  log: Logger;
  /** Largest message a client may send; a larger one closes its socket with 1009 (message too big). */
  maxMessageBytes: number;
  /** How long a socket may stay open without its connection_init (then closed with 4408). */
  connectionInitTimeoutMs: number;
  /** Interval of WebSocket pings; a socket that has not answered the previous one by the next is cut. */
  keepAliveMs: number;
  /** Told when a socket opens (+1) and closes (-1). */
  onConnection?: (delta: 1 | -1) => void;
  /** The connection's id in logs (default: a new UUID); its operations get `id:1`, `id:2`, … */
  requestIdOf?: (req: IncomingMessage) => string;
  /** Why an operation's variables are refused before anything walks them (e.g. nested too deep), or undefined. */
  refuseVariables?: (variables: Record<string, unknown>) => { message: string; limit: string } | undefined;
  /** The sockets' kind in logs and metrics; default `graphql-ws`. */
  kind?: string;
  /**
   * Tracing is on: a subscribe message whose `payload.extensions` carry a valid `traceparent` continues that trace
   * (read only then).
   */
  traced?: boolean;
}

export interface WebSocketEndpoint {
  /**
   * Takes an HTTP upgrade (the server's 'upgrade' event) when its path is one of WS_PATHS; false otherwise (the
   * caller answers it).
   */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /** Closes every socket with 1001 (graceful shutdown), cutting those that do not answer within 2 s. */
  close(): Promise<void>;
  /** Open sockets, running subscriptions, and the unsent bytes of every live stream of the server. */
  stats(): { sockets: number; operations: number; bufferedBytes: number };
}

/** One open socket. */
interface Connection {
  id: string;
  ws: WebSocket;
  address: string;
  /** The upgrade request's Authorization header. */
  headerAuthorization: string | undefined;
  /** The credential the connection's operations run with (connection_init's, else the header's). */
  authorization: string | undefined;
  /**
   * Whose trace its operations continue: connection_init's payload when it has a valid `traceparent`, else the upgrade's
   * headers (an operation's own subscribe message wins over both when tracing is on).
   */
  traceHeaders: TraceCarrier;
  /** Operations started, for their request ids. */
  started: number;
  /** Answered the last ping (or sent something) since. */
  alive: boolean;
  buffer: StreamBuffer;
  openedAt: number;
  /** Closes the socket with `code`; cut if it has not answered within CLOSE_GRACE_MS. */
  end(code: number, reason: string): void;
}

/** A close reason as WebSocket allows it: at most 123 bytes of UTF-8. */
export function closeReason(text: string): string {
  if (Buffer.byteLength(text) <= 123) return text;
  let cut = text.slice(0, 123);
  while (Buffer.byteLength(cut) > 120) cut = cut.slice(0, -1);
  return `${cut}...`;
}

/**
 * The Authorization a connection_init payload carries (`Authorization` or `authorization`): undefined when it has
 * none, null when it is not a string.
 */
export function initAuthorization(payload: Readonly<Record<string, unknown>> | undefined): string | null | undefined {
  const value = payload?.Authorization ?? payload?.authorization;
  if (value === undefined || value === null) return undefined;
  return typeof value === 'string' ? value : null;
}

function textOf(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(data).toString('utf8');
}

/** Answers an upgrade that is not taken with a plain HTTP status and closes its socket. */
export function refuseUpgrade(socket: Duplex, status: number, text: string): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`, () => socket.destroy());
}

/**
 * GraphQL over WebSocket (the graphql-transport-ws protocol, graphql-ws's server core) on the HTTP server's upgrades:
 * subscriptions run through the federated subscription engine, queries and mutations through the /graphql pipeline
 * (the same pipeline as the SSE endpoint). Each socket holds a slot of the shared connection limits and a buffer of
 * the shared stream buffers: a client that does not read loses its oldest events, then is closed with 1013.
 */
export function createWebSocketEndpoint(options: WebSocketEndpointOptions): WebSocketEndpoint {
  const { limits, connections, buffers, log } = options;
  const kind = options.kind ?? 'graphql-ws';
  const pipeline = createStreamOperations(options);
  const open = new Set<Connection>();
  let closing = false;
  let pinger: NodeJS.Timeout | undefined;

  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: options.maxMessageBytes,
    perMessageDeflate: false,
    clientTracking: false,
    // Only graphql-transport-ws is spoken. A client asking for another (subscriptions-transport-ws's `graphql-ws`)
    // gets it echoed so that its handshake completes and it can read why it is refused: graphql-ws's server core
    // then closes every socket not on graphql-transport-ws with 4406 (subprotocol not acceptable).
    handleProtocols: (protocols) =>
      protocols.has(GRAPHQL_TRANSPORT_WS_PROTOCOL) ? GRAPHQL_TRANSPORT_WS_PROTOCOL : ([...protocols][0] ?? false),
  });

  /** Pings every socket; one that answered no ping (nor sent anything) since the last is cut. */
  function keepAlive(): void {
    if (pinger || !(options.keepAliveMs > 0)) return;
    pinger = setInterval(() => {
      for (const conn of open) {
        if (!conn.alive) {
          log.info({ reqId: conn.id, client: conn.address, kind }, 'websocket did not answer its ping: cut');
          conn.ws.terminate();
          continue;
        }
        conn.alive = false;
        conn.ws.ping();
      }
      if (open.size === 0) {
        clearInterval(pinger);
        pinger = undefined;
      }
    }, options.keepAliveMs);
    pinger.unref();
  }

  const server = makeServer<Record<string, unknown>, { conn: Connection }>({
    schema: options.schema,
    connectionInitWaitTimeout: options.connectionInitTimeoutMs,
    onConnect: (ctx) => {
      const conn = ctx.extra.conn;
      const given = initAuthorization(ctx.connectionParams);
      if (given === null) {
        conn.end(CloseCode.BadRequest, 'the Authorization of the connection_init payload must be a string');
        return false;
      }
      conn.authorization = given ?? conn.headerAuthorization;
      if (options.traced) conn.traceHeaders = validTraceCarrier(ctx.connectionParams) ?? conn.traceHeaders;
      return true;
    },
    onSubscribe: (ctx, _id, payload) => {
      const conn = ctx.extra.conn;
      // The operation itself is in ctx.subscriptions already.
      if (Object.keys(ctx.subscriptions).length > limits.maxSubscriptionsPerConnection)
        return [
          new GraphQLError(
            `too many operations on one socket: at most ${limits.maxSubscriptionsPerConnection} (liveMaxSubscriptionsPerConnection)`,
            { extensions: { code: 'LIMIT_EXCEEDED', limit: 'liveMaxSubscriptionsPerConnection' } },
          ),
        ];
      const refused = payload.variables ? options.refuseVariables?.(payload.variables) : undefined;
      if (refused)
        return [new GraphQLError(refused.message, { extensions: { code: 'BAD_REQUEST', limit: refused.limit } })];
      const document = pipeline.document(payload.query);
      if (document instanceof GraphQLError) return [document];
      const errors = pipeline.validate(options.schema, document);
      if (errors.length > 0) return errors;
      const caller: OperationCaller = {
        requestId: `${conn.id}:${++conn.started}`,
        authorization: conn.authorization,
        address: conn.address,
        query: payload.query,
        shareKey: cacheScopeOf(conn.authorization),
        // Clients tracing each operation (OpenTelemetry's graphql-ws instrumentations) send its trace context in
        // the subscribe message's extensions; one that is not valid leaves the connection's.
        traceHeaders: (options.traced && validTraceCarrier(payload.extensions)) || conn.traceHeaders,
      };
      return {
        schema: options.schema,
        document,
        operationName: payload.operationName,
        variableValues: payload.variables,
        contextValue: caller,
      };
    },
    subscribe: (args) => pipeline.subscribe(args, args.contextValue as OperationCaller),
    execute: (args) => pipeline.execute(args, args.contextValue as OperationCaller),
    // Results are in their JSON shape already (graphql-ws would call toJSON on each error).
    onNext: (_ctx, _id, _payload, _args, result) => result,
  });

  function opened(ws: WebSocket, req: IncomingMessage, socket: Duplex, release: () => void): void {
    const sink: StreamSink = {
      write: (chunk) => {
        ws.send(chunk);
        return ws.bufferedAmount < socket.writableHighWaterMark;
      },
      get writableLength() {
        return ws.bufferedAmount;
      },
      on: (event, listener) => socket.on(event, listener),
      once: (event, listener) => ws.once(event, listener),
      destroy: () => ws.terminate(),
    };
    let ending: NodeJS.Timeout | undefined;
    let stopOperations: () => void = () => undefined;
    const address = req.socket.remoteAddress ?? 'local';
    const conn: Connection = {
      id: options.requestIdOf?.(req) ?? randomUUID(),
      ws,
      address,
      headerAuthorization: req.headers.authorization,
      authorization: undefined,
      traceHeaders: req.headers,
      started: 0,
      alive: true,
      buffer: buffers.attach(sink, address, kind, (limit) => {
        conn.end(WS_CLOSE.tryAgainLater, slowClientReason(limit));
      }),
      openedAt: performance.now(),
      end(code, reason) {
        if (ending) return;
        stopOperations(); // nothing more is sent on a socket being closed
        ws.close(code, closeReason(reason));
        ending = setTimeout(() => ws.terminate(), CLOSE_GRACE_MS);
        ending.unref();
      },
    };
    open.add(conn);
    options.onConnection?.(1);
    keepAlive();

    const closed = server.opened(
      {
        protocol: ws.protocol,
        send: async (data) => {
          const bytes = Buffer.byteLength(data);
          // Waits while the socket holds its bound: the operation's source is not pulled meanwhile, so its bounded
          // queue drops the oldest events.
          if (!(await conn.buffer.reserve(bytes))) return; // closed: the message is dropped
          conn.buffer.write(data, true, bytes);
        },
        close: (code, reason) => conn.end(code ?? 1000, reason ?? ''),
        onMessage: (handle) =>
          ws.on('message', (data) => {
            conn.alive = true;
            handle(textOf(data)).catch((err: unknown) => {
              log.error({ err, reqId: conn.id }, 'websocket message failed');
              conn.end(CloseCode.InternalServerError, 'internal error');
            });
          }),
      },
      { conn },
    );
    let stopped = false;
    stopOperations = () => {
      if (stopped) return;
      stopped = true;
      closed().catch((err: unknown) => log.error({ err, reqId: conn.id }, 'ending websocket operations failed'));
    };
    ws.on('pong', () => {
      conn.alive = true;
    });
    // Errors of the peer's frames (too big, malformed): ws closes the socket itself, with the code that says why.
    ws.on('error', (err) => log.info({ reqId: conn.id, client: address, kind, error: err.message }, 'websocket error'));
    ws.once('close', (code, reason) => {
      clearTimeout(ending);
      stopOperations();
      open.delete(conn);
      release();
      options.onConnection?.(-1);
      log.info(
        {
          reqId: conn.id,
          client: address,
          kind,
          code,
          reason: reason.toString('utf8') || undefined,
          operations: conn.started,
          ms: Math.round(performance.now() - conn.openedAt),
        },
        'websocket closed',
      );
    });
  }

  function slowClientReason(limit: BufferLimitName): string {
    return limit === 'liveSlowClientTimeoutMs'
      ? `the client read too slowly: over ${buffers.limits.maxStreamBytes} unsent bytes for ${buffers.limits.slowClientTimeoutMs} ms (liveSlowClientTimeoutMs)`
      : 'the server holds too much unsent data and this socket held the most (liveMaxBufferedBytes)';
  }

  return {
    handleUpgrade(req, socket, head) {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      if (!WS_PATHS.includes(path)) return false;
      if (closing) {
        refuseUpgrade(socket, 503, 'Service Unavailable');
        return true;
      }
      const address = req.socket.remoteAddress ?? 'local';
      const slot = connections.tryOpen(address);
      // A handshake ws refuses (a bad key or version) never reaches the callback: the slot goes with the socket.
      if ('release' in slot) socket.once('close', slot.release);
      wss.handleUpgrade(req, socket, head, (ws) => {
        if ('refused' in slot) {
          // Refused after the handshake: a browser sees no HTTP status of a failed upgrade, only a close and its reason.
          log.warn({ client: address, kind, limit: slot.refused.limit }, 'live connection refused');
          ws.on('error', () => undefined);
          ws.close(WS_CLOSE.tryAgainLater, closeReason(slot.refused.message));
          setTimeout(() => ws.terminate(), CLOSE_GRACE_MS).unref();
          return;
        }
        opened(ws, req, socket, slot.release);
      });
      return true;
    },
    async close() {
      closing = true;
      clearInterval(pinger);
      pinger = undefined;
      const all = [...open];
      await Promise.all(
        all.map(
          (conn) =>
            new Promise<void>((resolve) => {
              if (conn.ws.readyState === conn.ws.CLOSED) return resolve();
              conn.ws.once('close', () => resolve());
              conn.end(WS_CLOSE.shuttingDown, 'the server is shutting down');
            }),
        ),
      );
    },
    stats: () => ({ sockets: open.size, operations: pipeline.running, bufferedBytes: buffers.bytes }),
  };
}
