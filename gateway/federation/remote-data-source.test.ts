import type { GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { GraphQLDataSourceRequestKind } from '@apollo/gateway/dist/datasources/types';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGatewayContext } from '../context';
import { createLogger } from '../logger';
import { RemoteSubgraphDataSource, sharedMaxAge } from './remote-data-source';
import { subgraphUnavailable } from './subgraph-errors';

/** A subgraph that answers after 50 ms (so requests overlap), recording what it was sent. */
let server: Server;
let url: string;
const seen: { headers: IncomingHttpHeaders; body: string }[] = [];
let status = 200;
/** Extra bytes of padding in every answer. */
let answerPadding = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      seen.push({ headers: req.headers, body });
      setTimeout(() => {
        res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'max-age=30' });
        const pad = answerPadding ? { extensions: { pad: 'x'.repeat(answerPadding) } } : {};
        res.end(JSON.stringify({ data: { n: seen.length }, ...pad }));
      }, 50);
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
});

const log = createLogger('silent');

function call(source: RemoteSubgraphDataSource, query: string, authorization?: string) {
  const context = createGatewayContext('req-1', log, { authorization, address: '10.0.0.1' });
  const options = {
    kind: GraphQLDataSourceRequestKind.INCOMING_OPERATION,
    request: { query, variables: { representations: [{ __typename: 'A', id: '1' }] } },
    incomingRequestContext: { context },
    context,
  } as unknown as GraphQLDataSourceProcessOptions<typeof context>;
  return { context, result: source.process(options) };
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

  test('sharedMaxAge: private, no-store and no-cache share nothing', () => {
    expect(sharedMaxAge('public, max-age=60')).toBe(60);
    expect(sharedMaxAge('private, max-age=60')).toBe(0);
    expect(sharedMaxAge('no-store')).toBe(0);
    expect(sharedMaxAge(undefined)).toBe(0);
  });
});
