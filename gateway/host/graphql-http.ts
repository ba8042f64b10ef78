import { Readable } from 'node:stream';
import { HeaderMap, type ApolloServer, type BaseContext, type HTTPGraphQLResponse } from '@apollo/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { IncrementalDelivery } from '../graph';
import { formatDelivery, type IncrementalFormat } from './incremental-formats';
import { multipartBody, multipartContentType, withHasNext } from './multipart';

/** A request as Apollo Server is given it: the body and query string (a trusted document's text put in). */
export interface ApolloRequest {
  body: unknown;
  search: string;
}

async function executeWithApollo<Context extends BaseContext>(
  server: ApolloServer<Context>,
  req: FastifyRequest,
  request: ApolloRequest,
  context: () => Promise<Context>,
  accept?: string,
): Promise<HTTPGraphQLResponse> {
  const headers = new HeaderMap();
  for (const [key, value] of Object.entries(req.headers))
    if (value) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
  if (accept) headers.set('accept', accept);
  return server.executeHTTPGraphQLRequest({
    httpGraphQLRequest: { method: req.method.toUpperCase(), headers, body: request.body, search: request.search },
    context,
  });
}

const encoder = new TextEncoder();

/**
 * The UTF-8 bytes of an answer. Buffer.from measures the text, then encodes it: two passes over it (on gwbench's 87 kB
 * answer, measured alone: 25-50 us against about 10 us this way). Most answers are ASCII, one byte a character: encoded
 * in one pass into a buffer of the text's length, and only text that does not fit there (other characters) is measured.
 */
export function utf8Bytes(text: string): Buffer {
  const bytes = Buffer.allocUnsafe(text.length);
  const { read, written } = encoder.encodeInto(text, bytes);
  return read === text.length ? bytes.subarray(0, written) : Buffer.from(text);
}

function send(reply: FastifyReply, response: HTTPGraphQLResponse): FastifyReply | Buffer {
  for (const [key, value] of response.headers) void reply.header(key, value);
  void reply.code(response.status ?? 200);
  // As bytes: Node writes a string body by joining it to the response head and measuring it again (about 15 % of
  // the gateway's CPU per request on gwbench's 87 kB answer); a Buffer goes out beside the head as it is.
  if (response.body.kind === 'complete') return utf8Bytes(response.body.string);
  return reply.send(Readable.from(response.body.asyncIterator));
}

/**
 * Hands a Fastify request to Apollo Server, as @as-integrations/fastify does, but with the body and query string
 * given: a request naming a trusted document by id is rewritten to carry its text before Apollo Server reads it.
 */
export async function sendToApollo<Context extends BaseContext>(
  server: ApolloServer<Context>,
  req: FastifyRequest,
  reply: FastifyReply,
  request: ApolloRequest,
  context: () => Promise<Context>,
): Promise<FastifyReply | Buffer> {
  return send(reply, await executeWithApollo(server, req, request, context));
}

/**
 * The same for a client that accepts `multipart/mixed`: Apollo Server runs the whole pipeline (documents, validation,
 * limits, cost, plugins) and gets the initial result; when the executor left deferred payloads in `delivery`, the
 * answer is multipart, its later parts written as they come. Anything else (an error before execution, an operation
 * without active `@defer`) is Apollo's answer as it is.
 */
export async function sendIncremental<Context extends BaseContext>(
  server: ApolloServer<Context>,
  req: FastifyRequest,
  reply: FastifyReply,
  request: ApolloRequest,
  context: (delivery: IncrementalDelivery) => Promise<Context>,
  format: IncrementalFormat,
): Promise<FastifyReply | Buffer> {
  const delivery: IncrementalDelivery = {};
  // Apollo Server answers a single result, in a JSON type the client takes (JSON if it asked for multipart alone)
  const accept = `${req.headers.accept ?? ''}, application/json;q=0.01`;
  const response = await executeWithApollo(server, req, request, () => context(delivery), accept);
  const later = delivery.later;
  if (!later || (response.status ?? 200) !== 200 || response.body.kind !== 'complete') {
    later?.stop();
    return send(reply, response);
  }
  for (const [key, value] of response.headers) if (key !== 'content-type') void reply.header(key, value);
  void reply.code(200).header('content-type', multipartContentType(format));
  const { initial, payloads } = formatDelivery(format, later);
  return reply.send(Readable.from(multipartBody(withHasNext(response.body.string, initial), payloads)));
}
