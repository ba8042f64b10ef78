import { buildSchema, parse, specifiedRules, validate } from 'graphql';
import { deferRule, withDeferDirective } from './defer-rule';

const schema = withDeferDirective(
  buildSchema(`
    type Query { a: A }
    type Mutation { m: A }
    type Subscription { s: A }
    type A { x: Int y: Int }
  `),
);

const errors = (query: string) => validate(schema, parse(query), [...specifiedRules, deferRule]).map((e) => e.message);

test('@defer is known on fragments of a query, with if and label', () => {
  expect(
    errors(
      'query Q($d: Boolean!) { a { x ... @defer(if: $d, label: "one") { y } ...F @defer } } fragment F on A { x }',
    ),
  ).toEqual([]);
  expect(withDeferDirective(schema)).toBe(schema); // added once
});

test('a mutation or a subscription that defers is refused, through named fragments too', () => {
  expect(errors('mutation { m { x ... @defer { y } } }')).toEqual([
    '@defer is not supported in a mutation: only queries may defer fragments',
  ]);
  expect(errors('subscription { s { ...F } } fragment F on A { ... @defer { y } }')).toEqual([
    '@defer is not supported in a subscription: only queries may defer fragments',
  ]);
});

test('a label must be a literal string, used once', () => {
  expect(errors('query Q($l: String) { a { ... @defer(label: $l) { y } } }')).toEqual([
    '@defer: label must be a literal string',
  ]);
  expect(errors('{ a { ... @defer(label: "x") { y } ... @defer(label: "x") { x } } }')).toEqual([
    '@defer: the label "x" is used twice',
  ]);
});

test('@defer is not allowed on a field', () => {
  expect(errors('{ a @defer { x } }')).toEqual(['Directive "@defer" may not be used on FIELD.']);
});
