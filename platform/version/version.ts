import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The nearest package.json above `from` (the project's, whether this runs from the sources or from dist/). */
function packageFile(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) return file;
    if (dirname(dir) === dir) throw new Error(`package.json not found above ${from}`);
  }
}

/** The product's version, as package.json states it (health checks, --version, the DNS tool's get_version). */
export const VERSION: string = (JSON.parse(readFileSync(packageFile(__dirname), 'utf8')) as { version: string })
  .version;
