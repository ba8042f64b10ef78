import { buildSubgraphSchema } from '@apollo/subgraph';
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper';
import { type GraphQLSchema, parse } from 'graphql';

/**
 * The four subgraphs of The Guild's federation gateway benchmark (graphql-hive/graphql-gateways-benchmark, whose
 * subgraphs are Rust async-graphql services), re-expressed with @apollo/subgraph over data generated here
 * (generateGwbenchData): the same data and the same answers as the original's, so a gateway over them returns the
 * benchmark's expected response. Their SDL composes to the benchmark's supergraph (gwbench/supergraph.graphql;
 * gwbench-workload.ts checks that). The expected response itself is derived from the same data without any subgraph
 * or gateway (gwbench-workload.ts, expectedResponse).
 *
 * The original's quirks are kept on purpose, since the expected response depends on them:
 * - every review's author is user 1 ("urigo", provided by the reviews subgraph);
 * - every user's `reviews` are the first two reviews, whoever the user is;
 * - `shippingEstimate` is computed from the inventory subgraph's own record of the product, which knows neither price
 *   nor weight (the entity resolver keeps only the key), so it is always null although the gateway sends both.
 */

const FED2 =
  'extend schema @link(url: "https://specs.apollo.dev/federation/v2.0", import: ["@key", "@external", "@requires", "@provides", "@shareable"])';

export const SUBGRAPH_SDL: Readonly<Record<SubgraphName, string>> = {
  accounts: `${FED2}
    type Query { me: User  user(id: ID!): User  users: [User] }
    type User @key(fields: "id") { id: ID!  name: String  username: String @shareable  birthday: Int }`,
  inventory: `${FED2}
    type Product @key(fields: "upc") {
      upc: String!
      weight: Int @external
      price: Int @external
      inStock: Boolean
      shippingEstimate: Int @requires(fields: "price weight")
    }`,
  products: `${FED2}
    type Query { topProducts(first: Int = 5): [Product] }
    type Product @key(fields: "upc") { upc: String!  name: String  price: Int  weight: Int }`,
  reviews: `${FED2}
    type Review @key(fields: "id") { id: ID!  body: String  product: Product  author: User @provides(fields: "username") }
    type User @key(fields: "id") { id: ID!  username: String @external  reviews: [Review] }
    type Product @key(fields: "upc") { upc: String!  reviews: [Review] }`,
};

export const SUBGRAPH_NAMES = ['accounts', 'inventory', 'products', 'reviews'] as const;
export type SubgraphName = (typeof SUBGRAPH_NAMES)[number];

/** A user as the accounts subgraph knows it. */
export interface GwbenchUser {
  id: string;
  name: string | null;
  username: string | null;
  birthday: number | null;
}
/** A product as the products subgraph knows it. */
export interface GwbenchProduct {
  upc: string;
  name: string;
  price: number;
  weight: number;
}
/** The inventory subgraph's record of a product: its stock only, neither price nor weight (see the note on top). */
export interface GwbenchStock {
  upc: string;
  inStock: boolean;
}
/** A review as the reviews subgraph knows it. */
export interface GwbenchReview {
  id: string;
  body: string;
  upc: string; // the product reviewed
  authorId: string;
}
/** What the four subgraphs know, each table owned by one of them. */
export interface GwbenchData {
  users: readonly GwbenchUser[]; // accounts
  products: readonly GwbenchProduct[]; // products
  stock: readonly GwbenchStock[]; // inventory
  reviews: readonly GwbenchReview[]; // reviews
  /** The ids of the reviews the reviews subgraph lists for any user, whoever the user is (the original's quirk). */
  everyUsersReviews: readonly string[];
}

const BIRTHDAY = 1234567890;
const PEOPLE: [name: string, username: string][] = [
  ['Uri Goldshtein', 'urigo'],
  ['Dotan Simha', 'dotansimha'],
  ['Kamil Kisiela', 'kamilkisiela'],
  ['Arda Tanrikulu', 'ardatan'],
  ['Gil Gardosh', 'gilgardosh'],
  ['Laurin Quast', 'laurin'],
];

// [name, price, weight, in stock], upc = position + 1
const CATALOG: [string, number, number, boolean][] = [
  ['Table', 899, 100, true],
  ['Couch', 1299, 1000, false],
  ['Glass', 15, 20, false],
  ['Chair', 499, 100, false],
  ['TV', 1299, 1000, true],
  ['Lamp', 6999, 300, true],
  ['Grill', 3999, 2000, true],
  ['Fridge', 100000, 6000, false],
  ['Sofa', 9999, 800, true],
];

const TEXTS = [
  'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat. Duis aute irure dolor in reprehenderit in voluptate velit esse cillum dolore eu fugiat nulla pariatur. Excepteur sint occaecat cupidatat non proident, sunt in culpa qui officia deserunt mollit anim id est laborum.',
  'Sed ut perspiciatis unde omnis iste natus error sit voluptatem accusantium doloremque laudantium, totam rem aperiam, eaque ipsa quae ab illo inventore veritatis et quasi architecto beatae vitae dicta sunt explicabo. Nemo enim ipsam voluptatem quia voluptas sit aspernatur aut odit aut fugi',
  'sed quia consequuntur magni dolores eos qui ratione voluptatem sequi nesciunt. Neque porro quisquam est, qui dolorem ipsum quia dolor sit amet, consectetur, adipisci velit, sed quia non numquam eius modi tempora incidunt ut labore et dolore magnam aliquam quaerat voluptatem.',
  'Ut enim ad minima veniam, quis nostrum exercitationem ullam corporis suscipit laboriosam, nisi ut aliquid ex ea commodi consequatur? Quis autem',
  'At vero eos et accusamus et iusto odio dignissimos ducimus qui blanditiis praesentium voluptatum deleniti atque corrupti quos dolores et quas molestias excepturi sint occaecati cupiditate non provident, similique sunt in culpa qui officia deserunt mollitia animi, id est laborum et dolorum fuga. Et harum quidem rerum facilis est et expedita distinctio. Nam libero tempore, cum soluta nobis est eligendi optio cumque nihil impedit quo minus id quod maxime placeat facere possimus, omnis voluptas assumenda est, omnis dolor repellendus. Temporibus autem quibusdam et aut officiis debitis aut rerum necessitatibus saepe eveniet ut et voluptates repudiandae sint et molestiae non recusandae. Itaque earum rerum hic tenetur a sapiente delectus, ut aut reiciendis voluptatibus maiores alias consequatur aut perferendis doloribus asperiores repellat.',
];
// review id = position + 1: [upc of the product reviewed, index in TEXTS]
const REVIEW_ROWS: [string, number][] = [
  ['1', 0],
  ['1', 1],
  ['1', 2],
  ['1', 3],
  ['2', 0],
  ['2', 1],
  ['2', 2],
  ['2', 3],
  ['3', 3],
  ['4', 3],
  ['4', 4],
];
const AUTHOR_ID = '1'; // every review's author
const REVIEWS_PER_USER = 2; // every user's reviews: the first two

/**
 * The benchmark's data, generated afresh on every call (deterministic: the same tables every time). The values are
 * the public benchmark's own, since its expected response is made of them; the rules are the original's: ids and upcs
 * are positions counted from 1, every user has the same birthday, every review is by user 1, every user's reviews are
 * the first two, and the inventory knows only whether a product is in stock.
 */
export function generateGwbenchData(): GwbenchData {
  const reviews = REVIEW_ROWS.map(([upc, text], i) => ({
    id: String(i + 1),
    body: TEXTS[text] ?? '',
    upc,
    authorId: AUTHOR_ID,
  }));
  return {
    users: PEOPLE.map(([name, username], i) => ({ id: String(i + 1), name, username, birthday: BIRTHDAY })),
    products: CATALOG.map(([name, price, weight], i) => ({ upc: String(i + 1), name, price, weight })),
    stock: CATALOG.map(([, , , inStock], i) => ({ upc: String(i + 1), inStock })),
    reviews,
    everyUsersReviews: reviews.slice(0, REVIEWS_PER_USER).map((r) => r.id),
  };
}

/**
 * The inventory subgraph's shipping estimate of a product from what it knows of the product: free above a price of
 * 1000, else half the weight; null when it knows no price (always, for its own records: see the note on top).
 */
export function shippingEstimate(known: { upc: string; price?: number | null; weight?: number | null }): number | null {
  if (known.price === undefined || known.price === null) return null;
  if (known.price > 1000) return 0;
  return known.weight === undefined || known.weight === null ? null : Math.trunc(known.weight / 2);
}

/** Rows by one of their fields (each workload's data tables, looked up by id). */
export const byKey = <T, K extends keyof T>(rows: readonly T[], key: K): Map<T[K], T> =>
  new Map(rows.map((r) => [r[key], r]));

/** Rows grouped by a key of each (e.g. reviews by product). */
export function groupBy<T>(rows: readonly T[], key: (row: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const r of rows) {
    const k = key(r);
    const list = out.get(k);
    if (list) list.push(r);
    else out.set(k, [r]);
  }
  return out;
}

/** A workload's executable subgraph schemas, by name: each SDL with its resolvers. */
export function buildSubgraphSchemas<N extends string>(
  sdl: Readonly<Record<N, string>>,
  resolvers: Record<N, GraphQLResolverMap<unknown>>,
): Map<N, GraphQLSchema> {
  return new Map(
    (Object.keys(sdl) as N[]).map((name) => [
      name,
      buildSubgraphSchema({ typeDefs: parse(sdl[name]), resolvers: resolvers[name] }),
    ]),
  );
}

function resolvers(data: GwbenchData): Record<SubgraphName, GraphQLResolverMap<unknown>> {
  const usersById = byKey(data.users, 'id');
  const productsByUpc = byKey(data.products, 'upc');
  const stockByUpc = byKey(data.stock, 'upc');
  const reviewsById = byKey(data.reviews, 'id');
  const everyUsersReviews = data.everyUsersReviews.map((id) => reviewsById.get(id));
  return {
    accounts: {
      Query: {
        me: () => data.users[0] ?? null,
        user: (_: unknown, args: { id: string }) => usersById.get(args.id) ?? null,
        users: () => data.users,
      },
      User: { __resolveReference: (ref: { id: string }) => usersById.get(ref.id) ?? null },
    },
    inventory: {
      Product: {
        // only its own record: the representation's price and weight are not kept (the original's behaviour)
        __resolveReference: (ref: { upc: string }) => {
          const record = stockByUpc.get(ref.upc);
          return record ? { upc: record.upc, inStock: record.inStock } : null;
        },
        shippingEstimate: (p: GwbenchStock) => shippingEstimate(p),
      },
    },
    products: {
      Query: {
        topProducts: (_: unknown, args: { first?: number | null }) => data.products.slice(0, args.first ?? 5),
      },
      Product: { __resolveReference: (ref: { upc: string }) => productsByUpc.get(ref.upc) ?? null },
    },
    reviews: {
      Review: {
        __resolveReference: (ref: { id: string }) => reviewsById.get(ref.id) ?? null,
        product: (r: GwbenchReview) => ({ upc: r.upc }),
        author: (r: GwbenchReview) => ({ id: r.authorId, username: usersById.get(r.authorId)?.username ?? null }),
      },
      User: {
        __resolveReference: (ref: { id: string }) => ({ id: ref.id, username: 'user' }),
        reviews: () => everyUsersReviews,
      },
      Product: {
        __resolveReference: (ref: { upc: string }) => ({ upc: ref.upc }),
        reviews: (p: { upc: string }) => data.reviews.filter((r) => r.upc === p.upc),
      },
    },
  };
}

/** The executable subgraph schemas, by name. */
export function buildGwbenchSubgraphs(data: GwbenchData = generateGwbenchData()): Map<SubgraphName, GraphQLSchema> {
  return buildSubgraphSchemas(SUBGRAPH_SDL, resolvers(data));
}
