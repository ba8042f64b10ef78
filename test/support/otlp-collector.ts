import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An OTLP attribute value as the JSON encoding sends it. */
interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values: AnyValue[] };
}

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: Array<{ key: string; value: AnyValue }>;
  status?: { code?: number; message?: string };
  links?: Array<{ traceId: string; spanId: string }>;
}

interface OtlpBody {
  resourceSpans?: Array<{
    resource?: { attributes?: Array<{ key: string; value: AnyValue }> };
    scopeSpans?: Array<{ spans?: OtlpSpan[] }>;
  }>;
}

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
}

function plain(value: AnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue) return value.arrayValue.values.map(plain);
  return undefined;
}

const attributesOf = (list: Array<{ key: string; value: AnyValue }> = []) =>
  Object.fromEntries(list.map((a) => [a.key, plain(a.value)]));

/**
 * An OTLP/HTTP collector in the test's process (127.0.0.1, ephemeral port): keeps every POST /v1/traces (JSON, as the
 * OTLP HTTP exporter sends it), raw and as spans.
 */
export class OtlpCollector {
  readonly spans: ReceivedSpan[] = [];
  /** Every request body as received (for searching for what must never be sent). */
  readonly raw: string[] = [];
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
        const text = Buffer.concat(chunks).toString('utf8');
        this.raw.push(text);
        this.headers.push(req.headers);
        const body = JSON.parse(text) as OtlpBody;
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
              });
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
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
        throw new Error(`spans not received in ${timeoutMs} ms; have: ${this.spans.map((s) => s.name).join(', ')}`);
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
