import type { AuditCase } from './types';

/**
 * requires-with-argument-conflict: subgraph a has two computed fields that @require the same field of b with different
 * arguments — `shippingEstimate` needs `price(currency: "USD")`, `shippingEstimateEUR` needs `price(currency: "EUR")`
 * (b prices EUR at twice the USD figure). Both reach a's resolvers under the one name `price` in a representation, so
 * each computed field must be resolved from a representation carrying its own argument's price.
 */
const PRODUCTS = [
  { upc: 'p1', name: 'p-name-1', price: 11, weight: 1, category: { averagePrice: 11 } },
  { upc: 'p2', name: 'p-name-2', price: 22, weight: 2, category: { averagePrice: 22 } },
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
    shippingEstimateEUR: Int
      @requires(
        fields: """
        price(currency: "EUR") weight
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

const findProduct = (upc: string) => PRODUCTS.find((p) => p.upc === upc);

/** Both estimates are the same formula over whichever price the representation carries. */
const estimate = (p: { price: number; weight: number }) => p.price * p.weight * 10;

export const requiresWithArgumentConflict: AuditCase = {
  name: 'requires-with-argument-conflict',
  subgraphs: [
    {
      name: 'a',
      typeDefs: a,
      resolvers: {
        Product: {
          __resolveReference: (ref: { upc: string; price?: number; weight?: number }) => {
            const product = findProduct(ref.upc);
            if (!product) return null;
            const { upc, category } = product;
            return ref.price !== undefined && ref.weight !== undefined
              ? { upc, category, price: ref.price, weight: ref.weight }
              : { upc, category };
          },
          shippingEstimate: estimate,
          shippingEstimateEUR: estimate,
          isExpensiveCategory: (p: { category: { averagePrice: number } }) => p.category.averagePrice > 11,
        },
      },
    },
    {
      name: 'b',
      typeDefs: b,
      resolvers: {
        Query: { products: () => PRODUCTS },
        Product: {
          __resolveReference: (ref: { upc: string }) => findProduct(ref.upc) ?? null,
          price: (p: { price: number }, { currency }: { currency: string }) => {
            if (currency === 'USD') return p.price;
            if (currency === 'EUR') return p.price * 2;
            throw new Error(`Unsupported currency ${currency}`);
          },
        },
      },
    },
  ],
  tests: [
    {
      name: 'shippingEstimate (USD) and shippingEstimateEUR (EUR) each see their own price — Apollo fetches only the EUR price for both (220, 880)',
      query: /* GraphQL */ `
        query {
          products {
            upc
            name
            shippingEstimate
            shippingEstimateEUR
            isExpensiveCategory
          }
        }
      `,
      expected: {
        data: {
          products: [
            // 11 × 1 × 10; (11 × 2) × 1 × 10
            {
              upc: 'p1',
              name: 'p-name-1',
              shippingEstimate: 110,
              shippingEstimateEUR: 220,
              isExpensiveCategory: false,
            },
            // 22 × 2 × 10; (22 × 2) × 2 × 10
            { upc: 'p2', name: 'p-name-2', shippingEstimate: 440, shippingEstimateEUR: 880, isExpensiveCategory: true },
          ],
        },
      },
    },
  ],
};
