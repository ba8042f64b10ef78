import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { routeDocs } from '../gateway/rest/docs';
import { PROJECT_ROOT } from '../gateway/host/paths';

// Writes docs/routes/*.md from the REST interfaces' route tables (`npm run docs`).
const dir = join(PROJECT_ROOT, 'docs', 'routes');
mkdirSync(dir, { recursive: true });
for (const [file, text] of Object.entries(routeDocs())) writeFileSync(join(dir, file), text);
