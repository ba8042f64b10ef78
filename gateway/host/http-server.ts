import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { LogController, type FastifyHttpOptions, type FastifyInstance } from 'fastify';
import type { Logger } from '../../platform/log';
import { watchClient } from '../graph';

/** Bounds on HTTP connections and requests, shared by the gateway and subgraphs served alone. */
export interface HttpLimits {
  /** Open connections at once; connections beyond it are closed as soon as they are accepted. */
  maxConnections: number;
  /** Longest a request may take to arrive in full, headers and body (a trickled body cannot hold a socket). */
  requestTimeoutMs: number;
  /** How long close() lets requests in flight finish before it cuts their connections. */
  shutdownGraceMs?: number;
}

export const DEFAULT_HTTP_LIMITS: Required<HttpLimits> = {
  maxConnections: 15_000,
  requestTimeoutMs: 30_000,
  shutdownGraceMs: 10_000,
};

/**
 * Sockets upgraded to WebSocket: their owner closes them at shutdown (with a close frame); the lifecycle below must
 * not take them for idle keep-alive connections (no 'request' is counted on them) and cut them first.
 */
const upgraded = new WeakSet<Socket>();

/** Marks a socket as upgraded (called by whoever takes the server's 'upgrade' event). */
export function markUpgraded(socket: Socket): void {
  upgraded.add(socket);
}

/** Headers that only make sense for the upgrade being ignored (the tokens in Connection that name them go too). */
const UPGRADE_ONLY = new Set(['upgrade', 'http2-settings']);

/** Whether the request asks for a WebSocket (`Upgrade: websocket`, among the protocols it lists). */
export function wantsWebSocket(req: IncomingMessage): boolean {
  const upgrade = req.headers.upgrade;
  return typeof upgrade === 'string' && upgrade.split(',').some((p) => p.trim().toLowerCase() === 'websocket');
}

/**
 * Answers an upgrade request as the plain HTTP request it also is (RFC 9110 §7.8: a server may ignore an Upgrade it
 * does not support), e.g. `Upgrade: h2c` from `curl --http2`. Once a server has an 'upgrade' listener, Node hands it
 * every request with an Upgrade header and lets go of the socket; here the request's head is written back in front
 * of what is left of its body (without the upgrade headers) and the socket handed to the server again, which parses
 * it as a new connection's first request and goes on with keep-alive as usual.
 */
export function answerWithoutUpgrade(server: Server, req: IncomingMessage, socket: Socket, head: Buffer): void {
  const lines = [`${req.method ?? 'GET'} ${req.url ?? '/'} HTTP/${req.httpVersion}`];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i] as string;
    let value = req.rawHeaders[i + 1] as string;
    const lower = name.toLowerCase();
    if (UPGRADE_ONLY.has(lower)) continue;
    if (lower === 'connection') {
      value = value
        .split(',')
        .map((t) => t.trim())
        .filter((t) => t && !UPGRADE_ONLY.has(t.toLowerCase()))
        .join(', ');
      if (!value) continue;
    }
    lines.push(`${name}: ${value}`);
  }
  socket.unshift(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), head]));
  server.emit('connection', socket);
}

/** The header a request id comes in and goes back out in. */
export const REQUEST_ID_HEADER = 'x-request-id';

/** What an incoming `x-request-id` may be to be taken as the request's id: 1–128 characters safe in logs and headers. */
const REQUEST_ID = /^[A-Za-z0-9._:+/=-]{1,128}$/;

/**
 * The request's id: the caller's `x-request-id` when it is 1–128 of `A-Z a-z 0-9 . _ : + / = -` (one header, not a
 * list), so a request can be followed from a proxy or client through our logs; anything else gets a new UUID.
 */
export function requestIdOf(req: Pick<IncomingMessage, 'headers'>): string {
  const given = req.headers[REQUEST_ID_HEADER];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/**
 * Fastify options every HTTP server of ours starts with: request ids (`reqId` on every log line of a request), one
 * log line per request (written by the server itself), request timeouts, and 503 for requests arriving while it
 * closes.
 */
export function httpServerOptions(log: Logger, limits: HttpLimits): FastifyHttpOptions<Server> {
  return {
    loggerInstance: log,
    logController: new LogController({ disableRequestLogging: true }),
    requestIdHeader: false, // the id is taken from x-request-id by requestIdOf, only when it is safe
    genReqId: requestIdOf,
    return503OnClosing: true,
    requestTimeout: limits.requestTimeoutMs,
    // Node checks request timeouts on this interval (30 s by default, which would let a slow request live twice as
    // long as its timeout); headers must be complete well within the request timeout.
    http: {
      connectionsCheckingInterval: Math.min(1_000, limits.requestTimeoutMs),
      headersTimeout: Math.min(10_000, limits.requestTimeoutMs),
    },
  };
}

/**
 * Connection bound and graceful close. When close() starts, connections with no request in flight are closed at
 * once — including ones that never sent a byte, which Node counts as busy and, once its server is closing, never
 * times out: one silent client would hold shutdown until it left. Requests in flight are answered, and their
 * connections close after that answer; whatever is still open after `shutdownGraceMs` is cut.
 */
export function applyHttpLifecycle(app: FastifyInstance, limits: HttpLimits): void {
  app.server.maxConnections = limits.maxConnections;
  // Before any handler runs: each request's work may stop when its client goes away (request-signal.ts), and its id
  // goes back in x-request-id on whatever answers it — on the raw response, so streams written past Fastify carry it.
  app.addHook('onRequest', async (req, reply) => {
    reply.raw.setHeader(REQUEST_ID_HEADER, req.id);
    watchClient(req.raw, reply.raw);
  });
  const inFlight = new Map<Socket, number>();
  let closing = false;
  let grace: NodeJS.Timeout | undefined;
  app.server.on('connection', (socket: Socket) => {
    inFlight.set(socket, 0);
    socket.once('close', () => inFlight.delete(socket));
  });
  app.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
    res.once('close', () => {
      const left = Math.max(0, (inFlight.get(socket) ?? 1) - 1);
      inFlight.set(socket, left);
      if (closing && left === 0) socket.destroy();
    });
  });
  app.addHook('preClose', async () => {
    closing = true;
    for (const [socket, requests] of inFlight) if (requests === 0 && !upgraded.has(socket)) socket.destroy();
    grace = setTimeout(
      () => app.server.closeAllConnections(),
      limits.shutdownGraceMs ?? DEFAULT_HTTP_LIMITS.shutdownGraceMs,
    );
    grace.unref();
  });
  app.addHook('onClose', async () => clearTimeout(grace));
  app.addHook('onSend', async (_req, reply, payload) => {
    if (closing) reply.header('connection', 'close');
    return payload;
  });
}
