import type { AuditCase } from './types';

/**
 * non-resolvable-interface-object: the entity interface Node (declared in a, no type implements it anywhere) is known
 * to b only as an @interfaceObject whose key is `resolvable: false`, and b alone has `Node.field`. So `Query.a` (in a)
 * can never lead to `field`: a gateway must answer with an error, not quietly plan nothing. The entity interface
 * Product works the other way round: a has it as a non-resolvable @interfaceObject, b has the interface and its
 * implementation Bread, so a type condition on a's `product` needs b to tell the concrete type.
 */
const PRODUCTS = [{ __typename: 'Bread', id: 'p1', name: 'Bread' }];

const a = /* GraphQL */ `
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key", "@interfaceObject"])

  interface Node @key(fields: "id") {
    id: ID!
  }

  type Product @key(fields: "id", resolvable: false) @interfaceObject {
    id: ID!
  }

  type Query {
    a: Node
    product: Product!
  }
`;

const b = /* GraphQL */ `
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key", "@interfaceObject"])

  type Node @key(fields: "id", resolvable: false) @interfaceObject {
    id: ID!
    field: String
  }

  interface Product @key(fields: "id") {
    id: ID!
  }

  type Bread implements Product @key(fields: "id") {
    id: ID!
    name: String!
  }

  type Query {
    b: Node
  }
`;

const findProduct = (ref: { id: string }) => PRODUCTS.find((p) => p.id === ref.id) ?? null;

export const nonResolvableInterfaceObject: AuditCase = {
  name: 'non-resolvable-interface-object',
  subgraphs: [
    {
      name: 'a',
      typeDefs: a,
      resolvers: {
        Query: {
          a: () => ({ __typename: 'Node', id: 'n1' }),
          product: () => ({ __typename: 'Product', id: 'p1' }),
        },
        Node: {
          __resolveReference: () => {
            throw new Error('Node cannot be resolved here: no type of this subgraph implements it');
          },
        },
      },
    },
    {
      name: 'b',
      typeDefs: b,
      resolvers: {
        Query: { b: () => ({ __typename: 'Node', id: 'n1' }) },
        Node: {
          __resolveReference: () => {
            throw new Error('Node is not resolvable here (its key is resolvable: false)');
          },
          field: () => 'foo',
        },
        Product: { __resolveReference: findProduct },
        Bread: { __resolveReference: findProduct },
      },
    },
  ],
  tests: [
    {
      name: 'b { id field }: b owns both fields of its interface object',
      query: /* GraphQL */ `
        query {
          b {
            id
            field
          }
        }
      `,
      expected: { data: { b: { id: 'n1', field: 'foo' } } },
    },
    {
      name: 'a { field }: field only on b’s non-resolvable interface object — an error, data null (Apollo: { a: null }, no error)',
      query: /* GraphQL */ `
        query {
          a {
            field
          }
        }
      `,
      expected: { data: null, errors: true },
    },
    {
      name: 'b { id }',
      query: /* GraphQL */ `
        query {
          b {
            id
          }
        }
      `,
      expected: { data: { b: { id: 'n1' } } },
    },
    {
      name: 'a { id }: no type of a implements Node — a: null with an error',
      query: /* GraphQL */ `
        query {
          a {
            id
          }
        }
      `,
      expected: { data: { a: null }, errors: true },
    },
    {
      name: 'product { id }: a answers alone',
      query: /* GraphQL */ `
        query {
          product {
            id
          }
        }
      `,
      expected: { data: { product: { id: 'p1' } } },
    },
    {
      name: 'product { id name }: Product has no name (only Bread has) — an error (the audit expects no data)',
      query: /* GraphQL */ `
        query {
          product {
            id
            name
          }
        }
      `,
      expected: { data: null, errors: true },
    },
    {
      name: 'product { ... on Bread { id } }: b tells the concrete type of a’s interface object',
      query: /* GraphQL */ `
        query {
          product {
            ... on Bread {
              id
            }
          }
        }
      `,
      expected: { data: { product: { id: 'p1' } } },
    },
  ],
};
