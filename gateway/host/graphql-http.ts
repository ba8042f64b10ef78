import { Readable } from 'node:stream';
import { HeaderMap, type ApolloServer, type BaseContext } from '@apollo/server';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Hands a Fastify request to Apollo Server, as @as-integrations/fastify does, but with the body and query string
 * given: a request naming a trusted document by id is rewritten to carry its text before Apollo Server reads it.
 */
export async function sendToApollo<Context extends BaseContext>(
  server: ApolloServer<Context>,
  req: FastifyRequest,
  reply: FastifyReply,
  request: { body: unknown; search: string },
  context: () => Promise<Context>,
): Promise<FastifyReply | string> {
  const headers = new HeaderMap();
  for (const [key, value] of Object.entries(req.headers))
    if (value) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
  const response = await server.executeHTTPGraphQLRequest({
    httpGraphQLRequest: { method: req.method.toUpperCase(), headers, body: request.body, search: request.search },
    context,
  });
  for (const [key, value] of response.headers) void reply.header(key, value);
  void reply.code(response.status ?? 200);
  if (response.body.kind === 'complete') return response.body.string;
  return reply.send(Readable.from(response.body.asyncIterator));
}
