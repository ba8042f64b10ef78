import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { routeDocs } from './docs';

// docs/routes/ is generated from the route tables: run `npm run docs` after changing a route.
test.each(Object.entries(routeDocs()))('docs/routes/%s is fresh', (file, text) => {
  expect(readFileSync(join(__dirname, '..', '..', 'docs', 'routes', file), 'utf8')).toBe(text);
});
