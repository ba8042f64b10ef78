import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * The Node.js version the docs promise is the one package.json's engines asks for, and it holds: every package of the
 * lock file that declares it needs more is listed in docs/development.md, where the EBADENGINE warnings `npm install`
 * prints for them are explained, and those the program needs at run time are ES modules, which Node loads through
 * require(esm) — unflagged since 20.19 (the development-only ones are covered by the test suite running on 20).
 * A dependency that starts needing a newer Node fails here until the requirement or the list is brought up to date.
 */
const ROOT = resolve(__dirname, '..', '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const pkg = JSON.parse(read('package.json')) as { engines: { node: string } };
const lock = JSON.parse(read('package-lock.json')) as {
  packages: Record<string, { version?: string; dev?: boolean; engines?: { node?: string } | string[] }>;
};

type Version = [number, number, number];
const parse = (v: string): Version => {
  const [a = 0, b = 0, c = 0] = v.replace(/^v/, '').split('.').map(Number);
  return [a, b, c];
};
const compare = (x: Version, y: Version) => x[0] - y[0] || x[1] - y[1] || x[2] - y[2];

/** Whether `v` satisfies an engines range (the forms packages use: `>=X`, `^X`, `X`, `A B` and `A || B`). */
function satisfies(v: Version, range: string): boolean {
  return range.split('||').some((set) =>
    set
      .trim()
      .replace(/(>=|<=|>|<|\^|~|=)\s+/g, '$1') // `>= 18` is `>=18`
      .replace(/\.[x*]/g, '') // `12.*` is `12`
      .split(/\s+/)
      .every((c) => {
        if (c === '*' || c === '' || c === 'x') return true;
        const m = /^(>=|>|<=|<|\^|~|=)?\s*(\d+(?:\.\d+){0,2})(?:\.x)?$/.exec(c);
        if (!m) return false;
        const [op = '', text = ''] = [m[1], m[2]];
        const bound = parse(text);
        const parts = text.split('.').length;
        const d = compare(v, bound);
        if (op === '>=') return d >= 0;
        if (op === '>') return d > 0;
        if (op === '<=') return d <= 0;
        if (op === '<') return d < 0;
        if (op === '^') return v[0] === bound[0] && d >= 0;
        if (op === '~') return v[0] === bound[0] && v[1] === bound[1] && d >= 0;
        return parts === 1 ? v[0] === bound[0] : parts === 2 ? v[0] === bound[0] && v[1] === bound[1] : d === 0;
      }),
  );
}

/** The lowest version package.json's engines allows (its `>=X.Y.Z`). */
const MINIMUM = /^>=\s*(\d+\.\d+\.\d+)$/.exec(pkg.engines.node.trim())?.[1] as string;

test('README and docs/development.md state the Node.js version package.json engines requires', () => {
  expect(MINIMUM).toBe('20.19.0');
  for (const doc of ['README.md', 'docs/development.md']) expect(read(doc)).toContain('Node.js 20.19+');
});

test('the packages that declare a newer Node are listed in docs/development.md; those needed at run time are ES modules', () => {
  const stricter = new Map<string, boolean>(); // name → needed at run time (not only for development)
  for (const [path, entry] of Object.entries(lock.packages)) {
    const node = !path || Array.isArray(entry.engines) ? undefined : entry.engines?.node;
    if (!node || satisfies(parse(MINIMUM), node)) continue;
    const name = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
    stricter.set(name, (stricter.get(name) ?? false) || entry.dev !== true);
    // needed at run time: an ES module, which Node 20.19+ loads through require(esm)
    if (entry.dev !== true) {
      const installed = JSON.parse(read(join(path, 'package.json'))) as { type?: string };
      expect({ path, type: installed.type }).toEqual({ path, type: 'module' });
    }
  }
  const listed = read('docs/development.md');
  for (const [name, runtime] of stricter) {
    expect({ name, listed: listed.includes(`\`${name}\``) }).toEqual({ name, listed: true });
    const saysRunTime = new RegExp(`\`${name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\` \\(run\\s+time`).test(listed);
    if (runtime) expect({ name, runtime: saysRunTime }).toEqual({ name, runtime: true });
  }
});
