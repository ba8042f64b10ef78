import { buildSchema as buildFederationSchema, operationFromDocument } from '@apollo/federation-internals';
import { computeResponse } from '@apollo/gateway/dist/resultShaping';
import { Kind, parse, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';
import { ResponseShape } from './response-shape';
import type { DataObject } from './plan-executor';

/**
 * The response shape must give what Apollo's gateway post-processing (computeResponse) gives for the same operation
 * and fetched data: the same data, key order included, and the same errors at the same paths.
 */
const SDL = `
  type Query { item(id: ID!): Item  items: [Item!]  must: Item!  count: Int  flag: Boolean  ratio: Float  color: Color  search: [Result] }
  interface Item { id: ID!  name: String }
  type Book implements Item { id: ID!  name: String  pages: Int!  tags: [String!]! }
  type Movie implements Item { id: ID!  name: String  minutes: Int }
  union Result = Book | Movie
  enum Color { RED GREEN }
`;
const federationSchema = buildFederationSchema(SDL);
const schema = federationSchema.toGraphQLJSSchema();

function ours(query: string, input: DataObject, variables?: Record<string, unknown>) {
  const document = parse(query);
  const operation = document.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION) as OperationDefinitionNode;
  const fragments = new Map(
    document.definitions
      .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
      .map((f) => [f.name.value, f]),
  );
  const shape = new ResponseShape(schema, operation, fragments);
  const { data, errors } = shape.apply(structuredClone(input), shape.conditionValues(variables));
  return { json: JSON.stringify(data), errors: errors.map((e) => ({ message: e.message, path: e.path })) };
}

function apollos(query: string, input: DataObject, variables?: Record<string, unknown>) {
  const operation = operationFromDocument(federationSchema, parse(query), { validate: false });
  const { data, errors } = computeResponse({
    operation,
    variables,
    input: structuredClone(input),
    introspectionHandling: () => null,
  });
  return { json: JSON.stringify(data), errors: errors.map((e) => ({ message: e.message, path: e.path })) };
}

/** label, operation, fetched data, variables (optional) */
const CASES: [string, string, DataObject, ...(Record<string, unknown> | undefined)[]][] = [
  [
    'aliases, order of the query, extra fetched fields dropped',
    '{ b: item(id: 1) { name id } count }',
    { count: 3, b: { __typename: 'Book', id: '1', name: 'SICP', pages: 657, extra: true } },
  ],
  [
    '__typename from the data, under an alias, and of the root',
    '{ __typename item(id: 1) { t: __typename __typename id } }',
    { item: { __typename: 'Movie', id: 'm1' } },
  ],
  [
    'fragments on interfaces and union members by __typename',
    '{ search { ... on Book { pages } ... on Item { id } ...M } } fragment M on Movie { minutes name }',
    {
      search: [
        { __typename: 'Book', id: 'b1', pages: 10, name: 'x' },
        { __typename: 'Movie', id: 'm1', minutes: 90, name: 'y' },
        null,
      ],
    },
  ],
  [
    'a null in a non-null field nulls its object, and the error names the field',
    '{ item(id: 1) { ... on Book { id pages } } }',
    { item: { __typename: 'Book', id: 'b1', pages: null } },
  ],
  [
    'a null element of a [Item!] list nulls the list',
    '{ items { id } }',
    { items: [{ __typename: 'Book', id: 'b1' }, null] },
  ],
  ['a non-null root field missing nulls the data', '{ must { id } count }', { count: 1 }],
  [
    'values of the wrong type are nulled with an error: Int, Boolean, Float, enum, ID',
    '{ count flag ratio color item(id: 1) { id } }',
    { count: 1.5, flag: 'yes', ratio: 'x', color: 'BLUE', item: { __typename: 'Book', id: true } },
  ],
  [
    'valid leaves pass as they are (an integer ID stays a number)',
    '{ count flag ratio color item(id: 1) { id } }',
    { count: 7, flag: false, ratio: 0.5, color: 'RED', item: { __typename: 'Book', id: 12 } },
  ],
  [
    'the same field through two fragments merges into one object',
    '{ item(id: 1) { ... on Book { tags } ... on Item { name } ... on Book { name id } } }',
    { item: { __typename: 'Book', id: 'b1', name: 'n', tags: ['a', 'b'] } },
  ],
  [
    '@skip and @include, literal and by variable (with a default)',
    'query ($s: Boolean = true, $i: Boolean!) { count @skip(if: $s) flag @include(if: $i) ratio @skip(if: false) }',
    { count: 1, flag: true, ratio: 1 },
    { i: true },
  ],
  [
    'an unknown __typename is an error at that object',
    '{ item(id: 1) { id } }',
    { item: { __typename: 'Nope', id: '1' } },
  ],
  [
    'response names plain objects inherit are read and written as own properties',
    '{ constructor: count toString: flag __proto__: ratio }',
    { toString: true },
  ],
];

describe('ResponseShape gives what Apollo computeResponse gives', () => {
  // The variables arrive as a rest parameter: jest takes a test function with more parameters than its row has
  // values for one waiting on `done`.
  test.each(CASES)('%s', (_label, query, input, ...[variables]) => {
    const expected = apollos(query, input, variables);
    const got = ours(query, input, variables);
    expect(got).toEqual(expected);
  });

  test('the cases are not vacuous: some null out, some report errors', () => {
    const results = CASES.map(([, q, input, v]) => ours(q, input, v));
    expect(results.filter((r) => r.errors.length > 0).length).toBeGreaterThanOrEqual(5);
    expect(results.some((r) => r.json === 'null')).toBe(true);
  });
});
