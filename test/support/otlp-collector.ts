import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeTraceRequest, type AnyValue, type KeyValue, type OtlpBody } from './otlp-protobuf';

/** The encodings of OTLP/HTTP, by the Content-Type each is sent with. */
const ENCODINGS = { 'application/x-protobuf': 'protobuf', 'application/json': 'json' } as const;
type Encoding = (typeof ENCODINGS)[keyof typeof ENCODINGS];
type MediaType = keyof typeof ENCODINGS;

/** A received span, its attributes as plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  status: { code: number; message?: string };
  service?: unknown;
  /** The spans it links to (trace and span ids). */
  links: Array<{ traceId: string; spanId: string }>;
  /** The Content-Type header of the request that brought it, as sent (its media type says how it was decoded). */
  contentType: string;
}

function plain(value: AnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue) return value.arrayValue.values.map(plain);
  return undefined;
}

const attributesOf = (list: KeyValue[] = []) => Object.fromEntries(list.map((a) => [a.key, plain(a.value)]));

/**
 * An OTLP/HTTP collector in the test's process (127.0.0.1, ephemeral port): keeps every POST /v1/traces, raw and as
 * spans, decoded by its Content-Type as a collector does: `application/x-protobuf` (binary protobuf, OTLP's default)
 * or `application/json`; any other is answered 415, and only noted in `undecodable`.
 */
export class OtlpCollector {
  readonly spans: ReceivedSpan[] = [];
  /**
   * Every request body as received, as text (for searching for what must never be sent): JSON as UTF-8, protobuf one
   * character per byte (latin1), where every string sent stands as it was written.
   */
  readonly raw: string[] = [];
  /** Why each request that could not be decoded was refused (a waitFor that times out shows them). */
  readonly undecodable: string[] = [];
  /** Every request's headers. */
  readonly headers: Array<Record<string, string | string[] | undefined>> = [];
  private server?: Server;
  private waiters: Array<() => void> = [];

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.method !== 'POST' || req.url !== '/v1/traces') {
          res.writeHead(404).end();
          return;
        }
        const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
        const encoding: Encoding | undefined = ENCODINGS[type as MediaType];
        if (!encoding) {
          this.undecodable.push(`unsupported Content-Type "${type}"`);
          res.writeHead(415).end();
          return;
        }
        const bytes = Buffer.concat(chunks);
        let body: OtlpBody;
        try {
          body = encoding === 'json' ? (JSON.parse(bytes.toString('utf8')) as OtlpBody) : decodeTraceRequest(bytes);
        } catch (err) {
          this.undecodable.push(`${type}: ${err instanceof Error ? err.message : String(err)}`);
          res.writeHead(400).end();
          return;
        }
        this.raw.push(bytes.toString(encoding === 'json' ? 'utf8' : 'latin1'));
        this.headers.push(req.headers);
        for (const rs of body.resourceSpans ?? []) {
          const service = attributesOf(rs.resource?.attributes)['service.name'];
          for (const ss of rs.scopeSpans ?? [])
            for (const s of ss.spans ?? [])
              this.spans.push({
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId || undefined,
                name: s.name,
                kind: s.kind,
                attributes: attributesOf(s.attributes),
                status: { code: s.status?.code ?? 0, message: s.status?.message },
                service,
                links: (s.links ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })),
                contentType: req.headers['content-type'] ?? '',
              });
        }
        // an empty ExportTraceServiceResponse: all accepted
        if (encoding === 'json') res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        else res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
        for (const w of this.waiters.splice(0)) w();
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Waits (bounded) until `found` returns what it looks for among the spans received. */
  async waitFor<T>(found: (spans: ReceivedSpan[]) => T | undefined, timeoutMs = 10_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const result = found(this.spans);
      if (result !== undefined) return result;
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `spans not received in ${timeoutMs} ms; have: ${this.spans.map((s) => s.name).join(', ')}` +
            (this.undecodable.length ? `; undecodable requests: ${this.undecodable.join('; ')}` : ''),
        );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 500));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
