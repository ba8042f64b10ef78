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
 * Fastify options every HTTP server of ours starts with: request ids, one log line per request (written by the
 * server itself), request timeouts, and 503 for requests arriving while it closes.
 */
export function httpServerOptions(log: Logger, limits: HttpLimits): FastifyHttpOptions<Server> {
  return {
    loggerInstance: log,
    logController: new LogController({ disableRequestLogging: true }),
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
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
  // Before any handler runs: each request's work may stop when its client goes away (request-signal.ts).
  app.addHook('onRequest', async (req, reply) => watchClient(req.raw, reply.raw));
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
    for (const [socket, requests] of inFlight) if (requests === 0) socket.destroy();
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
