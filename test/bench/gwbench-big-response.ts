import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper';
import type { GraphQLSchema } from 'graphql';
import { buildSubgraphSchemas, byKey, groupBy } from './gwbench-schema';
import { composeSupergraph, deriveResponse, type ReferenceResolvers } from './gwbench-workload';

/**
 * The `big-response` workload of `npm run bench -- gwbench`, after the "massive response payload" scenario of
 * Grafbase's federation gateway benchmark (2025): one query answered with about 5 MB of JSON, a long list of entities
 * from one subgraph, each completed by entity fetches to three others (inventory with `@requires`, reviews, and
 * accounts for every review's author). Written here, not copied; the data is generated (deterministic) and the
 * expected response derived from it by graphql-js without any subgraph or gateway (deriveResponse).
 */

const FED2 =
  'extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key", "@external", "@requires", "@shareable"])';

export const BIG_SUBGRAPH_SDL = {
  accounts: `${FED2}
    type User @key(fields: "id") { id: ID!  name: String  username: String  email: String }`,
  products: `${FED2}
    type Query { products(first: Int!): [Product] }
    type Product @key(fields: "upc") { upc: String!  name: String  description: String  price: Int  weight: Int }`,
  inventory: `${FED2}
    type Product @key(fields: "upc") {
      upc: String!  price: Int @external  weight: Int @external
      inStock: Boolean  quantity: Int  shippingEstimate: Int @requires(fields: "price weight")
    }`,
  reviews: `${FED2}
    type Product @key(fields: "upc") { upc: String!  reviews: [Review] }
    type Review @key(fields: "id") { id: ID!  body: String  rating: Int  author: User }
    type User @key(fields: "id") { id: ID! }`,
} as const;
export type BigSubgraphName = keyof typeof BIG_SUBGRAPH_SDL;

export interface BigUser {
  id: string;
  name: string;
  username: string;
  email: string;
}
export interface BigProduct {
  upc: string;
  name: string;
  description: string;
  price: number;
  weight: number;
}
export interface BigStock {
  upc: string;
  inStock: boolean;
  quantity: number;
}
export interface BigReview {
  id: string;
  body: string;
  rating: number;
  authorId: string;
  upc: string;
}
export interface BigResponseData {
  users: readonly BigUser[]; // accounts
  products: readonly BigProduct[]; // products
  stock: readonly BigStock[]; // inventory
  reviews: readonly BigReview[]; // reviews
}

/** Products the query lists (all of them). */
export const BIG_PRODUCTS = 3500;
const USERS = 500;
const REVIEWS_PER_PRODUCT = 4;
const WORDS = (
  'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec ' +
  'romeo sierra tango uniform victor whiskey xray yankee zulu'
).split(' ');

/** `n` words picked deterministically from `seed`. */
function text(seed: number, n: number): string {
  const out: string[] = [];
  let x = Math.imul(seed, 2654435761) >>> 0;
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out.push(WORDS[(x >>> 8) % WORDS.length] as string);
  }
  return out.join(' ');
}

/** The workload's data, generated afresh (deterministic: the same tables on every call). */
export function generateBigResponseData(): BigResponseData {
  const users = Array.from({ length: USERS }, (_, i) => ({
    id: String(i + 1),
    name: text(i + 1, 2),
    username: `user${i + 1}`,
    email: `user${i + 1}@example.test`,
  }));
  const products = Array.from({ length: BIG_PRODUCTS }, (_, i) => ({
    upc: String(i + 1),
    name: `${text(i + 7, 2)} ${i + 1}`,
    description: text(i + 11, 20),
    price: 50 + ((i * 389) % 3000),
    weight: 5 + ((i * 61) % 2000),
  }));
  const stock = products.map((p, i) => ({ upc: p.upc, inStock: i % 4 !== 0, quantity: (i * 17) % 250 }));
  const reviews: BigReview[] = [];
  for (let i = 0; i < BIG_PRODUCTS; i++)
    for (let k = 0; k < REVIEWS_PER_PRODUCT; k++) {
      const n = i * REVIEWS_PER_PRODUCT + k;
      reviews.push({
        id: String(n + 1),
        body: text(n + 13, 24),
        rating: (n % 5) + 1,
        authorId: String(((n * 7) % USERS) + 1),
        upc: String(i + 1),
      });
    }
  return { users, products, stock, reviews };
}

/** Inventory's estimate from the price and weight the gateway sends (@requires): free above 1000, else weight / 2. */
export function bigShippingEstimate(
  price: number | null | undefined,
  weight: number | null | undefined,
): number | null {
  if (price === undefined || price === null) return null;
  if (price > 1000) return 0;
  return weight === undefined || weight === null ? null : Math.trunc(weight / 2);
}

function subgraphResolvers(data: BigResponseData): Record<BigSubgraphName, GraphQLResolverMap<unknown>> {
  const users = byKey(data.users, 'id');
  const products = byKey(data.products, 'upc');
  const stock = byKey(data.stock, 'upc');
  const reviews = byKey(data.reviews, 'id');
  const byProduct = groupBy(data.reviews, (r) => r.upc);
  return {
    accounts: { User: { __resolveReference: (ref: { id: string }) => users.get(ref.id) ?? null } },
    products: {
      Query: { products: (_: unknown, args: { first: number }) => data.products.slice(0, args.first) },
      Product: { __resolveReference: (ref: { upc: string }) => products.get(ref.upc) ?? null },
    },
    inventory: {
      Product: {
        __resolveReference: (ref: { upc: string; price?: number | null; weight?: number | null }) => {
          const record = stock.get(ref.upc);
          return record ? { ...record, price: ref.price, weight: ref.weight } : null;
        },
        shippingEstimate: (p: { price?: number | null; weight?: number | null }) =>
          bigShippingEstimate(p.price, p.weight),
      },
    },
    reviews: {
      Product: {
        __resolveReference: (ref: { upc: string }) => ({ upc: ref.upc }),
        reviews: (p: { upc: string }) => byProduct.get(p.upc) ?? [],
      },
      Review: {
        __resolveReference: (ref: { id: string }) => reviews.get(ref.id) ?? null,
        author: (r: BigReview) => ({ id: r.authorId }),
      },
      User: { __resolveReference: (ref: { id: string }) => ({ id: ref.id }) },
    },
  };
}

/** The four executable subgraph schemas, by name. */
export function buildBigResponseSubgraphs(data = generateBigResponseData()): Map<string, GraphQLSchema> {
  return buildSubgraphSchemas(BIG_SUBGRAPH_SDL, subgraphResolvers(data));
}

/** The API's fields over the data tables, no subgraph involved. */
function referenceResolvers(data: BigResponseData): ReferenceResolvers {
  const users = byKey(data.users, 'id');
  const stock = byKey(data.stock, 'upc');
  const byProduct = groupBy(data.reviews, (r) => r.upc);
  return {
    Query: { products: (_, args) => data.products.slice(0, args.first as number) },
    Product: {
      inStock: (p: { upc: string }) => stock.get(p.upc)?.inStock ?? null,
      quantity: (p: { upc: string }) => stock.get(p.upc)?.quantity ?? null,
      shippingEstimate: (p: BigProduct) => bigShippingEstimate(p.price, p.weight),
      reviews: (p: { upc: string }) => byProduct.get(p.upc) ?? [],
    },
    Review: { author: (r: BigReview) => users.get(r.authorId) ?? null },
  };
}

export const BIG_RESPONSE_QUERY = `query BigResponse {
  products(first: ${BIG_PRODUCTS}) {
    upc name description price weight inStock quantity shippingEstimate
    reviews { id body rating author { id name username email } }
  }
}`;
export const BIG_RESPONSE_BODY = JSON.stringify({ query: BIG_RESPONSE_QUERY });

export interface BigResponseWorkload {
  supergraph: string;
  query: string;
  body: string;
  data: BigResponseData;
  expected: unknown;
}

/** The workload: the four subgraphs composed, the data generated and the expected response derived from it. */
export function loadBigResponseWorkload(data = generateBigResponseData()): BigResponseWorkload {
  const supergraph = composeSupergraph(buildBigResponseSubgraphs(data));
  const expected = deriveResponse(supergraph, BIG_RESPONSE_QUERY, referenceResolvers(data));
  return { supergraph, query: BIG_RESPONSE_QUERY, body: BIG_RESPONSE_BODY, data, expected };
}
