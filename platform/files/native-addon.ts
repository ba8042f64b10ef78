import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Where a native addon built by `npm run build` is (node-gyp writes it to `build/Release/` beside its sources), or
 * undefined when it is not built. `from`: the caller's folder (`__dirname`) — the sources' own folder when it runs from
 * them, else a compiled copy (dist/, or the benchmarks' dist/bench/), from which the same place in the project
 * (`projectDir`, e.g. ['dns', 'dnssec', 'ec-sign']) is looked for in whichever folder above holds it.
 */
export function nativeAddonFile(from: string, projectDir: readonly string[], file: string): string | undefined {
  const candidates = [join(from, 'build', 'Release', file)];
  for (let dir = from, up = 0; up < 8; up++, dir = dirname(dir))
    candidates.push(join(dir, ...projectDir, 'build', 'Release', file));
  return candidates.find((f) => existsSync(f));
}
