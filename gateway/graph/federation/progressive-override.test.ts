import { parse } from 'graphql';
import { ProgressiveOverrides, SupergraphError } from './progressive-override';

/** A hand-written supergraph fragment: what ProgressiveOverrides reads of one (join directives on fields). */
const SDL = /* GraphQL */ `
  schema
    @link(url: "https://specs.apollo.dev/link/v1.0")
    @link(url: "https://specs.apollo.dev/join/v0.4", for: EXECUTION) {
    query: Query
  }
  type Query @join__type(graph: A) {
    product: Product @join__field(graph: A)
  }
  type Product @join__type(graph: A, key: "id") @join__type(graph: B, key: "id") {
    id: ID!
    price: Int
      @join__field(graph: A, overrideLabel: "percent(25)")
      @join__field(graph: B, override: "a", overrideLabel: "percent(25)")
    stock: Int
      @join__field(graph: A, overrideLabel: "percent(75.5)")
      @join__field(graph: B, override: "a", overrideLabel: "percent(75.5)")
    beta: Int @join__field(graph: A, overrideLabel: "beta") @join__field(graph: B, override: "a", overrideLabel: "beta")
    total: Int @join__field(graph: B, requires: "stock")
    name: String @join__field(graph: A)
  }
`;

const overrides = new ProgressiveOverrides(SDL);

test('reads the percent labels, not the custom ones; the planner gets each percent label as a flag', () => {
  expect([...overrides.percentLabels]).toEqual([
    ['percent(25)', 25],
    ['percent(75.5)', 75.5],
  ]);
  expect(overrides.plannerSdl).toContain('overrideLabel: "~percent(25)"');
  expect(overrides.plannerSdl).not.toContain('"percent(');
  expect(overrides.plannerSdl).toContain('overrideLabel: "beta"');
  expect([...overrides.flags(['percent(25)'])]).toEqual(['~percent(25)']);
});

test('rolls each label on its own with the given randomness', () => {
  const rolls = (values: number[]) => {
    const queue = [...values];
    return [...overrides.roll(() => queue.shift() ?? 0)].sort();
  };
  expect(rolls([0.2, 0.8])).toEqual(['percent(25)']); // 20 < 25; 80 ≥ 75.5
  expect(rolls([0.25, 0.75])).toEqual(['percent(75.5)']);
  expect(rolls([0, 0])).toEqual(['percent(25)', 'percent(75.5)']);
});

test('the labels that matter: those on the fields selected, and on what their @requires need', () => {
  expect(overrides.relevant(parse('{ product { name } }'))).toEqual([]);
  expect(overrides.relevant(parse('{ product { price } }'))).toEqual(['percent(25)']);
  expect(overrides.relevant(parse('{ product { ...F } } fragment F on Product { total }'))).toEqual(['percent(75.5)']);
});

test('no label: the supergraph given to the planner is the same text', () => {
  const plain = SDL.replace(/, overrideLabel: "[^"]*"/g, '');
  const none = new ProgressiveOverrides(plain);
  expect(none.any).toBe(false);
  expect(none.plannerSdl).toBe(plain);
});

test.each([
  ['percent(100.5)', 'percent(N), N from 0 to 100'],
  ['percent(1.123456789)', 'percent(N), N from 0 to 100'],
  ['percent()', 'percent(N), N from 0 to 100'],
  ['percent(50', 'percent(N), N from 0 to 100'],
  ['has space', 'a label is percent(N) or a name'],
])('the label %s is refused, naming the field and the label', (label, why) => {
  const build = () => new ProgressiveOverrides(SDL.replaceAll('"percent(25)"', JSON.stringify(label)));
  expect(build).toThrow(SupergraphError);
  expect(build).toThrow(`@override label "${label}" on Product.price (graph A): a`);
  expect(build).toThrow(why);
});
