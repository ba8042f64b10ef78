import type * as Hive from '@graphql-hive/router-query-planner';
import type { GatewayGraphQLRequestContext, GatewayGraphQLResponse } from '@apollo/server-gateway-interface';
import { buildSchema, Kind, parse, type OperationDefinitionNode } from 'graphql';
import type { GatewayContext } from '../context';
import { withDeferDirective } from '../defer-rule';
import type { Delivery } from '../incremental';
import { DeferredExecution, mayNeed, prunePlan } from './deferred-execution';
import type { PlanRun } from './plan-executor';
import { PlanCompiler, type FetchStep, type PlanStep } from './query-plan';
import { ResponseShape } from './response-shape';

const schema = withDeferDirective(
  buildSchema(`
    type Query { books: [Book] }
    type Book { id: ID! title: String pages: Int }
  `),
);
const compiler = new PlanCompiler(schema);

const ROOT: Hive.FetchNode = { kind: 'Fetch', serviceName: 'a', operation: '{books{__typename id title}}' };
const PAGES: Hive.FlattenNode = {
  kind: 'Flatten',
  path: [{ Field: 'books' }, '@'],
  node: {
    kind: 'Fetch',
    serviceName: 'b',
    operation: 'query($representations:[_Any!]!){_entities(representations:$representations){...on Book{pages}}}',
    requires: [
      {
        kind: 'InlineFragment',
        typeCondition: 'Book',
        selections: [
          { kind: 'Field', name: '__typename' },
          { kind: 'Field', name: 'id' },
        ],
      },
    ],
  },
};

test('a Defer node compiles to its primary part, then its deferred parts', () => {
  const plan = compiler.compile({
    kind: 'QueryPlan',
    node: {
      kind: 'Defer',
      primary: { node: ROOT },
      deferred: [{ depends: [{ id: '0' }], label: 'p', queryPath: ['books'], node: PAGES }],
    },
  });
  const root = plan.root as PlanStep & { kind: 'sequence' };
  expect(root.kind).toBe('sequence');
  expect(root.nodes.map((n) => (n as FetchStep).serviceName)).toEqual(['a', 'b']);
  expect((root.nodes[1] as FetchStep).entities?.[0]?.paths).toEqual([[{ field: 'books' }, { list: true }]]);
});

test('prunePlan keeps the wanted fetches and what comes before them in a sequence', () => {
  const f = (name: string): FetchStep => ({
    kind: 'fetch',
    serviceName: name,
    operation: '{x}',
    operationKind: 'query',
    variableUsages: [],
  });
  const [a, b, c, d] = [f('a'), f('b'), f('c'), f('d')];
  const plan: PlanStep = { kind: 'sequence', nodes: [a, { kind: 'parallel', nodes: [b, c] }, d] };
  expect(prunePlan(plan, (x) => x === c)).toEqual({ kind: 'sequence', nodes: [a, { kind: 'parallel', nodes: [c] }] });
  // d needs what came before it: all of it
  expect(prunePlan(plan, (x) => x === d)).toEqual(plan);
  expect(prunePlan(plan, () => false)).toBeUndefined();
});

/** An entity fetch of `service` at `path` (fields, `@` for lists), requiring `requires` and selecting `selects`. */
function entityFetch(
  service: string,
  path: string[],
  type: string,
  requires: string[],
  selects: string,
): Hive.FlattenNode {
  return {
    kind: 'Flatten',
    path: path.map((p) => (p === '@' ? '@' : { Field: p })),
    node: {
      kind: 'Fetch',
      serviceName: service,
      operation: `query($representations:[_Any!]!){_entities(representations:$representations){...on ${type}{${selects}}}}`,
      requires: [
        {
          kind: 'InlineFragment',
          typeCondition: type,
          selections: [
            { kind: 'Field', name: '__typename' },
            ...requires.map((name) => ({ kind: 'Field' as const, name })),
          ],
        },
      ],
    },
  };
}

test('prunePlan keeps, of the entity fetches before a wanted one, only those it may need (by where their data lands)', () => {
  const depSchema = buildSchema(`
    type Query { books: [Book] }
    type Book { id: ID! title: String pages: Int summary: String author: Author }
    type Author { id: ID! name: String }
  `);
  const pages = entityFetch('b', ['books', '@'], 'Book', ['id'], 'pages');
  const author = entityFetch('c', ['books', '@'], 'Book', ['id'], 'author{__typename id}');
  const name = entityFetch('d', ['books', '@', 'author'], 'Author', ['id'], 'name');
  const summary = entityFetch('e', ['books', '@'], 'Book', ['id', 'pages'], 'summary');
  const plan = new PlanCompiler(depSchema).compile({
    kind: 'QueryPlan',
    node: {
      kind: 'Sequence',
      nodes: [ROOT, { kind: 'Parallel', nodes: [pages, author] }, { kind: 'Parallel', nodes: [name, summary] }],
    },
  }).root as PlanStep;
  const services = (step: PlanStep | undefined): unknown =>
    step === undefined
      ? undefined
      : step.kind === 'fetch'
        ? step.serviceName
        : step.kind === 'condition'
          ? [services(step.ifClause), services(step.elseClause)]
          : { [step.kind]: step.nodes.map(services) };
  const wanting = (service: string) => services(prunePlan(plan, (f) => f.serviceName === service));
  // the author's name needs the author objects (c), not the pages (b); the root fetch always
  expect(wanting('d')).toEqual({ sequence: ['a', { parallel: ['c'] }, { parallel: ['d'] }] });
  // the summary requires pages: b, not c
  expect(wanting('e')).toEqual({ sequence: ['a', { parallel: ['b'] }, { parallel: ['e'] }] });
  expect(wanting('b')).toEqual({ sequence: ['a', { parallel: ['b'] }] });
  // a fetch of the same list that neither writes nor requires what the other needs is no dependency…
  const fetchOf = (step: Hive.FlattenNode) => {
    const found: FetchStep[] = [];
    const walk = (s: PlanStep): void => {
      if (s.kind === 'fetch') {
        if (s.serviceName === (step.node as Hive.FetchNode).serviceName) found.push(s);
      } else if (s.kind !== 'condition') s.nodes.forEach(walk);
    };
    walk(plan);
    return found[0] as FetchStep;
  };
  expect(mayNeed(fetchOf(name), fetchOf(pages))).toBe(false);
  expect(mayNeed(fetchOf(name), fetchOf(author))).toBe(true);
  expect(mayNeed(fetchOf(summary), fetchOf(pages))).toBe(true);
  expect(mayNeed(fetchOf(summary), fetchOf(author))).toBe(false);
  // …and a root fetch on either side always is
  const root = compiler.compile({ kind: 'QueryPlan', node: ROOT }).root as FetchStep;
  expect(mayNeed(fetchOf(name), root)).toBe(true);
  expect(mayNeed(root, fetchOf(pages))).toBe(true);
});

/** A run of a plan over subgraphs that answer as given, by service name. */
function planRun(answers: Record<string, () => Promise<GatewayGraphQLResponse>>): PlanRun {
  const sources = new Map(Object.entries(answers).map(([name, process]) => [name, { process }]));
  return {
    sources,
    requestContext: { context: {} } as unknown as GatewayGraphQLRequestContext<GatewayContext>,
    variables: {},
    conditions: {},
    data: {},
    errors: [],
  };
}

test('the initial part waits for its own fetch only; the deferred fragment comes when its fetch is done', async () => {
  const document = parse(`{ books { id title ... @defer(label: "more") { pages } } }`);
  const operation = document.definitions[0] as OperationDefinitionNode;
  expect(operation.kind).toBe(Kind.OPERATION_DEFINITION);
  const shape = new ResponseShape(schema, operation, new Map());
  const plan = compiler.compile({ kind: 'QueryPlan', node: { kind: 'Sequence', nodes: [ROOT, PAGES] } });
  let release = (): void => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  const run = planRun({
    a: async () => ({ data: { books: [{ __typename: 'Book', id: '1', title: 'T' }] } }),
    b: async () => (await held, { data: { _entities: [{ __typename: 'Book', pages: 12 }] } }),
  });
  const active = shape.activeDefers({});
  const execution = new DeferredExecution(shape, plan.root, run, active);
  await execution.primary(); // resolves while b is held
  const initial = shape.apply(run.data, {}, undefined, active).data;
  expect(initial).toEqual({ books: [{ id: '1', title: 'T' }] });
  expect(execution.initialPending(initial ?? {})).toEqual([{ fragment: 0, label: 'more', paths: [['books', 0]] }]);
  const deliveries = execution.deliveries(initial ?? {});
  const next = deliveries.next();
  release();
  expect((await next).value).toEqual<Delivery>({
    hasNext: false,
    pending: [],
    items: [{ fragment: 0, item: { data: { pages: 12 }, path: ['books', 0], label: 'more' } }],
    completed: [0],
  });
  expect((await deliveries.next()).done).toBe(true);
});

test('a fetch bringing fields of two deferred fragments: each of its errors goes to the fragment asking for the field', async () => {
  const twoSchema = withDeferDirective(
    buildSchema(`
      type Query { books: [Book] }
      type Book { id: ID! title: String pages: Int summary: String }
    `),
  );
  const document = parse(`{ books { id ... @defer(label: "p") { pages } ... @defer(label: "s") { summary } } }`);
  const operation = document.definitions[0] as OperationDefinitionNode;
  const shape = new ResponseShape(twoSchema, operation, new Map());
  const both = entityFetch('b', ['books', '@'], 'Book', ['id'], 'pages summary');
  const plan = new PlanCompiler(twoSchema).compile({
    kind: 'QueryPlan',
    node: { kind: 'Sequence', nodes: [ROOT, both] },
  });
  const run = planRun({
    a: async () => ({
      data: {
        books: [
          { __typename: 'Book', id: '1' },
          { __typename: 'Book', id: '2' },
        ],
      },
    }),
    b: async () => ({
      data: {
        _entities: [
          { __typename: 'Book', pages: 12, summary: null },
          { __typename: 'Book', pages: null, summary: 'S' },
        ],
      },
      errors: [
        { message: 'no summary', path: ['_entities', 0, 'summary'] },
        { message: 'no pages', path: ['_entities', 1, 'pages'] },
      ],
    }),
  });
  const active = shape.activeDefers({});
  const execution = new DeferredExecution(shape, plan.root, run, active);
  await execution.primary();
  expect(run.errors).toEqual([]);
  const initial = shape.apply(run.data, {}, undefined, active).data ?? {};
  const items: Array<{ label?: string; path: unknown; errors?: string[] }> = [];
  for await (const delivery of execution.deliveries(initial))
    for (const { item } of delivery.items)
      items.push({ label: item.label, path: item.path, errors: item.errors?.map((e) => e.message) });
  // before, both errors went to the first fragment ("p"), the summary's among the pages
  expect(items).toEqual([
    { label: 'p', path: ['books', 0], errors: undefined },
    { label: 'p', path: ['books', 1], errors: ['no pages'] },
    { label: 's', path: ['books', 0], errors: ['no summary'] },
    { label: 's', path: ['books', 1], errors: undefined },
  ]);
});
