import type { AuditCase } from './types';

/**
 * requires-with-argument: @requires field sets that pass arguments. Subgraph a computes `Product.shippingEstimate`
 * from b's `price(currency: "USD")` and `weight`. Subgraph d computes `Post.author` from the author of the third
 * comment of `comments(limit: 3)` — the same field the client may select itself with another limit, under the same
 * response name `comments`: the client must get its own comments, and `author` must still see three. Subgraph c
 * computes `Comment.isCommentSpam` from `sameCommentOnOtherPosts { comments(limit: 50) { id } }`, a requirement
 * that goes through d twice.
 */
const PRODUCTS = [
  { upc: 'p1', name: 'p-name-1', price: 11, weight: 1 },
  { upc: 'p2', name: 'p-name-2', price: 22, weight: 2 },
];

const POSTS = [
  { id: 'p1', body: 'p1-body' },
  { id: 'p2', body: 'p2-body' },
];

const COMMENTS = [
  { id: 'c1', postId: 'p1', authorId: 'a2', body: 'c1-body' },
  { id: 'c2', postId: 'p1', authorId: 'a2', body: 'c2-body' },
  { id: 'c3', postId: 'p1', authorId: 'a2', body: 'c3-body' },
  { id: 'c4', postId: 'p2', authorId: 'a1', body: 'c4-body' },
  { id: 'c5', postId: 'p2', authorId: 'a1', body: 'c5-body' },
  { id: 'c6', postId: 'p2', authorId: 'a1', body: 'c6-body' },
  // the same text as c3, on the other post: c3 is spam
  { id: 'c7', postId: 'p2', authorId: 'a1', body: 'c3-body' },
];

const AUTHORS = [
  { id: 'a1', name: 'a1-name' },
  { id: 'a2', name: 'a2-name' },
];

const a = /* GraphQL */ `
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key", "@external", "@requires"])

  type Product @key(fields: "upc") {
    upc: String!
    weight: Int @external
    price(currency: String!): Int @external
    shippingEstimate: Int
      @requires(
        fields: """
        price(currency: "USD") weight
        """
      )
    category: Category @external
    isExpensiveCategory: Boolean
      @requires(
        fields: """
        category { averagePrice(currency: "USD") }
        """
      )
  }

  type Category @external {
    averagePrice(currency: String!): Int
  }
`;

const b = /* GraphQL */ `
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])

  type Query {
    products: [Product]
  }

  type Product @key(fields: "upc") {
    upc: String!
    name: String
    price(currency: String!): Int
    weight: Int
    category: Category
  }

  type Category {
    averagePrice(currency: String!): Int
  }
`;

const c = /* GraphQL */ `
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key", "@external", "@requires"])

  type Query {
    feed: [Post]
  }

  type Post @key(fields: "id") {
    id: ID!
    comments(limit: Int!): [Comment] @external
  }

  type Comment @key(fields: "id") {
    id: ID!
    authorId: ID
    body: String!
    sameCommentOnOtherPosts: [Post] @external
    isCommentSpam: Boolean @requires(fields: "sameCommentOnOtherPosts { comments(limit: 50) { id } }")
  }
`;

const d = /* GraphQL */ `
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key", "@external", "@requires"])

  type Post @key(fields: "id") {
    id: ID!
    author: Author @requires(fields: "comments(limit: 3) { authorId }")
    comments(limit: Int!): [Comment]
  }

  type Comment @key(fields: "id") {
    id: ID!
    date: String
    authorId: ID @external
    sameCommentOnOtherPosts: [Post]
  }

  type Author {
    id: ID!
    name: String
  }
`;

const commentsOf = (postId: string, limit: number) => COMMENTS.filter((m) => m.postId === postId).slice(0, limit);

export const requiresWithArgument: AuditCase = {
  name: 'requires-with-argument',
  subgraphs: [
    {
      name: 'a',
      typeDefs: a,
      resolvers: {
        Product: {
          __resolveReference: (ref: { upc: string; price?: number; weight?: number }) => {
            const product = PRODUCTS.find((p) => p.upc === ref.upc);
            if (!product) return null;
            // price and weight arrive only when @requires asked for them
            return ref.price !== undefined && ref.weight !== undefined
              ? { upc: product.upc, price: ref.price, weight: ref.weight }
              : { upc: product.upc };
          },
          shippingEstimate: (p: { price: number; weight: number }) => p.price * p.weight * 10,
          isExpensiveCategory: (p: { category: { averagePrice: number } }) => p.category.averagePrice > 11,
        },
      },
    },
    {
      name: 'b',
      typeDefs: b,
      resolvers: {
        Query: { products: () => PRODUCTS },
        Product: { __resolveReference: (ref: { upc: string }) => PRODUCTS.find((p) => p.upc === ref.upc) ?? null },
      },
    },
    {
      name: 'c',
      typeDefs: c,
      resolvers: {
        Query: { feed: () => POSTS.map((p) => ({ id: p.id })) },
        Post: {
          __resolveReference: (ref: { id: string }) => (POSTS.some((p) => p.id === ref.id) ? { id: ref.id } : null),
          comments: (post: { id: string }, { limit }: { limit: number }) =>
            commentsOf(post.id, limit).map(({ id, authorId, body }) => ({ id, authorId, body })),
        },
        Comment: {
          __resolveReference: (ref: {
            id: string;
            sameCommentOnOtherPosts?: Array<{ comments: Array<{ id: string }> }>;
          }) => {
            const comment = COMMENTS.find((m) => m.id === ref.id);
            if (!comment) return null;
            const others = ref.sameCommentOnOtherPosts ?? [];
            return {
              id: comment.id,
              authorId: comment.authorId,
              body: comment.body,
              // spam: the same text stands on other posts (whose comments the requirement must carry in full)
              isCommentSpam: others.length > 0 && others.every((post) => post.comments.every((m) => Boolean(m.id))),
            };
          },
        },
      },
    },
    {
      name: 'd',
      typeDefs: d,
      resolvers: {
        Post: {
          __resolveReference: (ref: { id: string; comments?: Array<{ authorId: string }> }) => {
            const post = POSTS.find((p) => p.id === ref.id);
            if (!post) return null;
            if (ref.comments === undefined) return { id: post.id };
            // the requirement asked for comments(limit: 3): anything else is the client's selection leaking in
            if (ref.comments.length !== 3) throw new Error(`Expected 3 comments, got ${ref.comments.length}`);
            return { id: post.id, authorId: ref.comments[2]?.authorId };
          },
          author: (post: { authorId?: string }) => AUTHORS.find((x) => x.id === post.authorId) ?? null,
          comments: (post: { id: string }, { limit }: { limit: number }) =>
            commentsOf(post.id, limit).map(({ id }) => ({ id })),
        },
        Comment: {
          __resolveReference: (ref: { id: string }) => (COMMENTS.some((m) => m.id === ref.id) ? { id: ref.id } : null),
          sameCommentOnOtherPosts: (ref: { id: string }) => {
            const comment = COMMENTS.find((m) => m.id === ref.id);
            if (!comment) return [];
            return COMMENTS.filter((m) => m.body === comment.body && m.postId !== comment.postId).map((m) => ({
              id: m.postId,
            }));
          },
        },
      },
    },
  ],
  tests: [
    {
      name: 'products { shippingEstimate }: requires price(currency: "USD") and weight',
      query: /* GraphQL */ `
        query {
          products {
            upc
            name
            shippingEstimate
          }
        }
      `,
      expected: {
        data: {
          products: [
            { upc: 'p1', name: 'p-name-1', shippingEstimate: 110 },
            { upc: 'p2', name: 'p-name-2', shippingEstimate: 440 },
          ],
        },
      },
    },
    {
      name: 'feed { author }: requires comments(limit: 3) { authorId }',
      query: /* GraphQL */ `
        {
          feed {
            author {
              id
            }
          }
        }
      `,
      expected: { data: { feed: [{ author: { id: 'a2' } }, { author: { id: 'a1' } }] } },
    },
    {
      name: 'feed { author comments(limit: 1) }, inline argument: 1 comment for the client, 3 for author’s @requires (Apollo fetches the 3 under the client’s name)',
      query: /* GraphQL */ `
        query {
          feed {
            author {
              id
            }
            comments(limit: 1) {
              id
            }
          }
        }
      `,
      expected: {
        data: {
          feed: [
            { author: { id: 'a2' }, comments: [{ id: 'c1' }] },
            { author: { id: 'a1' }, comments: [{ id: 'c4' }] },
          ],
        },
      },
    },
    {
      name: 'feed { comments(limit: 3) { isCommentSpam } }: requires sameCommentOnOtherPosts { comments(limit: 50) }',
      query: /* GraphQL */ `
        query {
          feed {
            comments(limit: 3) {
              isCommentSpam
            }
          }
        }
      `,
      expected: {
        data: {
          feed: [
            { comments: [{ isCommentSpam: false }, { isCommentSpam: false }, { isCommentSpam: true }] },
            { comments: [{ isCommentSpam: false }, { isCommentSpam: false }, { isCommentSpam: false }] },
          ],
        },
      },
    },
    {
      name: 'feed { author comments(limit: $limit) }, $limit: Int = 1 by default: 1 comment for the client, 3 for author’s @requires (Apollo: same response name)',
      query: /* GraphQL */ `
        query ($limit: Int = 1) {
          feed {
            author {
              id
            }
            comments(limit: $limit) {
              id
            }
          }
        }
      `,
      expected: {
        data: {
          feed: [
            { author: { id: 'a2' }, comments: [{ id: 'c1' }] },
            { author: { id: 'a1' }, comments: [{ id: 'c4' }] },
          ],
        },
      },
    },
    {
      name: 'feed { author ...Foo ...Bar }, comments(limit: $limit) in two fragments: 1 comment for the client, 3 for author’s @requires (Apollo: same response name)',
      query: /* GraphQL */ `
        query ($limit: Int = 1) {
          feed {
            author {
              id
            }
            ...Foo
            ...Bar
          }
        }

        fragment Foo on Post {
          comments(limit: $limit) {
            id
          }
        }

        fragment Bar on Post {
          comments(limit: $limit) {
            id
          }
        }
      `,
      expected: {
        data: {
          feed: [
            { author: { id: 'a2' }, comments: [{ id: 'c1' }] },
            { author: { id: 'a1' }, comments: [{ id: 'c4' }] },
          ],
        },
      },
    },
  ],
};
