import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorExtras, ErrorShape } from '../../platform/errors';

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
