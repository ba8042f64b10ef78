import { execute, type GraphQLSchema, parse, validate } from 'graphql';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { buildGwbenchSubgraphs } from './gwbench-schema';
import { isWorkloadName, workloadSubgraphs } from './gwbench-workloads';

/**
 * The gwbench subgraph server: a workload's subgraphs on one port (POST /<subgraph name>: for the benchmark's own
 * workload /accounts, /inventory, /products, /reviews; GWBENCH_WORKLOAD picks the workload, see gwbench-workloads.ts),
 * built to never be the bottleneck. A bare node:http server with keep-alive; the response bytes are
 * memoised per distinct request body (the gateways send the same few subgraph operations again and again) in an LRU
 * bounded in entries, and graphql-js runs only on a miss.
 *   GET /health  readiness probe
 *   GET /stats   {cpuMicros, requests, authorized, hits, misses, entries} (cpuMicros: process.cpuUsage(), user +
 *                system; requests: subgraph requests so far; authorized: those that carried an Authorization header,
 *                which tells whether a gateway passed its callers' header on)
 *   GET /verify  re-executes every memoised body afresh and compares the bytes: {checked, mismatches}
 */

const MAX_ENTRIES = Number(process.env.GWBENCH_MEMO_ENTRIES ?? 1_000);
const MAX_BODY_BYTES = 1 << 20; // larger request bodies are executed but not memoised

interface GraphQLRequestBody {
  query?: unknown;
  variables?: unknown;
  operationName?: unknown;
}

/** A fresh execution with graphql-js: the response body of `body` (a GraphQL-over-HTTP JSON request). */
async function run(schema: GraphQLSchema, body: string): Promise<{ status: number; bytes: Buffer }> {
  let request: GraphQLRequestBody;
  try {
    request = JSON.parse(body) as GraphQLRequestBody;
  } catch {
    return { status: 400, bytes: Buffer.from('{"errors":[{"message":"body is not JSON"}]}') };
  }
  if (typeof request.query !== 'string')
    return { status: 400, bytes: Buffer.from('{"errors":[{"message":"no query"}]}') };
  let document;
  try {
    document = parse(request.query);
  } catch (err) {
    return { status: 400, bytes: Buffer.from(JSON.stringify({ errors: [{ message: String(err) }] })) };
  }
  const errors = validate(schema, document);
  if (errors.length > 0) return { status: 400, bytes: Buffer.from(JSON.stringify({ errors })) };
  const result = await execute({
    schema,
    document,
    variableValues: (request.variables ?? undefined) as Record<string, unknown> | undefined,
    operationName: typeof request.operationName === 'string' ? request.operationName : undefined,
  });
  return { status: 200, bytes: Buffer.from(JSON.stringify(result)) };
}

function send(res: ServerResponse, status: number, bytes: Buffer | string): void {
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(bytes),
  });
  res.end(bytes);
}

/**
 * The subgraph server (not listening yet), over `schemas` by subgraph name (by default the benchmark's four subgraphs
 * over freshly generated data).
 */
export function createGwbenchSubgraphServer(
  schemas: ReadonlyMap<string, GraphQLSchema> = buildGwbenchSubgraphs(),
): Server {
  const paths = new Map([...schemas.keys()].map((n) => [`/${n}`, n]));
  const memo = new Map<string, Buffer>(); // key: `${subgraph}\n${request body}`; Map order = recency (oldest first)
  const stats = { requests: 0, authorized: 0, hits: 0, misses: 0 };

  async function answer(name: string, body: string): Promise<{ status: number; bytes: Buffer }> {
    const key = `${name}\n${body}`;
    const hit = memo.get(key);
    if (hit) {
      stats.hits++;
      memo.delete(key); // most recently used goes last
      memo.set(key, hit);
      return { status: 200, bytes: hit };
    }
    stats.misses++;
    const fresh = await run(schemas.get(name) as GraphQLSchema, body);
    if (fresh.status === 200 && body.length <= MAX_BODY_BYTES) {
      memo.set(key, fresh.bytes);
      if (memo.size > MAX_ENTRIES) memo.delete(memo.keys().next().value as string);
    }
    return fresh;
  }

  async function verify(): Promise<{ checked: number; mismatches: number }> {
    let mismatches = 0;
    for (const [key, bytes] of memo) {
      const cut = key.indexOf('\n');
      const fresh = await run(schemas.get(key.slice(0, cut)) as GraphQLSchema, key.slice(cut + 1));
      if (!fresh.bytes.equals(bytes)) mismatches++;
    }
    return { checked: memo.size, mismatches };
  }

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const name = paths.get(req.url ?? '');
    if (name && req.method === 'POST') {
      stats.requests++;
      if (req.headers.authorization !== undefined) stats.authorized++;
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = chunks.length === 1 ? (chunks[0] as Buffer).toString() : Buffer.concat(chunks).toString();
        answer(name, body).then(
          (r) => send(res, r.status, r.bytes),
          (err: unknown) => send(res, 500, JSON.stringify({ errors: [{ message: String(err) }] })),
        );
      });
      return;
    }
    req.resume();
    if (req.url === '/health') return send(res, 200, '"ok"');
    if (req.url === '/stats') {
      const cpu = process.cpuUsage();
      return send(res, 200, JSON.stringify({ cpuMicros: cpu.user + cpu.system, ...stats, entries: memo.size }));
    }
    if (req.url === '/verify') {
      verify().then(
        (v) => send(res, 200, JSON.stringify(v)),
        (err: unknown) => send(res, 500, JSON.stringify({ error: String(err) })),
      );
      return;
    }
    send(res, 404, '{"errors":[{"message":"not found"}]}');
  }

  const server = createServer({ keepAlive: true }, handle);
  server.keepAliveTimeout = 65_000; // the gateways keep their connections open between requests
  server.headersTimeout = 66_000;
  return server;
}

if (require.main === module) {
  const workload = process.env.GWBENCH_WORKLOAD ?? 'gwbench';
  if (!isWorkloadName(workload)) throw new Error(`GWBENCH_WORKLOAD: no workload ${workload}`);
  createGwbenchSubgraphServer(workloadSubgraphs(workload)).listen(Number(process.env.PORT ?? 4200), '127.0.0.1');
  process.on('SIGTERM', () => process.exit(0));
}
