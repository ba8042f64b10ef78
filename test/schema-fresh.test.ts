import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { parse } from 'graphql';
import { composeSupergraph, CompositionError } from '../gateway/graph/federation/compose';
import { subgraphDefinitions } from '../subgraphs';
import { SCHEMA_DIR, SUPERGRAPH_FILE } from '../gateway/host/paths';

test('schema/ matches what `npm run compose` writes now (run it after changing a GraphQL type)', async () => {
  const composed = composeSupergraph(await subgraphDefinitions());
  for (const [name, sdl] of Object.entries(composed.subgraphSdl)) {
    expect({ file: `schema/${name}.graphql`, sdl: readFileSync(join(SCHEMA_DIR, `${name}.graphql`), 'utf8') }).toEqual({
      file: `schema/${name}.graphql`,
      sdl,
    });
  }
  expect(readFileSync(SUPERGRAPH_FILE, 'utf8')).toBe(composed.supergraphSdl);
});

test('a composition error stops with the composer’s own message', () => {
  const sdl = (t: string) =>
    buildSubgraphSchema(
      parse(`extend schema @link(url: "https://specs.apollo.dev/federation/v2.7", import: ["@key"])
    type Query { thing: Thing } type Thing @key(fields: "id") { id: ID! size: ${t} }`),
    );
  expect(() =>
    composeSupergraph([
      { name: 'a', url: 'http://a', schema: sdl('Int') },
      { name: 'b', url: 'http://b', schema: sdl('String') },
    ]),
  ).toThrow(CompositionError);
  expect(() =>
    composeSupergraph([
      { name: 'a', url: 'http://a', schema: sdl('Int') },
      { name: 'b', url: 'http://b', schema: sdl('String') },
    ]),
  ).toThrow(/Thing\.size|non-shareable|INVALID_FIELD_SHARING|FIELD_TYPE_MISMATCH/);
});
