// @needs build
/**
 * The production way (docs/operations.md, "Installing and starting"): build where the dev dependencies are, then run
 * `node dist/gateway/main.js` (or `npm start`) with the dependencies alone. Proven on a copy of the built project in a
 * directory of its own, installed by `npm ci --omit=dev` from the local npm cache: nothing above it holds a
 * node_modules, so a dev dependency the built program needed would fail to load.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { builtinModules } from 'node:module';
import { appendFileSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../gateway/host/paths';
import { gatewayStarted, launchGateway, stopGateway } from '../support/gateway-process';

jest.setTimeout(240_000);

const DIST = join(PROJECT_ROOT, 'dist');
const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** The package a module specifier names (`@scope/name/sub` → `@scope/name`), or undefined for a file or a builtin. */
function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) return undefined;
  if (builtinModules.includes(specifier)) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

test('no built file loads a package that is not a dependency (dev dependencies are gone in production)', () => {
  const files = readdirSync(DIST, { recursive: true, encoding: 'utf8' }).filter(
    (f) => f.endsWith('.js') && !f.startsWith('playground') && !f.startsWith('bench'),
  );
  expect(files.length).toBeGreaterThan(100);
  const outside: string[] = [];
  for (const file of files) {
    const text = readFileSync(join(DIST, file), 'utf8');
    for (const [, specifier = ''] of text.matchAll(/require\(\s*["']([^"']+)["']\s*\)/g)) {
      const name = packageOf(specifier);
      if (name !== undefined && !(name in pkg.dependencies)) outside.push(`${file}: ${specifier}`);
    }
  }
  expect(outside).toEqual([]);
});

describe('a built copy installed with npm ci --omit=dev', () => {
  let dir: string;
  const env = (): NodeJS.ProcessEnv => {
    // as an operator runs it: no jest NODE_ENV, no npm settings of the npm that started jest
    const clean = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => k !== 'NODE_ENV' && !k.startsWith('npm_')),
    );
    return { ...clean, npm_config_update_notifier: 'false' };
  };
  const npm = (args: string[]): SpawnSyncReturns<string> =>
    spawnSync('npm', args, { cwd: dir, env: env(), encoding: 'utf8', timeout: 180_000 });

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'onegraph-production-'));
    // what a clone holds after `npm run build` (times kept, as git and archives keep them)
    const tree = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'scripts', 'schema'];
    for (const part of [...tree, 'gateway', 'subgraphs', 'dns', 'platform', 'dist'])
      cpSync(join(PROJECT_ROOT, part), join(dir, part), { recursive: true, preserveTimestamps: true });
    // the registry's packages from the local cache only; install scripts off: the one that matters (better-sqlite3's
    // native build, minutes of g++) is taken from this project's install below, the same file it would build
    const install = npm(['ci', '--omit=dev', '--offline', '--ignore-scripts', '--no-audit', '--no-fund']);
    if (install.status !== 0) throw new Error(`npm ci --omit=dev failed:\n${install.stdout}\n${install.stderr}`);
    const sqliteBuild = join('node_modules', 'better-sqlite3', 'build');
    cpSync(join(PROJECT_ROOT, sqliteBuild), join(dir, sqliteBuild), { recursive: true });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('holds no dev dependency', () => {
    for (const name of ['typescript', 'esbuild', 'jest', 'graphiql'])
      expect(existsSync(join(dir, 'node_modules', name))).toBe(false);
    expect(existsSync(join(dir, 'node_modules', 'fastify'))).toBe(true);
  });

  test('npm ci runs prepare without the compiler: nothing to build, no failure', () => {
    const prepare = npm(['run', '--silent', 'prepare']);
    expect(prepare.stderr).toBe('');
    expect(prepare.status).toBe(0);
  });

  test('npm start -- --help answers at once, without building', () => {
    const help = npm(['start', '--silent', '--', '--help']);
    expect(help.stderr).not.toContain('building');
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('--port');
  });

  test('node dist/gateway/main.js serves GraphQL, REST and DNS', async () => {
    const p = await launchGateway({}, { main: join(dir, 'dist', 'gateway', 'main.js'), cwd: dir });
    try {
      await gatewayStarted(p);
      const res = await fetch(`${p.base}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ quote(ticker: "AAPL:NASDAQ") { price } }' }),
      });
      const body = (await res.json()) as { data?: { quote?: { price?: number } } };
      expect(typeof body.data?.quote?.price).toBe('number');
      expect((await fetch(`${p.base}/api/v1/openapi.json`)).status).toBe(200);
    } finally {
      await stopGateway(p);
      rmSync(p.dataDir, { recursive: true, force: true });
    }
  });

  test('after a source changed (a git pull), npm start refuses stale code with one line saying what to do', () => {
    appendFileSync(join(dir, 'gateway', 'host', 'paths.ts'), '\n// changed\n');
    const start = npm(['start', '--silent', '--', '--help']);
    expect(start.status).not.toBe(0);
    expect(start.stdout).not.toContain('--port');
    expect(start.stderr).toContain('gateway/host/paths.ts');
    expect(start.stderr).toContain('out of date');
    expect(start.stderr).toContain('npm run build');
    // the install never fails on it: it says the same and goes on
    const prepare = npm(['run', '--silent', 'prepare']);
    expect(prepare.status).toBe(0);
    expect(prepare.stderr).toContain('out of date');
  });
});
