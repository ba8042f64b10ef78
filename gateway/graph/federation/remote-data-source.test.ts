import type { GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { GraphQLDataSourceRequestKind } from '@apollo/gateway/dist/datasources/types';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGatewayContext } from '../context';
import { createLogger } from '../../../platform/log';
import { stopOf } from '../request-signal';
import { withStop } from './fetch-signal';
import { RemoteSubgraphDataSource, sharedMaxAge } from './remote-data-source';
import { subgraphUnavailable } from './subgraph-errors';

/** A subgraph that answers after 50 ms (so requests overlap), recording what it was sent. */
let server: Server;
let url: string;
const seen: { headers: IncomingHttpHeaders; body: string }[] = [];
let status = 200;
/** Extra bytes of padding in every answer. */
let answerPadding = 0;
/** When set, answers wait for `releaseHeld()`; requests whose client left before are counted in `abandoned`. */
let hold = false;
let held: Array<() => void> = [];
let abandoned = 0;
const releaseHeld = () => {
  for (const answer of held.splice(0)) answer();
};

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      seen.push({ headers: req.headers, body });
      const answer = () => {
        if (res.destroyed) return;
        res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'max-age=30' });
        const pad = answerPadding ? { extensions: { pad: 'x'.repeat(answerPadding) } } : {};
        res.end(JSON.stringify({ data: { n: seen.length }, ...pad }));
      };
      res.once('close', () => {
        if (!res.writableFinished) abandoned++;
      });
      if (hold) held.push(answer);
      else setTimeout(answer, 50);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

beforeEach(() => {
  seen.length = 0;
  status = 200;
  answerPadding = 0;
  hold = false;
  held = [];
  abandoned = 0;
});

/** Resolves once `condition` holds (checked on each turn of the event loop). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}

const log = createLogger('silent');

function call(source: RemoteSubgraphDataSource, query: string, authorization?: string, signal?: AbortSignal) {
  const context = createGatewayContext('req-1', log, { authorization, address: '10.0.0.1' });
  const options = {
    kind: GraphQLDataSourceRequestKind.INCOMING_OPERATION,
    request: { query, variables: { representations: [{ __typename: 'A', id: '1' }] } },
    incomingRequestContext: { context },
    context,
  } as unknown as GraphQLDataSourceProcessOptions<typeof context>;
  return { context, result: source.process(signal ? withStop(options, stopOf(signal)) : options) };
}

describe('RemoteSubgraphDataSource', () => {
  test('passes the caller on: request id, address, Authorization; Cache-Control bounds the response cache', async () => {
    const source = new RemoteSubgraphDataSource(url);
    const { context, result } = call(source, '{ a }', 'Bearer t1');
    expect(await result).toEqual({ data: { n: 1 } });
    expect(seen[0]?.headers).toMatchObject({
      'x-request-id': 'req-1',
      'x-forwarded-for': '10.0.0.1',
      authorization: 'Bearer t1',
    });
    expect(JSON.parse(seen[0]?.body ?? '')).toMatchObject({ query: '{ a }' });
    expect(context.cachePolicy.maxAge).toBe(30);
    await source.close();
  });

  test('identical queries of one caller in flight together make one fetch; each gets its own parsed answer', async () => {
    const source = new RemoteSubgraphDataSource(url);
    const calls = [
      call(source, '{ a }', 'Bearer t1'),
      call(source, '{ a }', 'Bearer t1'),
      call(source, '{ a }', 'Bearer t1'),
    ];
    const results = await Promise.all(calls.map((c) => c.result));
    expect(seen).toHaveLength(1);
    expect(results).toEqual([{ data: { n: 1 } }, { data: { n: 1 } }, { data: { n: 1 } }]);
    expect(results[0]).not.toBe(results[1]); // execution merges into what it parses: never one object for two
    for (const c of calls) expect(c.context.cachePolicy.maxAge).toBe(30);
    await source.close();
  });

  test('other callers, mutations, other bodies and later requests each make their own fetch', async () => {
    const source = new RemoteSubgraphDataSource(url);
    await Promise.all([
      call(source, '{ a }', 'Bearer t1').result,
      call(source, '{ a }', 'Bearer t2').result, // another caller
      call(source, '{ a }').result, // anonymous
      call(source, '{ b }', 'Bearer t1').result, // another operation
      call(source, 'mutation { m }', 'Bearer t1').result,
      call(source, 'mutation { m }', 'Bearer t1').result, // a mutation is never shared
    ]);
    expect(seen).toHaveLength(6);
    await call(source, '{ a }', 'Bearer t1').result; // the first is over: a new fetch
    expect(seen).toHaveLength(7);
    await source.close();
  });

  test('a failed shared fetch fails every request that waited for it, and is not kept', async () => {
    const source = new RemoteSubgraphDataSource(url);
    status = 502;
    const results = await Promise.allSettled([call(source, '{ a }').result, call(source, '{ a }').result]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(String((results[0] as PromiseRejectedResult).reason)).toContain('502: Bad Gateway');
    expect(seen).toHaveLength(1);
    status = 200;
    expect(await call(source, '{ a }').result).toEqual({ data: { n: 2 } });
    await source.close();
  });

  test('an answer larger than SUBGRAPH_MAX_RESPONSE_BYTES fails the fetch, naming the bound', async () => {
    const small = new RemoteSubgraphDataSource(url, 1_024);
    answerPadding = 900; // ~950 bytes in all: within
    await expect(call(small, '{ a }').result).resolves.toMatchObject({ data: { n: 1 } });
    answerPadding = 2_000;
    const err: unknown = await call(small, '{ a }').result.catch((e: unknown) => e);
    // as the client sees it (the timed source reports a failed fetch so)
    expect(subgraphUnavailable('reviews', err).message).toBe(
      'subgraph reviews is unavailable: its answer is larger than 1024 bytes (SUBGRAPH_MAX_RESPONSE_BYTES)',
    );
    await small.close();
  });

  test('a shared query is abandoned (its connection closed) once every caller waiting for it has stopped', async () => {
    const source = new RemoteSubgraphDataSource(url);
    hold = true;
    const callers = [new AbortController(), new AbortController(), new AbortController()];
    const calls = callers.map((c) => call(source, '{ a }', 'Bearer t1', c.signal).result.catch((e: unknown) => e));
    await until(() => seen.length === 1);
    callers[0]?.abort(new Error('gone 0'));
    callers[1]?.abort(new Error('gone 1'));
    expect(await calls[0]).toMatchObject({ message: 'gone 0' });
    expect(await calls[1]).toMatchObject({ message: 'gone 1' });
    releaseHeld(); // one still waits: the fetch went on
    expect(await calls[2]).toEqual({ data: { n: 1 } });
    expect(abandoned).toBe(0);

    const last = [new AbortController(), new AbortController()];
    const more = last.map((c) => call(source, '{ a }', 'Bearer t1', c.signal).result.catch((e: unknown) => e));
    await until(() => seen.length === 2);
    for (const c of last) c.abort(new Error('gone'));
    await Promise.all(more);
    await until(() => abandoned === 1); // the subgraph saw the connection closed before its answer
    await source.close();
  });

  test('a mutation is never abandoned: its answer is awaited whoever stopped waiting', async () => {
    const source = new RemoteSubgraphDataSource(url);
    hold = true;
    const caller = new AbortController();
    caller.abort(new Error('gone'));
    const result = call(source, 'mutation { m }', 'Bearer t1', caller.signal).result;
    await until(() => seen.length === 1);
    releaseHeld();
    expect(await result).toEqual({ data: { n: 1 } });
    expect(abandoned).toBe(0);
    await source.close();
  });

  test('sharedMaxAge: private, no-store and no-cache share nothing', () => {
    expect(sharedMaxAge('public, max-age=60')).toBe(60);
    expect(sharedMaxAge('private, max-age=60')).toBe(0);
    expect(sharedMaxAge('no-store')).toBe(0);
    expect(sharedMaxAge(undefined)).toBe(0);
  });
});
