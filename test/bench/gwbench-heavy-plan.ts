import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper';
import type { GraphQLSchema } from 'graphql';
import { buildSubgraphSchemas, byKey, groupBy } from './gwbench-schema';
import { composeSupergraph, deriveResponse, type ReferenceResolvers } from './gwbench-workload';

/**
 * The `heavy-plan` workload of `npm run bench -- gwbench`, after the "complex query planning" scenario of Grafbase's
 * federation gateway benchmark (2025): one operation whose plan is hard, over six subgraphs with abstract types spread
 * across them. Written here, not copied:
 * - interface `Product` (catalog) with three entity implementations, Book, Furniture and Gadget, whose fields also
 *   come from inventory and reviews;
 * - union `Reviewable` (reviews) and union `SearchResult` (search) of entities owned elsewhere;
 * - `@requires`: inventory's `shippingEstimate` needs catalog's `price` and `weight`, reached from three types and
 *   through both unions;
 * - `@provides`: reviews provides its authors' `username`, so some author selections need no accounts fetch;
 * - nineteen named fragments, nested, on interfaces, unions and objects, with inline fragments inside.
 * The data is generated (deterministic); the expected response is derived from it by graphql-js without any subgraph
 * or gateway (deriveResponse), as for the gwbench workload.
 */

const FED2 =
  'extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key", "@external", "@requires", "@provides", "@shareable"])';
const KINDS = ['Book', 'Furniture', 'Gadget'] as const;
type Kind = (typeof KINDS)[number];
const stubs = (fields: string): string =>
  KINDS.map((k) => `type ${k} @key(fields: "id") { id: ID! ${fields} }`).join('\n');

export const HEAVY_SUBGRAPH_SDL = {
  accounts: `${FED2}
    type Query { me: User  users(first: Int = 10): [User] }
    type User @key(fields: "id") { id: ID!  name: String  username: String @shareable  email: String  address: Address }
    type Address { street: String  city: String  country: String }`,
  catalog: `${FED2}
    type Query { products(first: Int = 10): [Product]  product(id: ID!): Product }
    interface Product { id: ID!  name: String  price: Int  weight: Int }
    type Book implements Product @key(fields: "id") { id: ID!  name: String  price: Int  weight: Int  writer: String  pages: Int }
    type Furniture implements Product @key(fields: "id") { id: ID!  name: String  price: Int  weight: Int  material: String }
    type Gadget implements Product @key(fields: "id") { id: ID!  name: String  price: Int  weight: Int  brand: String }`,
  inventory: `${FED2}
    ${stubs('price: Int @external  weight: Int @external  inStock: Boolean  shippingEstimate: Int @requires(fields: "price weight")  warehouse: Warehouse')}
    type Warehouse { id: ID!  city: String }`,
  reviews: `${FED2}
    type Review @key(fields: "id") { id: ID!  body: String  rating: Int  author: User @provides(fields: "username")  subject: Reviewable }
    type User @key(fields: "id") { id: ID!  username: String @external  reviews: [Review] }
    union Reviewable = Book | Furniture | Gadget
    ${stubs('reviews: [Review]')}`,
  search: `${FED2}
    type Query { search(term: String!): [SearchResult] }
    union SearchResult = User | Book | Furniture | Gadget | Review
    type User @key(fields: "id") { id: ID! }
    type Review @key(fields: "id") { id: ID! }
    ${stubs('')}`,
  social: `${FED2}
    type User @key(fields: "id") { id: ID!  friends: [User]  followers: Int }`,
} as const;
export type HeavySubgraphName = keyof typeof HEAVY_SUBGRAPH_SDL;

export interface HeavyUser {
  __typename: 'User';
  id: string;
  name: string;
  username: string;
  email: string;
  address: { street: string; city: string; country: string };
}
export interface HeavyProduct {
  __typename: Kind;
  id: string;
  name: string;
  price: number;
  weight: number;
  writer?: string; // Book
  pages?: number; // Book
  material?: string; // Furniture
  brand?: string; // Gadget
}
/** Inventory's record of a product (neither price nor weight: those come with the representation, @requires). */
export interface HeavyStock {
  id: string;
  inStock: boolean;
  warehouse: { id: string; city: string };
}
export interface HeavyReview {
  __typename: 'Review';
  id: string;
  body: string;
  rating: number;
  authorId: string;
  subjectId: string; // a product's id
}
export interface HeavyPlanData {
  users: readonly HeavyUser[]; // accounts
  products: readonly HeavyProduct[]; // catalog
  stock: readonly HeavyStock[]; // inventory
  reviews: readonly HeavyReview[]; // reviews
  friends: Readonly<Record<string, readonly string[]>>; // social: user id → friends' ids
  followers: Readonly<Record<string, number>>; // social
  searchIndex: Readonly<Record<string, readonly { __typename: string; id: string }[]>>; // search: term → hits
}

const CITIES = ['Lisbon', 'Oslo', 'Kyoto', 'Quito', 'Accra', 'Perth'];
const COUNTRIES = ['PT', 'NO', 'JP', 'EC', 'GH', 'AU'];
const WORDS = ['oak', 'maple', 'steel', 'linen', 'amber', 'cedar', 'slate', 'ivory', 'cobalt', 'walnut'];
const USERS = 24;
const PRODUCTS = 36;
const REVIEWS_PER_PRODUCT = 4;

/** The workload's data, generated afresh (deterministic: the same tables on every call). */
export function generateHeavyPlanData(): HeavyPlanData {
  const word = (i: number): string => WORDS[i % WORDS.length] as string;
  const users: HeavyUser[] = Array.from({ length: USERS }, (_, i) => ({
    __typename: 'User',
    id: `u${i + 1}`,
    name: `${word(i * 3)} ${word(i * 7 + 1)}`,
    username: `user${i + 1}`,
    email: `user${i + 1}@example.test`,
    address: {
      street: `${i + 1} ${word(i)} street`,
      city: CITIES[i % 6] as string,
      country: COUNTRIES[i % 6] as string,
    },
  }));
  const products: HeavyProduct[] = Array.from({ length: PRODUCTS }, (_, i) => {
    const kind = KINDS[i % 3] as Kind;
    const base = { __typename: kind, id: `p${i + 1}`, name: `${word(i)} ${kind.toLowerCase()} ${i + 1}` };
    const price = 100 + ((i * 337) % 2000);
    const weight = 10 + ((i * 53) % 900);
    if (kind === 'Book') return { ...base, price, weight, writer: users[i % USERS]?.name, pages: 100 + i * 7 };
    if (kind === 'Furniture') return { ...base, price, weight, material: word(i * 5 + 2) };
    return { ...base, price, weight, brand: `${word(i * 11 + 3)} labs` };
  });
  const stock = products.map((p, i) => ({
    id: p.id,
    inStock: (i * 7) % 3 !== 0,
    warehouse: { id: `w${(i % 4) + 1}`, city: CITIES[(i * 5) % 6] as string },
  }));
  const reviews: HeavyReview[] = [];
  for (const [i, p] of products.entries())
    for (let k = 0; k < REVIEWS_PER_PRODUCT; k++) {
      const n = i * REVIEWS_PER_PRODUCT + k;
      reviews.push({
        __typename: 'Review',
        id: `r${n + 1}`,
        body: `${word(n)} ${word(n * 3 + 1)} review ${n + 1} of ${p.name}: ${word(n * 7 + 2)} and ${word(n + 5)}.`,
        rating: (n % 5) + 1,
        authorId: `u${((n * 5) % USERS) + 1}`,
        subjectId: p.id,
      });
    }
  const friends: Record<string, string[]> = {};
  const followers: Record<string, number> = {};
  for (let i = 0; i < USERS; i++) {
    friends[`u${i + 1}`] = [1, 3, 7].map((d) => `u${((i + d) % USERS) + 1}`);
    followers[`u${i + 1}`] = (i * 37) % 1000;
  }
  // every term: some users, products of each kind and reviews, in a fixed mixed order
  const searchIndex: Record<string, { __typename: string; id: string }[]> = {};
  for (const [t, term] of ['oak', 'cedar'].entries()) {
    const hits: { __typename: string; id: string }[] = [];
    for (let k = 0; k < 6; k++) {
      hits.push({ __typename: 'User', id: `u${((t * 5 + k * 3) % USERS) + 1}` });
      const p = products[(t * 7 + k * 5) % PRODUCTS] as HeavyProduct;
      hits.push({ __typename: p.__typename, id: p.id });
      hits.push({ __typename: 'Review', id: `r${((t * 11 + k * 13) % reviews.length) + 1}` });
    }
    searchIndex[term] = hits;
  }
  return { users, products, stock, reviews, friends, followers, searchIndex };
}

/** Inventory's estimate from the price and weight the gateway sends (@requires): free above 1000, else weight / 2. */
export function heavyShippingEstimate(
  price: number | null | undefined,
  weight: number | null | undefined,
): number | null {
  if (price === undefined || price === null) return null;
  if (price > 1000) return 0;
  return weight === undefined || weight === null ? null : Math.trunc(weight / 2);
}

function subgraphResolvers(data: HeavyPlanData): Record<HeavySubgraphName, GraphQLResolverMap<unknown>> {
  const users = byKey(data.users, 'id');
  const products = byKey(data.products, 'id');
  const stock = byKey(data.stock, 'id');
  const reviews = byKey(data.reviews, 'id');
  const reviewsBySubject = groupBy(data.reviews, (r) => r.subjectId);
  const reviewsByAuthor = groupBy(data.reviews, (r) => r.authorId);
  const perKind = (resolvers: Record<string, unknown>): Record<Kind, Record<string, unknown>> =>
    Object.fromEntries(KINDS.map((k) => [k, resolvers])) as Record<Kind, Record<string, unknown>>;
  const stubRef = (ref: { __typename: string; id: string }): { __typename: string; id: string } => ({
    __typename: ref.__typename,
    id: ref.id,
  });
  return {
    accounts: {
      Query: {
        me: () => data.users[0] ?? null,
        users: (_: unknown, args: { first?: number | null }) => data.users.slice(0, args.first ?? 10),
      },
      User: { __resolveReference: (ref: { id: string }) => users.get(ref.id) ?? null },
    },
    catalog: {
      Query: {
        products: (_: unknown, args: { first?: number | null }) => data.products.slice(0, args.first ?? 10),
        product: (_: unknown, args: { id: string }) => products.get(args.id) ?? null,
      },
      ...perKind({ __resolveReference: (ref: { id: string }) => products.get(ref.id) ?? null }),
    } as GraphQLResolverMap<unknown>,
    inventory: perKind({
      // its own record plus the price and weight the gateway sent (@requires)
      __resolveReference: (ref: { id: string; price?: number | null; weight?: number | null }) => {
        const record = stock.get(ref.id);
        return record ? { ...record, price: ref.price, weight: ref.weight } : null;
      },
      shippingEstimate: (p: { price?: number | null; weight?: number | null }) =>
        heavyShippingEstimate(p.price, p.weight),
    }) as GraphQLResolverMap<unknown>,
    reviews: {
      Review: {
        __resolveReference: (ref: { id: string }) => reviews.get(ref.id) ?? null,
        author: (r: HeavyReview) => ({ id: r.authorId, username: users.get(r.authorId)?.username ?? null }),
        subject: (r: HeavyReview) => {
          const p = products.get(r.subjectId);
          return p ? { __typename: p.__typename, id: p.id } : null;
        },
      },
      User: {
        __resolveReference: (ref: { id: string }) => ({ id: ref.id }),
        reviews: (u: { id: string }) => reviewsByAuthor.get(u.id) ?? [],
      },
      ...perKind({
        __resolveReference: stubRef,
        reviews: (p: { id: string }) => reviewsBySubject.get(p.id) ?? [],
      }),
    } as GraphQLResolverMap<unknown>,
    search: {
      Query: { search: (_: unknown, args: { term: string }) => data.searchIndex[args.term] ?? [] },
      User: { __resolveReference: stubRef },
      Review: { __resolveReference: stubRef },
      ...perKind({ __resolveReference: stubRef }),
    } as GraphQLResolverMap<unknown>,
    social: {
      User: {
        __resolveReference: (ref: { id: string }) => ({ id: ref.id }),
        friends: (u: { id: string }) => (data.friends[u.id] ?? []).map((id) => ({ id })),
        followers: (u: { id: string }) => data.followers[u.id] ?? null,
      },
    },
  };
}

/** The six executable subgraph schemas, by name. */
export function buildHeavyPlanSubgraphs(data = generateHeavyPlanData()): Map<string, GraphQLSchema> {
  return buildSubgraphSchemas(HEAVY_SUBGRAPH_SDL, subgraphResolvers(data));
}

/** The API's fields over the data tables, no subgraph involved (rows carry their own __typename). */
function referenceResolvers(data: HeavyPlanData): ReferenceResolvers {
  const users = byKey(data.users, 'id');
  const products = byKey(data.products, 'id');
  const stock = byKey(data.stock, 'id');
  const reviews = byKey(data.reviews, 'id');
  const rows = new Map<string, unknown>([...users, ...products, ...reviews]);
  const productFields = {
    inStock: (p: { id: string }) => stock.get(p.id)?.inStock ?? null,
    warehouse: (p: { id: string }) => stock.get(p.id)?.warehouse ?? null,
    shippingEstimate: (p: HeavyProduct) => heavyShippingEstimate(p.price, p.weight),
    reviews: (p: { id: string }) => data.reviews.filter((r) => r.subjectId === p.id),
  };
  return {
    Query: {
      me: () => data.users[0] ?? null,
      users: (_, args) => data.users.slice(0, (args.first as number | null) ?? 10),
      products: (_, args) => data.products.slice(0, (args.first as number | null) ?? 10),
      product: (_, args) => products.get(args.id as string) ?? null,
      search: (_, args) => (data.searchIndex[args.term as string] ?? []).map((hit) => rows.get(hit.id) ?? null),
    },
    User: {
      reviews: (u: { id: string }) => data.reviews.filter((r) => r.authorId === u.id),
      friends: (u: { id: string }) => (data.friends[u.id] ?? []).map((id) => users.get(id) ?? null),
      followers: (u: { id: string }) => data.followers[u.id] ?? null,
    },
    Review: {
      author: (r: HeavyReview) => users.get(r.authorId) ?? null,
      subject: (r: HeavyReview) => products.get(r.subjectId) ?? null,
    },
    Book: productFields,
    Furniture: productFields,
    Gadget: productFields,
  };
}

/** The operation: every abstract type, @requires through each, @provides, nineteen named fragments. */
export const HEAVY_PLAN_QUERY = `query HeavyPlan($term: String!) {
  me { ...UserFull friends { ...UserCore ...Social reviews { ...ReviewFull } } }
  users(first: 8) { ...UserCore ...Social reviews { ...ReviewShort } }
  products(first: 12) { ...AnyProduct ...ProductReviews }
  search(term: $term) { ...SearchHit }
}
fragment UserCore on User { id username name }
fragment AddressParts on Address { street city country }
fragment UserContact on User { email address { ...AddressParts } }
fragment Social on User { followers }
fragment UserFull on User { ...UserCore ...UserContact ...Social }
fragment Author on User { id username }
fragment WarehouseParts on Warehouse { id city }
fragment Pricing on Product { price weight }
fragment ProductCore on Product { __typename id name ...Pricing }
fragment BookParts on Book { writer pages }
fragment FurnitureParts on Furniture { material }
fragment GadgetParts on Gadget { brand }
fragment Stock on Product {
  ... on Book { inStock shippingEstimate warehouse { ...WarehouseParts } }
  ... on Furniture { inStock shippingEstimate }
  ... on Gadget { inStock shippingEstimate warehouse { ...WarehouseParts } }
}
fragment AnyProduct on Product { ...ProductCore ...BookParts ...FurnitureParts ...GadgetParts ...Stock }
fragment ReviewShort on Review { id rating author { ...Author } }
fragment Subject on Reviewable {
  __typename
  ... on Book { id name ...BookParts inStock }
  ... on Furniture { id name shippingEstimate }
  ... on Gadget { id name price ...GadgetParts }
}
fragment ReviewFull on Review { id body rating author { ...Author name } subject { ...Subject } }
fragment ProductReviews on Product {
  ... on Book { reviews { ...ReviewShort } }
  ... on Furniture { reviews { ...ReviewFull } }
  ... on Gadget { reviews { ...ReviewShort } }
}
fragment SearchHit on SearchResult {
  __typename
  ... on User { ...UserFull reviews { ...ReviewShort } }
  ... on Product { ...AnyProduct }
  ... on Review { ...ReviewFull }
}`;
export const HEAVY_PLAN_BODY = JSON.stringify({
  query: HEAVY_PLAN_QUERY,
  variables: { term: 'oak' },
  operationName: 'HeavyPlan',
});

export interface HeavyPlanWorkload {
  supergraph: string;
  query: string;
  body: string;
  data: HeavyPlanData;
  expected: unknown;
}

/** The workload: the six subgraphs composed, the data generated and the expected response derived from it. */
export function loadHeavyPlanWorkload(data = generateHeavyPlanData()): HeavyPlanWorkload {
  const supergraph = composeSupergraph(buildHeavyPlanSubgraphs(data));
  const expected = deriveResponse(supergraph, HEAVY_PLAN_QUERY, referenceResolvers(data), { term: 'oak' });
  return { supergraph, query: HEAVY_PLAN_QUERY, body: HEAVY_PLAN_BODY, data, expected };
}
