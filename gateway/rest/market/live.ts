import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parse, validate, type FormattedExecutionResult, type GraphQLSchema } from 'graphql';
import {
  cacheScopeOf,
  callerOf,
  type ConnectionLimiter,
  endStream,
  type FederatedSubscriptions,
  type GatewayMetrics,
  type Graph,
  prepareOperation,
  type StreamBuffer,
  type StreamBuffers,
} from '../../graph';
import type { Logger } from '../../../platform/log';
import type { Stream } from '../../../subgraphs/async-streams';
import { RestError, restErrorFromGraphQL, statusText } from '../errors';

/** The original stream's item: `{ticker, name, price, change, changePercent, currency, type}`, in that order. */
const LIVE_FIELDS = 'ticker name price change changePercent currency type';
const STREAM_QUERY = `subscription RestLive($tickers: [String!]) { priceTicks(tickers: $tickers) { sequence quotes { ${LIVE_FIELDS} } } }`;
const SNAPSHOT = prepareOperation(
  'RestLiveSnapshot',
  `query RestLiveSnapshot($tickers: [String!]) { liveSnapshot(tickers: $tickers) { ${LIVE_FIELDS} } }`,
);

export interface LiveRestOptions {
  graph: Graph;
  subscriptions: FederatedSubscriptions;
  schema: GraphQLSchema;
  connections: ConnectionLimiter;
  /** Bounds the bytes each stream holds for a client that reads slower than frames come (shared with /graphql/stream). */
  buffers: StreamBuffers;
  metrics: GatewayMetrics;
  log: Logger;
  /** Comment lines keep idle streams open through proxies; default 15 s. */
  heartbeatMs?: number;
}

type Item = Record<string, unknown>;
/** One rendered SSE frame and its size in bytes. */
type Frame = { text: string; bytes: number };

/** `?tickers=A,B`: absent or empty → the subgraph's default list (the original's eight). */
function tickersParam(query: Record<string, string | string[] | undefined>): string[] | null {
  const raw = query.tickers;
  if (Array.isArray(raw)) throw new RestError(400, 'tickers may be given only once (a comma-separated list)');
  if (raw === undefined || raw.trim() === '') return null;
  return raw.split(',').map((t) => t.trim());
}

function restItem(quote: Item): Item {
  return { ...quote, type: typeof quote.type === 'string' ? quote.type.toLowerCase() : null };
}

/**
 * `GET /v1/live` (Server-Sent Events, the original's frames: `data: <JSON array>` per interval, plus an `id:` per
 * frame and heartbeat comments) and `GET /v1/live/snapshot`. Both run GraphQL operations through the gateway: the
 * stream is a `priceTicks` subscription, so it shares the price hub with every other subscriber.
 */
export function registerMarketLive(
  app: FastifyInstance,
  options: LiveRestOptions,
): { closeStreams(): void; open(): number } {
  const { graph, subscriptions, connections, log } = options;
  const document = parse(STREAM_QUERY);
  const invalid = validate(options.schema, document);
  if (invalid.length)
    throw new Error(`the /v1/live operation does not fit the schema: ${invalid.map((e) => e.message).join('; ')}`);

  // Frames are the same bytes for every client of the same event (results are shared per event): render once.
  const frames = new WeakMap<object, Frame>();
  const open = new Map<ServerResponse, { stop: () => void; buffer: StreamBuffer }>();
  let heartbeat: NodeJS.Timeout | undefined;
  const heartbeatMs = options.heartbeatMs ?? 15_000;

  /** One timer for every open stream, running only while there is one. */
  function track(raw: ServerResponse, stop: () => void, buffer: StreamBuffer): void {
    open.set(raw, { stop, buffer });
    heartbeat ??= setInterval(() => {
      // Only idle streams need one: a stream still holding bytes is not idle, and its client is not reading.
      for (const [res, { buffer: b }] of open) if (res.writable && b.bytes === 0) b.write(': heartbeat\n\n');
    }, heartbeatMs);
  }
  function untrack(raw: ServerResponse): void {
    open.delete(raw);
    if (open.size === 0 && heartbeat) {
      clearInterval(heartbeat);
      heartbeat = undefined;
    }
  }

  function frameOf(event: FormattedExecutionResult): Frame {
    let frame = frames.get(event);
    if (frame === undefined) {
      const tick = (event.data as { priceTicks?: { sequence: number; quotes: Item[] } } | null | undefined)?.priceTicks;
      const text = tick
        ? `id: ${tick.sequence}\ndata: ${JSON.stringify(tick.quotes.map(restItem))}\n\n`
        : `event: error\ndata: ${JSON.stringify({ error: 'Bad Gateway', message: event.errors?.map((e) => e.message).join('; ') ?? 'no data' })}\n\n`;
      frame = { text, bytes: Buffer.byteLength(text) };
      frames.set(event, frame);
    }
    return frame;
  }
  function send(buffer: StreamBuffer, frame: Frame): void {
    buffer.write(frame.text, false, frame.bytes);
  }

  app.get(
    '/live',
    async (
      req: FastifyRequest<{ Querystring: Record<string, string | string[] | undefined> }>,
      reply: FastifyReply,
    ) => {
      const tickers = tickersParam(req.query);
      const slot = connections.tryOpen(req.ip);
      if ('refused' in slot) {
        log.warn({ reqId: req.id, client: req.ip, limit: slot.refused.limit }, 'live connection refused');
        return reply.status(503).send({ error: statusText(503), message: slot.refused.message });
      }
      let stream: Stream<FormattedExecutionResult>;
      let first: FormattedExecutionResult;
      try {
        const result = await subscriptions.subscribe({
          document,
          query: STREAM_QUERY,
          operationName: 'RestLive',
          variables: { tickers },
          requestId: req.id,
          authorization: req.headers.authorization,
          shareKey: cacheScopeOf(req.headers.authorization),
          traceHeaders: req.headers,
        });
        if (!('next' in result))
          throw result.errors?.length
            ? restErrorFromGraphQL(result.errors, 'market')
            : new RestError(502, 'the live stream could not start');
        stream = result;
        // The first event comes at once; a stream that fails to open (a remote subgraph's errors arrive as an event)
        // is still a plain JSON error with the REST status, not a stream.
        const step = await stream.next();
        if (step.done || !step.value.data) {
          await stream.return(undefined);
          const errors = step.done ? undefined : step.value.errors;
          throw errors?.length
            ? restErrorFromGraphQL(errors, 'market')
            : new RestError(502, 'the live stream ended before its first frame');
        }
        first = step.value;
      } catch (err) {
        slot.release();
        throw err;
      }

      reply.hijack();
      const raw = reply.raw;
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(reply.getHeaders()))
        if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : String(v);
      raw.writeHead(200, {
        ...headers,
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        connection: 'close', // the stream's end closes the connection (endStream): no reuse by keep-alive clients
        'x-accel-buffering': 'no', // nginx: do not buffer the stream
      });
      const buffer = options.buffers.attach(raw, req.ip, 'rest');
      buffer.write(': live prices\n\n'); // headers reach the client now, before the first frame
      options.metrics.liveConnections.inc({ kind: 'rest' });
      const live = stream;
      const stop = () => void live.return(undefined);
      raw.once('close', stop);
      track(raw, stop, buffer);
      try {
        send(buffer, frameOf(first));
        // A client that reads slower than frames come: the next event is taken only when its stream has room (the
        // hub's queue drops the oldest meanwhile), and one stuck too long is disconnected by the buffers' bounds.
        while (await buffer.room()) {
          const step = await live.next();
          if (step.done || !raw.writable) break;
          send(buffer, frameOf(step.value));
          if (!step.value.data) break; // the stream failed: the error frame was its last
        }
      } catch (err) {
        log.warn({ err, reqId: req.id }, 'live stream failed');
      } finally {
        raw.off('close', stop);
        untrack(raw);
        slot.release();
        options.metrics.liveConnections.dec({ kind: 'rest' });
        endStream(raw);
        log.info(
          { reqId: req.id, url: '/v1/live', client: req.ip, ms: Math.round(reply.elapsedTime) },
          'live stream closed',
        );
      }
    },
  );

  app.get(
    '/live/snapshot',
    async (req: FastifyRequest<{ Querystring: Record<string, string | string[] | undefined> }>, reply) => {
      const { result } = await graph.run(SNAPSHOT, { tickers: tickersParam(req.query) }, req.id, callerOf(req));
      if (result.errors?.length) throw restErrorFromGraphQL(result.errors, 'market');
      const items = ((result.data as { liveSnapshot?: Item[] } | null)?.liveSnapshot ?? []).map(restItem);
      return reply.header('cache-control', 'no-cache').send(items);
    },
  );

  return {
    closeStreams: () => {
      for (const { stop } of open.values()) stop();
    },
    open: () => open.size,
  };
}
