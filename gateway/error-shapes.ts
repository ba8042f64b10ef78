import type { FastifyReply, FastifyRequest } from 'fastify';
import { statusText } from './rest/errors';

/** What an error may say beyond its status and message; each shape shows what its interface has room for. */
export interface ErrorExtras {
  /** A machine-readable code (GraphQL's extensions.code). */
  code?: string;
  /** The configuration key of a limit that refused the request. */
  limit?: string;
  /** Each invalid field and what is wrong with it. */
  errors?: ReadonlyArray<{ field: string; message: string }>;
}

/** Renders an error body in one interface's own shape. */
export type ErrorShape = (status: number, message: string, extras?: ErrorExtras) => unknown;

/** GraphQL's error shape (/graphql, /graphql/stream). */
export const graphqlErrorShape: ErrorShape = (status, message, extras) => ({
  errors: [
    {
      message,
      extensions: {
        code: extras?.code ?? (status === 413 ? 'PAYLOAD_TOO_LARGE' : 'BAD_REQUEST'),
        ...(extras?.limit ? { limit: extras.limit } : {}),
      },
    },
  ],
});

/** The market REST interface's shape, also the default for paths no interface claims. */
export const marketErrorShape: ErrorShape = (status, message) => ({ error: statusText(status), message });

/**
 * Which interface a path belongs to, for errors raised before any route is chosen (a bad URL, an over-long
 * parameter, a body over the limit): each interface answers them in its own shape. Longest prefix wins.
 */
export class ErrorShapes {
  private readonly byPrefix: Array<{ prefix: string; shape: ErrorShape }> = [];

  constructor(private readonly fallback: ErrorShape) {}

  add(prefix: string, shape: ErrorShape): void {
    this.byPrefix.push({ prefix, shape });
    this.byPrefix.sort((a, b) => b.prefix.length - a.prefix.length);
  }

  of(url: string): ErrorShape {
    const path = url.split('?')[0] ?? '';
    return (
      this.byPrefix.find(
        ({ prefix }) => path === prefix || path.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`),
      )?.shape ?? this.fallback
    );
  }

  send(req: FastifyRequest, reply: FastifyReply, status: number, message: string, extras?: ErrorExtras): FastifyReply {
    return reply
      .status(status)
      .type('application/json; charset=utf-8')
      .send(this.of(req.url)(status, message, extras));
  }
}

/** The Access-Control-Allow-Origin a request gets under the CORS setting (`*` or a list), or none. */
export function allowedOrigin(setting: string | string[], origin: string | undefined): string | undefined {
  if (setting === '*') return '*';
  return origin !== undefined && setting.includes(origin) ? origin : undefined;
}
