#!/usr/bin/env node
// The build, in three parts: the TypeScript compile (dist/), the playground bundle (dist/playground/) and the DNS
// server's batched-UDP addon. Plain Node, no dependency: it also runs where the dev dependencies are left out.
//
//   node scripts/build.mjs                          every part (npm run build)
//   node scripts/build.mjs --if-stale               only the parts older than their sources (npm start, npm test):
//                                                   one that cannot be built here (its compiler is a dev dependency)
//                                                   stops with one line saying what to do, never runs stale code
//   node scripts/build.mjs --if-stale --at-install  the same, but never fails: run by `npm install` / `npm ci`
//                                                   (`prepare`), also with --omit=dev where nothing can be built
//
// A part is stale when an output is missing or a source is newer than its oldest output. Copies that do not keep
// modification times (a checkout after the build, an archive) would look stale: dist/.build-stamp.json keeps a hash
// of each part's sources, and a part whose sources still hash the same, with no output written since, is fresh.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const STAMP = join(dist, '.build-stamp.json');
const require = createRequire(join(root, 'package.json'));
const GUIDE = 'docs/operations.md#installing-and-starting';

/** Files under `dir` (relative to the root) that `keep` accepts; none when it is missing. */
function walk(dir, keep) {
  const abs = join(root, dir);
  if (!existsSync(abs)) return [];
  return readdirSync(abs, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath, e.name)))
    .filter(keep)
    .sort();
}

/** What tsconfig.build.json compiles: the product's TypeScript, without tests and test support. */
const compiled = (f) =>
  f.endsWith('.ts') &&
  !f.endsWith('.d.ts') &&
  !f.endsWith('.test.ts') &&
  !f.endsWith('.contract.ts') &&
  !f.endsWith('/testing.ts') &&
  !f.split('/').includes('testing');

const resolvable = (name) => {
  try {
    require.resolve(name);
    return true;
  } catch {
    return false;
  }
};

/** A dependency's version changes what is built: the lock file is a source of every part. */
const LOCK = ['package-lock.json'].filter((f) => existsSync(join(root, f)));

const PARTS = [
  {
    name: 'compile',
    what: 'the TypeScript compile (dist/)',
    sources() {
      const ts = ['gateway', 'subgraphs', 'dns', 'platform', 'scripts'].flatMap((d) => walk(d, compiled));
      return [...ts, 'tsconfig.json', 'tsconfig.build.json', ...LOCK];
    },
    outputs(sources) {
      return sources.filter((f) => f.endsWith('.ts')).map((f) => join('dist', f.replace(/\.ts$/, '.js')));
    },
    missing: () => (resolvable('typescript/bin/tsc') ? undefined : 'TypeScript'),
    command: () => [process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json']],
  },
  {
    name: 'playground',
    what: 'the playground bundle (dist/playground/)',
    sources: () => [
      ...walk('gateway/playground', (f) => !f.endsWith('.ts') && !f.endsWith('.md')),
      'scripts/build-playground.mjs',
      ...LOCK,
    ],
    outputs: () => ['dist/playground/manifest.json'],
    missing: () => (resolvable('esbuild') && resolvable('graphiql/package.json') ? undefined : 'esbuild and GraphiQL'),
    command: () => [process.execPath, ['scripts/build-playground.mjs']],
  },
  {
    name: 'native',
    what: "the DNS server's batched-UDP addon and the zone signer's batched-ECDSA addon",
    sources: () => [
      'dns/server/transport/udp-batch/udp_batch.c',
      'dns/server/transport/udp-batch/binding.gyp',
      'dns/dnssec/ec-sign/ec_sign.c',
      'dns/dnssec/ec-sign/binding.gyp',
    ],
    outputs: () => [
      'dns/server/transport/udp-batch/build/Release/udp_batch.node',
      'dns/dnssec/ec-sign/build/Release/ec_sign.node',
    ],
    // node-gyp comes with npm and the toolchain is needed for better-sqlite3 anyway: buildable wherever npm installs
    missing: () => undefined,
    command: () => [process.execPath, ['scripts/build-native.mjs']],
  },
];

function readStamp() {
  try {
    return JSON.parse(readFileSync(STAMP, 'utf8'));
  } catch {
    return {};
  }
}

function hashOf(sources) {
  const hash = createHash('sha256');
  for (const f of sources)
    hash
      .update(`${f}\0`)
      .update(readFileSync(join(root, f)))
      .update('\0');
  return hash.digest('hex');
}

const mtime = (f) => statSync(join(root, f)).mtimeMs;

/** Why a part must be built (a short phrase), or undefined when it is up to date. */
export function staleness(part, stamp = readStamp()) {
  const sources = part.sources();
  const outputs = part.outputs(sources);
  const absent = outputs.find((f) => !existsSync(join(root, f)));
  if (absent) return `${absent} is missing`;
  const oldest = Math.min(...outputs.map(mtime));
  const newer = sources.filter((f) => mtime(f) > oldest);
  if (newer.length === 0) return undefined;
  // Times say stale; the same sources as at the last build, and nothing written since, say otherwise.
  const last = stamp[part.name];
  if (last && Math.max(...outputs.map(mtime)) <= last.at && last.hash === hashOf(sources)) return undefined;
  return `${newer[0]}${newer.length > 1 ? ` and ${newer.length - 1} more source(s)` : ''} changed since it was built`;
}

function build(part) {
  const [command, args] = part.command();
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`build: ${part.what} failed (${result.error?.message ?? `exit ${result.status}`})`);
    process.exit(1);
  }
  // A build part whose output is not newer than its sources (a clock behind, a coarse file system) is still current.
  const stamp = readStamp();
  const sources = part.sources();
  const at = Math.max(Date.now(), ...part.outputs(sources).map(mtime));
  stamp[part.name] = { hash: hashOf(sources), at };
  writeFileSync(STAMP, `${JSON.stringify(stamp, null, 2)}\n`);
}

function main(argv) {
  const ifStale = argv.includes('--if-stale');
  const atInstall = argv.includes('--at-install');
  for (const part of PARTS) {
    const why = ifStale ? staleness(part) : 'asked for';
    if (!why) continue;
    const missing = part.missing();
    if (missing) {
      const line =
        `onegraph: ${part.what} is out of date (${why}) and cannot be built here: ${missing} (dev dependencies) ` +
        'are not installed. Build where they are (`npm ci && npm run build`), then drop them (`npm prune --omit=dev`); ' +
        `see ${GUIDE}`;
      console.error(line);
      if (atInstall) continue;
      process.exit(1);
    }
    if (ifStale) console.error(`onegraph: building ${part.what}: ${why}`);
    build(part);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main(process.argv.slice(2));
