import type { GraphQLDataSource, GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { GraphQLDataSourceRequestKind } from '@apollo/gateway/dist/datasources/types';
import type { GatewayGraphQLResponse } from '@apollo/server-gateway-interface';
import { buildSchema, parse } from 'graphql';
import { createLogger } from '../../platform/log';
import { createGatewayContext, type GatewayContext } from './context';
import { TimedDataSource } from './federation/timed-data-source';
import { longRunningFields, LongRunningOperations } from './long-running';

/** A supergraph as composition leaves it: the spec linked, `@longRunning` imported under its own name. */
const SDL = `
  schema @link(url: "https://specs.apollo.dev/link/v1.0") @link(url: "https://onegraph.example/timing/v0.1", import: ["@longRunning"]) { query: Query mutation: Mutation }
  directive @link(url: String, as: String, for: String, import: [String]) repeatable on SCHEMA
  directive @longRunning on FIELD_DEFINITION
  type Query { zone(name: String!): Zone  report: String @longRunning }
  type Mutation { importZone(file: String!): Zone @longRunning  createRecord(value: String!): Int  createZone: Zone }
  type Zone { name: String!  importZone: Int }
`;
const schema = buildSchema(SDL);
const operations = new LongRunningOperations(longRunningFields(SDL), schema);

describe('the fields marked @longRunning are read from the SDL', () => {
  test('under the imported name', () => {
    expect([...longRunningFields(SDL)].sort()).toEqual(['Mutation.importZone', 'Query.report']);
  });

  test('under a renamed import, the spec’s prefix or its `as`, in any version of the spec; not another spec’s', () => {
    const fields = longRunningFields(`
      extend schema @link(url: "https://onegraph.example/timing/v0.1", import: [{ name: "@longRunning", as: "@slow" }])
      extend schema @link(url: "https://onegraph.example/timing/v1.2", as: "t")
      extend schema @link(url: "https://example.com/other/v0.1", import: ["@longRunning"])
      type Mutation { a: Int @slow  b: Int @t__longRunning  c: Int @timing__longRunning  d: Int @other__longRunning }`);
    expect([...fields].sort()).toEqual(['Mutation.a', 'Mutation.b', 'Mutation.c']);
  });

  test('none without the spec linked (the spec’s own name still counts)', () => {
    expect([...longRunningFields('type Mutation { a: Int @longRunning b: Int @timing__longRunning }')]).toEqual([
      'Mutation.a',
    ]);
  });
});

describe('an operation selects a long-running root field', () => {
  test.each([
    ['a marked mutation field', 'mutation { importZone(file: "x") { name } }', true],
    ['a marked query field', '{ report }', true],
    ['beside others', 'mutation { createRecord(value: "a") a: importZone(file: "x") { name } }', true],
    ['through a fragment spread', 'mutation { ...M } fragment M on Mutation { importZone(file: "x") { name } }', true],
    ['through an inline fragment', 'mutation { ... on Mutation { importZone(file: "x") { name } } }', true],
    ['not: unmarked root fields', 'mutation { createRecord(value: "a") createZone { name } }', false],
    ['not: a field of that name below the root', '{ zone(name: "a") { importZone } }', false],
    [
      'not: fragments that spread each other',
      'mutation { ...A } fragment A on Mutation { ...B } fragment B on Mutation { ...A }',
      false,
    ],
    ['not: a text that does not parse', 'mutation { importZone(', false],
  ])('%s', (_what, query, long) => {
    expect(operations.selects(query, undefined)).toBe(long);
    if (!query.endsWith('(')) expect(operations.selects(undefined, undefined, parse(query))).toBe(long);
  });

  test('the operation named, of several in the document', () => {
    const query = 'mutation Slow { importZone(file: "x") { name } } mutation Fast { createRecord(value: "a") }';
    expect(operations.selects(query, 'Slow')).toBe(true);
    expect(operations.selects(query, 'Fast')).toBe(false);
    expect(operations.selects(query, 'None')).toBe(false);
  });

  test('none at all when the supergraph marks none', () => {
    expect(
      new LongRunningOperations(new Set(), schema).selects('mutation { importZone(file: "x") { name } }', undefined),
    ).toBe(false);
  });
});

describe('the timed data source bounds a long-running field’s fetch by its own bound', () => {
  /** A subgraph answering after `ms` (a timer set after the source's own, so a bound of less always fires first). */
  const slow = (ms: number): GraphQLDataSource<GatewayContext> => ({
    process: () =>
      new Promise<GatewayGraphQLResponse>((resolve) => setTimeout(() => resolve({ data: { done: true } }), ms)),
  });
  const fetch = (source: TimedDataSource, query: string) => {
    const context = createGatewayContext('req-1', createLogger('silent'));
    return source.process({
      kind: GraphQLDataSourceRequestKind.INCOMING_OPERATION,
      request: { query },
      incomingRequestContext: { context },
      context,
    } as unknown as GraphQLDataSourceProcessOptions<GatewayContext>);
  };
  const LONG = 'mutation { importZone(file: "x") { name } }';
  const SHORT = 'mutation { createRecord(value: "a") }';

  test('no long bound (0): the fetch waits for the answer, past the subgraph timeout', async () => {
    const source = new TimedDataSource('dns', slow(60), { timeoutMs: 10, longTimeoutMs: 0, long: operations });
    expect(await fetch(source, LONG)).toEqual({ data: { done: true } });
  });

  test('other fetches keep the subgraph timeout (a mutation’s outcome unknown)', async () => {
    const source = new TimedDataSource('dns', slow(60), { timeoutMs: 10, longTimeoutMs: 0, long: operations });
    expect(await fetch(source, SHORT)).toEqual({
      errors: [
        {
          message:
            'subgraph dns did not answer within 10 ms (subgraphTimeoutMs): the outcome of the mutation is unknown, ' +
            'its change may still be applied; read what it changes back before retrying',
          extensions: { code: 'SUBGRAPH_TIMEOUT', serviceName: 'dns' },
        },
      ],
    });
  });

  test('a long bound: past it, the error names subgraphLongTimeoutMs; within it, the answer', async () => {
    const bounded = new TimedDataSource('dns', slow(60), { timeoutMs: 10, longTimeoutMs: 20, long: operations });
    const late = await fetch(bounded, LONG);
    expect(late.errors?.[0]?.message).toMatch(
      /^subgraph dns did not answer within 20 ms \(subgraphLongTimeoutMs\): the outcome of the mutation is unknown/,
    );
    const roomy = new TimedDataSource('dns', slow(20), { timeoutMs: 10, longTimeoutMs: 60_000, long: operations });
    expect(await fetch(roomy, LONG)).toEqual({ data: { done: true } });
  });
});
