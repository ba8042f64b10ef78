import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { LogController, type FastifyBaseLogger, type FastifyHttpOptions, type FastifyInstance } from 'fastify';
import type { Logger } from './logger';

/** Bounds on HTTP connections and requests, shared by the gateway and subgraphs served alone. */
export interface HttpLimits {
  /** Open connections at once; connections beyond it are closed as soon as they are accepted. */
  maxConnections: number;
  /** Longest a request may take to arrive in full, headers and body (a trickled body cannot hold a socket). */
  requestTimeoutMs: number;
}

export const DEFAULT_HTTP_LIMITS: HttpLimits = { maxConnections: 15_000, requestTimeoutMs: 30_000 };

/**
 * Fastify options every HTTP server of ours starts with: request ids, one log line per request (written by the
 * server itself), request timeouts, and 503 for requests arriving while it closes.
 */
export function httpServerOptions(log: Logger, limits: HttpLimits): FastifyHttpOptions<Server> {
  return {
    loggerInstance: log as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    return503OnClosing: true,
    requestTimeout: limits.requestTimeoutMs,
    // Node checks request timeouts on this interval (30 s by default, which would let a slow request live twice as
    // long as its timeout); headers must be complete well within the request timeout.
    http: { connectionsCheckingInterval: Math.min(1_000, limits.requestTimeoutMs), headersTimeout: Math.min(10_000, limits.requestTimeoutMs) },
  };
}

/**
 * Connection bound and graceful close: requests in flight when close() starts are answered, and their keep-alive
 * connections close after that answer (an idle keep-alive socket would otherwise hold close() until its timeout).
 */
export function applyHttpLifecycle(app: FastifyInstance, limits: HttpLimits): void {
  app.server.maxConnections = limits.maxConnections;
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_req, reply, payload) => {
    if (closing) reply.header('connection', 'close');
    return payload;
  });
}
