import { createHash } from 'node:crypto';
import { request as httpRequest, type IncomingMessage, type ClientRequest } from 'node:http';
import { buildSubgraphSchema } from '@apollo/subgraph';
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper/resolverMap';
import { parse } from 'graphql';
import { meros } from 'meros/node';
import { composeSupergraph } from '../../gateway/graph/federation/compose';
import { subgraphDefinitions } from '../../subgraphs';
import type { Subgraph, SubgraphContext } from '../../subgraphs/subgraph';
import { startSystem, type RunningSystem } from '../support/system';

/**
 * `@defer` over HTTP (multipart/mixed, deferSpec=20220824), read with meros as Apollo Client and GraphiQL read it. A
 * test subgraph extends the market's Quote with a field held back until the test opens a gate (so the initial
 * payload is shown to arrive while a deferred fetch is still waiting) and a field that always fails.
 */

const NOTES_SDL = /* GraphQL */ `
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.7", import: ["@key"])

  type Quote @key(fields: "ticker") {
    ticker: String!
    "Answered once the test opens the gate."
    slowNote: String!
    "Always an error."
    failingNote: String
  }
`;

interface Notes extends Subgraph {
  /** Representations resolved so far (each entity fetch adds its own). */
  references: unknown[];
  /** The signals the slow field's fetches were given. */
  signals: AbortSignal[];
  close(): Promise<void>;
}

let gate: { promise: Promise<void>; open(): void };
function closeGate(): void {
  let open = (): void => {};
  const promise = new Promise<void>((resolve) => (open = resolve));
  gate = { promise, open };
}

function notesSubgraph(): Notes {
  const references: unknown[] = [];
  const signals: AbortSignal[] = [];
  const resolvers = {
    Quote: {
      __resolveReference: (ref: Record<string, unknown>) => {
        references.push(ref);
        return ref;
      },
      slowNote: async (q: { ticker: string }, _args: unknown, ctx: SubgraphContext) => {
        if (ctx.signal) signals.push(ctx.signal);
        await gate.promise;
        return `note on ${q.ticker}`;
      },
      failingNote: () => {
        throw new Error('the note store is down');
      },
    },
  } as GraphQLResolverMap<unknown>;
  return {
    name: 'notes',
    schema: buildSubgraphSchema({ typeDefs: parse(NOTES_SDL), resolvers }),
    references,
    signals,
    createContext: (base) => base,
    health: async () => ({ status: 'ok' }),
    close: async () => undefined,
  };
}

let sys: RunningSystem;
let notes: Notes;

beforeAll(async () => {
  notes = notesSubgraph();
  const ours = await subgraphDefinitions();
  const supergraphSdl = composeSupergraph([
    ...ours,
    { name: notes.name, url: 'http://127.0.0.1:9/graphql', schema: notes.schema },
  ]).supergraphSdl;
  sys = await startSystem(
    { RESPONSE_CACHE: 'false', MARKET_CLOCK: '2026-11-20T18:00:00Z', MAX_ALIASES: '3' },
    { extraSubgraphs: [notes], supergraphSdl },
  );
});

beforeEach(() => {
  closeGate();
  gate.open();
});

afterAll(async () => sys?.close());

const MULTIPART = 'multipart/mixed;deferSpec=20220824,application/json';

interface Sent {
  res: IncomingMessage;
  req: ClientRequest;
}

function post(body: Record<string, unknown>, accept = MULTIPART): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${sys.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept },
    });
    req.on('response', (res) => resolve({ res, req }));
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

async function text(res: IncomingMessage): Promise<string> {
  let out = '';
  for await (const chunk of res) out += String(chunk);
  return out;
}

type Payload = {
  data?: Record<string, unknown> | null;
  errors?: unknown[];
  hasNext?: boolean;
  incremental?: Array<{
    data: Record<string, unknown> | null;
    path: Array<string | number>;
    label?: string;
    errors?: Array<{ message: string; path?: unknown[] }>;
  }>;
};

/** Every payload of a multipart answer, in order. */
async function parts(res: IncomingMessage): Promise<Payload[]> {
  const stream = await meros<Payload>(res);
  if (!('next' in stream)) throw new Error(`not multipart: ${String(res.headers['content-type'])}`);
  const out: Payload[] = [];
  for await (const part of stream) {
    if (!part.json) throw new Error('a part that is not JSON');
    out.push(part.body);
  }
  return out;
}

/** The payloads merged as a client does: each item's data put in at its path. */
function merge(payloads: readonly Payload[]): Record<string, unknown> {
  const [first, ...rest] = payloads;
  const data = structuredClone(first?.data ?? {});
  for (const payload of rest)
    for (const item of payload.incremental ?? []) {
      let target: unknown = data;
      for (const step of item.path) target = (target as Record<string | number, unknown>)[step];
      deepAssign(target as Record<string, unknown>, item.data ?? {});
    }
  return data;
}

function deepAssign(target: Record<string, unknown>, source: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(source)) {
    const current = target[key];
    if (current && typeof current === 'object' && value && typeof value === 'object') {
      if (Array.isArray(current) && Array.isArray(value))
        value.forEach((v, i) => deepAssign(current[i] as Record<string, unknown>, v as Record<string, unknown>));
      else deepAssign(current as Record<string, unknown>, value as Record<string, unknown>);
    } else target[key] = value;
  }
}

async function plain(query: string, variables?: Record<string, unknown>): Promise<unknown> {
  const { res } = await post({ query, variables }, 'application/json');
  expect(res.statusCode).toBe(200);
  return JSON.parse(await text(res)) as unknown;
}

const DEFERRED = `query Q($t: String!) { quote(ticker: $t) { ticker price ... @defer(label: "notes") { slowNote } } }`;
const WHOLE = `query Q($t: String!) { quote(ticker: $t) { ticker price slowNote } }`;

test('the initial payload comes without the deferred fields while their fetch waits; the increment completes it', async () => {
  closeGate();
  const { res } = await post({ query: DEFERRED, variables: { t: 'AAPL:NASDAQ' } });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toBe('multipart/mixed;boundary="-";deferSpec=20220824');
  const stream = await meros<Payload>(res);
  if (!('next' in stream)) throw new Error('not multipart');
  const first = await stream.next();
  // the gate is still closed: the initial payload did not wait for the deferred fetch
  expect(first.value?.body).toEqual({
    data: { quote: { ticker: 'AAPL:NASDAQ', price: expect.any(Number) } },
    hasNext: true,
  });
  gate.open();
  const rest: Payload[] = [];
  for await (const part of stream) rest.push(part.body as Payload);
  expect(rest).toEqual([
    {
      hasNext: false,
      incremental: [{ data: { slowNote: 'note on AAPL:NASDAQ' }, path: ['quote'], label: 'notes' }],
    },
  ]);
  expect(merge([first.value?.body as Payload, ...rest])).toEqual(
    ((await plain(WHOLE, { t: 'AAPL:NASDAQ' })) as { data: unknown }).data,
  );
});

test('a deferred fragment in a list: one item per element at its index, merging to the whole answer', async () => {
  const query = `{ quotes(tickers: ["AAPL:NASDAQ", "MSFT:NASDAQ"]) { ticker ... on Quote @defer { slowNote name } } }`;
  const { res } = await post({ query });
  const payloads = await parts(res);
  expect(payloads[0]).toEqual({
    data: { quotes: [{ ticker: 'AAPL:NASDAQ' }, { ticker: 'MSFT:NASDAQ' }] },
    hasNext: true,
  });
  const items = payloads.slice(1).flatMap((p) => p.incremental ?? []);
  expect(items.map((i) => i.path)).toEqual([
    ['quotes', 0],
    ['quotes', 1],
  ]);
  expect(payloads[payloads.length - 1]?.hasNext).toBe(false);
  const whole = await plain(`{ quotes(tickers: ["AAPL:NASDAQ", "MSFT:NASDAQ"]) { ticker slowNote name } }`);
  expect(merge(payloads)).toEqual((whole as { data: unknown }).data);
});

test('a failing deferred fetch gives its increment errors; the other deferred fragment and the rest still arrive', async () => {
  const query = `{ quote(ticker: "AAPL:NASDAQ") { ticker ... @defer(label: "bad") { failingNote } ... @defer(label: "good") { slowNote } } }`;
  const payloads = await parts((await post({ query })).res);
  expect(payloads[0]).toEqual({ data: { quote: { ticker: 'AAPL:NASDAQ' } }, hasNext: true });
  const items = payloads.slice(1).flatMap((p) => p.incremental ?? []);
  const bad = items.find((i) => i.label === 'bad');
  const good = items.find((i) => i.label === 'good');
  expect(bad?.data).toEqual({ failingNote: null });
  expect(bad?.errors?.[0]?.message).toContain('the note store is down');
  expect(bad?.errors?.[0]?.path).toEqual(['quote', 'failingNote']);
  expect(good).toEqual({ data: { slowNote: 'note on AAPL:NASDAQ' }, path: ['quote'], label: 'good' });
  expect(payloads[payloads.length - 1]?.hasNext).toBe(false);
});

test('a nested deferred fragment comes after its parent', async () => {
  const query = `{ quote(ticker: "AAPL:NASDAQ") { ticker ... @defer(label: "outer") { name ... @defer(label: "inner") { slowNote } } } }`;
  const payloads = await parts((await post({ query })).res);
  const items = payloads.slice(1).flatMap((p) => p.incremental ?? []);
  expect(items.map((i) => [i.label, i.data])).toEqual([
    ['outer', { name: expect.any(String) }],
    ['inner', { slowNote: 'note on AAPL:NASDAQ' }],
  ]);
  expect(merge(payloads)).toEqual({
    quote: { ticker: 'AAPL:NASDAQ', name: expect.any(String), slowNote: 'note on AAPL:NASDAQ' },
  });
});

test('introspection in a fragment deferred at the root is answered in its increment', async () => {
  const query = `{ quote(ticker: "AAPL:NASDAQ") { ticker } ... @defer(label: "meta") { __type(name: "Quote") { name } } }`;
  const payloads = await parts((await post({ query })).res);
  expect(payloads[0]).toEqual({ data: { quote: { ticker: 'AAPL:NASDAQ' } }, hasNext: true });
  expect(payloads.slice(1).flatMap((p) => p.incremental ?? [])).toEqual([
    { data: { __type: { name: 'Quote' } }, path: [], label: 'meta' },
  ]);
});

test('a GET and an APQ hash alone (no text) are deferred too', async () => {
  const url = new URL(`${sys.url}/graphql`);
  url.searchParams.set('query', DEFERRED);
  url.searchParams.set('variables', JSON.stringify({ t: 'AAPL:NASDAQ' }));
  const got = await new Promise<IncomingMessage>((resolve, reject) =>
    httpRequest(url, { headers: { accept: MULTIPART, 'apollo-require-preflight': 'true' } }, resolve)
      .on('error', reject)
      .end(),
  );
  expect(got.headers['content-type']).toBe('multipart/mixed;boundary="-";deferSpec=20220824');
  expect(merge(await parts(got))).toEqual({
    quote: { ticker: 'AAPL:NASDAQ', price: expect.any(Number), slowNote: 'note on AAPL:NASDAQ' },
  });
  const sha256Hash = createHash('sha256').update(DEFERRED).digest('hex');
  const extensions = { persistedQuery: { version: 1, sha256Hash } };
  // registered by a first request carrying the text, then run by its hash alone
  await text((await post({ query: DEFERRED, variables: { t: 'AAPL:NASDAQ' }, extensions }, 'application/json')).res);
  const byHash = await post({ variables: { t: 'AAPL:NASDAQ' }, extensions });
  const payloads = await parts(byHash.res);
  expect(payloads[0]?.hasNext).toBe(true);
  expect(payloads[payloads.length - 1]?.incremental?.[0]?.label).toBe('notes');
});

test('@defer(if: false) inlines the fragment: one ordinary JSON answer', async () => {
  const query = `query Q($d: Boolean!) { quote(ticker: "AAPL:NASDAQ") { ticker ... @defer(if: $d) { slowNote } } }`;
  // a client that takes multipart/mixed alone gets JSON then, not a 406
  const { res } = await post({ query, variables: { d: false } }, 'multipart/mixed');
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(JSON.parse(await text(res))).toEqual({
    data: { quote: { ticker: 'AAPL:NASDAQ', slowNote: 'note on AAPL:NASDAQ' } },
  });
});

test('without multipart/mixed in Accept the answer is the whole result as one JSON response', async () => {
  const body = await plain(DEFERRED, { t: 'AAPL:NASDAQ' });
  expect(body).toEqual(await plain(WHOLE, { t: 'AAPL:NASDAQ' }));
  expect(body).toEqual({
    data: { quote: { ticker: 'AAPL:NASDAQ', price: expect.any(Number), slowNote: expect.any(String) } },
  });
});

test('limits and the cost bound refuse a deferred operation before any fetch, as they do others', async () => {
  const before = notes.references.length;
  const aliases = `{ a: quote(ticker: "A:NYSE") { ticker } b: quote(ticker: "B:NYSE") { ticker } c: quote(ticker: "C:NYSE") { ticker } d: quote(ticker: "AAPL:NASDAQ") { ... @defer { slowNote } } }`;
  const tooMany = await post({ query: aliases });
  expect(tooMany.res.statusCode).toBe(400);
  expect(await text(tooMany.res)).toContain('maxAliases');
  const costly = await post({
    query: `{ quote(ticker: "AAPL:NASDAQ") { ... @defer { slowNote } } zones { zoneFile } }`,
  });
  expect(costly.res.statusCode).toBe(400);
  expect(await text(costly.res)).toContain('maxQueryCost');
  expect(notes.references.length).toBe(before);
});

test('@defer in a mutation is refused with a message saying so', async () => {
  const { res } = await post({
    query: `mutation { login(username: "x", password: "y") { ... @defer { token } } }`,
  });
  expect(res.statusCode).toBe(400);
  expect(await text(res)).toContain('@defer is not supported in a mutation');
});

test('a client that goes away stops the deferred work', async () => {
  closeGate();
  const signals = notes.signals.length;
  const { res, req } = await post({ query: DEFERRED, variables: { t: 'MSFT:NASDAQ' } });
  const stream = await meros<Payload>(res);
  if (!('next' in stream)) throw new Error('not multipart');
  await stream.next();
  // the deferred fetch is waiting at the gate: its signal is there and not aborted yet
  await waitFor(() => notes.signals.length > signals);
  const signal = notes.signals[notes.signals.length - 1] as AbortSignal;
  expect(signal.aborted).toBe(false);
  req.destroy();
  await waitFor(() => signal.aborted);
  gate.open();
});

async function waitFor(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('graphql-js 17 format (incrementalSpec=v0.2), as Apollo Client’s GraphQL17Alpha9Handler asks for it', () => {
  const V02 = 'multipart/mixed;incrementalSpec=v0.2,application/graphql-response+json,application/json;q=0.9';

  type V02Payload = {
    data?: Record<string, unknown> | null;
    pending?: Array<{ id: string; path: Array<string | number>; label?: string }>;
    incremental?: Array<{ id: string; data: Record<string, unknown>; errors?: Array<{ message: string }> }>;
    completed?: Array<{ id: string; errors?: unknown[] }>;
    hasNext: boolean;
  };

  /** Checks what every client relies on: each id announced once before its data, and completed once, by the end. */
  function checkIds(payloads: readonly V02Payload[]): void {
    const announced = new Set<string>();
    const completed = new Set<string>();
    for (const p of payloads) {
      for (const { id } of p.pending ?? []) {
        expect(announced.has(id)).toBe(false);
        announced.add(id);
      }
      for (const { id } of p.incremental ?? []) expect(announced.has(id) && !completed.has(id)).toBe(true);
      for (const { id } of p.completed ?? []) {
        expect(announced.has(id) && !completed.has(id)).toBe(true);
        completed.add(id);
      }
    }
    expect([...completed].sort()).toEqual([...announced].sort());
    expect(payloads[payloads.length - 1]?.hasNext).toBe(false);
  }

  test('pending with the initial result, then the data under its id and the id completed', async () => {
    closeGate();
    const { res } = await post({ query: DEFERRED, variables: { t: 'AAPL:NASDAQ' } }, V02);
    expect(res.headers['content-type']).toBe('multipart/mixed;boundary="-";incrementalSpec=v0.2');
    const stream = await meros<V02Payload>(res);
    if (!('next' in stream)) throw new Error('not multipart');
    const first = (await stream.next()).value?.body as V02Payload;
    expect(first).toEqual({
      data: { quote: { ticker: 'AAPL:NASDAQ', price: expect.any(Number) } },
      pending: [{ id: '0', path: ['quote'], label: 'notes' }],
      hasNext: true,
    });
    gate.open();
    const rest: V02Payload[] = [];
    for await (const part of stream) rest.push(part.body as V02Payload);
    expect(rest).toEqual([
      {
        incremental: [{ id: '0', data: { slowNote: 'note on AAPL:NASDAQ' } }],
        completed: [{ id: '0' }],
        hasNext: false,
      },
    ]);
  });

  test('a fragment in a list is pending once per element; a nested one is announced with its parent’s data', async () => {
    const list = await parts(
      (
        await post(
          { query: `{ quotes(tickers: ["AAPL:NASDAQ", "MSFT:NASDAQ"]) { ticker ... @defer { slowNote } } }` },
          V02,
        )
      ).res,
    );
    const v02 = list as unknown as V02Payload[];
    expect(v02[0]?.pending).toEqual([
      { id: '0', path: ['quotes', 0] },
      { id: '1', path: ['quotes', 1] },
    ]);
    checkIds(v02);
    const nested = (await parts(
      (
        await post(
          {
            query: `{ quote(ticker: "AAPL:NASDAQ") { ticker ... @defer(label: "outer") { name ... @defer(label: "inner") { slowNote } } } }`,
          },
          V02,
        )
      ).res,
    )) as unknown as V02Payload[];
    expect(nested[0]?.pending).toEqual([{ id: '0', path: ['quote'], label: 'outer' }]);
    const announcedInner = nested.findIndex((p) => p.pending?.some((x) => x.label === 'inner'));
    const outerData = nested.findIndex((p) => p.incremental?.some((x) => x.id === '0'));
    expect(announcedInner).toBeGreaterThan(0);
    expect(announcedInner).toBe(outerData); // announced in the payload that brings the object it completes
    checkIds(nested);
  });

  test('a failing field’s errors come with its fragment’s data', async () => {
    const query = `{ quote(ticker: "AAPL:NASDAQ") { ticker ... @defer(label: "bad") { failingNote } } }`;
    const payloads = (await parts((await post({ query }, V02)).res)) as unknown as V02Payload[];
    checkIds(payloads);
    const bad = payloads.flatMap((p) => p.incremental ?? [])[0];
    expect(bad?.data).toEqual({ failingNote: null });
    expect(bad?.errors?.[0]?.message).toContain('the note store is down');
  });
});

describe('Apollo Client 4 reads both formats', () => {
  async function throughApolloClient(
    handler: 'GraphQL17Alpha9Handler' | 'Defer20220824Handler',
  ): Promise<Array<{ data: unknown; dataState: string }>> {
    const { ApolloClient, HttpLink, InMemoryCache, gql } = await import('@apollo/client');
    const incremental = await import('@apollo/client/incremental');
    const client = new ApolloClient({
      cache: new InMemoryCache(),
      link: new HttpLink({ uri: `${sys.url}/graphql` }),
      incrementalHandler: new incremental[handler](),
    });
    closeGate();
    const seen: Array<{ data: unknown; dataState: string }> = [];
    try {
      await new Promise<void>((resolve, reject) => {
        const sub = client
          .watchQuery({ query: gql(DEFERRED), variables: { t: 'AAPL:NASDAQ' }, fetchPolicy: 'no-cache' })
          .subscribe({
            next: (result) => {
              seen.push({ data: result.data, dataState: result.dataState });
              if (result.dataState === 'streaming') gate.open(); // the first part is in: let the deferred fetch go
              if (result.dataState === 'complete') {
                sub.unsubscribe();
                resolve();
              }
            },
            error: reject,
          });
      });
    } finally {
      client.stop();
    }
    return seen.filter((s) => s.dataState !== 'empty');
  }

  test.each(['GraphQL17Alpha9Handler', 'Defer20220824Handler'] as const)('%s', async (handler) => {
    const seen = await throughApolloClient(handler);
    expect(seen[0]).toEqual({
      dataState: 'streaming',
      data: { quote: { __typename: 'Quote', ticker: 'AAPL:NASDAQ', price: expect.any(Number) } },
    });
    expect(seen[seen.length - 1]).toEqual({
      dataState: 'complete',
      data: {
        quote: {
          __typename: 'Quote',
          ticker: 'AAPL:NASDAQ',
          price: expect.any(Number),
          slowNote: 'note on AAPL:NASDAQ',
        },
      },
    });
  });
});
