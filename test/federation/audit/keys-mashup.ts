import type { AuditCase } from './types';

/**
 * keys-mashup: entity A has four keys, and each subgraph can resolve it through exactly one of them — subgraph a only
 * by `id`, subgraph b only by `id compositeId { two three }` (every other key is `resolvable: false`). b lists the As
 * of a B without their `name`; `A.nameInB` in b @requires that name. So the gateway must fetch `name` from a by `id`,
 * then come back to b through b's one resolvable key, the composite one, carrying the name.
 */
interface ARow {
  id: string;
  pId: string;
  name: string;
  compositeId: { one: string; two: string; three: string };
}

const aRow = (id: string): ARow => ({
  id,
  pId: `a.${id}.pId`,
  name: `a.${id}`,
  compositeId: { one: `a.${id}.compositeId.one`, two: `a.${id}.compositeId.two`, three: `a.${id}.compositeId.three` },
});

const AS = new Map<string, ARow>([
  ['1', aRow('1')],
  ['2', aRow('2')],
]);

const BS = new Map<string, { id: string; aIds: string[] }>([
  ['100', { id: '100', aIds: ['1'] }],
  ['200', { id: '200', aIds: ['1', '2'] }],
]);

const a = /* GraphQL */ `
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.5", import: ["@key"])

  type A
    @key(fields: "id", resolvable: true)
    @key(fields: "pId", resolvable: false)
    @key(fields: "compositeId { one two }", resolvable: false)
    @key(fields: "id compositeId { two three }", resolvable: false) {
    id: ID!
    pId: ID!
    compositeId: CompositeID!
    name: String!
  }

  type CompositeID {
    one: ID!
    two: ID!
    three: ID!
  }
`;

const b = /* GraphQL */ `
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.5", import: ["@key", "@requires", "@external"])

  type Query {
    b: B
  }

  type B @key(fields: "id") {
    id: ID!
    a: [A!]!
  }

  type A
    @key(fields: "compositeId { one two }", resolvable: false)
    @key(fields: "id compositeId { two three }", resolvable: true)
    @key(fields: "pId", resolvable: false)
    @key(fields: "id", resolvable: false) {
    id: ID!
    pId: ID!
    compositeId: CompositeID!
    name: String! @external
    nameInB: String! @requires(fields: "name")
  }

  type CompositeID {
    one: ID!
    two: ID!
    three: ID!
  }
`;

/** An A as subgraph b knows it: everything but the name, which b only ever gets from a representation. */
function aInB(id: string, name?: string) {
  const row = AS.get(id);
  if (!row) return null;
  return { id: row.id, pId: row.pId, compositeId: row.compositeId, ...(name !== undefined && { name }) };
}

export const keysMashup: AuditCase = {
  name: 'keys-mashup',
  subgraphs: [
    {
      name: 'a',
      typeDefs: a,
      resolvers: {
        // only the `id` key is resolvable here
        A: { __resolveReference: (ref: { id: string }) => AS.get(ref.id) ?? null },
      },
    },
    {
      name: 'b',
      typeDefs: b,
      resolvers: {
        Query: { b: () => BS.get('100') },
        B: {
          __resolveReference: (ref: { id: string }) => BS.get(ref.id) ?? null,
          a: (row: { aIds: string[] }) => row.aIds.map((id) => aInB(id)),
        },
        A: {
          // only `id compositeId { two three }` is resolvable here; `name` comes along for @requires
          __resolveReference: (ref: { id: string; compositeId: { two: string; three: string }; name?: string }) =>
            aInB(ref.id, ref.name),
          nameInB: (row: { name?: string }) => {
            if (row.name === undefined) throw new Error('A.name was not provided');
            return `b.a.nameInB ${row.name}`;
          },
        },
      },
    },
  ],
  tests: [
    {
      name: 'b.a { name nameInB }: name from a by id, back to b by its one resolvable key (id compositeId { two three }) — Apollo goes back by compositeId { one two }, not resolvable in b, and answers b: null',
      query: /* GraphQL */ `
        query {
          b {
            id
            a {
              id
              name
              nameInB
            }
          }
        }
      `,
      expected: { data: { b: { id: '100', a: [{ id: '1', name: 'a.1', nameInB: 'b.a.nameInB a.1' }] } } },
    },
  ],
};
