import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The project root (where package.json is), found from this file whether it runs from sources or from dist/. */
function findRoot(from: string): string {
  let dir = from;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`package.json not found above ${from}`);
    dir = parent;
  }
  return dir;
}

export const PROJECT_ROOT = findRoot(__dirname);
export const SCHEMA_DIR = join(PROJECT_ROOT, 'schema');
export const SUPERGRAPH_FILE = join(SCHEMA_DIR, 'supergraph.graphql');
