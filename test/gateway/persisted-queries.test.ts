import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, login } from '../dns-api/api';
import { startTestRedis, type TestRedis } from '../support/redis-server';
import { dataFrames, parseFrames } from '../support/sse';
import type { RedisQueryStore } from '../../gateway/graph';
import { StaticProvider } from '../support/static-provider';
import { getJson, startSystem, TEST_ADMIN_PASSWORD, type RunningSystem } from '../support/system';

/**
 * Automatic persisted queries (Apollo's `extensions.persistedQuery` protocol, a bounded store) and trusted documents
 * (PERSISTED_DOCUMENTS, enforced with PERSISTED_DOCUMENTS_ONLY), over the real HTTP server: /graphql (POST and GET),
 * /graphql/stream, and the REST interfaces, whose fixed operations never go through the manifest.
 */

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const QUOTE = '{ quote(ticker: "AAPL:NASDAQ") { ticker price } }';
const AAPL = { quote: { ticker: 'AAPL:NASDAQ', price: 190.5 } };
const pq = (hash: string) => ({ persistedQuery: { version: 1, sha256Hash: hash } });

interface Answer {
  status: number;
  headers: Headers;
  body: { data?: unknown; errors?: Array<{ message: string; extensions?: Record<string, unknown> }> };
}

async function answer(res: Response): Promise<Answer> {
  return { status: res.status, headers: res.headers, body: (await res.json()) as Answer['body'] };
}

async function post(url: string, body: Record<string, unknown>, path = '/graphql'): Promise<Answer> {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return answer(res);
}

/** A GET as Apollo Client sends hashed queries: parameters in the URL, extensions as JSON. */
async function get(url: string, params: Record<string, unknown>): Promise<Answer> {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) search.set(k, typeof v === 'string' ? v : JSON.stringify(v));
  // a JSON content type, as Apollo Client sends: Apollo Server's CSRF prevention refuses "simple" GETs
  const res = await fetch(`${url}/graphql?${search.toString()}`, {
    headers: { 'content-type': 'application/json', accept: 'application/json' },
  });
  return answer(res);
}

/** One operation over /graphql/stream (graphql-sse, distinct connections): its result, or the refusal's JSON. */
async function stream(url: string, body: Record<string, unknown>): Promise<Answer> {
  const res = await fetch(`${url}/graphql/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(body),
  });
  if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) return answer(res);
  const { frames } = parseFrames(await res.text()); // the server ends the stream after `complete`
  const next = dataFrames(frames).find((f) => f.event === 'next');
  return { status: res.status, headers: res.headers, body: JSON.parse(next?.data ?? '{}') as Answer['body'] };
}

const notFound = {
  errors: [{ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }],
};

describe('automatic persisted queries (default settings)', () => {
  let sys: RunningSystem;
  beforeAll(async () => {
    sys = await startSystem({}, { marketProvider: new StaticProvider() });
  });
  afterAll(() => sys.close());

  test('an unknown hash is PersistedQueryNotFound; the text with its hash registers it; the hash alone then runs it (POST and GET)', async () => {
    const query = `query Apq ${QUOTE}`;
    const hash = sha256(query);
    const first = await post(sys.url, { extensions: pq(hash) });
    expect(first.status).toBe(200); // as Apollo Server answers it: the client reads the error and sends the text
    expect(first.body).toMatchObject(notFound);
    expect(first.headers.get('cache-control')).toBe('private, no-cache, must-revalidate');

    const registered = await post(sys.url, { query, extensions: pq(hash) });
    expect(registered.body).toEqual({ data: AAPL });

    expect((await post(sys.url, { extensions: pq(hash) })).body).toEqual({ data: AAPL });
    const byGet = await get(sys.url, { extensions: pq(hash) });
    expect(byGet.status).toBe(200);
    expect(byGet.body).toEqual({ data: AAPL });
  });

  test('a GET hash registers and hits too (Apollo Client sends hashed queries by GET)', async () => {
    const query = `query ApqGet ${QUOTE}`;
    const hash = sha256(query);
    expect((await get(sys.url, { extensions: pq(hash) })).body).toMatchObject(notFound);
    expect((await get(sys.url, { query, extensions: pq(hash) })).body).toEqual({ data: AAPL });
    expect((await get(sys.url, { extensions: pq(hash) })).body).toEqual({ data: AAPL });
  });

  test('a hash that is not the text’s is refused, and nothing is registered under it', async () => {
    const query = `query Mismatch ${QUOTE}`;
    const wrong = sha256('something else');
    const res = await post(sys.url, { query, extensions: pq(wrong) });
    expect(res.status).toBe(400);
    expect(res.body.errors?.[0]).toMatchObject({
      message: 'provided sha does not match query',
      extensions: { code: 'BAD_REQUEST' },
    });
    expect((await post(sys.url, { extensions: pq(wrong) })).body).toMatchObject(notFound);
  });

  test('an unsupported protocol version is refused', async () => {
    const res = await post(sys.url, { extensions: { persistedQuery: { version: 2, sha256Hash: sha256(QUOTE) } } });
    expect(res.status).toBe(400);
    expect(res.body.errors?.[0]?.message).toBe('Unsupported persisted query version');
  });

  test('a document that fails validation is not registered', async () => {
    const query = '{ quote(ticker: "AAPL:NASDAQ") { noSuchField } }';
    const hash = sha256(query);
    expect((await post(sys.url, { query, extensions: pq(hash) })).status).toBe(400);
    expect((await post(sys.url, { extensions: pq(hash) })).body).toMatchObject(notFound);
  });

  test('/graphql/stream shares the store: registered on /graphql, run by hash on the stream, and the other way', async () => {
    const query = `query OverStream ${QUOTE}`;
    const hash = sha256(query);
    expect((await stream(sys.url, { extensions: pq(hash) })).body).toMatchObject(notFound);
    await post(sys.url, { query, extensions: pq(hash) });
    expect((await stream(sys.url, { extensions: pq(hash) })).body).toEqual({ data: AAPL });

    const other = `query FromStream ${QUOTE}`;
    const otherHash = sha256(other);
    expect((await stream(sys.url, { query: other, extensions: pq(otherHash) })).body).toEqual({ data: AAPL });
    expect((await post(sys.url, { extensions: pq(otherHash) })).body).toEqual({ data: AAPL });

    const mismatch = await stream(sys.url, { query: other, extensions: pq(hash) });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.errors?.[0]).toMatchObject({
      message: 'provided sha does not match query',
      extensions: { code: 'BAD_REQUEST' },
    });
  });

  test('documentId without a manifest is refused, naming the setting', async () => {
    const res = await post(sys.url, { documentId: sha256(QUOTE) });
    expect(res.status).toBe(400);
    expect(res.body.errors?.[0]).toEqual({
      message: 'documentId names a trusted document, and this gateway has no manifest of them (PERSISTED_DOCUMENTS)',
      extensions: { code: 'PERSISTED_QUERY_NOT_SUPPORTED' },
    });
  });
});

describe('the store is bounded', () => {
  let sys: RunningSystem;
  beforeAll(async () => {
    sys = await startSystem(
      { PERSISTED_QUERIES_ENTRIES: '2', PERSISTED_QUERIES_BYTES: '1024' },
      { marketProvider: new StaticProvider() },
    );
  });
  afterAll(() => sys.close());

  const register = async (query: string) =>
    expect((await post(sys.url, { query, extensions: pq(sha256(query)) })).body).toEqual({ data: AAPL });
  const held = async (query: string) => (await post(sys.url, { extensions: pq(sha256(query)) })).body;

  test('by entries: the least recently used goes first', async () => {
    const [a, b, c] = ['A', 'B', 'C'].map((name) => `query ${name} ${QUOTE}`) as [string, string, string];
    await register(a);
    await register(b);
    expect(await held(a)).toEqual({ data: AAPL }); // a is now the most recently used
    await register(c);
    expect(await held(b)).toMatchObject(notFound);
    expect(await held(a)).toEqual({ data: AAPL });
    expect(await held(c)).toEqual({ data: AAPL });
    expect(sys.system.graph.persisted.options.store?.stats().entries).toBe(2);
  });

  test('by bytes: a document over the whole bound runs but is not kept', async () => {
    const big = `# ${'x'.repeat(1_100)}\nquery Big ${QUOTE}`;
    await register(big);
    expect(await held(big)).toMatchObject(notFound);
    expect(sys.system.graph.persisted.options.store?.stats().bytes).toBeLessThanOrEqual(1024);
  });
});

describe('with REDIS_URL, replicas share the store', () => {
  let redis: TestRedis;
  let a: RunningSystem;
  let b: RunningSystem;
  beforeAll(async () => {
    redis = await startTestRedis();
    await redis.start();
    const env = { REDIS_URL: redis.url, REDIS_PREFIX: 'pq-test' };
    a = await startSystem(env, { marketProvider: new StaticProvider() });
    b = await startSystem(env, { marketProvider: new StaticProvider() });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await redis?.kill();
  });

  test('a document registered with one replica runs by hash on the other, kept under REDIS_PREFIX with a TTL', async () => {
    const query = `query Shared ${QUOTE}`;
    const hash = sha256(query);
    expect((await post(b.url, { extensions: pq(hash) })).body).toMatchObject(notFound);
    expect((await post(a.url, { query, extensions: pq(hash) })).body).toEqual({ data: AAPL });
    // Apollo Server stores without waiting for the write: poll the other replica until it is there
    let hit = await post(b.url, { extensions: pq(hash) });
    for (const until = Date.now() + 5_000; hit.body.data === undefined && Date.now() < until;) {
      await new Promise((r) => setTimeout(r, 20));
      hit = await post(b.url, { extensions: pq(hash) });
    }
    expect(hit.body).toEqual({ data: AAPL });
    const { link } = b.system.graph.persisted.options.store?.shared as RedisQueryStore;
    expect(await link.client.get(`pq-test:apq:${hash}`)).toBe(query);
    const ttl = await link.client.ttl(`pq-test:apq:${hash}`);
    expect(ttl).toBeGreaterThan(86_000);
    expect(ttl).toBeLessThanOrEqual(86_400);
  });

  test('Redis away: registering and running by hash go on in each replica, without an error', async () => {
    await redis.kill();
    const query = `query WhileAway ${QUOTE}`;
    const hash = sha256(query);
    expect((await post(a.url, { query, extensions: pq(hash) })).body).toEqual({ data: AAPL });
    expect((await post(a.url, { extensions: pq(hash) })).body).toEqual({ data: AAPL });
    expect((await post(b.url, { extensions: pq(hash) })).body).toMatchObject(notFound);
  });
});

test('PERSISTED_QUERIES=off: a hash alone is PersistedQueryNotSupported; a text sent with its hash still runs', async () => {
  const sys = await startSystem({ PERSISTED_QUERIES: 'off' }, { marketProvider: new StaticProvider() });
  try {
    const hash = sha256(QUOTE);
    const res = await post(sys.url, { extensions: pq(hash) });
    expect(res.body).toMatchObject({
      errors: [{ message: 'PersistedQueryNotSupported', extensions: { code: 'PERSISTED_QUERY_NOT_SUPPORTED' } }],
    });
    expect((await stream(sys.url, { extensions: pq(hash) })).body.errors?.[0]?.extensions?.code).toBe(
      'PERSISTED_QUERY_NOT_SUPPORTED',
    );
    expect((await stream(sys.url, { query: QUOTE, extensions: pq(hash) })).body).toEqual({ data: AAPL });
    expect(sys.system.graph.persisted.options.store).toBeUndefined();
  } finally {
    await sys.close();
  }
});

/** Documents of the manifests below. */
const TRUSTED = `query Trusted ${QUOTE}`;
const TRUSTED_GET = 'query TrustedTicker { quote(ticker: "BTC-USD") { ticker } }';

describe('trusted documents: Apollo manifest, not enforced', () => {
  let sys: RunningSystem;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pq-manifest-'));
    const file = join(dir, 'manifest.json');
    writeFileSync(
      file,
      JSON.stringify({
        format: 'apollo-persisted-query-manifest',
        version: 1,
        operations: [
          { id: sha256(TRUSTED), body: TRUSTED, name: 'Trusted', type: 'query' },
          { id: 'ticker-1', body: TRUSTED_GET, name: 'TrustedTicker', type: 'query' },
        ],
      }),
    );
    sys = await startSystem({ PERSISTED_DOCUMENTS: file }, { marketProvider: new StaticProvider() });
  });
  afterAll(async () => {
    await sys.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('by documentId (POST and GET), by its APQ hash with nothing registered, and over the stream', async () => {
    expect((await post(sys.url, { documentId: sha256(TRUSTED) })).body).toEqual({ data: AAPL });
    expect((await post(sys.url, { documentId: `sha256:${sha256(TRUSTED)}` })).body).toEqual({ data: AAPL });
    expect((await get(sys.url, { documentId: 'ticker-1' })).body).toEqual({ data: { quote: { ticker: 'BTC-USD' } } });
    // the hash of a manifest document runs at once: no PersistedQueryNotFound round trip
    expect((await post(sys.url, { extensions: pq(sha256(TRUSTED)) })).body).toEqual({ data: AAPL });
    expect((await get(sys.url, { extensions: pq(sha256(TRUSTED_GET)) })).body).toEqual({
      data: { quote: { ticker: 'BTC-USD' } },
    });
    expect((await stream(sys.url, { documentId: 'ticker-1' })).body).toEqual({
      data: { quote: { ticker: 'BTC-USD' } },
    });
  });

  test('an unknown documentId is refused; ad-hoc queries and APQ still run', async () => {
    const unknown = await post(sys.url, { documentId: 'no-such-id' });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({
      errors: [
        {
          message: 'no trusted document has the id no-such-id',
          extensions: { code: 'PERSISTED_QUERY_NOT_IN_LIST' },
        },
      ],
    });
    expect((await post(sys.url, { documentId: 'ticker-1', query: QUOTE })).status).toBe(400);
    expect((await post(sys.url, { query: QUOTE })).body).toEqual({ data: AAPL });
    const adHoc = `query AdHoc ${QUOTE}`;
    expect((await post(sys.url, { extensions: pq(sha256(adHoc)) })).body).toMatchObject(notFound);
  });
});

describe('trusted documents only (PERSISTED_DOCUMENTS_ONLY), from a plain id → document map', () => {
  let sys: RunningSystem;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pq-only-'));
    const file = join(dir, 'documents.json');
    writeFileSync(file, JSON.stringify({ trusted: TRUSTED, [sha256(TRUSTED_GET)]: TRUSTED_GET }));
    sys = await startSystem(
      { PERSISTED_DOCUMENTS: file, PERSISTED_DOCUMENTS_ONLY: 'true' },
      { marketProvider: new StaticProvider() },
    );
  });
  afterAll(async () => {
    await sys.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const refusedText = {
    errors: [
      {
        message:
          'only trusted documents run here (PERSISTED_DOCUMENTS_ONLY): send the documentId of one from the manifest',
        extensions: { code: 'QUERY_NOT_IN_SAFELIST' },
      },
    ],
  };

  test('the manifest’s documents run: by id, by hash, and as their exact text', async () => {
    expect((await post(sys.url, { documentId: 'trusted' })).body).toEqual({ data: AAPL });
    expect((await post(sys.url, { extensions: pq(sha256(TRUSTED)) })).body).toEqual({ data: AAPL });
    expect((await get(sys.url, { documentId: sha256(TRUSTED_GET) })).body).toEqual({
      data: { quote: { ticker: 'BTC-USD' } },
    });
    expect((await post(sys.url, { query: TRUSTED })).body).toEqual({ data: AAPL });
    expect((await stream(sys.url, { documentId: 'trusted' })).body).toEqual({ data: AAPL });
  });

  test('anything else is refused with 403 before it runs: POST, GET, APQ registration, the stream', async () => {
    const adHoc = await post(sys.url, { query: QUOTE });
    expect(adHoc.status).toBe(403);
    expect(adHoc.body).toEqual(refusedText);
    const byGet = await get(sys.url, { query: QUOTE });
    expect(byGet.status).toBe(403);
    expect(byGet.body).toEqual(refusedText);
    const registering = await post(sys.url, { query: QUOTE, extensions: pq(sha256(QUOTE)) });
    expect(registering.status).toBe(403);
    const overStream = await stream(sys.url, { query: QUOTE });
    expect(overStream.status).toBe(403);
    expect(overStream.body).toEqual(refusedText);
  });

  test('a hash or id outside the manifest is refused as not in the list (no PersistedQueryNotFound to retry on)', async () => {
    const hash = sha256(QUOTE);
    const res = await post(sys.url, { extensions: pq(hash) });
    expect(res.status).toBe(400);
    expect(res.body.errors?.[0]).toEqual({
      message: `no trusted document has the hash ${hash}`,
      extensions: { code: 'PERSISTED_QUERY_NOT_IN_LIST' },
    });
    expect((await get(sys.url, { documentId: 'other' })).body.errors?.[0]?.extensions?.code).toBe(
      'PERSISTED_QUERY_NOT_IN_LIST',
    );
  });

  test('the REST interfaces’ fixed operations still run: market REST, DNS API login and reads, DNS tool', async () => {
    const quote = await getJson(`${sys.url}/v1/quote/AAPL:NASDAQ`);
    expect(quote.status).toBe(200);
    expect(quote.body).toMatchObject({ ticker: 'AAPL:NASDAQ' });
    const token = await login(`${sys.url}/api/v1`, 'admin', TEST_ADMIN_PASSWORD);
    const zones = await call(`${sys.url}/api/v1`, 'GET', '/zones', { token });
    expect(zones.status).toBe(200);
  });
});

describe('a manifest that cannot be used stops the start, naming the setting and the problem', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'pq-bad-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const cases: Array<[what: string, content: string | undefined, message: RegExp]> = [
    ['a missing file', undefined, /cannot read .*missing\.json: ENOENT/],
    ['not JSON', '{ "a": ', /is not JSON/],
    ['a list', '[]', /must be a JSON object/],
    ['another format', '{"format":"relay","version":1,"operations":[]}', /has format "relay"/],
    [
      'another version',
      '{"format":"apollo-persisted-query-manifest","version":2,"operations":[]}',
      /has version 2 of apollo-persisted-query-manifest; the one known is 1/,
    ],
    [
      'an operation without a body',
      '{"format":"apollo-persisted-query-manifest","version":1,"operations":[{"id":"x"}]}',
      /operations\[0\] must have a non-empty string "id" and a string "body"/,
    ],
    ['a document that is not GraphQL', '{"q1": "query {"}', /id "q1": the document is not GraphQL: Syntax Error/],
    ['a document that is not a string', '{"q1": 7}', /the document of id "q1" is not a string/],
    ['no operations', '{}', /holds no operations/],
  ];

  test.each(cases)('%s', async (_what, content, message) => {
    const file = join(dir, content === undefined ? 'missing.json' : `${_what.replace(/\W+/g, '-')}.json`);
    if (content !== undefined) writeFileSync(file, content);
    const dataDir = mkdtempSync(join(dir, 'data-'));
    const start = startSystem({ PERSISTED_DOCUMENTS: file, DATA_DIR: dataDir });
    await expect(start).rejects.toThrow(/^PERSISTED_DOCUMENTS \(persistedDocuments\): /);
    await expect(start).rejects.toThrow(message);
  });

  test('PERSISTED_DOCUMENTS_ONLY without PERSISTED_DOCUMENTS is a bad setting', async () => {
    await expect(startSystem({ PERSISTED_DOCUMENTS_ONLY: 'true' })).rejects.toThrow(
      /PERSISTED_DOCUMENTS_ONLY \(persistedDocumentsOnly\): needs PERSISTED_DOCUMENTS/,
    );
  });
});
