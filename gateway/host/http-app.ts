import fastifyCors from '@fastify/cors';
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import { allowedOrigin } from './cors';
import type { ErrorShapes } from './error-shapes';
import {
  applyHttpLifecycle,
  DEFAULT_HTTP_LIMITS,
  httpServerOptions,
  REQUEST_ID_HEADER,
  type HttpLimits,
} from './http-server';
import type { Logger } from '../../platform/log';
import type { GatewayMetrics } from '../graph';
import { mountRestInterface, type RestInterface } from '../rest/interface';

export interface HttpAppOptions {
  log: Logger;
  corsOrigins: string;
  bodyLimit?: number;
  httpLimits?: HttpLimits;
  metrics: GatewayMetrics;
  /** Error shapes by path (interfaces mounted later add theirs). */
  shapes: ErrorShapes;
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** The methods a path answers (for Allow on OPTIONS). */
function allowedMethods(app: FastifyInstance, url: string): string {
  const path = url.split('?')[0] ?? '/';
  const found = METHODS.filter((method) => app.findRoute({ method, url: path }) !== null);
  return [...found, 'OPTIONS'].join(', ');
}

function corsOrigin(setting: string): string | string[] {
  return setting === '*'
    ? '*'
    : setting
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
}

/**
 * A Fastify app with everything our HTTP listeners share: request ids and timeouts, the connection bound and
 * graceful close, CORS (a plain OPTIONS answered 204 with Allow), one log line and metrics per request, and errors —
 * before routing too — in the shape of the interface the path belongs to.
 */
export async function createHttpApp(options: HttpAppOptions): Promise<FastifyInstance> {
  const { shapes } = options;
  const cors = corsOrigin(options.corsOrigins);
  const limits = options.httpLimits ?? DEFAULT_HTTP_LIMITS;
  const bodyLimit = options.bodyLimit ?? 1024 * 1024;
  const app = Fastify({
    ...httpServerOptions(options.log, limits),
    bodyLimit,
    // Long path parameters reach the validators (a 400 that says what is allowed); Node's 16 KiB header limit bounds URLs.
    routerOptions: { maxParamLength: 16_384 },
    // Errors raised before routing (a bad percent-escape, an over-long parameter): the path's interface's own
    // shape, CORS headers as on any answer, and never the URL echoed back.
    frameworkErrors: (err, req, reply) => {
      reply.header(REQUEST_ID_HEADER, req.id); // no hook runs before these
      const origin = allowedOrigin(cors, req.headers.origin);
      if (origin) reply.header('access-control-allow-origin', origin);
      const tooLong = err.code === 'FST_ERR_MAX_PARAM_LENGTH';
      void shapes.send(
        req,
        reply,
        tooLong ? 414 : 400,
        tooLong
          ? 'a path parameter is longer than 16384 characters'
          : 'the URL is not valid (a bad percent-escape or character)',
      );
    },
  });

  applyHttpLifecycle(app, limits);

  // PUT and DELETE: graphql-sse's single-connection mode reserves streams and stops operations with them.
  // strictPreflight off: a plain OPTIONS (no preflight headers) is answered 204 with Allow, as the original service did.
  await app.register(fastifyCors, {
    origin: cors,
    methods: ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'],
    strictPreflight: false,
  });
  app.addHook('onSend', async (req, reply, payload) => {
    if (req.method === 'OPTIONS' && !reply.hasHeader('allow')) reply.header('allow', allowedMethods(app, req.url));
    return payload;
  });

  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url ?? 'unmatched';
    options.metrics.httpRequests.inc({ route, method: req.method, status: String(reply.statusCode) });
    options.metrics.httpDuration.observe({ route }, reply.elapsedTime / 1000);
    req.log.info(
      { method: req.method, url: req.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 },
      'request',
    );
  });

  // Paths outside the REST interfaces (/graphql, /healthz, /metrics, the playground): errors in the shape of the
  // path's owner, as errors raised before routing are.
  app.setErrorHandler((err: FastifyError, req, reply) => {
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status === 500) req.log.error({ err }, 'unhandled error');
    if (status === 413) {
      const message = `request body exceeds the limit of ${bodyLimit} bytes (maxBodyBytes)`;
      return shapes.send(req, reply, 413, message, { limit: 'maxBodyBytes' });
    }
    return shapes.send(req, reply, status, status === 500 ? 'internal error' : err.message);
  });
  app.setNotFoundHandler((req, reply) =>
    shapes.send(req, reply, 404, `no such path: ${req.method} ${req.url.split('?')[0]}`),
  );
  return app;
}

/** Mounts REST interfaces on an app, each claiming its prefix's error shape. */
export async function mountRestInterfaces(
  app: FastifyInstance,
  shapes: ErrorShapes,
  interfaces: readonly RestInterface[],
  bodyLimit = 1024 * 1024,
): Promise<void> {
  for (const rest of interfaces) {
    shapes.add(rest.prefix, rest.shape);
    await mountRestInterface(app, rest, bodyLimit);
  }
}
