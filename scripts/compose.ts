import 'reflect-metadata';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { composeSupergraph, CompositionError } from '../gateway/graph/federation/compose';
import { subgraphDefinitions } from '../subgraphs';
import { SCHEMA_DIR, SUPERGRAPH_FILE } from '../gateway/host/paths';

/** `npm run compose`: writes each subgraph's SDL and the composed supergraph into schema/. */
async function main(): Promise<void> {
  const composed = composeSupergraph(await subgraphDefinitions());
  mkdirSync(SCHEMA_DIR, { recursive: true });
  for (const [name, sdl] of Object.entries(composed.subgraphSdl)) {
    writeFileSync(join(SCHEMA_DIR, `${name}.graphql`), sdl);
    console.log(`wrote schema/${name}.graphql`);
  }
  writeFileSync(SUPERGRAPH_FILE, composed.supergraphSdl);
  console.log('wrote schema/supergraph.graphql');
}

main().catch((err: unknown) => {
  console.error(err instanceof CompositionError ? err.message : err);
  process.exit(1);
});
