import { graphql, startSystem, type RunningSystem } from '../support/system';
import { composeSupergraph, CompositionError } from '../../gateway/graph/federation/compose';
import { startFixture, subgraphSchema, type Fixture } from './fixture';
import * as products from './fixture/products';

/**
 * `--supergraph FILE` (SUPERGRAPH_FILE) makes our server a general Federation 2 gateway: a supergraph of four
 * subgraphs of the fixture's own (see fixture/), none of them ours, served over their URLs in join__Graph. Every query
 * goes over HTTP through our gateway; the subgraphs' recorders show which subgraph was asked what.
 */
let fixture: Fixture;
let gateway: RunningSystem;

beforeAll(async () => {
  fixture = await startFixture();
  gateway = await startSystem({ SUPERGRAPH_FILE: fixture.supergraphFile });
});

afterAll(async () => {
  await gateway?.close();
  await fixture?.close();
});

beforeEach(() => fixture.resetRecorders());

const sg = () => fixture.subgraphs;

/** A query straight to one fixture subgraph, bypassing the gateway. */
async function direct(url: string, query: string) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  return (await res.json()) as { data?: Record<string, unknown>; errors?: unknown[] };
}

describe('entities across subgraphs, through each Product key', () => {
  test('@key(fields: "upc"): inventory lists upcs, products resolves them', async () => {
    const res = await graphql(gateway.url, '{ restockNeeded { upc name price } }');
    expect(res).toEqual({
      status: 200,
      body: {
        data: {
          restockNeeded: [
            { upc: '1002', name: 'Oak Table (small)', price: 89_900 },
            { upc: '1004', name: 'Brass Lamp', price: 5_900 },
          ],
        },
      },
    });
    expect(sg().products.rec.representations).toEqual([
      { __typename: 'Product', upc: '1002' },
      { __typename: 'Product', upc: '1004' },
    ]);
    expect([
      sg().inventory.rec.requests,
      sg().products.rec.requests,
      sg().reviews.rec.requests,
      sg().users.rec.requests,
    ]).toEqual([1, 1, 0, 0]);
  });

  test('compound @key(fields: "sku variant { id }"): reviews knows products only by sku + variant (one sku, two variants)', async () => {
    const res = await graphql(gateway.url, '{ reviews { id product { upc sku variant { id } price } } }');
    expect(res).toEqual({
      status: 200,
      body: {
        data: {
          reviews: [
            { id: 'r1', product: { upc: '1001', sku: 'TBL-OAK', variant: { id: 'large' }, price: 129_900 } },
            { id: 'r2', product: { upc: '1002', sku: 'TBL-OAK', variant: { id: 'small' }, price: 89_900 } },
            { id: 'r3', product: { upc: '1003', sku: 'CHR-OAK', variant: { id: 'std' }, price: 14_900 } },
          ],
        },
      },
    });
    expect(sg().products.rec.representations).toEqual([
      { __typename: 'Product', sku: 'TBL-OAK', variant: { id: 'large' } },
      { __typename: 'Product', sku: 'TBL-OAK', variant: { id: 'small' } },
      { __typename: 'Product', sku: 'CHR-OAK', variant: { id: 'std' } },
    ]);
  });

  test('compound key the other way: products hands reviews the sku + variant of a product found by upc', async () => {
    const res = await graphql(gateway.url, '{ product(upc: "1002") { upc reviews { id rating } } }');
    expect(res).toEqual({
      status: 200,
      body: { data: { product: { upc: '1002', reviews: [{ id: 'r2', rating: 4 }] } } },
    });
    expect(sg().reviews.rec.representations).toEqual([
      { __typename: 'Product', sku: 'TBL-OAK', variant: { id: 'small' } },
    ]);
  });

  test('three hops: inventory (upc) → products → reviews (sku + variant)', async () => {
    const res = await graphql(gateway.url, '{ restockNeeded { upc reviews { body } } }');
    expect(res).toEqual({
      status: 200,
      body: {
        data: {
          restockNeeded: [
            { upc: '1002', reviews: [{ body: 'Fits a small kitchen.' }] },
            { upc: '1004', reviews: [] },
          ],
        },
      },
    });
    expect(sg().products.rec.representations).toEqual([
      { __typename: 'Product', upc: '1002' },
      { __typename: 'Product', upc: '1004' },
    ]);
    expect(sg().reviews.rec.representations).toEqual([
      { __typename: 'Product', sku: 'TBL-OAK', variant: { id: 'small' } },
      { __typename: 'Product', sku: 'LMP-BRS', variant: { id: 'std' } },
    ]);
  });
});

describe('@requires', () => {
  test('shippingEstimate is computed by inventory from weight and price fetched from products', async () => {
    const res = await graphql(gateway.url, '{ products { upc shippingEstimate } }');
    expect(res).toEqual({
      status: 200,
      body: {
        data: {
          products: [
            { upc: '1001', shippingEstimate: 0 }, // 1299.00: free
            { upc: '1002', shippingEstimate: 2_600 }, // 21 kg
            { upc: '1003', shippingEstimate: 1_100 }, // 6 kg
            { upc: '1004', shippingEstimate: 700 }, // 1.5 kg → 2 started kg
          ],
        },
      },
    });
    expect(sg().inventory.rec.representations).toEqual([
      { __typename: 'Product', upc: '1001', weight: 32_000, price: 129_900 },
      { __typename: 'Product', upc: '1002', weight: 21_000, price: 89_900 },
      { __typename: 'Product', upc: '1003', weight: 6_000, price: 14_900 },
      { __typename: 'Product', upc: '1004', weight: 1_500, price: 5_900 },
    ]);
  });

  test('starting in inventory: inventory → products (weight, price) → inventory again', async () => {
    const res = await graphql(gateway.url, '{ restockNeeded { upc shippingEstimate } }');
    expect(res).toEqual({
      status: 200,
      body: {
        data: {
          restockNeeded: [
            { upc: '1002', shippingEstimate: 2_600 },
            { upc: '1004', shippingEstimate: 700 },
          ],
        },
      },
    });
    expect(sg().inventory.rec.requests).toBe(2);
    expect(sg().products.rec.requests).toBe(1);
    expect(sg().inventory.rec.representations).toEqual([
      { __typename: 'Product', upc: '1002', weight: 21_000, price: 89_900 },
      { __typename: 'Product', upc: '1004', weight: 1_500, price: 5_900 },
    ]);
  });
});

describe('@provides', () => {
  test('Review.author provides name: answered by reviews alone, users is not asked', async () => {
    const res = await graphql(gateway.url, '{ reviews { id author { id name } } }');
    expect(res).toEqual({
      status: 200,
      body: {
        data: {
          reviews: [
            { id: 'r1', author: { id: 'u1', name: 'Ada Lovelace' } },
            { id: 'r2', author: { id: 'u2', name: 'Grace Hopper' } },
            { id: 'r3', author: { id: 'u1', name: 'Ada Lovelace' } },
          ],
        },
      },
    });
    expect(sg().reviews.rec.requests).toBe(1);
    expect(sg().users.rec.requests).toBe(0);
    expect(sg().users.rec.callsOf('User.name')).toBe(0);
  });

  test('Review.likedBy provides nothing: the names come from users', async () => {
    const res = await graphql(gateway.url, '{ reviews { id likedBy { id name } } }');
    expect(res).toEqual({
      status: 200,
      body: {
        data: {
          reviews: [
            { id: 'r1', likedBy: [{ id: 'u2', name: 'Grace Hopper' }] },
            {
              id: 'r2',
              likedBy: [
                { id: 'u1', name: 'Ada Lovelace' },
                { id: 'u3', name: 'Katherine Johnson' },
              ],
            },
            { id: 'r3', likedBy: [] },
          ],
        },
      },
    });
    expect(sg().users.rec.requests).toBe(1);
    expect(sg().users.rec.representations).toEqual([
      { __typename: 'User', id: 'u2' },
      { __typename: 'User', id: 'u1' },
      { __typename: 'User', id: 'u3' },
    ]);
    expect(sg().users.rec.callsOf('User.name')).toBe(3);
  });

  test('a field of the author that is not provided (email) makes the gateway fetch the authors from users', async () => {
    const res = await graphql(gateway.url, '{ reviews { id author { email } } }');
    expect(res).toEqual({
      status: 200,
      body: {
        data: {
          reviews: [
            { id: 'r1', author: { email: 'ada@example.com' } },
            { id: 'r2', author: { email: 'grace@example.com' } },
            { id: 'r3', author: { email: 'ada@example.com' } },
          ],
        },
      },
    });
    expect(sg().users.rec.requests).toBe(1);
    // one representation per author, though u1 wrote two of the reviews: equal representations are sent once and
    // the answer goes to every place the author appears (Apollo Gateway sent one per occurrence)
    expect(sg().users.rec.representations).toEqual([
      { __typename: 'User', id: 'u1' },
      { __typename: 'User', id: 'u2' },
    ]);
  });
});

describe('@override', () => {
  test('Product.inStock is answered by inventory, never by products (whose legacy resolver says true for all)', async () => {
    const res = await graphql(gateway.url, '{ products { upc inStock } }');
    expect(res).toEqual({
      status: 200,
      body: {
        data: {
          products: [
            { upc: '1001', inStock: true },
            { upc: '1002', inStock: false },
            { upc: '1003', inStock: true },
            { upc: '1004', inStock: false },
          ],
        },
      },
    });
    expect(sg().products.rec.callsOf('Product.inStock')).toBe(0);
    expect(sg().inventory.rec.callsOf('Product.inStock')).toBe(4);
    // the marker discriminates: asked directly, products still answers its legacy value
    expect(await direct(sg().products.url, '{ products { upc inStock } }')).toEqual({
      data: { products: products.PRODUCTS.map((p) => ({ upc: p.upc, inStock: true })) },
    });
    expect(sg().products.rec.callsOf('Product.inStock')).toBe(4);
  });
});

describe('@interfaceObject', () => {
  test('a query over the entity interface Media gets reviews’ fields for each concrete type', async () => {
    const res = await graphql(
      gateway.url,
      `
        {
          media {
            __typename
            id
            title
            ... on Book {
              author
              pages
            }
            ... on Movie {
              director
            }
            reviewCount
            averageRating
          }
        }
      `,
    );
    expect(res).toEqual({
      status: 200,
      body: {
        data: {
          media: [
            {
              __typename: 'Book',
              id: 'm1',
              title: 'Structure and Interpretation of Computer Programs',
              author: 'Abelson & Sussman',
              pages: 657,
              reviewCount: 2,
              averageRating: 4.5,
            },
            {
              __typename: 'Movie',
              id: 'm2',
              title: 'Hidden Figures',
              director: 'Theodore Melfi',
              reviewCount: 1,
              averageRating: 3,
            },
            {
              __typename: 'Book',
              id: 'm3',
              title: 'The Art of Computer Programming',
              author: 'Donald Knuth',
              pages: 672,
              reviewCount: 0,
              averageRating: null,
            },
          ],
        },
      },
    });
    // the interface object is asked as Media, not as Book or Movie
    expect(sg().reviews.rec.representations).toEqual([
      { __typename: 'Media', id: 'm1' },
      { __typename: 'Media', id: 'm2' },
      { __typename: 'Media', id: 'm3' },
    ]);
  });

  test('fields of the concrete type on a list the interface-object subgraph returns (products finds the type)', async () => {
    const res = await graphql(
      gateway.url,
      '{ topRatedMedia { __typename id title averageRating ... on Movie { minutes } ... on Book { pages } } }',
    );
    expect(res).toEqual({
      status: 200,
      body: {
        data: {
          topRatedMedia: [
            {
              __typename: 'Book',
              id: 'm1',
              title: 'Structure and Interpretation of Computer Programs',
              averageRating: 4.5,
              pages: 657,
            },
            { __typename: 'Movie', id: 'm2', title: 'Hidden Figures', averageRating: 3, minutes: 127 },
          ],
        },
      },
    });
    expect(sg().products.rec.representations).toEqual([
      { __typename: 'Media', id: 'm1' },
      { __typename: 'Media', id: 'm2' },
    ]);
  });
});

describe('@shareable', () => {
  test('Product.name resolves from products and, for products reached through reviews, from reviews itself', async () => {
    const res = await graphql(gateway.url, '{ reviews { id product { name } } }');
    expect(res).toEqual({
      status: 200,
      body: {
        data: {
          reviews: [
            { id: 'r1', product: { name: 'Oak Table (large)' } },
            { id: 'r2', product: { name: 'Oak Table (small)' } },
            { id: 'r3', product: { name: 'Oak Chair' } },
          ],
        },
      },
    });
    // both subgraphs can resolve it, so the plan needs no hop to products
    expect(sg().reviews.rec.requests).toBe(1);
    expect(sg().products.rec.requests).toBe(0);

    const fromProducts = await graphql(gateway.url, '{ product(upc: "1004") { name variant { id } } }');
    expect(fromProducts).toEqual({
      status: 200,
      body: { data: { product: { name: 'Brass Lamp', variant: { id: 'std' } } } },
    });
    expect(sg().products.rec.requests).toBe(1);
  });
});

describe('@inaccessible', () => {
  test('User.passwordHash exists in the users subgraph but cannot be queried through the gateway', async () => {
    expect(await direct(sg().users.url, '{ user(id: "u1") { passwordHash } }')).toEqual({
      data: { user: { passwordHash: '$2b$10$ada' } },
    });
    sg().users.rec.reset();

    const res = await graphql(gateway.url, '{ user(id: "u1") { id passwordHash } }');
    expect(res).toEqual({
      status: 400,
      body: {
        errors: [
          {
            message: 'Cannot query field "passwordHash" on type "User".',
            locations: [{ line: 1, column: 23 }],
            extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
          },
        ],
      },
    });
    expect(sg().users.rec.requests).toBe(0);
  });

  test('introspection does not list it', async () => {
    const res = await graphql(gateway.url, '{ __type(name: "User") { fields { name } } }');
    expect(res.status).toBe(200);
    const fields = (res.body.data as { __type: { fields: Array<{ name: string }> } }).__type.fields.map((f) => f.name);
    expect(fields.sort()).toEqual(['email', 'id', 'name']);
  });
});

test('composition: a non-shareable field resolved by two subgraphs is a CompositionError with Apollo’s message', () => {
  const rogue = subgraphSchema(`
    extend schema @link(url: "https://specs.apollo.dev/federation/v2.7", import: ["@key"])
    type Query { bestseller: Product }
    type Product @key(fields: "upc") { upc: String! price: Int! }
  `);
  let error: unknown;
  try {
    composeSupergraph([
      { name: 'products', url: sg().products.url, schema: sg().products.schema },
      { name: 'rogue', url: 'http://127.0.0.1:9/', schema: rogue },
    ]);
  } catch (err) {
    error = err;
  }
  expect(error).toBeInstanceOf(CompositionError);
  expect((error as CompositionError).messages).toEqual([
    'Non-shareable field "Product.price" is resolved from multiple subgraphs: it is resolved from subgraphs "products" and "rogue" and defined as non-shareable in all of them',
  ]);
});

// Last: stops a subgraph for the rest of the file.
test('a subgraph stopped mid-run: the other subgraphs’ data comes back with an error naming it', async () => {
  const before = await graphql(gateway.url, '{ products { upc reviews { rating } } }');
  expect(before.body.errors).toBeUndefined();

  await sg().reviews.stop();
  const res = await graphql(gateway.url, '{ products { upc name reviews { rating } } }');
  expect(res.status).toBe(200);
  expect(res.body.data).toEqual({
    products: [
      { upc: '1001', name: 'Oak Table (large)', reviews: null },
      { upc: '1002', name: 'Oak Table (small)', reviews: null },
      { upc: '1003', name: 'Oak Chair', reviews: null },
      { upc: '1004', name: 'Brass Lamp', reviews: null },
    ],
  });
  expect(res.body.errors).toEqual([
    expect.objectContaining({
      message: expect.stringMatching(/^subgraph reviews is unavailable: .*connect ECONNREFUSED 127\.0\.0\.1:\d+$/),
      extensions: { code: 'SUBGRAPH_UNAVAILABLE', serviceName: 'reviews' },
    }),
  ]);
});
