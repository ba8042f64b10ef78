import type { GatewayGraphQLRequestContext, GatewayGraphQLResponse } from '@apollo/server-gateway-interface';
import { buildSchema } from 'graphql';
import type { GatewayContext } from '../context';
import {
  applyRewrites,
  collectEntities,
  deepMerge,
  RepresentationList,
  runPlan,
  type DataObject,
  type PlanRun,
} from './plan-executor';
import { PlanCompiler, type FetchStep, type PathStep } from './query-plan';

const schema = buildSchema(`
  type Query { items: [Item] }
  interface Item { id: ID! }
  type Book implements Item { id: ID! pages: Int }
  type Movie implements Item { id: ID! minutes: Int }
`);
const compiler = new PlanCompiler(schema);

describe('RepresentationList', () => {
  test('equal representations get one index, in the order first seen', () => {
    const reps = new RepresentationList();
    expect(reps.add({ __typename: 'Book', id: '1' })).toBe(0);
    expect(reps.add({ __typename: 'Book', id: '2' })).toBe(1);
    expect(reps.add({ __typename: 'Book', id: '1' })).toBe(0);
    expect(reps.list).toEqual([
      { __typename: 'Book', id: '1' },
      { __typename: 'Book', id: '2' },
    ]);
  });

  test('values that print alike are still different: "1" and 1, a string that looks like an object', () => {
    const reps = new RepresentationList();
    const indexes = [
      reps.add({ __typename: 'Book', id: '1' }),
      reps.add({ __typename: 'Book', id: 1 }),
      reps.add({ __typename: 'Book', id: true }),
      reps.add({ __typename: 'Book', id: 'true' }),
      reps.add({ __typename: 'Book', id: null }),
      reps.add({ __typename: 'Book', id: 'null' }),
      reps.add({ __typename: 'Book', key: { a: 1 } }),
      reps.add({ __typename: 'Book', key: '{"a":1}' }),
      reps.add({ __typename: 'Movie', id: '1' }),
    ];
    expect(new Set(indexes).size).toBe(9);
  });

  test('nested key values compare by content; different field sets never meet', () => {
    const reps = new RepresentationList();
    const a = reps.add({ __typename: 'P', sku: 'x', variant: { id: 'large' } });
    expect(reps.add({ __typename: 'P', sku: 'x', variant: { id: 'large' } })).toBe(a);
    expect(reps.add({ __typename: 'P', sku: 'x', variant: { id: 'small' } })).not.toBe(a);
    expect(reps.add({ __typename: 'P', sku: 'x' })).not.toBe(a);
    expect(reps.add({ __typename: 'P', variant: { id: 'large' }, sku: 'x' })).not.toBe(a); // field order matters
  });
});

describe('collectEntities', () => {
  const data = {
    items: [
      { __typename: 'Book', id: 'b1', shelf: { __typename: 'Book', id: 'b9' } },
      null,
      { __typename: 'Movie', id: 'm1' },
      [{ __typename: 'Book', id: 'b2' }],
    ],
  };
  const found = (path: PathStep[]) => {
    const out: DataObject[] = [];
    collectEntities(data, path, 0, out);
    return out.map((e) => e.id);
  };

  test('walks fields and lists, skipping nulls', () => {
    expect(found([{ field: 'items' }, { list: true }])).toEqual(['b1', 'm1', 'b2']);
    expect(found([{ field: 'items' }, { list: true }, { field: 'shelf' }])).toEqual(['b9']);
    expect(found([{ field: 'nothing' }, { list: true }])).toEqual([]);
  });

  test('a type condition keeps the objects of that type (an interface: every type implementing it)', () => {
    expect(found([{ field: 'items' }, { list: true }, { types: compiler.types('Movie') }])).toEqual(['m1']);
    expect(found([{ field: 'items' }, { list: true }, { types: compiler.types('Item') }])).toEqual(['b1', 'm1', 'b2']);
  });
});

describe('deepMerge', () => {
  test('objects merge key by key, equal-length lists element by element, anything else is replaced', () => {
    const target: DataObject = { a: { x: 1 }, list: [{ id: 1 }, { id: 2 }], other: [1, 2], gone: { y: 1 } };
    deepMerge(target, { a: { y: 2 }, list: [{ n: 'one' }, { n: 'two' }], other: [3], gone: null, added: 'new' });
    expect(target).toEqual({
      a: { x: 1, y: 2 },
      list: [
        { id: 1, n: 'one' },
        { id: 2, n: 'two' },
      ],
      other: [3],
      gone: null,
      added: 'new',
    });
  });

  test('a parsed __proto__ key is never merged (it would set the prototype)', () => {
    const target: DataObject = {};
    deepMerge(target, JSON.parse('{"__proto__": {"polluted": true}, "ok": 1}') as DataObject);
    expect(target).toEqual({ ok: 1 });
    expect((target as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(target)).toBe(Object.prototype);
  });
});

describe('applyRewrites', () => {
  test('a value setter sets __typename only on objects of the named type', () => {
    const book: DataObject = { __typename: 'Book', id: 'b1' };
    const movie: DataObject = { __typename: 'Movie', id: 'm1' };
    for (const entity of [book, movie])
      applyRewrites(entity, [
        { kind: 'setValue', path: [{ types: new Set(['Book']) }, { key: '__typename' }], value: 'Item' },
      ]);
    expect(book.__typename).toBe('Item');
    expect(movie.__typename).toBe('Movie');
  });

  test('a key renamer moves a value under its new name, through lists', () => {
    const entity: DataObject = { __typename: 'Book', reviews: [{ _alias_0: 'x' }, { _alias_0: 'y' }] };
    applyRewrites(entity, [{ kind: 'renameKey', path: [{ key: 'reviews' }, { key: '_alias_0' }], to: 'body' }]);
    expect(entity).toEqual({ __typename: 'Book', reviews: [{ body: 'x' }, { body: 'y' }] });
  });
});

describe('an entity fetch answering several entities with one representation', () => {
  const step: FetchStep = {
    kind: 'fetch',
    serviceName: 'reviews',
    operation: 'query($r:[_Any!]!){_entities(representations:$r){...on Book{reviews{id}}}}',
    operationKind: 'query',
    variableUsages: [],
    entities: [
      {
        responseKey: '_entities',
        variableName: 'representations',
        paths: [
          [{ field: 'a' }, { list: true }],
          [{ field: 'b' }, { list: true }],
        ],
        requires: [{ kind: 'field', name: 'id', responseName: 'id' }],
      },
    ],
  };

  /** Runs `step` over b1 at a[0], b[0] and b[1], the subgraph answering `answer`; returns what it was sent. */
  async function fetchFor(answer: GatewayGraphQLResponse) {
    const sent: unknown[] = [];
    const source = {
      process: async (options: { request: { variables?: Record<string, unknown> } }) => {
        sent.push(options.request.variables?.representations);
        return answer;
      },
    };
    const run: PlanRun = {
      sources: new Map([['reviews', source]]),
      requestContext: { context: {} } as GatewayGraphQLRequestContext<GatewayContext>,
      variables: {},
      conditions: {},
      data: {
        a: [{ __typename: 'Book', id: 'b1' }],
        b: [
          { __typename: 'Book', id: 'b1' },
          { __typename: 'Book', id: 'b1' },
        ],
      },
      errors: [],
    };
    await runPlan(step, run);
    return { sent, run };
  }

  test('each entity gets its own copy of the answer, so later fetches at one path never show at another', async () => {
    const { sent, run } = await fetchFor({ data: { _entities: [{ reviews: [{ id: 'r1' }] }] } });
    expect(sent).toEqual([[{ id: 'b1', __typename: 'Book' }]]); // one representation for the three entities
    const [a] = run.data.a as DataObject[];
    const [b0, b1] = run.data.b as DataObject[];
    expect([a?.reviews, b0?.reviews, b1?.reviews]).toEqual([[{ id: 'r1' }], [{ id: 'r1' }], [{ id: 'r1' }]]);
    expect(a?.reviews).not.toBe(b0?.reviews);
    expect(b0?.reviews).not.toBe(b1?.reviews);
    expect(run.errors).toEqual([]);
  });

  test("an error of the representation is placed at every entity it stands for, at the client's paths", async () => {
    const { run } = await fetchFor({
      data: { _entities: [null] },
      errors: [{ message: 'no reviews', path: ['_entities', 0, 'reviews'], extensions: { code: 'E' } }],
    });
    expect(run.errors.map((e) => ({ message: e.message, path: e.path, extensions: e.extensions }))).toEqual(
      [
        ['a', 0, 'reviews'],
        ['b', 0, 'reviews'],
        ['b', 1, 'reviews'],
      ].map((path) => ({ message: 'no reviews', path, extensions: { code: 'E', serviceName: 'reviews' } })),
    );
  });
});
