import { buildSchema, getOperationAST, parse } from 'graphql';
import { costDirectives } from './cost-directives';
import { CostEstimator, DEFAULT_LIST_SIZE } from './cost';
import { OperationCostLimit } from './limits';

/** A schema as composition leaves it: the cost spec linked, `@cost` used under its own name, `@listSize` imported. */
const SDL = `
  schema @link(url: "https://specs.apollo.dev/link/v1.0") @link(url: "https://specs.apollo.dev/cost/v0.1", import: ["@listSize"]) { query: Query }
  directive @link(url: String, as: String, for: String, import: [String]) repeatable on SCHEMA
  directive @cost(weight: Int!) on FIELD_DEFINITION
  directive @listSize(assumedSize: Int, slicingArguments: [String!], sizedFields: [String!], requireOneSlicingArgument: Boolean = true) on FIELD_DEFINITION
  type Query {
    zone(name: String!): Zone
    zones: [Zone!]! @listSize(assumedSize: 100)
    tags: [String!]!
    transfer(zone: String!): [Row!]! @cost(weight: 1000) @listSize(assumedSize: 500)
    search(first: Int, last: Int): [Row!]! @listSize(slicingArguments: ["first", "last"])
  }
  type Zone {
    name: String!
    serial: Int!
    records(limit: Int = 100, cursor: String): Page! @listSize(slicingArguments: ["limit"], sizedFields: ["records"], requireOneSlicingArgument: false)
    zoneFile: String! @cost(weight: 5000)
  }
  type Page { records: [Row!]! nextCursor: String }
  type Row { name: String! value: String! }
`;
const schema = buildSchema(SDL);
const estimator = new CostEstimator(schema, costDirectives(SDL));

function cost(query: string, variables: Record<string, unknown> = {}) {
  const document = parse(query);
  const operation = getOperationAST(document);
  if (!operation) throw new Error('no operation');
  return estimator.estimate(document, operation, variables);
}

describe('the cost directives are read from the SDL', () => {
  test('by the names the cost spec is linked under, and the spec’s own', () => {
    const costs = costDirectives(SDL);
    expect(costs.get('Query.transfer')).toEqual({ weight: 1000, assumedSize: 500 });
    expect(costs.get('Zone.records')).toEqual({ slicingArguments: ['limit'], sizedFields: ['records'] });
    expect(costs.get('Query.tags')).toBeUndefined();
    const renamed = costDirectives(`
      extend schema @link(url: "https://specs.apollo.dev/cost/v0.1", as: "price", import: [{ name: "@listSize", as: "@size" }])
      type Query { a: [Int] @price__cost(weight: 7) b: [Int] @size(assumedSize: 3) c: [Int] @price__listSize(assumedSize: 4) }`);
    expect(Object.fromEntries(renamed)).toEqual({
      'Query.a': { weight: 7 },
      'Query.b': { assumedSize: 3 },
      'Query.c': { assumedSize: 4 },
    });
  });
});

describe('each field costs 1, a list its size times its items', () => {
  test('fields, and a list without directives at the default size', () => {
    expect(cost('{ zone(name: "a") { name serial } }').cost).toBe(3);
    expect(cost('{ tags }').cost).toBe(1 + DEFAULT_LIST_SIZE);
    expect(cost('{ zones { name serial } }').cost).toBe(1 + 100 * 2);
  });

  test('a weighed field costs its weight; a weighed list its weight plus its items', () => {
    expect(cost('{ zone(name: "a") { zoneFile } }').cost).toBe(1 + 5000);
    expect(cost('{ transfer(zone: "a") { name value } }').cost).toBe(1000 + 500 * 2);
  });

  test('a page’s size is its slicing argument: literal, variable, the variable’s default, else the argument’s default', () => {
    const page = (args: string) =>
      `query Q($n: Int = 7) { zone(name: "a") { records${args} { nextCursor records { name value } } } }`;
    expect(cost(page('(limit: 3)')).cost).toBe(1 + 1 + 1 + (1 + 3 * 2));
    expect(cost(page('(limit: $n)'), { n: 50 })).toEqual({ cost: 1 + 1 + 1 + (1 + 50 * 2), usesVariables: true });
    expect(cost(page('(limit: $n)')).cost).toBe(1 + 1 + 1 + (1 + 7 * 2));
    expect(cost(page('(limit: $n)'), { n: null }).cost).toBe(1 + 1 + 1 + (1 + 100 * 2));
    expect(cost(page('')).cost).toBe(1 + 1 + 1 + (1 + 100 * 2));
    expect(cost(page('(limit: null)')).usesVariables).toBe(false);
  });

  test('several slicing arguments: the largest given counts', () => {
    expect(cost('{ search(first: 5, last: 40) { name } }').cost).toBe(1 + 40);
    expect(cost('{ search { name } }').cost).toBe(1 + DEFAULT_LIST_SIZE);
  });

  test('aliases each count: fifty pages of the largest size cost fifty times one', () => {
    const one = cost('{ zone(name: "a") { records(limit: 10000) { records { name value } } } }').cost;
    const aliases = Array.from(
      { length: 50 },
      (_, i) => `z${i}: zone(name: "a") { records(limit: 10000) { records { name value } } }`,
    );
    expect(cost(`{ ${aliases.join(' ')} }`).cost).toBe(50 * one);
  });

  test('fragments and inline fragments count where they are spread, with the page size they are spread under', () => {
    const spread = cost(`
      query { zone(name: "a") { records(limit: 20) { ...P } } zones { ... on Zone { name } } }
      fragment P on Page { records { ...R } }
      fragment R on Row { name value }`).cost;
    expect(spread).toBe(1 + 1 + (1 + 20 * 2) + (1 + 100 * 1));
  });

  test('introspection counts 1 per field, not the schema’s size', () => {
    expect(cost('{ __schema { types { name fields { name } } } }').cost).toBe(1);
  });

  test('doubling fragments are measured once each: a 2^60-field document is estimated (one by one: never)', () => {
    const parts = ['fragment F0 on Zone { name }'];
    for (let i = 1; i <= 60; i++) parts.push(`fragment F${i} on Zone { ...F${i - 1} ...F${i - 1} }`);
    expect(cost(`{ zones { ...F60 } } ${parts.join(' ')}`).cost).toBe(1 + 100 * 2 ** 60);
  });
});

describe('the limit', () => {
  const limit = new OperationCostLimit(estimator, 1_000);
  const check = (query: string, variables?: Record<string, unknown>) => {
    const document = parse(query);
    const operation = getOperationAST(document);
    if (!operation) throw new Error('no operation');
    return limit.check(document, operation, variables);
  };

  test('an operation over it is refused naming the limit and the measured cost; one within it passes', () => {
    expect(check('{ zones { name serial } }')).toBeUndefined();
    const refused = check('{ zone(name: "a") { zoneFile } }');
    expect(refused?.message).toBe('estimated cost 5001 exceeds the limit of 1000 (maxQueryCost)');
    expect(refused?.extensions).toEqual({ code: 'GRAPHQL_VALIDATION_FAILED', limit: 'maxQueryCost' });
  });

  test('the same operation with other variables is estimated again', () => {
    const query = 'query Q($n: Int) { zone(name: "a") { records(limit: $n) { records { name } } } }';
    expect(check(query, { n: 10 })).toBeUndefined();
    expect(check(query, { n: 2000 })?.message).toBe('estimated cost 2003 exceeds the limit of 1000 (maxQueryCost)');
  });

  test('a cost beyond counting is said so', () => {
    const parts = ['fragment F0 on Zone { name }'];
    for (let i = 1; i <= 1100; i++) parts.push(`fragment F${i} on Zone { ...F${i - 1} ...F${i - 1} }`);
    expect(check(`{ zones { ...F1100 } } ${parts.join(' ')}`)?.message).toBe(
      'estimated cost beyond counting exceeds the limit of 1000 (maxQueryCost)',
    );
  });
});
