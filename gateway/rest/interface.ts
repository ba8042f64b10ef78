import type { FastifyError, FastifyInstance } from 'fastify';
import type { ErrorShape } from '../../platform/errors';
import { RestError } from './errors';

/**
 * One REST interface of the product (market `/v1`, DNS tool `/api.php`, DNS API `/api/v1`): an encapsulated Fastify
 * plugin with its own body parsers, routes, error handler and not-found body, all in its interface's own shape. Its
 * routes run fixed GraphQL operations through the gateway; it never reaches a subgraph or a store directly.
 */
export interface RestInterface {
  readonly name: string;
  /** The path prefix it owns ('' for a single root path such as /api.php). */
  readonly prefix: string;
  /** Error bodies in its shape (also used for errors raised before routing, by path). */
  readonly shape: ErrorShape;
  /** The HTTP status an error is answered with (default: its own); the DNS tool answers every error with 400. */
  errorStatus?(status: number): number;
  /** Registers its parsers and routes in its own scope (paths relative to the prefix). */
  routes(scope: FastifyInstance): Promise<void> | void;
  /** Ends whatever long-lived responses it holds (graceful shutdown). */
  close?(): Promise<void> | void;
}

/** Fastify's own words for a body it could not read, as a client should read them. */
const BODY_ERRORS: Record<string, string> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'malformed JSON: the request body is not valid JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'the request body is empty but its content-type says JSON',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported content-type: send the body as application/json',
};

/** Registers `rest` in a scope of its own, so its error and not-found handlers apply to its paths only. */
export async function mountRestInterface(app: FastifyInstance, rest: RestInterface, bodyLimit: number): Promise<void> {
  await app.register(
    async (scope) => {
      scope.setErrorHandler((err: FastifyError | RestError, req, reply) => {
        if (err instanceof RestError) {
          if (err.headers) void reply.headers(err.headers);
          return reply
            .status(err.status)
            .type('application/json; charset=utf-8')
            .send(rest.shape(err.status, err.message, err.extras));
        }
        const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
        if (status === 500) req.log.error({ err }, 'unhandled error');
        const message =
          status === 413
            ? `request body exceeds the limit of ${bodyLimit} bytes (maxBodyBytes)`
            : status === 500
              ? 'internal error'
              : (BODY_ERRORS[err.code] ?? err.message);
        return reply
          .status(rest.errorStatus?.(status) ?? status)
          .type('application/json; charset=utf-8')
          .send(rest.shape(status, message, status === 413 ? { limit: 'maxBodyBytes' } : undefined));
      });
      scope.setNotFoundHandler((req, reply) =>
        reply
          .status(rest.errorStatus?.(404) ?? 404)
          .type('application/json; charset=utf-8')
          .send(rest.shape(404, `no such path: ${req.method} ${req.url.split('?')[0]}`)),
      );
      await rest.routes(scope);
      if (rest.close) scope.addHook('preClose', async () => rest.close?.());
    },
    { prefix: rest.prefix },
  );
}
