/**
 * The one operation of The Guild's federation gateway benchmark (graphql-hive/graphql-gateways-benchmark): the query its
 * k6 load test posts on every request. Kept here byte for byte as k6 sends it (the indentation is that of the template
 * literal it is written in there, and there is no final newline), so that BODY is the exact request body. It lives in
 * a TypeScript string rather than a .graphql file because Prettier would reformat a .graphql file.
 */
export const QUERY = `fragment User on User {
      id
      username
      name
    }

    fragment Review on Review {
      id
      body
    }

    fragment Product on Product {
      inStock
      name
      price
      shippingEstimate
      upc
      weight
    }

    query TestQuery {
      users {
        ...User
        reviews {
          ...Review
          product {
            ...Product
            reviews {
              ...Review
              author {
                ...User
                reviews {
                  ...Review
                  product {
                    ...Product
                  }
                }
              }
            }
          }
        }
      }
      topProducts {
        ...Product
        reviews {
          ...Review
          author {
            ...User
            reviews {
              ...Review
              product {
                ...Product
              }
            }
          }
        }
      }
    }`;

/** The request body the benchmark posts: GraphQL over HTTP JSON with the query alone (no operationName, no variables). */
export const BODY = JSON.stringify({ query: QUERY });
